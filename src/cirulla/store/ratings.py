"""The store's ratings: current ratings, their history, and which partite were rated.

An update is one transaction that locks the players' rating rows (SELECT ... FOR
UPDATE on PostgreSQL; on SQLite the write transaction's BEGIN IMMEDIATE serialises
every writer), checks that the partita was not rated already, and writes the new
ratings, one history row per player and the partita's `rated_tables` row together.
So two nodes rating two partite of one player queue on the row lock and neither
update is lost, and a partita rated twice (a listener and a start-up catch-up) is
rated once. The maths is the caller's (`cirulla.competition.ratings`): the store
hands it the locked rows and writes what it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, cast

from sqlalchemy import Row, and_, case, func, insert, or_, select, update
from sqlalchemy import Table as SqlTable
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from .models import Record, RecordPlayerModel, Table, User
from .models_ratings import RatedTableModel, RatingHistoryModel, RatingModel

if TYPE_CHECKING:
    from .db import Store

__all__ = [
    "HistoryPoint",
    "LeaderRow",
    "RatingRow",
    "RatingStore",
    "RatingValue",
    "Unseen",
    "Updater",
]

ratings_t = cast(SqlTable, RatingModel.__table__)
history_t = cast(SqlTable, RatingHistoryModel.__table__)
rated_t = cast(SqlTable, RatedTableModel.__table__)
records_t = cast(SqlTable, Record.__table__)
players_t = cast(SqlTable, RecordPlayerModel.__table__)
tables_t = cast(SqlTable, Table.__table__)
users_t = cast(SqlTable, User.__table__)

#: How many history points a player's page shows per mode (the newest ones).
HISTORY_LIMIT: Final = 500


@dataclass(frozen=True, slots=True)
class RatingValue:
    """A rating as the maths sees it: value, deviation, Glicko-2 volatility."""

    rating: float
    deviation: float
    volatility: float


@dataclass(frozen=True, slots=True)
class RatingRow:
    """A user's stored rating in one game family and mode."""

    user_id: str
    game: str
    mode: str
    rating: float
    deviation: float
    volatility: float
    partite: int
    updated_at: datetime

    @property
    def value(self) -> RatingValue:
        return RatingValue(self.rating, self.deviation, self.volatility)


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    table_id: str
    mode: str
    at: datetime
    rating_before: float
    rating: float
    deviation: float


@dataclass(frozen=True, slots=True)
class LeaderRow:
    """A leaderboard line: the rating, the player's name, and (weekly) the rating
    before their first rated partita of the period."""

    row: RatingRow
    name: str
    rating_before: float | None
    bot: bool = False  # a bot account (docs/bots.md): rated like a person, flagged


@dataclass(frozen=True, slots=True)
class Unseen:
    """A finished partita the ratings have not looked at: what deciding needs."""

    table_id: str
    config: dict[str, Any]
    summary: dict[str, Any]
    finished_at: datetime
    #: (user id, seat, side) of each user who played it.
    players: tuple[tuple[str, int, int], ...]


_RATING_COLUMNS: Final = (
    ratings_t.c.user_id,
    ratings_t.c.game,
    ratings_t.c.mode,
    ratings_t.c.rating,
    ratings_t.c.deviation,
    ratings_t.c.volatility,
    ratings_t.c.partite,
    ratings_t.c.updated_at,
)


def _rating(row: Row[*tuple[Any, ...]]) -> RatingRow:
    return RatingRow(
        row.user_id,
        row.game,
        row.mode,
        float(row.rating),
        float(row.deviation),
        float(row.volatility),
        int(row.partite),
        row.updated_at,
    )


#: What an update computes: each player's new rating from the locked current rows.
Updater = Callable[[Mapping[str, RatingRow]], Mapping[str, RatingValue]]


