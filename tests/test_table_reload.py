"""A table whose stored log is ahead of it reads the log again instead of refusing every
write for good (issue 12, item 11): a write whose answer was lost may have committed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from cirulla.store import Store
from cirulla.tables.actor import TableActor
from cirulla.tables.config import TableConfig
from cirulla.tables.manager import TableManager
from cirulla.tables.state import TableError, TableState


class Watcher:
    """A subscriber that keeps the frames it is sent."""

    def __init__(self, user: str) -> None:
        self.user: str | None = user
        self.frames: list[dict[str, Any]] = []

    def deliver(self, frame: dict[str, Any]) -> None:
        self.frames.append(frame)


async def _scenario(tmp_path: Path) -> None:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'reload.db'}")
    manager = TableManager(store, bot_delay=0, deal_pause=0)
    try:
        anna = await store.create_user("anna", None, guest=True)
        bruno = await store.create_user("bruno", None, guest=True)
        carla = await store.create_user("carla", None, guest=True)
        actor, _ = await manager.opening.create(anna.id, anna.name, TableConfig(players=2), seat=0)
        watcher = Watcher(anna.id)
        await actor.join(watcher, None)
        behind = actor.state.version
        # The same log, written on by another actor: what a write whose answer was lost
        # (or a node that took the table over) leaves in the store.
        records = await store.load_log(actor.id)
        other = TableActor(
            TableState.from_log(actor.id, records, await store.load_secrets(actor.id)),
            records,
            store,
            deal_pause=0,
        )
        await other.sit(bruno.id, bruno.name, None, True, other.state.version)
        other.close()
        ahead = other.state.version
        assert ahead > behind + 1  # sat, started, committed

        with pytest.raises(TableError) as refused:
            await actor.sit(carla.id, carla.name, None, True, behind)
        assert refused.value.code == "stale"
        assert actor.state.version == ahead and actor.state.status == "playing"
        assert [r.hash for r in actor.records] == [r.hash for r in other.records]
        versions = [f["version"] for f in watcher.frames if f["type"] == "event"]
        assert versions[-(ahead - behind) :] == list(range(behind + 1, ahead + 1))
        # and the table goes on: the seat to move plays against the version it now shows
        seat = actor.state.to_move
        assert seat is not None and actor.state.game is not None
        player = anna if seat == 0 else bruno
        move = actor.state.game.deal.legal_moves()[0]
        assert await actor.play(player.id, str(move), ahead) > ahead
    finally:
        manager.close()
        await store.close()


def test_a_table_behind_its_stored_log_reads_it_again_and_answers_stale(tmp_path: Path) -> None:
    asyncio.run(asyncio.wait_for(_scenario(tmp_path), 60))
