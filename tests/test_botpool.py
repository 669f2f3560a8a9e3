"""The search bots' worker processes (cirulla.tables.botpool), driven in this process:
a move comes back from a worker, and a worker that dies, hangs or is too busy costs the
table nothing but a cheaper move (the fallback bot's), after which the pool works again.

These run real worker processes (a pool of one); a worker is killed or stopped with a
signal, as the operating system would. Timings are generous: the machine may be busy.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import signal
import time
from collections.abc import Callable
from typing import Any

import pytest

from cirulla import Deal, Rules
from cirulla.cirulo import CiruloRules
from cirulla.cirulo import Game as CiruloGame
from cirulla.tables.botpool import BotPool, default_workers, think
from cirulla.tables.games import CirullaKind, CiruloKind, kind_of


def cirulla_view(seed: int = 3) -> dict[str, Any]:
    deal = Deal(Rules.preset("cirulla"), players=4, dealer=0, seed=seed)
    assert deal.to_move is not None
    return deal.view(deal.to_move)


def cirulo_view(seed: int = 5) -> dict[str, Any]:
    deal = CiruloGame(CiruloRules(), 4, seed=seed).deal
    assert deal.to_move is not None
    return dict(deal.view(deal.to_move))


def run(coro_fn: Callable[[], Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coro_fn(), 120))


def gone(pid: int) -> bool:
    """The process has exited (and been reaped), or is a zombie waiting to be."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):  # reaped between open and read
        return True


def wait_until(condition: Callable[[], bool], timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_levels_that_search_are_the_ones_sent_to_workers_with_their_budget_capped() -> None:
    cirulla, cirulo = CirullaKind(), CiruloKind()
    levels = ("facile", "normale", "difficile", "campione")
    assert [lv for lv in levels if cirulla.searches(lv)] == ["campione"]
    assert [lv for lv in levels if cirulo.searches(lv)] == ["difficile", "campione"]
    assert not cirulla.searches(cirulla.fallback_level)
    assert not cirulo.searches(cirulo.fallback_level)
    bot = cirulla.bot("campione", 1)
    assert (bot.budget.iterations, bot.budget.seconds) == (3000, 1.0)
    capped = cirulla.bot("campione", 1, max_seconds=0.25)
    assert (capped.budget.iterations, capped.budget.seconds) == (3000, 0.25)
    assert cirulla.bot("campione", 1, max_seconds=5).budget.seconds == 1.0  # never raised
    assert cirulo.bot("campione", 1, max_seconds=0.25).budget.seconds == 0.25
    assert default_workers() >= 1


def test_a_worker_plays_the_same_move_as_the_bot_made_here_for_that_seed() -> None:
    view = cirulo_view()
    here = think("cirulo", "difficile", 42, view, 30.0)  # 100 playouts: fixed by the seed

    async def main() -> tuple[str, str, list[int]]:
        pool = BotPool(1, move_seconds=30.0)
        await pool.start()
        try:
            moved = await pool.move("cirulo", "difficile", 42, view)
            pids = pool.worker_pids()
            campione = await pool.move("cirulla", "campione", 7, cirulla_view())
            assert pool.fallbacks == 0
            return moved, campione, pids
        finally:
            await pool.close()

    moved, campione, pids = run(main)
    assert moved == here
    assert campione in cirulla_view()["legal_moves"]
    assert len(pids) == 1 and pids[0] != os.getpid()
    assert wait_until(lambda: gone(pids[0])), "close() ends the workers"


def test_every_worker_starts_even_when_the_first_is_idle_before_the_next_is_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The executor starts a worker on a submit only if none is idle: a slow submit (a
    # loaded machine) gives the first worker time to finish its start-up task, and
    # without the start-up barrier the pool would keep one worker.
    submit = concurrent.futures.ProcessPoolExecutor.submit

    def slow_submit(self: Any, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        future = submit(self, fn, *args, **kwargs)
        time.sleep(1.0)
        return future

    monkeypatch.setattr(concurrent.futures.ProcessPoolExecutor, "submit", slow_submit)

    async def main() -> list[int]:
        pool = BotPool(2, move_seconds=30.0)
        await pool.start()
        try:
            return pool.worker_pids()
        finally:
            await pool.close()

    pids = run(main)
    assert len(pids) == 2, f"two workers started, not {pids}"
    assert wait_until(lambda: all(gone(p) for p in pids)), "close() ends the workers"


def test_a_worker_killed_mid_move_gives_the_fallback_bots_move_and_a_new_pool() -> None:
    view = cirulla_view()
    kind = kind_of("cirulla")
    cheap = kind.bot_move(kind.bot(kind.fallback_level, 11), view)

    async def main() -> None:
        pool = BotPool(1, move_seconds=1.0, grace=60.0)
        await pool.start()
        try:
            [pid] = pool.worker_pids()
            # Stopped first, so the move cannot finish before the kill however fast the
            # search is (the compiled build's takes well under the 0.2 s waited here).
            os.kill(pid, signal.SIGSTOP)
            moving = asyncio.create_task(pool.move("cirulla", "campione", 11, view))
            await asyncio.sleep(0.2)  # the move is handed to the stopped worker
            os.kill(pid, signal.SIGKILL)
            assert await moving == cheap
            assert (pool.fallbacks, pool.replaced) == (1, 1)
            again = await pool.move("cirulla", "campione", 12, view)  # a new worker
            assert again in view["legal_moves"]
            assert pool.fallbacks == 1
            assert pool.worker_pids() and pool.worker_pids() != [pid]
        finally:
            await pool.close()

    run(main)


def test_a_hung_worker_times_out_and_a_move_waiting_for_it_does_not_wait_long() -> None:
    view = cirulla_view()
    kind = kind_of("cirulla")

    async def main() -> None:
        pool = BotPool(1, move_seconds=0.2, grace=1.5, queue_seconds=0.5)
        await pool.start()
        try:
            [pid] = pool.worker_pids()
            os.kill(pid, signal.SIGSTOP)  # hung: alive, but it never answers
            started = time.monotonic()
            first = asyncio.create_task(pool.move("cirulla", "campione", 1, view))
            await asyncio.sleep(0.05)
            second = await pool.move("cirulla", "campione", 2, view)  # no free worker
            waited = time.monotonic() - started
            assert second == kind.bot_move(kind.bot(kind.fallback_level, 2), view)
            assert waited < 1.5, f"the second move waited {waited:.1f} s for a worker"
            assert await first == kind.bot_move(kind.bot(kind.fallback_level, 1), view)
            assert (pool.fallbacks, pool.replaced) == (2, 1)
            assert await asyncio.to_thread(wait_until, lambda: gone(pid)), "the hung one is killed"
            assert await pool.move("cirulla", "campione", 3, view) in view["legal_moves"]
            assert pool.fallbacks == 2
        finally:
            await pool.close()

    run(main)


def test_a_closed_pool_still_answers_with_the_fallback_bot() -> None:
    view = cirulla_view()

    async def main() -> str:
        pool = BotPool(1)
        await pool.close()
        return await pool.move("cirulla", "campione", 1, view)

    assert run(main) in view["legal_moves"]


@pytest.mark.parametrize("workers, seconds", [(-1, 1.0), (1, 0.0)])
def test_a_pool_needs_sane_sizes(workers: int, seconds: float) -> None:
    with pytest.raises(ValueError):
        BotPool(workers, seconds)
