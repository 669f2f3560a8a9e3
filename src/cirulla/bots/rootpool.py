"""Root parallelism for the search bots: independent searches in worker processes.

Each worker runs the whole search with its own seed (`search.worker_root_visits`);
the caller adds up the root visits. The pool is shared by every bot of the
process and made on first use; where a process may not have children (a daemonic
worker, such as the arena's with --processes above 1) or the pool fails, the
searches run one after the other here instead, sharing the budget's seconds (with a
budget in iterations alone, the same results).
"""

from __future__ import annotations

import atexit
import multiprocessing
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from .base import Budget

__all__ = ["search_in_parallel", "shutdown"]

_pool: ProcessPoolExecutor | None = None
_pool_size = 0

Result = tuple[list[str], list[int], int]


def _executor(size: int) -> ProcessPoolExecutor | None:
    global _pool, _pool_size
    if multiprocessing.current_process().daemon:
        return None
    if _pool is None or _pool_size < size:
        shutdown()
        # spawn, not fork: the server's processes run threads, which fork would copy mid-step.
        _pool = ProcessPoolExecutor(size, mp_context=multiprocessing.get_context("spawn"))
        _pool_size = size
    return _pool


def shutdown() -> None:
    """Stop the worker processes (made again on the next use)."""
    global _pool, _pool_size
    if _pool is not None:
        _pool.shutdown(wait=True, cancel_futures=True)
    _pool, _pool_size = None, 0


atexit.register(shutdown)


def search_in_parallel(
    view: Mapping[str, Any], seeds: Sequence[int], budget: Budget, options: Mapping[str, Any]
) -> list[Result]:
    """One search per seed of `view` (a seat's view, JSON-ready), each with the whole
    `budget`, in worker processes when it can: per search, the root moves' notation,
    their visits and the iterations done, in the order of `seeds`."""
    from .search import worker_root_visits

    pool = _executor(len(seeds))
    if pool is not None:
        view = dict(view)
        try:
            futures = [pool.submit(worker_root_visits, view, s, budget, options) for s in seeds]
            return [f.result() for f in futures]
        except (OSError, RuntimeError):  # a broken pool: fall back to this process
            shutdown()
    if budget.seconds is not None:  # one after the other: share the time, not multiply it
        budget = Budget(budget.iterations, budget.seconds / len(seeds))
    return [worker_root_visits(view, s, budget, options) for s in seeds]
