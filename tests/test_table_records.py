"""A finished partita whose record could not be saved (the database refused it, or the
node died between the end and the save) gets it from the running server's sweep, and
its end listeners (ratings, statistics) are told, without waiting for a restart."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sqlalchemy import text

from cirulla.store import Store
from cirulla.tables.actor import TableActor
from cirulla.tables.config import TableConfig
from cirulla.tables.manager import TableManager


class FailingSaves:
    """The store, but its next `left` record saves fail (a full disk)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.left = 0

    async def save_record(self, *args: Any, **kwargs: Any) -> None:
        if self.left > 0:
            self.left -= 1
            raise OSError(28, "No space left on device")
        await self.store.save_record(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def _missing_records(tmp_path: Path) -> None:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'records.db'}")
    failing = FailingSaves(store)
    manager = TableManager(failing, bot_delay=60, deal_pause=0)  # type: ignore[arg-type]
    told: list[str] = []

    async def listener(actor: TableActor) -> None:
        told.append(actor.id)

    manager.end_listeners.append(listener)
    try:
        anna = await store.create_user("anna", None, guest=True)
        ugo = await store.create_user("ugo", None, guest=True)
        config = TableConfig(players=2)
        kept, _ = await manager.opening.create(anna.id, anna.name, config, seat=0)
        await kept.sit(ugo.id, ugo.name, 1, True)
        failing.left = 1
        await kept.abandon(anna.id)  # E6: finished, and its record refused
        lost, _ = await manager.opening.create(ugo.id, ugo.name, config, seat=0)
        await lost.sit(anna.id, anna.name, 1, True)
        await lost.abandon(ugo.id)  # saved; then lost as if its node had died before the save
        async with store._write() as conn:
            await conn.execute(text("DELETE FROM records WHERE table_id = :t"), {"t": lost.id})
        lost.close()
        del manager.tables[lost.id]
        missing = {row.id for row in await store.finished_without_record()}
        assert missing == {kept.id, lost.id}
        told.clear()

        assert await manager.record_keeper.sweep() == 2
        assert await store.finished_without_record() == []
        for table in (kept, lost):
            record = await store.get_record(table.id)
            assert record is not None and record["game"]["end_reason"] == "abandon"
        async with asyncio.timeout(10):
            while sorted(told) != sorted([kept.id, lost.id]):
                await asyncio.sleep(0.01)
        assert lost.id not in manager.tables  # rebuilt to be saved, then let go
        assert await manager.record_keeper.sweep() == 0
    finally:
        manager.close()
        await store.close()


def test_a_record_not_saved_at_the_end_is_saved_by_the_running_server(tmp_path: Path) -> None:
    asyncio.run(asyncio.wait_for(_missing_records(tmp_path), 60))
