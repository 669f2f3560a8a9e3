"""Finished partite whose record was never saved, saved while the server runs.

A table writes its end to its log and then saves the partita's record. Between the
two a node can die, or the database can refuse the save (a full disk, an outage): the
log still says how it ended, and the record (with the history, ratings and profiles
fed by it) would wait for the next start-up. This sweep saves such records within
about a minute instead, on any node: a save is idempotent, and in a cluster the
table's lease is claimed first, so a live owner (saving it itself) is left alone.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Final

from .failures import FailureLog

if TYPE_CHECKING:
    from .manager import TableManager

__all__ = ["RECORD_SWEEP_SECONDS", "RecordKeeper"]

log = logging.getLogger("cirulla.tables")

#: How often the store is asked for finished tables without a record.
RECORD_SWEEP_SECONDS: Final = 30.0


class RecordKeeper:
    """The periodic sweep that saves the missing records of finished partite."""

    def __init__(self, manager: TableManager, period: float = RECORD_SWEEP_SECONDS) -> None:
        self.manager = manager
        self.period = period
        self._task: asyncio.Task[None] | None = None
        self._failures = FailureLog(log, "saving missing records")

    async def sweep(self) -> int:
        """Save every missing record this node can; how many were saved."""
        manager = self.manager
        saved = 0
        for row in await manager.store.finished_without_record():
            actor = manager.tables.get(row.id)
            if actor is not None:  # finished here: its own save failed
                if actor.state.status == "finished":
                    await actor.save_record()
                    manager.tell_end(actor)
                    saved += 1
                continue
            cluster = manager.cluster
            if cluster is not None and not await cluster.bus.claim(row.id):
                continue  # its owner is alive (and saves it), or another node does it now
            actor = await manager.rebuild(row)
            if actor is None:
                continue
            try:
                await actor.save_record()
                manager.tell_end(actor)
                saved += 1
            finally:
                actor.close()
                if manager.tables.get(row.id) is actor:
                    del manager.tables[row.id]
                if cluster is not None:
                    await cluster.bus.release(row.id)
        if saved:
            log.info("saved %d missing records", saved)
        return saved

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._loop())

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.period)
            try:
                await self.sweep()
            except Exception as exc:
                self._failures.failed("sweep", exc)
            else:
                self._failures.succeeded("sweep")

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
