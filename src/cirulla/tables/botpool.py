"""Where the search bots think: worker processes, away from the event loop.

Why processes: the search bots (Cirulla's `campione`, ISMCTS; Cirulo's `difficile` and
`campione`, a determinized search) are pure Python, and a search holds the
interpreter's lock (the GIL) for nearly all of its second. Run in threads, as they
were, they share that lock with the event loop that reads every socket: 12 tables of
three `campione` bots took an idle client's ping from under a millisecond to 0.7-0.9 s
at the 99th percentile on two cores (benchmarks/bot_latency.py; in workers: 12-22 ms,
with a median of 0.7 ms). In a worker process each
search has an interpreter of its own; the server's process only sends it the seat's
view and reads back a move. The workers run at a lower priority (`WORKER_NICE`), so
that when there are fewer cores than workers plus the server, the people come first.

What goes to a worker is what a bot may see and how to make it: the game's name, the
level, a seed and the seat's view (a dict). The bot is made in the worker for each
move from a seed the table derives for that move (making one costs microseconds
against the search's second), so a move does not depend on which worker played the
ones before it, and a worker holds nothing of a table between moves.

The fallback: a move waits at most `queue_seconds` for a free worker and then at most
the search's budget plus `grace` for its answer. A move that is not answered in time
(every worker busy with other tables, a worker that crashed, hung or was killed, a
broken pool) is played by the cheap bot of the game (`GameKind.fallback_level`: the
`difficile` expert for Cirulla) on the same view in the server's process, which
takes well under a millisecond, and is logged; a pool that broke or let a move time
out is replaced by a new one. A bot's turn never stalls a table.

The workers are started by a fork server (a clean process started afresh, not a
fork of the server with its event loop and threads). They do not outlive the server,
however it ends (a SIGKILL runs none of its shutdown): a thread in each worker waits
on a pidfd of the server's process (Linux; elsewhere it looks every second) and ends
the worker when the server is gone; the fork server and its resource tracker end when
the last process holding their pipes does.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
import multiprocessing
import multiprocessing.synchronize
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, TypeVar

from .games import kind_of

__all__ = ["BotPool", "default_workers", "think"]

log = logging.getLogger("cirulla.bots")

T = TypeVar("T")

#: How much lower a worker's scheduling priority is than the server's (nice(2)).
WORKER_NICE: Final = 5
#: Seconds a move may take beyond its search budget before its table gives up on it.
GRACE_SECONDS: Final = 5.0
#: Seconds a move may wait for a free worker before the cheap bot plays it instead.
QUEUE_SECONDS: Final = 5.0
#: Seconds a starting worker waits for the others (then it serves anyway).
START_SECONDS: Final = 30.0


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def think(game: str, level: str, seed: int, view: dict[str, Any], max_seconds: float) -> str:
    """A bot's move on a seat's view (this runs in a worker process)."""
    kind = kind_of(game)
    bot = kind.bot(level, seed, max_seconds=max_seconds)
    return kind.bot_move(bot, view)


#: The start-up barrier a worker was given (`_ready` waits at it; unused after start-up).
_start: multiprocessing.synchronize.Barrier | None = None


def _ready() -> int:
    """Held until every worker of the pool has started: the executor starts a worker
    only when none is idle, so a worker done with its first task before the next is
    submitted (a loaded machine) would leave the pool a worker short."""
    if _start is not None:
        with contextlib.suppress(threading.BrokenBarrierError):
            _start.wait(timeout=START_SECONDS)
    return os.getpid()


def _worker_init(server: int, start: multiprocessing.synchronize.Barrier) -> None:
    """Each worker: die with the server, leave Ctrl-C to it, and yield the CPU to it."""
    global _start
    _start = start
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server's shutdown ends the workers
    threading.Thread(target=_exit_with, args=(server,), daemon=True).start()
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICE)


def _exit_with(server: int) -> None:
    """End this worker when the server's process ends, however it ends (SIGKILL too)."""
    try:
        fd = os.pidfd_open(server)  # Linux: readable once that very process has exited
    except ProcessLookupError:
        os._exit(0)
    except (AttributeError, OSError):  # no pidfd here: look every second
        while _running(server):
            time.sleep(1.0)
        os._exit(0)
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    poller.poll()
    os._exit(0)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class BotPool:
    """Worker processes for the search bots; see the module docstring.

    `move` always returns a move: the search's, or the cheap bot's when the workers
    cannot answer in time."""

    def __init__(
        self,
        workers: int = 0,
        move_seconds: float = 1.0,
        *,
        grace: float = GRACE_SECONDS,
        queue_seconds: float = QUEUE_SECONDS,
    ) -> None:
        if workers < 0 or not move_seconds > 0:
            raise ValueError("a bot pool needs workers >= 0 (0: one per core) and move_seconds > 0")
        self.workers = workers or default_workers()
        self.move_seconds = move_seconds
        self.grace = grace
        self.queue_seconds = queue_seconds
        self._ctx = multiprocessing.get_context(
            "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        )
        if self._ctx.get_start_method() == "forkserver":
            # the fork server imports the bots once; each worker is a fork of it
            self._ctx.set_forkserver_preload([__name__])
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        # a move waits here for a free worker, so that its time limit counts its search only
        self._slots = asyncio.Semaphore(self.workers)
        self._starting = asyncio.Lock()
        self._closed = False
        self.fallbacks = 0  # moves the cheap bot played instead (for tests and logs)
        self.replaced = 0  # pools replaced after a failure

    # ---- life ---------------------------------------------------------------------------
    def _new_executor(self) -> concurrent.futures.ProcessPoolExecutor:
        """A new executor with every worker started (this blocks: not on the event loop)."""
        start = self._ctx.Barrier(self.workers)
        executor = concurrent.futures.ProcessPoolExecutor(
            self.workers,
            mp_context=self._ctx,
            initializer=_worker_init,
            initargs=(os.getpid(), start),
        )
        futures = [executor.submit(_ready) for _ in range(self.workers)]
        concurrent.futures.wait(futures, timeout=START_SECONDS + 30)
        return executor

    async def start(self) -> None:
        """Start the workers (at start-up, so that the first move does not wait for them)."""
        await self._ensure()
        log.info("bot pool: %d worker processes", self.workers)

    async def _ensure(self) -> concurrent.futures.ProcessPoolExecutor:
        """The executor, started (again, after a failure) if need be, by one table at a time."""
        if self._closed:
            raise RuntimeError("the bot pool is closed")
        async with self._starting:
            if self._executor is None:
                self._executor = await asyncio.to_thread(self._new_executor)
                if self._closed:  # closed while starting
                    executor, self._executor = self._executor, None
                    await asyncio.to_thread(_stop, executor)
                    raise RuntimeError("the bot pool is closed")
            return self._executor

    async def close(self) -> None:
        """Stop the workers: searches still running are cut off."""
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(_stop, executor)

    def worker_pids(self) -> list[int]:
        """The process ids of the workers now running (for tests and operators)."""
        executor = self._executor
        return sorted(getattr(executor, "_processes", None) or {}) if executor else []

    def _replace(self, broken: concurrent.futures.ProcessPoolExecutor) -> None:
        """Drop a pool that broke or let a move time out (its workers are killed); the
        next move starts a new one."""
        if self._executor is not broken:
            return  # another table's failure replaced it already
        self.replaced += 1
        self._executor = None
        threading.Thread(target=_stop, args=(broken,), daemon=True).start()
        log.warning("bot pool: replacing the worker processes")

    # ---- moves --------------------------------------------------------------------------
    async def move(self, game: str, level: str, seed: int, view: dict[str, Any]) -> str:
        """The move of a search bot of `level` on a seat's `view` (see the fallback above)."""
        kind = kind_of(game)
        try:
            return await self._search(game, level, seed, view)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a crash, a hang, a full queue: the table still moves
            self.fallbacks += 1
            log.warning(
                "bot pool: a %s %s move played by the %s bot instead: %s",
                game,
                level,
                kind.fallback_level,
                str(exc) or type(exc).__name__,
            )
            return kind.bot_move(kind.bot(kind.fallback_level, seed), view)

    async def _search(self, game: str, level: str, seed: int, view: dict[str, Any]) -> str:
        job = functools.partial(think, game, level, seed, view, self.move_seconds)
        return await self.call(job, self.move_seconds)

    async def call(self, job: Callable[[], T], seconds: float) -> T:
        """Run `job` (picklable: a module-level function or a partial of one) in a
        worker: a table's move (`move`, which falls back on the cheap bot) or other work,
        the coach's analyses and hints. It waits for a free worker (TimeoutError after
        `queue_seconds`) and gives up on an answer after `seconds` plus the grace
        (TimeoutError; the pool is replaced); the caller says what failed."""
        try:
            async with asyncio.timeout(self.queue_seconds):
                await self._slots.acquire()
        except TimeoutError:
            raise TimeoutError("every bot worker is busy") from None
        try:
            executor = await self._ensure()
            try:
                future = executor.submit(job)
                async with asyncio.timeout(seconds + self.grace):
                    return await asyncio.wrap_future(future)
            except TimeoutError:
                self._replace(executor)
                raise TimeoutError("a bot worker did not answer in time") from None
            except BrokenProcessPool:
                self._replace(executor)
                raise
        finally:
            self._slots.release()


def _stop(executor: concurrent.futures.ProcessPoolExecutor) -> None:
    """Shut an executor down and kill its workers (a search may still be running)."""
    processes = list(getattr(executor, "_processes", None) or {})  # (before shutdown drops them)
    executor.shutdown(wait=False, cancel_futures=True)
    for pid in processes:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        executor.shutdown(wait=True)
