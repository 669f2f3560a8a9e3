"""Automatic steps retried while the store is down (issue 12, item 11): the log gets one
traceback and then a line a minute, not one per try; a search bot whose move could not
be written plays the same move when retried, without searching again.

The same against a real server with a full disk: tests/test_server_disk_full.py.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from cirulla.store import Store
from cirulla.tables import actor as actor_module
from cirulla.tables.config import TableConfig
from cirulla.tables.failures import FailureLog
from cirulla.tables.manager import TableManager


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_failure_that_repeats_is_logged_once_then_once_a_minute_then_when_over(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    failures = FailureLog(logging.getLogger("t.failures"), "saving", every=60, clock=clock)
    caplog.set_level(logging.INFO, "t.failures")
    error = OSError(28, "No space left on device")
    for second in range(59):  # two tables, each failing every second for a minute
        clock.now = 1000.0 + second
        failures.failed("table a", error)
        failures.failed("table b", error)
    assert len(caplog.records) == 1
    first = caplog.records[0]
    assert first.levelno == logging.ERROR and first.exc_info is not None
    assert "saving: failed (table a: OSError" in first.getMessage()
    clock.now = 1061.0
    failures.failed("table b", error)
    assert len(caplog.records) == 2
    assert "still failing, 118 failures in the last 61 s, 2 waiting" in caplog.messages[1]
    assert caplog.records[1].exc_info is None
    failures.succeeded("table a")
    assert len(caplog.records) == 2  # table b still fails
    failures.succeeded("table b")
    assert caplog.messages[2] == "saving: working again after 61 s and 119 failures"
    # a new outage: its traceback; one that flaps at once: a line, no second traceback
    clock.now = 1062.0
    failures.failed("table a", error)
    assert len(caplog.records) == 4 and caplog.records[3].exc_info is not None
    failures.succeeded("table a")
    clock.now = 1063.0
    failures.failed("table a", error)
    assert len(caplog.records) == 6 and caplog.records[5].exc_info is None
    failures.forget("table a")  # its table is gone: nothing waits any more
    assert failures.failing == frozenset()


class CountingPool:
    """A bot pool whose search is counted: the first legal move of the view."""

    def __init__(self) -> None:
        self.searches = 0

    async def move(self, game: str, level: str, seed: int, view: dict[str, Any]) -> str:
        self.searches += 1
        moves: list[str] = view["legal_moves"]
        return moves[0]


class FailingAppends:
    """The store, but its next `left` appends fail (a full disk)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.left = 0

    async def append(self, *args: Any, **kwargs: Any) -> None:
        if self.left > 0:
            self.left -= 1
            raise OSError(28, "No space left on device")
        await self.store.append(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def _bot_retries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(actor_module, "RETRY_SECONDS", 0.01)
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'retries.db'}")
    failing = FailingAppends(store)
    pool = CountingPool()
    manager = TableManager(failing, bot_delay=0.2, deal_pause=0, test_mode=True, bots=pool)  # type: ignore[arg-type]
    try:
        anna = await store.create_user("anna", None, guest=True)
        config = TableConfig(players=2, bots={1: "campione"})
        # dealer 0: the bot, seat 1, moves first, 0.2 s after the table starts
        actor, _ = await manager.opening.create(anna.id, anna.name, config, seat=0, dealer=0)
        failing.left = 3  # (at once: the bot's timer has not run yet)
        start = actor.state.version
        assert actor.state.to_move == 1
        async with asyncio.timeout(30):
            while len(actor.records) == start:  # (the state moves before its write)
                await asyncio.sleep(0.01)
        assert failing.left == 0  # three writes failed, then the move went through
        assert actor.records[start].type == "move" and actor.records[start].data["by"] == "bot"
        assert pool.searches == 1
        assert f"table {actor.id}" not in actor_module.AUTOMATIC.failing
    finally:
        manager.close()
        await store.close()


def test_a_bot_whose_move_was_not_written_plays_it_again_without_searching(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asyncio.run(asyncio.wait_for(_bot_retries(tmp_path, monkeypatch), 60))
