"""Open tables that expire: never started, or left with none of their players connected.

Apart from the manager because it is a periodic sweep with its own bookkeeping (since
when each open table has had none of its seated players watching it), run beside the
tables rather than by them. Tables rebuilt after a restart or a failover give their
players a grace to reconnect before they count as empty.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from .actor import TableActor, now_ms
from .failures import FailureLog
from .limits import minutes

if TYPE_CHECKING:
    from .manager import TableManager

__all__ = ["REJOIN_GRACE_SECONDS", "Expiry"]

log = logging.getLogger("cirulla.tables")

#: After a start-up or a failover every socket reconnects: a seated player has this long
#: (or the whole empty-table time, if shorter) to come back before the table counts as empty.
REJOIN_GRACE_SECONDS = 15.0


class Expiry:
    """The sweep that closes the manager's expired open tables (the "limits" settings)."""

    def __init__(self, manager: TableManager) -> None:
        self.manager = manager
        #: Open tables none of whose seated players watches them: since when (ms).
        self._unwatched: dict[str, int] = {}
        self._sweeper: asyncio.Task[None] | None = None
        #: Closing tables while the store is down fails at every sweep: logged once.
        self.failures = FailureLog(log, "closing expired tables")
        self._sweeps = FailureLog(log, "sweeping expired tables")

    def created(self, table_id: str) -> None:
        """A table made over HTTP: nobody watches it yet."""
        self._unwatched[table_id] = now_ms()
        self.soon()

    def watch_from_log(self, actor: TableActor) -> None:
        """A table rebuilt here (start-up, failover) counts as unwatched since its last
        record, but its players get REJOIN_GRACE_SECONDS to reconnect first."""
        limits = self.manager.limits
        empty_ms = int(limits.empty_table_seconds * 1000)
        grace_ms = int(min(limits.empty_table_seconds, REJOIN_GRACE_SECONDS) * 1000)
        last = actor.records[-1].at
        self._unwatched[actor.id] = max(last, now_ms() - empty_ms + grace_ms)

    def _expiry(self, actor: TableActor, now: int) -> str | None:
        """Why an open table should close now, or None."""
        st = actor.state
        limits = self.manager.limits
        if now - actor.records[0].at > limits.open_table_seconds * 1000:
            return f"not started within {minutes(limits.open_table_seconds)}"
        if any(s.user is not None and st.seat_of(s.user) is not None for s in actor.subscribers):
            self._unwatched.pop(actor.id, None)  # a seated player watches it
            return None
        since = self._unwatched.setdefault(actor.id, now)
        if now - since > limits.empty_table_seconds * 1000:
            return f"no player at the table for {minutes(limits.empty_table_seconds)}"
        return None

    async def sweep(self) -> None:
        """Close the open tables that expired: not started within `open_table_seconds`, or
        with none of their seated players connected for `empty_table_seconds`."""
        tables = self.manager.tables
        self.manager.lobby_board.forget_gone()  # (tables whose lease another node took)
        for gone in [t for t in self._unwatched if t not in tables]:
            self._unwatched.pop(gone, None)
        for gone in [t for t in self.failures.failing if t not in tables]:
            self.failures.forget(gone)
        for actor in list(tables.values()):
            if actor.state.status != "open":
                self._unwatched.pop(actor.id, None)
                continue
            if self._expiry(actor, now_ms()) is None:
                continue
            async with actor._lock:
                reason = self._expiry(actor, now_ms())  # again, in turn with its commands
                if reason is None or actor.state.status != "open":
                    continue
                if tables.get(actor.id) is not actor:
                    continue  # its lease moved to another node meanwhile
                try:
                    await actor._commit([("closed", {"reason": reason})])
                except Exception as exc:  # the store is down: the next sweep tries again
                    self.failures.failed(actor.id, exc)
                    continue
            self.failures.succeeded(actor.id)
            self._unwatched.pop(actor.id, None)
            log.info("closed table %s: %s", actor.id, reason)

    def soon(self) -> None:
        """Start the periodic sweep (once, on the running loop)."""
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.create_task(self._loop())

    async def _loop(self) -> None:
        limits = self.manager.limits
        shortest = min(limits.empty_table_seconds, limits.open_table_seconds)
        period = max(0.2, min(5.0, shortest / 5))
        while True:
            await asyncio.sleep(period)
            try:
                await self.sweep()
            except Exception as exc:  # one bad table must not stop the sweep
                self._sweeps.failed("sweep", exc)
            else:
                self._sweeps.succeeded("sweep")

    def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
