"""The store's tournaments: a row per tournament and its hash-chained event log.

A tournament's log grows by compare-and-set, as a table's does (store/tablelog.py): an
append updates the row only if its version and last hash are the ones the new
records follow, so of two writers (two nodes, or a node and a late twin of itself)
exactly one wins and the other gets `VersionConflict` with nothing changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, cast

from sqlalchemy import Row, insert, or_, select, update
from sqlalchemy import Table as SqlTable
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from ..eventlog import GENESIS, ChainError, LogRecord
from .ledger import Movement, write_movements
from .models import TournamentEventModel, TournamentModel

if TYPE_CHECKING:
    from .db import Store

__all__ = ["LIVE_TOURNAMENTS", "TournamentRow", "TournamentStore"]

tournaments_t = cast(SqlTable, TournamentModel.__table__)
tevents_t = cast(SqlTable, TournamentEventModel.__table__)

#: The statuses of tournaments that are directed (restored when a server starts).
LIVE_TOURNAMENTS: Final = ("registering", "running")


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: str
    name: str
    format: str
    config: dict[str, Any]
    organiser: str | None
    private: bool
    invite_hash: str | None
    status: str
    starts_at: datetime | None
    summary: dict[str, Any]
    version: int
    created_at: datetime
    updated_at: datetime


_COLUMNS: Final = tuple(c for c in tournaments_t.c if c.name != "last_hash")


def _row(row: Row[Any]) -> TournamentRow:
    return TournamentRow(
        row.id,
        row.name,
        row.format,
        dict(row.config),
        row.organiser,
        bool(row.private),
        row.invite_hash,
        row.status,
        row.starts_at,
        dict(row.summary),
        row.version,
        row.created_at,
        row.updated_at,
    )


def _now() -> datetime:
    return datetime.now(UTC)


class TournamentStore:
    """Tournament queries on a `Store`'s engine (one transaction per method)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def create(
        self,
        tournament_id: str,
        *,
        name: str,
        format: str,
        config: dict[str, Any],
        organiser: str | None,
        private: bool,
        invite_hash: str | None,
        starts_at: datetime | None,
        summary: dict[str, Any],
        first: LogRecord,
    ) -> None:
        """The row (status "registering") and the log's first record, in one transaction."""
        from .tablelog import VersionConflict, _check_chain

        if first.version != 1 or first.prev != GENESIS:
            raise ChainError(f"a log starts at version 1 from {GENESIS[:8]}..., not {first}")
        _check_chain([first])
        now = _now()

        def body(conn: Connection) -> None:
            conn.execute(
                insert(tournaments_t).values(
                    id=tournament_id,
                    name=name,
                    format=format,
                    config=config,
                    organiser=organiser,
                    private=private,
                    invite_hash=invite_hash,
                    status="registering",
                    starts_at=starts_at,
                    summary=summary,
                    version=first.version,
                    last_hash=first.hash,
                    created_at=now,
                    updated_at=now,
                )
            )
            conn.execute(insert(tevents_t).values(tournament_id=tournament_id, **first.to_dict()))

        try:
            await self._store._write_sync(body)
        except IntegrityError:
            if await self.get(tournament_id) is not None:
                raise VersionConflict(f"tournament {tournament_id!r} exists already") from None
            raise

    async def append(
        self,
        tournament_id: str,
        records: Sequence[LogRecord],
        *,
        status: str,
        summary: dict[str, Any],
        ledger: Sequence[Movement] = (),
    ) -> None:
        """Add `records` to the log with the new status and summary, and the chips they
        move (`ledger`: entry fees, refunds, prizes), in one transaction; VersionConflict
        (nothing written) if they do not follow on from the stored log, InsufficientChips
        (nothing written) if a wallet cannot pay."""
        from .tablelog import VersionConflict, _check_chain

        if not records:
            return
        _check_chain(records)
        first, last = records[0], records[-1]
        now = _now()

        def body(conn: Connection) -> None:
            result = conn.execute(
                update(tournaments_t)
                .where(
                    tournaments_t.c.id == tournament_id,
                    tournaments_t.c.version == first.version - 1,
                    tournaments_t.c.last_hash == first.prev,
                )
                .values(
                    version=last.version,
                    last_hash=last.hash,
                    status=status,
                    summary=summary,
                    updated_at=now,
                )
            )
            if result.rowcount != 1:
                raise VersionConflict(f"tournament {tournament_id!r}: the log has moved on")
            conn.execute(
                insert(tevents_t),
                [{"tournament_id": tournament_id, **r.to_dict()} for r in records],
            )
            if ledger:
                write_movements(conn, ledger, now)

        try:
            await self._store._write_sync(body)
        except IntegrityError as exc:
            raise VersionConflict(f"tournament {tournament_id!r}: {exc.orig}") from None

    async def load_log(self, tournament_id: str) -> list[LogRecord]:
        async with self._store._read() as conn:
            rows = await conn.execute(
                select(
                    tevents_t.c.version,
                    tevents_t.c.type,
                    tevents_t.c.data,
                    tevents_t.c.at,
                    tevents_t.c.prev,
                    tevents_t.c.hash,
                )
                .where(tevents_t.c.tournament_id == tournament_id)
                .order_by(tevents_t.c.version)
            )
            return [LogRecord(r.version, r.type, r.data, r.at, r.prev, r.hash) for r in rows]

    async def get(self, tournament_id: str) -> TournamentRow | None:
        async with self._store._read() as conn:
            row = (
                await conn.execute(select(*_COLUMNS).where(tournaments_t.c.id == tournament_id))
            ).first()
        return None if row is None else _row(row)

    async def version(self, tournament_id: str) -> int | None:
        async with self._store._read() as conn:
            value = await conn.scalar(
                select(tournaments_t.c.version).where(tournaments_t.c.id == tournament_id)
            )
        return None if value is None else int(value)

    async def live(self) -> list[TournamentRow]:
        """Tournaments registering or running: the ones a server directs."""
        async with self._store._read() as conn:
            rows = await conn.execute(
                select(*_COLUMNS)
                .where(tournaments_t.c.status.in_(LIVE_TOURNAMENTS))
                .order_by(tournaments_t.c.created_at, tournaments_t.c.id)
            )
            return [_row(r) for r in rows]

    async def listed(self, finished_since: datetime) -> list[TournamentRow]:
        """Live tournaments and those that finished after `finished_since`."""
        async with self._store._read() as conn:
            rows = await conn.execute(
                select(*_COLUMNS)
                .where(
                    or_(
                        tournaments_t.c.status.in_(LIVE_TOURNAMENTS),
                        (tournaments_t.c.status == "finished")
                        & (tournaments_t.c.updated_at >= finished_since),
                    )
                )
                .order_by(tournaments_t.c.created_at.desc(), tournaments_t.c.id)
            )
            return [_row(r) for r in rows]
