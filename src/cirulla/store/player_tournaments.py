"""The store's players' tournaments: each entrant's result in each finished tournament.

Rows are written once per (tournament, entrant): `save` skips those that exist, and
a racing twin (two nodes, or a profile view and the periodic catch-up) loses on the
primary key with nothing changed. A user's tournaments are read by the (user,
finished) index, however many tournaments the server has.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Final, cast

from sqlalchemy import Table as SqlTable
from sqlalchemy import insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from .models import TournamentModel
from .models_player_tournaments import PlayerTournamentModel

if TYPE_CHECKING:
    from .db import Store

__all__ = ["PlayerTournamentRow", "PlayerTournamentStore"]

rows_t: Final = cast(SqlTable, PlayerTournamentModel.__table__)
tournaments_t: Final = cast(SqlTable, TournamentModel.__table__)


@dataclass(frozen=True, slots=True)
class PlayerTournamentRow:
    tournament_id: str
    entrant: str
    user_id: str | None  # None: a bot without an account
    name: str
    format: str
    private: bool
    rank: int | None
    entrants: int
    finished: datetime


class PlayerTournamentStore:
    """Queries on a `Store`'s engine (one transaction per method)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def save(self, rows: Sequence[PlayerTournamentRow]) -> int:
        """Write the rows not written yet; how many were new."""
        if not rows:
            return 0
        written = 0

        def body(conn: Connection) -> None:
            nonlocal written
            have = {
                (t, e)
                for t, e in conn.execute(
                    select(rows_t.c.tournament_id, rows_t.c.entrant).where(
                        rows_t.c.tournament_id.in_({r.tournament_id for r in rows})
                    )
                )
            }
            new = [r for r in rows if (r.tournament_id, r.entrant) not in have]
            if new:
                conn.execute(
                    insert(rows_t),
                    [
                        {
                            "tournament_id": r.tournament_id,
                            "entrant": r.entrant,
                            "user_id": r.user_id,
                            "name": r.name,
                            "format": r.format,
                            "private": r.private,
                            "rank": r.rank,
                            "entrants": r.entrants,
                            "finished": r.finished,
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

    async def missing(self, since: datetime | None = None, limit: int = 100) -> list[str]:
        """Finished tournaments without rows (oldest first); only those finished (last
        changed) at or after `since` if given, which the updated_at index finds at once."""
        done = select(rows_t.c.tournament_id).where(rows_t.c.tournament_id == tournaments_t.c.id)
        query = select(tournaments_t.c.id).where(
            tournaments_t.c.status == "finished", ~done.exists()
        )
        if since is not None:
            query = query.where(tournaments_t.c.updated_at >= since)
        query = query.order_by(tournaments_t.c.updated_at, tournaments_t.c.id).limit(limit)
        async with self._store._read() as conn:
            return [r.id for r in await conn.execute(query)]

    async def of_user(
        self, user_id: str, limit: int = 20, private: bool = False
    ) -> list[PlayerTournamentRow]:
        """The user's finished tournaments, newest first (private ones only if asked)."""
        query = select(rows_t).where(rows_t.c.user_id == user_id)
        if not private:
            query = query.where(rows_t.c.private.is_(False))
        query = query.order_by(rows_t.c.finished.desc(), rows_t.c.tournament_id).limit(limit)
        async with self._store._read() as conn:
            return [
                PlayerTournamentRow(
                    r.tournament_id,
                    r.entrant,
                    r.user_id,
                    r.name,
                    r.format,
                    bool(r.private),
                    r.rank,
                    r.entrants,
                    r.finished,
                )
                for r in await conn.execute(query)
            ]
