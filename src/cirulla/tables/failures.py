"""Failures that repeat until a service comes back, logged without flooding the log.

While the database, the disk or Redis is down, every table's bot, clock and deal, the
sweep of expired tables and the cluster's loops retry about once a second; a
traceback for each try filled the log with thousands of copies of one cause. A
`FailureLog` logs the first failure with its traceback, then one line every
`every` seconds counting the failures since, and one line when it works again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

__all__ = ["FailureLog", "short"]


def short(exc: BaseException) -> str:
    """An exception in one line: its type and the first line of its text."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:200]}" if lines else type(exc).__name__


class FailureLog:
    """One kind of retried work (`what`), done for many keys (tables, jobs).

    The first failure after everything worked is logged with its traceback (at most
    one traceback every `every` seconds, should it work and fail again at once);
    while any key keeps failing, one line every `every` seconds says how many
    failures there were since; when the last failing key works again (or is
    forgotten, its table gone), one line says so."""

    def __init__(
        self,
        logger: logging.Logger,
        what: str,
        *,
        every: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.what = what
        self.every = every
        self._clock = clock
        self._failing: set[str] = set()
        self._since = 0.0  # when the keys began failing
        self._total = 0  # failures since then
        self._count = 0  # failures since the last line
        self._said = float("-inf")  # when the last line was logged
        self._traced = float("-inf")  # when the last traceback was logged

    @property
    def failing(self) -> frozenset[str]:
        return frozenset(self._failing)

    def failed(self, key: str, exc: BaseException, *, trace: bool = True) -> None:
        """`key`'s work failed with `exc` (and will be tried again); `trace=False` for
        errors whose traceback says nothing (Redis refusing connections)."""
        now = self._clock()
        self._total += 1
        self._count += 1
        if not self._failing:
            self._failing.add(key)
            self._since, self._total, self._count, self._said = now, 1, 0, now
            if trace and now - self._traced >= self.every:
                self._traced = now
                self.logger.error(
                    "%s: failed (%s: %s); retrying, said again every %g s while it fails",
                    self.what,
                    key,
                    short(exc),
                    self.every,
                    exc_info=exc,
                )
            else:
                self.logger.warning("%s: failed (%s: %s); retrying", self.what, key, short(exc))
            return
        self._failing.add(key)
        if now - self._said >= self.every:
            self.logger.warning(
                "%s: still failing, %d failures in the last %.0f s, %d waiting (last, %s: %s)",
                self.what,
                self._count,
                now - self._said,
                len(self._failing),
                key,
                short(exc),
            )
            self._said, self._count = now, 0

    def succeeded(self, key: str) -> None:
        """`key`'s work went through: if it was the last one failing, say so."""
        if key not in self._failing:
            return
        self._failing.discard(key)
        if not self._failing:
            self.logger.info(
                "%s: working again after %.0f s and %d failures",
                self.what,
                self._clock() - self._since,
                self._total,
            )

    def forget(self, key: str) -> None:
        """`key` is gone (its table closed or moved): it is not waited for any more."""
        self._failing.discard(key)
