"""The store's table logs: a table made with its first record, and records appended by
compare-and-set, many tables' appends in one transaction when they arrive together (the
group commit: see `TableLog.append`)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from ..eventlog import GENESIS, ChainError, LogRecord, chain_hash
from .base import _now, events_t, seats_t, secrets_t, tables
from .ledger import Movement, write_movements
from .postgres_batch import write_batch as _postgres_batch
from .sqlite_batch import SqliteBatch
from .table_rows import SeatRow, TableQueries


class VersionConflict(Exception):
    """The records do not follow on from the stored log: another writer got there
    first, or the writer's idea of the log is stale. Nothing was written."""


@dataclass(frozen=True, slots=True)
class _Append:
    table_id: str
    records: tuple[LogRecord, ...]
    status: str | None
    seats: Sequence[SeatRow] | None
    secrets: dict[int, int]
    ledger: tuple[Movement, ...] = ()  # chips moving with these records (store/ledger.py)


#: The compare-and-set of many appends at once (executemany; SQLite counts the rows).
_BATCH_CAS = (
    update(tables)
    .where(
        tables.c.id == bindparam("b_id"),
        tables.c.version == bindparam("b_prev_version"),
        tables.c.last_hash == bindparam("b_prev_hash"),
    )
    .values(
        version=bindparam("b_version"),
        last_hash=bindparam("b_hash"),
        status=func.coalesce(bindparam("b_status"), tables.c.status),
        updated_at=bindparam("b_now"),
    )
)


def _check_chain(records: Sequence[LogRecord]) -> None:
    """VersionConflict if the records do not follow on one from another; ChainError
    if one's hash is not its content's (a bug, not a race)."""
    for before, rec in pairwise(records):
        if rec.version != before.version + 1 or rec.prev != before.hash:
            raise VersionConflict(
                f"record {rec.version} does not follow record {before.version} in the batch"
            )
    for rec in records:
        if rec.hash != chain_hash(rec.prev, rec.version, rec.type, rec.data, rec.at):
            raise ChainError(f"record {rec.version} ({rec.type}): its hash does not match")


def _event_rows(req: _Append) -> list[dict[str, Any]]:
    return [{"table_id": req.table_id, **r.to_dict()} for r in req.records]


def _seat_rows(req: _Append) -> list[dict[str, Any]]:
    return [
        {
            "table_id": req.table_id,
            "seat": s.seat,
            "user_id": s.user_id,
            "bot": s.bot,
            "name": s.name,
        }
        for s in req.seats or ()
    ]


def _secret_rows(req: _Append) -> list[dict[str, Any]]:
    return [
        {"table_id": req.table_id, "deal": deal, "seed": str(seed)}
        for deal, seed in req.secrets.items()
    ]


def _write_batch(conn: Connection, batch: list[_Append], now: datetime) -> None:
    """Many tables' appends, with their seats and secrets, as one transaction."""
    params = [
        {
            "b_id": req.table_id,
            "b_prev_version": req.records[0].version - 1,
            "b_prev_hash": req.records[0].prev,
            "b_version": req.records[-1].version,
            "b_hash": req.records[-1].hash,
            "b_status": req.status,
            "b_now": now,
        }
        for req in batch
    ]
    result = conn.execute(_BATCH_CAS, params)
    if result.rowcount != len(batch):
        raise VersionConflict("a log in the batch has moved on")
    conn.execute(insert(events_t), [row for req in batch for row in _event_rows(req)])
    seated = [req for req in batch if req.seats is not None]
    if seated:
        conn.execute(
            delete(seats_t).where(seats_t.c.table_id == bindparam("b_id")),
            [{"b_id": req.table_id} for req in seated],
        )
        seat_rows = [row for req in seated for row in _seat_rows(req)]
        if seat_rows:
            conn.execute(insert(seats_t), seat_rows)
    secret_rows = [row for req in batch for row in _secret_rows(req)]
    if secret_rows:
        conn.execute(insert(secrets_t), secret_rows)


