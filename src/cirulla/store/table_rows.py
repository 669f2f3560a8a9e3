"""The store's tables as rows: a table's settings, status and seats, and which tables
to restore when the server starts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import or_, select

from .base import StoreBase, _Row, records_t, seats_t, tables

#: The statuses of tables that are restored when the server starts.
LIVE_STATUSES: Final = ("open", "playing")


@dataclass(frozen=True, slots=True)
class TableRow:
    id: str
    game: str
    config: dict[str, Any]
    status: str
    private: bool
    invite_hash: str | None
    owner: str | None
    version: int
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    user_id: str | None
    bot: str | None
    name: str


def _table(row: _Row) -> TableRow:
    return TableRow(
        row.id,
        row.game,
        dict(row.config),
        row.status,
        bool(row.private),
        row.invite_hash,
        row.owner,
        row.version,
        row.created_at,
        row.updated_at,
    )


_TABLE_COLUMNS: Final = tuple(c for c in tables.c if c.name != "last_hash")


class TableQueries(StoreBase):
    """`Store`'s reads of table rows and seats."""

    async def get_table(self, table_id: str) -> TableRow | None:
        async with self._read() as conn:
            row = (
                await conn.execute(select(*_TABLE_COLUMNS).where(tables.c.id == table_id))
            ).first()
        return None if row is None else _table(row)

    async def get_seats(self, table_id: str) -> list[SeatRow]:
        """The table's seat rows as last written by `append`, by seat."""
        async with self._read() as conn:
            rows = await conn.execute(
                select(seats_t.c.seat, seats_t.c.user_id, seats_t.c.bot, seats_t.c.name)
                .where(seats_t.c.table_id == table_id)
                .order_by(seats_t.c.seat)
            )
            return [SeatRow(r.seat, r.user_id, r.bot, r.name) for r in rows]

    async def live_tables(self) -> list[TableRow]:
        """Tables open or in play: the ones to restore when the server starts."""
        async with self._read() as conn:
            rows = await conn.execute(
                select(*_TABLE_COLUMNS)
                .where(tables.c.status.in_(LIVE_STATUSES))
                .order_by(tables.c.created_at, tables.c.id)
            )
            return [_table(r) for r in rows]

    async def live_tables_of(self, user_id: str) -> list[TableRow]:
        """Tables open or in play that `user_id` made or sits at (the limits per account)."""
        seated = select(seats_t.c.table_id).where(seats_t.c.user_id == user_id)
        async with self._read() as conn:
            rows = await conn.execute(
                select(*_TABLE_COLUMNS).where(
                    tables.c.status.in_(LIVE_STATUSES),
                    or_(tables.c.owner == user_id, tables.c.id.in_(seated)),
                )
            )
            return [_table(r) for r in rows]

    async def ended_since(self, since: datetime) -> list[TableRow]:
        """Tables that finished or closed after `since`: still reachable for their clients
        for a while after a restart."""
        async with self._read() as conn:
            rows = await conn.execute(
                select(*_TABLE_COLUMNS)
                .where(tables.c.status.in_(("finished", "closed")), tables.c.updated_at >= since)
                .order_by(tables.c.created_at, tables.c.id)
            )
            return [_table(r) for r in rows]

    async def finished_without_record(self) -> list[TableRow]:
        """Finished tables whose record was never saved (a crash right after the end)."""
        async with self._read() as conn:
            rows = await conn.execute(
                select(*_TABLE_COLUMNS)
                .where(
                    tables.c.status == "finished",
                    ~select(records_t.c.table_id)
                    .where(records_t.c.table_id == tables.c.id)
                    .exists(),
                )
                .order_by(tables.c.created_at, tables.c.id)
            )
            return [_table(r) for r in rows]
