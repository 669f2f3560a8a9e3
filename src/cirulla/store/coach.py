"""The store's coach: analyses of finished partite (progress, then result) and hints.

One transaction per method, frozen dataclasses out (like the rest of the store). An
analysis is claimed by one server at a time: the row is inserted once (a second
insert fails on its key), and taken over only when it failed or its runner stopped
moving `updated_at` (its node died).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, cast

from sqlalchemy import Row, insert, select, update
from sqlalchemy import Table as SqlTable
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from .models_coach import CoachAnalysisModel, CoachHintModel

if TYPE_CHECKING:
    from .db import Store

__all__ = ["AnalysisRow", "CoachStore", "hint_marks"]

analyses_t: Final = cast(SqlTable, CoachAnalysisModel.__table__)
hints_t: Final = cast(SqlTable, CoachHintModel.__table__)


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class AnalysisRow:
    """One partita's analysis as stored."""

    table_id: str
    status: str  # "running", "done" or "failed"
    done: int
    total: int
    requested_by: str | None
    created_at: datetime
    updated_at: datetime
    result: dict[str, Any] | None
    error: str | None


def _row(r: Row[Any]) -> AnalysisRow:
    return AnalysisRow(
        r.table_id,
        r.status,
        r.done,
        r.total,
        r.requested_by,
        _utc(r.created_at),
        _utc(r.updated_at),
        None if r.result is None else dict(r.result),
        r.error,
    )


def hint_marks(conn: Connection, table_id: str) -> list[dict[str, int]]:
    """The seats that asked for hints at a table and how many (inside a transaction:
    the store's `save_record` puts them in the record it saves)."""
    rows = conn.execute(
        select(hints_t.c.seat, hints_t.c.count)
        .where(hints_t.c.table_id == table_id)
        .order_by(hints_t.c.seat)
    )
    return [{"seat": int(seat), "count": int(count)} for seat, count in rows]


class CoachStore:
    """Coach queries on a `Store`'s engine."""

    def __init__(self, store: Store) -> None:
        self._store = store

    # ---- analyses -------------------------------------------------------------------
    async def analysis(self, table_id: str) -> AnalysisRow | None:
        async with self._store._read() as conn:
            row = (
                await conn.execute(select(analyses_t).where(analyses_t.c.table_id == table_id))
            ).first()
        return None if row is None else _row(row)

    async def claim(
        self, table_id: str, user_id: str | None, total: int, stale_before: datetime
    ) -> tuple[AnalysisRow, bool]:
        """Start the analysis of a partita unless one runs or is done: (the row, whether
        this caller now runs it). A failed run, or one not moved since `stale_before`,
        is taken over."""
        now = datetime.now(UTC)
        fresh: dict[str, Any] = {
            "status": "running",
            "done": 0,
            "total": total,
            "requested_by": user_id,
            "created_at": now,
            "updated_at": now,
            "result": None,
            "error": None,
        }
        try:
            async with self._store._write() as conn:
                old = (
                    await conn.execute(select(analyses_t).where(analyses_t.c.table_id == table_id))
                ).first()
                if old is None:
                    await conn.execute(insert(analyses_t).values(table_id=table_id, **fresh))
                    return AnalysisRow(table_id, **fresh), True
                row = _row(old)
                if row.status == "done" or (
                    row.status == "running" and row.updated_at >= stale_before
                ):
                    return row, False
                taken = await conn.execute(
                    update(analyses_t)
                    .where(
                        analyses_t.c.table_id == table_id,
                        analyses_t.c.status == old.status,
                        analyses_t.c.updated_at == old.updated_at,
                    )
                    .values(**fresh)
                )
                if taken.rowcount == 1:
                    return AnalysisRow(table_id, **fresh), True
        except IntegrityError:  # another server inserted it first
            pass
        current = await self.analysis(table_id)
        assert current is not None
        return current, False

    async def progress(self, table_id: str, done: int) -> None:
        async with self._store._write() as conn:
            await conn.execute(
                update(analyses_t)
                .where(analyses_t.c.table_id == table_id, analyses_t.c.status == "running")
                .values(done=done, updated_at=datetime.now(UTC))
            )

    async def finish(self, table_id: str, result: dict[str, Any]) -> None:
        async with self._store._write() as conn:
            await conn.execute(
                update(analyses_t)
                .where(analyses_t.c.table_id == table_id)
                .values(
                    status="done",
                    done=analyses_t.c.total,
                    result=result,
                    error=None,
                    updated_at=datetime.now(UTC),
                )
            )

    async def fail(self, table_id: str, error: str) -> None:
        async with self._store._write() as conn:
            await conn.execute(
                update(analyses_t)
                .where(analyses_t.c.table_id == table_id)
                .values(status="failed", error=error[:400], updated_at=datetime.now(UTC))
            )

    # ---- hints ----------------------------------------------------------------------
    async def add_hint(self, table_id: str, seat: int, user_id: str | None) -> int:
        """Count one more hint for `seat` at the table; the seat's count now."""
        for _ in range(3):
            try:
                async with self._store._write() as conn:
                    changed = await conn.execute(
                        update(hints_t)
                        .where(hints_t.c.table_id == table_id, hints_t.c.seat == seat)
                        .values(count=hints_t.c.count + 1)
                    )
                    if changed.rowcount == 0:
                        await conn.execute(
                            insert(hints_t).values(
                                table_id=table_id,
                                seat=seat,
                                user_id=user_id,
                                count=1,
                                first_at=datetime.now(UTC),
                            )
                        )
                    count = await conn.scalar(
                        select(hints_t.c.count).where(
                            hints_t.c.table_id == table_id, hints_t.c.seat == seat
                        )
                    )
                return int(count or 0)
            except IntegrityError:  # a twin request inserted the row first: count again
                continue
        raise RuntimeError("could not count the hint")

    async def hints(self, table_id: str) -> list[dict[str, int]]:
        async with self._store._read() as conn:
            return await conn.run_sync(hint_marks, table_id)
