"""The store: users, sessions, tables with their event logs, finished records.

Async SQLAlchemy 2 Core over SQLite (the default, one file) or PostgreSQL (several
nodes). Every method is one transaction and returns frozen dataclasses, never
ORM objects, so nothing outside the store holds a database handle.

`Store` is assembled from its parts, a file each: users and sessions (users.py),
table rows (table_rows.py), table logs (tablelog.py: a log grows by compare-and-set,
so of two writers racing on one table exactly one wins and the other gets
`VersionConflict` with nothing changed), finished partite (records.py), over the
engines and transactions they share (base.py). This file opens it and keeps the
schema at Alembic's newest revision.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from .base import _json_text
from .ledger import LedgerStore
from .records import HistoryRow, RecordPlayer, RecordQueries, record_summary
from .sqlite_batch import SqliteBatch
from .table_rows import SeatRow, TableRow
from .tablelog import TableLog, VersionConflict
from .users import NameTaken, UserQueries, UserRow

__all__ = [
    "HistoryRow",
    "NameTaken",
    "RecordPlayer",
    "SeatRow",
    "Store",
    "TableRow",
    "UserRow",
    "VersionConflict",
    "record_summary",
]

MIGRATIONS: Final = Path(__file__).with_name("migrations")
_SCHEMA_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_MIGRATION_LOCK: Final = 0x63697275  # "ciru": one node at a time upgrades a shared PostgreSQL


def _upgrade(connection: Connection) -> None:
    """Bring the schema to Alembic's newest revision on `connection`."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def _upgrade_sqlite(connection: Connection) -> None:
    """`_upgrade` with SQLite's foreign keys off: a batch migration rebuilds a table
    (copy, drop the old one, rename), and with them on, that drop deletes or empties
    every row pointing at the table (ON DELETE CASCADE / SET NULL). The pragma cannot
    change inside a transaction, so it is set before the migration's one begins."""
    raw = connection.connection

    def pragma(value: str) -> None:
        cursor = raw.cursor()
        try:
            cursor.execute(f"PRAGMA foreign_keys={value}")
        finally:
            cursor.close()

    pragma("OFF")
    try:
        with connection.begin():
            _upgrade(connection)
    finally:
        pragma("ON")


def _sqlite_pragmas(engine: Engine) -> None:
    """WAL (readers never wait for the writer), a busy timeout (writers queue rather
    than fail), foreign keys, and transactions that SQLAlchemy begins itself.

    pysqlite's own BEGIN comes late (before the first write, not the first read);
    the recipe from SQLAlchemy's documentation turns it off. Write transactions
    start with BEGIN IMMEDIATE so that they take the write lock up front and never
    fail half-way on upgrading a read lock.
    """

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in (
            "PRAGMA journal_mode=WAL",
            "PRAGMA busy_timeout=10000",
            "PRAGMA foreign_keys=ON",
            # WAL + NORMAL: never corrupt; a power cut may lose the last commits only.
            "PRAGMA synchronous=NORMAL",
        ):
            cursor.execute(pragma)
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        write = connection.get_execution_options().get("cirulla_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


class Store(UserQueries, TableLog, RecordQueries):
    """The server's persistence; open it with `await Store.open(url)`."""

    def __init__(
        self, engine: AsyncEngine, appender: Engine | None = None, batch: SqliteBatch | None = None
    ) -> None:
        super().__init__(engine, appender, batch)
        from .tournaments import TournamentStore

        #: Tournaments and their logs (store/tournaments.py).
        self.tournaments: Final = TournamentStore(self)
        #: Chips: wallets, escrows, pools and their ledger (store/ledger.py).
        self.ledger: Final = LedgerStore(self)

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        schema: str | None = None,
        pool_size: int = 10,
        pool_overflow: int = 20,
        pool_timeout: float = 3.0,
    ) -> Store:
        """Connect and bring the schema to the newest Alembic revision.

        `schema` (PostgreSQL only) sets the search_path, so that tests can use a
        throwaway schema; it must exist already. The pool (PostgreSQL) keeps
        `pool_size` connections, opens up to `pool_overflow` more under load, and a
        caller that waits `pool_timeout` seconds for one gets sqlalchemy's
        TimeoutError, which the gateway answers 503 rather than keeping it waiting.
        """
        sa_url = make_url(url)
        backend = sa_url.get_backend_name()
        kwargs: dict[str, Any] = {}
        if schema is not None:
            if backend != "postgresql":
                raise ValueError(f"a schema is for PostgreSQL only, not {backend}")
            if not _SCHEMA_NAME.fullmatch(schema):
                raise ValueError(f"not a plain schema name: {schema!r}")
            kwargs["connect_args"] = {"server_settings": {"search_path": schema}}
        if backend == "sqlite":
            database = sa_url.database
            if not database or database == ":memory:":
                kwargs["poolclass"] = StaticPool  # one connection, or each would see its own db
            else:
                Path(database).parent.mkdir(parents=True, exist_ok=True)
        else:
            kwargs["pool_pre_ping"] = True
            kwargs["pool_size"] = pool_size
            kwargs["max_overflow"] = pool_overflow
            kwargs["pool_timeout"] = pool_timeout
        engine = create_async_engine(sa_url, json_serializer=_json_text, **kwargs)
        appender = None
        if backend == "sqlite":
            _sqlite_pragmas(engine.sync_engine)
            if "poolclass" not in kwargs:  # a file: a second engine sees the same database
                appender = create_engine(
                    sa_url.set(drivername="sqlite"), json_serializer=_json_text
                )
                _sqlite_pragmas(appender)
        batch = SqliteBatch(str(database)) if appender is not None else None
        store = cls(engine, appender, batch)
        try:
            await store._migrate()
        except BaseException:
            await store.close()
            raise
        return store

    async def _migrate(self) -> None:
        if self.dialect == "sqlite":
            assert self._write_lock is not None
            async with self._write_lock, self._writer.connect() as conn:
                await conn.run_sync(_upgrade_sqlite)
            return
        async with self._write() as conn:
            if self.dialect == "postgresql":
                await conn.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK}
                )
            await conn.run_sync(_upgrade)

    async def close(self) -> None:
        await self._engine.dispose()
        if self._appender is not None:
            self._appender.dispose()
        if self._batch is not None:
            self._batch.close()

    @property
    def file(self) -> Path | None:
        """The SQLite database's file (None: in memory, or not SQLite), whose disk
        /api/health watches: a full disk fails writes while reads still work."""
        database = self._engine.url.database
        if self.dialect != "sqlite" or not database or database == ":memory:":
            return None
        return Path(database)

    async def ping(self) -> None:
        """Raise unless the database answers `SELECT 1` (for /api/health; the caller
        bounds the wait)."""
        async with self._engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
