"""What every part of the store shares: the schema's tables, the engines and the
transactions, one writer at a time on SQLite (store/db.py opens it, the parts add
their queries to `Store`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any, Final, cast

import orjson
from sqlalchemy import Row
from sqlalchemy import Table as SqlTable
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .models import Record, RecordPlayerModel, Seat, Session, Table, TableEvent, TableSecret, User
from .sqlite_batch import SqliteBatch

users = cast(SqlTable, User.__table__)
sessions = cast(SqlTable, Session.__table__)
tables = cast(SqlTable, Table.__table__)
seats_t = cast(SqlTable, Seat.__table__)
events_t = cast(SqlTable, TableEvent.__table__)
secrets_t = cast(SqlTable, TableSecret.__table__)
records_t = cast(SqlTable, Record.__table__)
players_t = cast(SqlTable, RecordPlayerModel.__table__)

_Row = Row[*tuple[Any, ...]]


def _now() -> datetime:
    return datetime.now(UTC)


def _json_text(value: Any) -> str:
    """The JSON columns' text: orjson (a finished partita's record is big), or the
    standard library for what orjson cannot hold (integers beyond 64 bits)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(value)


class StoreBase:
    """The engines and the transactions that the store's parts run their queries in."""

    def __init__(
        self, engine: AsyncEngine, appender: Engine | None = None, batch: SqliteBatch | None = None
    ) -> None:
        self._engine = engine
        # SQLite only: appends run on a plain pysqlite engine, in the event loop's own
        # thread. aiosqlite hands every statement to its thread and back, and those
        # hand-offs cost more than the writes themselves (WAL, no fsync per commit).
        self._appender = appender
        # ... and the group commit of many tables' appends, the hottest write, goes to
        # the driver directly (store/sqlite_batch.py), bound as SQLAlchemy would.
        self._batch = batch
        self._writer = engine.execution_options(cirulla_write=True)
        self._write_lock = asyncio.Lock() if engine.dialect.name == "sqlite" else None
        self.dialect: Final = engine.dialect.name

    async def _write_sync(self, body: Callable[..., None], *args: Any) -> None:
        """Run `body(connection, *args)` as one write transaction (see `_appender`)."""
        if self._appender is not None and self._write_lock is not None:
            async with self._write_lock:
                with self._appender.execution_options(cirulla_write=True).begin() as conn:
                    body(conn, *args)
            return
        async with self._write() as conn:
            await conn.run_sync(body, *args)

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        if self._write_lock is None:
            async with self._writer.begin() as conn:
                yield conn
            return
        # SQLite has one writer at a time; waiting in its busy handler means sleeps of
        # up to 100 ms, so this process's writers queue here instead, first come first served.
        async with self._write_lock, self._writer.begin() as conn:
            yield conn

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncConnection]:
        async with self._engine.connect() as conn:
            yield conn