class RatingStore:
    """Rating queries on a `Store`'s engine (one transaction per method)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    # ---- what is left to rate -------------------------------------------------------
    async def unseen(self, limit: int = 200) -> list[Unseen]:
        """Finished partite without a `rated_tables` row, in the order they ended."""
        query = (
            select(
                records_t.c.table_id,
                records_t.c.summary,
                records_t.c.finished_at,
                tables_t.c.config,
            )
            .join(tables_t, tables_t.c.id == records_t.c.table_id)
            .where(
                ~select(rated_t.c.table_id)
                .where(rated_t.c.table_id == records_t.c.table_id)
                .exists()
            )
            .order_by(records_t.c.finished_at, records_t.c.table_id)
            .limit(limit)
        )
        async with self._store._read() as conn:
            rows = (await conn.execute(query)).all()
            if not rows:
                return []
            ids = [r.table_id for r in rows]
            seated = await conn.execute(
                select(
                    players_t.c.table_id, players_t.c.user_id, players_t.c.seat, players_t.c.side
                )
                .where(players_t.c.table_id.in_(ids))
                .order_by(players_t.c.table_id, players_t.c.seat)
            )
            players: dict[str, list[tuple[str, int, int]]] = {}
            for p in seated:
                players.setdefault(p.table_id, []).append((p.user_id, p.seat, p.side))
        return [
            Unseen(
                r.table_id,
                dict(r.config),
                dict(r.summary),
                r.finished_at,
                tuple(players.get(r.table_id, ())),
            )
            for r in rows
        ]

    async def unseen_one(self, table_id: str) -> Unseen | None:
        """The partita at `table_id` if it finished and was not looked at yet."""
        async with self._store._read() as conn:
            row = (
                await conn.execute(
                    select(records_t.c.summary, records_t.c.finished_at, tables_t.c.config)
                    .join(tables_t, tables_t.c.id == records_t.c.table_id)
                    .where(
                        records_t.c.table_id == table_id,
                        ~select(rated_t.c.table_id).where(rated_t.c.table_id == table_id).exists(),
                    )
                )
            ).first()
            if row is None:
                return None
            seated = await conn.execute(
                select(players_t.c.user_id, players_t.c.seat, players_t.c.side)
                .where(players_t.c.table_id == table_id)
                .order_by(players_t.c.seat)
            )
            players = tuple((p.user_id, p.seat, p.side) for p in seated)
        return Unseen(table_id, dict(row.config), dict(row.summary), row.finished_at, players)

    # ---- updates ------------------------------------------------------------------------
    async def mark_unrated(self, table_id: str, reason: str, at: datetime) -> None:
        """Remember that the partita is not rated (idempotent)."""

        def body(conn: Connection) -> None:
            conn.execute(
                self._insert_ignore(rated_t).values(
                    table_id=table_id, rated=False, game=None, mode=None, reason=reason, at=at
                )
            )

        await self._store._write_sync(body)

    async def apply(
        self,
        table_id: str,
        *,
        game: str,
        mode: str,
        users: Sequence[str],
        at: datetime,
        initial: RatingValue,
        updater: Updater,
    ) -> bool:
        """Rate one partita: lock the players' rows (made at `initial` if new), let
        `updater` compute, write ratings, history and the `rated_tables` row. False,
        with nothing changed, if the partita was rated already."""
        order = sorted(set(users))  # one lock order everywhere: no deadlock
        done = [False]

        def body(conn: Connection) -> None:
            conn.execute(
                self._insert_ignore(ratings_t),
                [
                    {
                        "user_id": u,
                        "game": game,
                        "mode": mode,
                        "rating": initial.rating,
                        "deviation": initial.deviation,
                        "volatility": initial.volatility,
                        "partite": 0,
                        "updated_at": at,
                    }
                    for u in order
                ],
            )
            locked = conn.execute(
                select(*_RATING_COLUMNS)
                .where(
                    ratings_t.c.user_id.in_(order),
                    ratings_t.c.game == game,
                    ratings_t.c.mode == mode,
                )
                .order_by(ratings_t.c.user_id)
                .with_for_update()
            ).all()
            if conn.scalar(select(rated_t.c.table_id).where(rated_t.c.table_id == table_id)):
                return  # rated already (another node, or before a restart)
            current = {r.user_id: _rating(r) for r in locked}
            new = updater(current)
            for user in order:
                before, after = current[user], new[user]
                conn.execute(
                    update(ratings_t)
                    .where(
                        ratings_t.c.user_id == user,
                        ratings_t.c.game == game,
                        ratings_t.c.mode == mode,
                    )
                    .values(
                        rating=after.rating,
                        deviation=after.deviation,
                        volatility=after.volatility,
                        partite=before.partite + 1,
                        updated_at=max(at, before.updated_at),
                    )
                )
            conn.execute(
                insert(history_t),
                [
                    {
                        "table_id": table_id,
                        "user_id": user,
                        "game": game,
                        "mode": mode,
                        "at": at,
                        "rating_before": current[user].rating,
                        "rating": new[user].rating,
                        "deviation": new[user].deviation,
                    }
                    for user in order
                ],
            )
            conn.execute(
                insert(rated_t).values(
                    table_id=table_id, rated=True, game=game, mode=mode, reason="", at=at
                )
            )
            done[0] = True

        try:
            await self._store._write_sync(body)
        except IntegrityError:
            if await self.is_seen(table_id):  # a twin update won the race: nothing lost
                return False
            raise
        return done[0]

    def _insert_ignore(self, table: SqlTable) -> Any:
        """INSERT ... ON CONFLICT DO NOTHING in the store's dialect."""
        if self._store.dialect == "postgresql":
            return postgresql.insert(table).on_conflict_do_nothing()
        return sqlite.insert(table).on_conflict_do_nothing()

    # ---- reads --------------------------------------------------------------------------
    async def is_seen(self, table_id: str) -> bool:
        async with self._store._read() as conn:
            found = await conn.scalar(
                select(rated_t.c.table_id).where(rated_t.c.table_id == table_id)
            )
        return found is not None

    async def of_user(self, user_id: str, game: str) -> dict[str, RatingRow]:
        """The user's ratings in `game`, by mode."""
        async with self._store._read() as conn:
            rows = await conn.execute(
                select(*_RATING_COLUMNS).where(
                    ratings_t.c.user_id == user_id, ratings_t.c.game == game
                )
            )
            return {r.mode: _rating(r) for r in rows}

    async def history(self, user_id: str, game: str) -> list[HistoryPoint]:
        """The user's rated partite in `game`, oldest first (the newest HISTORY_LIMIT
        per mode)."""
        out: list[HistoryPoint] = []
        async with self._store._read() as conn:
            for mode in ("1v1", "pairs"):
                rows = await conn.execute(
                    select(
                        history_t.c.table_id,
                        history_t.c.mode,
                        history_t.c.at,
                        history_t.c.rating_before,
                        history_t.c.rating,
                        history_t.c.deviation,
                    )
                    .where(
                        history_t.c.user_id == user_id,
                        history_t.c.game == game,
                        history_t.c.mode == mode,
                    )
                    .order_by(history_t.c.at.desc(), history_t.c.table_id.desc())
                    .limit(HISTORY_LIMIT)
                )
                points = [
                    HistoryPoint(
                        r.table_id,
                        r.mode,
                        r.at,
                        float(r.rating_before),
                        float(r.rating),
                        float(r.deviation),
                    )
                    for r in rows
                ]
                out.extend(reversed(points))
        return out

    async def leaderboard(
        self,
        game: str,
        mode: str,
        *,
        since: datetime | None = None,
        limit: int | None = None,
        provisional: tuple[int, float] = (0, float("inf")),
    ) -> list[LeaderRow]:
        """Registered players' ratings in `game` and `mode`, best first: established
        ones (at least `provisional` = (partite, deviation at most)) before the others.
        With `since`, only those with a rated partita since then, each with their
        rating before the first of them."""
        partite, deviation = provisional
        unsure = case(
            (or_(ratings_t.c.partite < partite, ratings_t.c.deviation > deviation), 1), else_=0
        )
        query = (
            select(*_RATING_COLUMNS, users_t.c.name, users_t.c.bot)
            .join(users_t, users_t.c.id == ratings_t.c.user_id)
            .where(
                ratings_t.c.game == game,
                ratings_t.c.mode == mode,
                ratings_t.c.partite > 0,
                users_t.c.guest.is_(False),
            )
            .order_by(unsure, ratings_t.c.rating.desc(), users_t.c.name_key)
        )
        if limit is not None:
            query = query.limit(limit)
        first = (
            select(
                history_t.c.user_id.label("user_id"),
                func.min(history_t.c.at).label("first_at"),
            )
            .where(
                history_t.c.game == game,
                history_t.c.mode == mode,
                history_t.c.at >= (since or datetime.min.replace(tzinfo=UTC)),
            )
            .group_by(history_t.c.user_id)
            .subquery()
        )
        if since is not None:
            query = query.where(ratings_t.c.user_id.in_(select(first.c.user_id)))
        before: dict[str, float] = {}
        async with self._store._read() as conn:
            rows = (await conn.execute(query)).all()
            if since is not None and rows:
                starts = await conn.execute(
                    select(history_t.c.user_id, history_t.c.rating_before)
                    .join(
                        first,
                        and_(
                            first.c.user_id == history_t.c.user_id,
                            first.c.first_at == history_t.c.at,
                        ),
                    )
                    .where(
                        history_t.c.game == game,
                        history_t.c.mode == mode,
                        history_t.c.user_id.in_([r.user_id for r in rows]),
                    )
                    .order_by(history_t.c.table_id)
                )
                for s in starts:
                    before.setdefault(s.user_id, float(s.rating_before))
        return [
            LeaderRow(
                _rating(r),
                r.name,
                before.get(r.user_id) if since is not None else None,
                bool(r.bot),
            )
            for r in rows
        ]