def _write_one(conn: Connection, req: _Append, now: datetime) -> None:
    """One table's append, with its seats and secrets, as one transaction."""
    values: dict[str, Any] = {"updated_at": now}
    where = [tables.c.id == req.table_id]
    if req.records:
        first, last = req.records[0], req.records[-1]
        where += [tables.c.version == first.version - 1, tables.c.last_hash == first.prev]
        values |= {"version": last.version, "last_hash": last.hash}
    if req.status is not None:
        values["status"] = req.status
    # The compare-and-set: it also takes the row's write lock, so racing appends to
    # one table queue here and all but one then find no row.
    result = conn.execute(update(tables).where(*where).values(**values))
    if result.rowcount != 1:
        raise VersionConflict(f"table {req.table_id!r}: the log has moved on")
    if req.records:
        conn.execute(insert(events_t), _event_rows(req))
    if req.seats is not None:
        conn.execute(delete(seats_t).where(seats_t.c.table_id == req.table_id))
        if req.seats:
            conn.execute(insert(seats_t), _seat_rows(req))
    if req.secrets:
        conn.execute(insert(secrets_t), _secret_rows(req))
    if req.ledger:
        write_movements(conn, req.ledger, now)


class TableLog(TableQueries):
    """`Store`'s table logs, on top of its table rows."""

    def __init__(
        self, engine: AsyncEngine, appender: Engine | None = None, batch: SqliteBatch | None = None
    ) -> None:
        super().__init__(engine, appender, batch)
        if appender is not None:
            self._bind_time = tables.c.updated_at.type.bind_processor(appender.dialect)
            self._bind_json = events_t.c.data.type.bind_processor(appender.dialect)
        self._pending: list[tuple[_Append, asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None

    async def create_table(
        self,
        table_id: str,
        *,
        game: str,
        config: dict[str, Any],
        private: bool,
        invite_hash: str | None,
        owner: str | None,
        first: LogRecord,
    ) -> None:
        """The table row (status "open") and its log's first record, in one transaction.

        VersionConflict if a table with this id exists already.
        """
        if first.version != 1 or first.prev != GENESIS:
            raise ChainError(f"a log starts at version 1 from {GENESIS[:8]}..., not {first}")
        _check_chain([first])
        now = _now()

        def body(conn: Connection) -> None:
            conn.execute(
                insert(tables).values(
                    id=table_id,
                    game=game,
                    config=config,
                    status="open",
                    private=private,
                    invite_hash=invite_hash,
                    owner=owner,
                    version=first.version,
                    last_hash=first.hash,
                    created_at=now,
                    updated_at=now,
                )
            )
            conn.execute(insert(events_t).values(table_id=table_id, **first.to_dict()))

        try:
            await self._write_sync(body)
        except IntegrityError as exc:
            if await self.get_table(table_id) is not None:
                raise VersionConflict(f"table {table_id!r} exists already") from None
            raise LookupError(f"table {table_id!r}: {exc.orig}") from None

    async def append(
        self,
        table_id: str,
        records: Sequence[LogRecord],
        *,
        status: str | None = None,
        seats: Sequence[SeatRow] | None = None,
        secrets: Mapping[int, int] | None = None,
        ledger: Sequence[Movement] = (),
    ) -> None:
        """Add `records` to the table's log, with its new status, seats and secrets,
        and the chips they move (`ledger`), in one transaction.

        VersionConflict, and nothing changed, if the records do not follow on from
        the stored log (a version taken, a broken link, a gap). LookupError if there
        is no such table. Appends from many tables that arrive together are written in
        one transaction (group commit): on SQLite one writer at a time is the limit, on
        PostgreSQL a transaction's round trips are; sharing the transaction is what lets
        a busy server keep up.
        """
        _check_chain(records)
        request = _Append(
            table_id, tuple(records), status, seats, dict(secrets or {}), tuple(ledger)
        )
        if not records or request.ledger:  # chips move in a transaction of their own
            await self._append_one(request)
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((request, done))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        await done

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                await self._append_batch([req for req, _ in batch])
            except Exception:  # someone's append does not follow on: give each its own answer
                for req, done in batch:
                    try:
                        await self._append_one(req)
                    except Exception as exc:
                        if not done.done():
                            done.set_exception(exc)
                    else:
                        if not done.done():
                            done.set_result(None)
                continue
            for _, done in batch:
                if not done.done():
                    done.set_result(None)

    async def _append_batch(self, batch: list[_Append]) -> None:
        """All of `batch` in one transaction, or (raising) none of it."""
        if len({req.table_id for req in batch}) != len(batch):
            raise VersionConflict("two appends to one table in a batch")
        if self.dialect == "postgresql":
            await self._postgres_batch(batch)
            return
        if self._batch is None or self._write_lock is None:
            await self._write_sync(_write_batch, batch, _now())
            return
        async with self._write_lock:
            written = self._batch.write(*self._batch_rows(batch, _now()))
        if not written:
            raise VersionConflict("a log in the batch has moved on")

    async def _postgres_batch(self, batch: list[_Append]) -> None:
        cas = [
            (
                req.table_id,
                req.records[0].version - 1,
                req.records[0].prev,
                req.records[-1].version,
                req.records[-1].hash,
                req.status,
            )
            for req in batch
        ]
        events = [row for req in batch for row in _event_rows(req)]
        seated = [req.table_id for req in batch if req.seats is not None]
        seats = [row for req in batch if req.seats is not None for row in _seat_rows(req)]
        secrets = [row for req in batch for row in _secret_rows(req)]
        async with self._write() as conn:
            if not await _postgres_batch(conn, cas, events, seated, seats, secrets, _now()):
                raise VersionConflict("a log in the batch has moved on")  # rolls back

    def _batch_rows(self, batch: list[_Append], now: datetime) -> tuple[Any, ...]:
        """`_write_batch`'s rows as the driver's parameters, each value bound as
        SQLAlchemy binds it (the time's and the JSON's own processors)."""
        bind_time, bind_json = self._bind_time, self._bind_json
        stamp = bind_time(now) if bind_time is not None else now
        cas = [
            (
                req.records[-1].version,
                req.records[-1].hash,
                req.status,
                stamp,
                req.table_id,
                req.records[0].version - 1,
                req.records[0].prev,
            )
            for req in batch
        ]
        events = [
            (
                req.table_id,
                r.version,
                r.type,
                bind_json(r.data) if bind_json is not None else r.data,
                r.at,
                r.prev,
                r.hash,
            )
            for req in batch
            for r in req.records
        ]
        seated = [req.table_id for req in batch if req.seats is not None]
        seats = [
            (req.table_id, s.seat, s.user_id, s.bot, s.name)
            for req in batch
            if req.seats is not None
            for s in req.seats
        ]
        secrets = [
            (req.table_id, deal, str(seed)) for req in batch for deal, seed in req.secrets.items()
        ]
        return cas, events, seated, seats, secrets

    async def _append_one(self, req: _Append) -> None:
        try:
            await self._write_sync(_write_one, req, _now())
        except VersionConflict:
            if await self.get_table(req.table_id) is None:
                raise LookupError(f"no table {req.table_id!r}") from None
            raise
        except IntegrityError as exc:
            raise VersionConflict(f"table {req.table_id!r}: {exc.orig}") from None

    async def load_log(self, table_id: str, after: int = 0) -> list[LogRecord]:
        """The table's records with versions above `after`, in order."""
        async with self._read() as conn:
            rows = await conn.execute(
                select(
                    events_t.c.version,
                    events_t.c.type,
                    events_t.c.data,
                    events_t.c.at,
                    events_t.c.prev,
                    events_t.c.hash,
                )
                .where(events_t.c.table_id == table_id, events_t.c.version > after)
                .order_by(events_t.c.version)
            )
            return [LogRecord(r.version, r.type, r.data, r.at, r.prev, r.hash) for r in rows]

    async def load_secrets(self, table_id: str) -> dict[int, int]:
        """Deal index -> seed, for the table's smazzate."""
        async with self._read() as conn:
            rows = await conn.execute(
                select(secrets_t.c.deal, secrets_t.c.seed).where(secrets_t.c.table_id == table_id)
            )
            return {int(r.deal): int(r.seed) for r in rows}
