"""The store's players: each user's finished partite with their statistics.

Rows are written once per (table, user): `save` skips the rows that exist, and a
racing twin (two nodes, or the end listener and the start-up catch-up) loses on
the primary key with nothing changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, cast

from sqlalchemy import Row, and_, insert, select
from sqlalchemy import Table as SqlTable
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from .models import Record, RecordPlayerModel, TournamentModel
from .models_players import PlayerPartitaModel

if TYPE_CHECKING:
    from .db import Store

__all__ = ["PartitaRow", "PlayerStore"]

partite_t: Final = cast(SqlTable, PlayerPartitaModel.__table__)
records_t: Final = cast(SqlTable, Record.__table__)
record_players_t: Final = cast(SqlTable, RecordPlayerModel.__table__)
tournaments_t: Final = cast(SqlTable, TournamentModel.__table__)


@dataclass(frozen=True, slots=True)
class PartitaRow:
    """A user's finished partita as the profile reads it."""

    table_id: str
    user_id: str
    seat: int
    game: str
    preset: str
    players: int
    result: str  # won, lost, drawn
    people: bool
    private: bool
    forfeit: str | None
    score: str
    stats: dict[str, Any]
    ended: datetime


def _row(r: Row[Any]) -> PartitaRow:
    return PartitaRow(
        r.table_id,
        r.user_id,
        r.seat,
        r.game,
        r.preset,
        r.players,
        r.result,
        bool(r.people),
        bool(r.private),
        r.forfeit,
        r.score,
        dict(r.stats),
        r.ended,
    )


class PlayerStore:
    """Player queries on a `Store`'s engine (one transaction per method)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def save(self, rows: Sequence[PartitaRow]) -> int:
        """Write the rows not written yet; how many were new."""
        if not rows:
            return 0
        written = 0

        def body(conn: Connection) -> None:
            nonlocal written
            tables = {r.table_id for r in rows}
            have = {
                (t, u)
                for t, u in conn.execute(
                    select(partite_t.c.table_id, partite_t.c.user_id).where(
                        partite_t.c.table_id.in_(tables)
                    )
                )
            }
            new = [r for r in rows if (r.table_id, r.user_id) not in have]
            if new:
                conn.execute(
                    insert(partite_t),
                    [
                        {
                            "table_id": r.table_id,
                            "user_id": r.user_id,
                            "seat": r.seat,
                            "game": r.game,
                            "preset": r.preset,
                            "players": r.players,
                            "result": r.result,
                            "people": r.people,
                            "private": r.private,
                            "forfeit": r.forfeit,
                            "score": r.score,
                            "stats": r.stats,
                            "ended": r.ended,
                        }
                        for r in new
                    ],
                )
            written = len(new)

        try:
            await self._store._write_sync(body)
        except IntegrityError:  # a twin wrote them first: they are there, once
            return 0
        return written

    async def missing(self, limit: int = 1000) -> list[str]:
        """Tables with a saved record whose players have no rows yet (a node died
        between the end and the listener, or the partita predates this table)."""
        have = select(partite_t.c.table_id).where(
            and_(
                partite_t.c.table_id == record_players_t.c.table_id,
                partite_t.c.user_id == record_players_t.c.user_id,
            )
        )
        query = (
            select(record_players_t.c.table_id)
            .where(~have.exists())
            .group_by(record_players_t.c.table_id)
            .order_by(record_players_t.c.table_id)
            .limit(limit)
        )
        async with self._store._read() as conn:
            return [r.table_id for r in await conn.execute(query)]

    async def of_user(self, user_id: str) -> list[PartitaRow]:
        """Every row of the user, newest first (the profile sums their statistics)."""
        query = (
            select(partite_t)
            .where(partite_t.c.user_id == user_id)
            .order_by(partite_t.c.ended.desc(), partite_t.c.table_id.desc())
        )
        async with self._store._read() as conn:
            return [_row(r) for r in await conn.execute(query)]

    async def forfeits(self, user_id: str, since: datetime) -> list[tuple[datetime, str]]:
        """The user's forfeits of partite between people since `since` (for the playban)."""
        query = select(partite_t.c.ended, partite_t.c.forfeit).where(
            partite_t.c.user_id == user_id,
            partite_t.c.forfeit.is_not(None),
            partite_t.c.people.is_(True),
            partite_t.c.ended >= since,
        )
        async with self._store._read() as conn:
            return [(r.ended, r.forfeit) for r in await conn.execute(query)]

    async def record(self, table_id: str) -> tuple[dict[str, Any], datetime] | None:
        """A finished partita's saved record and when it finished."""
        query = select(records_t.c.record, records_t.c.finished_at).where(
            records_t.c.table_id == table_id
        )
        async with self._store._read() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else (dict(row.record), row.finished_at)
