"""The store: users, sessions, tables with their event logs, finished records.

Async SQLAlchemy 2 Core over SQLite (the default, one file) or PostgreSQL (several
nodes). Every method is one transaction and returns frozen dataclasses, never
ORM objects, so nothing outside this module holds a database handle.

A table's log grows by compare-and-set: `append` updates the table row only if
its version and last hash are the ones the new records follow, in the same
statement, so of two writers racing on one table exactly one wins and the other
gets `VersionConflict` with nothing changed.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets as _secrets
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any, Final, cast

import orjson
from alembic import command
from alembic.config import Config
from sqlalchemy import (
    Row,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy import Table as SqlTable
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from ..eventlog import GENESIS, ChainError, LogRecord, chain_hash
from .coach import hint_marks
from .ledger import LedgerStore, Movement, welcome_grant, write_movements
from .models import Record, RecordPlayerModel, Seat, Session, Table, TableEvent, TableSecret, User
from .postgres_batch import write_batch as _postgres_batch
from .sqlite_batch import SqliteBatch

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
#: The statuses of tables that are restored when the server starts.
LIVE_STATUSES: Final = ("open", "playing")
_SCHEMA_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_MIGRATION_LOCK: Final = 0x63697275  # "ciru": one node at a time upgrades a shared PostgreSQL

users = cast(SqlTable, User.__table__)
sessions = cast(SqlTable, Session.__table__)
tables = cast(SqlTable, Table.__table__)
seats_t = cast(SqlTable, Seat.__table__)
events_t = cast(SqlTable, TableEvent.__table__)
secrets_t = cast(SqlTable, TableSecret.__table__)
records_t = cast(SqlTable, Record.__table__)
players_t = cast(SqlTable, RecordPlayerModel.__table__)


class NameTaken(ValueError):
    """Another user has this name (names are unique whatever their case)."""


class VersionConflict(Exception):
    """The records do not follow on from the stored log: another writer got there
    first, or the writer's idea of the log is stale. Nothing was written."""


@dataclass(frozen=True, slots=True)
class UserRow:
    id: str
    name: str
    guest: bool
    password_hash: str | None
    options: dict[str, Any]
    created_at: datetime
    #: A bot account (docs/bots.md): played by a program through API tokens, never logged in.
    bot: bool = False


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


@dataclass(frozen=True, slots=True)
class RecordPlayer:
    """A user who played a finished partita: their seat, side and result."""

    user_id: str
    seat: int
    side: int
    won: bool | None


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One line of a user's history: a finished partita seen from their seat."""

    table_id: str
    game: str
    finished_at: datetime
    seat: int
    side: int
    won: bool | None
    summary: dict[str, Any]


_Row = Row[*tuple[Any, ...]]


def _now() -> datetime:
    return datetime.now(UTC)


def _name_key(name: str) -> str:
    return name.casefold()


def _user(row: _Row) -> UserRow:
    return UserRow(
        row.id,
        row.name,
        bool(row.guest),
        row.password_hash,
        dict(row.options),
        row.created_at,
        bool(row.bot),
    )


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


_USER_COLUMNS: Final = (
    users.c.id,
    users.c.name,
    users.c.guest,
    users.c.password_hash,
    users.c.options,
    users.c.created_at,
    users.c.bot,
)
_TABLE_COLUMNS: Final = tuple(c for c in tables.c if c.name != "last_hash")


def record_summary(record: Mapping[str, Any]) -> dict[str, Any]:
    """What a history list shows of a finished partita, taken from its record.

    Tolerant: a field the record lacks is None (or empty), never an error, so that
    an odd record still lists.
    """
    game = record.get("game")
    game = game if isinstance(game, Mapping) else {}
    raw_seats = record.get("seats")
    seats = [s for s in raw_seats if isinstance(s, Mapping)] if isinstance(raw_seats, list) else []
    count = game.get("players")
    if not isinstance(count, int) or isinstance(count, bool) or not 0 < count <= 8:
        count = max((s["seat"] for s in seats if isinstance(s.get("seat"), int)), default=-1) + 1
    names: list[str | None] = [None] * count
    bots: list[str | None] = [None] * count
    accounts = [False] * count  # bot accounts (docs/bots.md), as opposed to people
    for s in seats:
        seat = s.get("seat")
        if isinstance(seat, int) and 0 <= seat < count:
            name = s.get("name")
            bot = s.get("bot")
            names[seat] = name if isinstance(name, str) else None
            bots[seat] = bot if isinstance(bot, str) else None
            accounts[seat] = s.get("bot_account") is True
    rules = game.get("rules")
    deals = game.get("deals")
    summary = {
        "players": names,
        "bots": bots,
        "totals": game.get("totals"),
        "winner": game.get("winner"),
        "end_reason": game.get("end_reason"),
        "target": rules.get("target") if isinstance(rules, Mapping) else None,
        "deals": len(deals) if isinstance(deals, list) else None,
    }
    if any(accounts):
        summary["bot_accounts"] = accounts
    if game.get("format") == "cirulla.cirulo/1":  # Cirulo keeps balances, not totals
        summary["game"] = "cirulo"
        summary["balances"] = game.get("balances")
    hinted = _hinted(record.get("coach"))
    if hinted:  # the seats that asked the coach for hints
        summary["hints"] = hinted
    return summary


def _hinted(coach: Any) -> list[int]:
    """The seats that asked the coach for hints (store/coach.py), from a record."""
    hints = coach.get("hints") if isinstance(coach, Mapping) else None
    if not isinstance(hints, list):
        return []
    seats = [h.get("seat") for h in hints if isinstance(h, Mapping)]
    return [s for s in seats if isinstance(s, int) and not isinstance(s, bool)]


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


def _json_text(value: Any) -> str:
    """The JSON columns' text: orjson (a finished partita's record is big), or the
    standard library for what orjson cannot hold (integers beyond 64 bits)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(value)


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


class Store:
    """The server's persistence; open it with `await Store.open(url)`."""

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
        if appender is not None:
            self._bind_time = tables.c.updated_at.type.bind_processor(appender.dialect)
            self._bind_json = events_t.c.data.type.bind_processor(appender.dialect)
        self._writer = engine.execution_options(cirulla_write=True)
        self._write_lock = asyncio.Lock() if engine.dialect.name == "sqlite" else None
        self._pending: list[tuple[_Append, asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self.dialect: Final = engine.dialect.name
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

    # ---- users ------------------------------------------------------------------------
    async def create_user(
        self,
        name: str,
        password_hash: str | None,
        *,
        guest: bool = False,
        options: dict[str, Any] | None = None,
        chips: int = 0,
        bot: bool = False,
    ) -> UserRow:
        """A new user with a random id; NameTaken if the name is, whatever its case.
        `chips` is the welcome grant, written with the user in one transaction."""
        row = UserRow(
            _secrets.token_hex(8), name, guest, password_hash, dict(options or {}), _now(), bot
        )
        try:
            async with self._write() as conn:
                await conn.execute(
                    insert(users).values(
                        id=row.id,
                        name=row.name,
                        name_key=_name_key(name),
                        guest=row.guest,
                        password_hash=row.password_hash,
                        options=row.options,
                        created_at=row.created_at,
                        bot=row.bot,
                    )
                )
                if chips > 0:
                    await conn.run_sync(
                        write_movements, [welcome_grant(row.id, chips)], row.created_at
                    )
        except IntegrityError:
            raise NameTaken(f"the name {name!r} is taken") from None
        return row

    async def get_user(self, user_id: str) -> UserRow | None:
        async with self._read() as conn:
            row = (await conn.execute(select(*_USER_COLUMNS).where(users.c.id == user_id))).first()
        return None if row is None else _user(row)

    async def find_user(self, name: str) -> UserRow | None:
        """The user called `name`, whatever its case."""
        async with self._read() as conn:
            row = (
                await conn.execute(
                    select(*_USER_COLUMNS).where(users.c.name_key == _name_key(name))
                )
            ).first()
        return None if row is None else _user(row)

    async def claim_guest(self, user_id: str, name: str, password_hash: str) -> UserRow:
        """The guest becomes a registered user with the same id (so its history stays).

        NameTaken if the name is someone else's; ValueError if the user is not a guest.
        """
        try:
            async with self._write() as conn:
                row = (
                    await conn.execute(
                        update(users)
                        .where(users.c.id == user_id, users.c.guest.is_(True))
                        .values(
                            name=name,
                            name_key=_name_key(name),
                            guest=False,
                            password_hash=password_hash,
                        )
                        .returning(*_USER_COLUMNS)
                    )
                ).first()
        except IntegrityError:
            raise NameTaken(f"the name {name!r} is taken") from None
        if row is None:
            if await self.get_user(user_id) is None:
                raise LookupError(f"no user {user_id!r}")
            raise ValueError(f"user {user_id!r} is not a guest")
        return _user(row)

    async def set_options(self, user_id: str, options: dict[str, Any]) -> UserRow:
        """Replace the user's options (the caller merges); LookupError if no such user."""
        return await self._update_user(user_id, options=dict(options))

    async def set_password_hash(self, user_id: str, password_hash: str) -> UserRow:
        """Store a new hash of the same password (argon2 parameters grew stronger)."""
        return await self._update_user(user_id, password_hash=password_hash)

    async def _update_user(self, user_id: str, **values: Any) -> UserRow:
        async with self._write() as conn:
            row = (
                await conn.execute(
                    update(users)
                    .where(users.c.id == user_id)
                    .values(**values)
                    .returning(*_USER_COLUMNS)
                )
            ).first()
        if row is None:
            raise LookupError(f"no user {user_id!r}")
        return _user(row)

    # ---- sessions ---------------------------------------------------------------------
    async def create_session(self, token_hash: str, user_id: str, expires_at: datetime) -> None:
        """A session for `user_id`; the caller keeps the token, the store only its hash."""
        try:
            async with self._write() as conn:
                await conn.execute(
                    insert(sessions).values(
                        token_hash=token_hash,
                        user_id=user_id,
                        created_at=_now(),
                        expires_at=expires_at,
                    )
                )
        except IntegrityError:
            raise LookupError(f"no user {user_id!r}, or the session exists") from None

    async def session_user(self, token_hash: str, now: datetime | None = None) -> UserRow | None:
        """The user of an unexpired session, else None (an expired one is deleted)."""
        now = now or _now()
        async with self._read() as conn:
            row = (
                await conn.execute(
                    select(*_USER_COLUMNS, sessions.c.expires_at)
                    .join(sessions, sessions.c.user_id == users.c.id)
                    .where(sessions.c.token_hash == token_hash)
                )
            ).first()
        if row is None:
            return None
        if row.expires_at <= now:
            await self.delete_session(token_hash)
            return None
        return _user(row)

    async def delete_session(self, token_hash: str) -> None:
        async with self._write() as conn:
            await conn.execute(delete(sessions).where(sessions.c.token_hash == token_hash))

    async def purge_sessions(self, now: datetime | None = None) -> int:
        """Delete every expired session; how many there were."""
        async with self._write() as conn:
            result = await conn.execute(
                delete(sessions).where(sessions.c.expires_at <= (now or _now()))
            )
        return int(result.rowcount)

    # ---- tables and their logs --------------------------------------------------------
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

    # ---- finished partite -------------------------------------------------------------
    async def save_record(
        self,
        table_id: str,
        record: dict[str, Any],
        players: Sequence[RecordPlayer],
        *,
        finished_at: datetime | None = None,
    ) -> None:
        """Keep a finished partita's record and who played it. Idempotent: a second
        save of the same table changes nothing. LookupError if there is no such table."""
        finished_at = finished_at or _now()

        def body(conn: Connection) -> None:
            game = conn.scalar(select(tables.c.game).where(tables.c.id == table_id))
            if game is None:
                raise LookupError(f"no table {table_id!r}")
            if conn.scalar(select(records_t.c.table_id).where(records_t.c.table_id == table_id)):
                return
            saved = record
            hints = hint_marks(conn, table_id)  # the coach's hints: the record says so
            if hints:
                saved = {**record, "coach": {"hints": hints}}
            conn.execute(
                insert(records_t).values(
                    table_id=table_id,
                    game=game,
                    record=saved,
                    summary=record_summary(saved),
                    finished_at=finished_at,
                )
            )
            if players:
                conn.execute(
                    insert(players_t),
                    [
                        {
                            "table_id": table_id,
                            "user_id": p.user_id,
                            "seat": p.seat,
                            "side": p.side,
                            "won": p.won,
                            "finished_at": finished_at,
                        }
                        for p in players
                    ],
                )

        try:
            await self._write_sync(body)
        except IntegrityError:
            if await self.get_record(table_id) is None:  # not a racing twin save: a real fault
                raise
            return

    async def get_record(self, table_id: str) -> dict[str, Any] | None:
        async with self._read() as conn:
            value = await conn.scalar(
                select(records_t.c.record).where(records_t.c.table_id == table_id)
            )
        return None if value is None else dict(value)

    async def record_players(self, table_id: str) -> list[RecordPlayer]:
        """The users who played a finished partita, by seat."""
        async with self._read() as conn:
            rows = await conn.execute(
                select(players_t.c.user_id, players_t.c.seat, players_t.c.side, players_t.c.won)
                .where(players_t.c.table_id == table_id)
                .order_by(players_t.c.seat)
            )
            return [RecordPlayer(r.user_id, r.seat, r.side, r.won) for r in rows]

    async def history(
        self, user_id: str, *, limit: int = 50, before: datetime | None = None
    ) -> list[HistoryRow]:
        """The user's finished partite, newest first; `before` pages back in time."""
        query = (
            select(
                players_t.c.table_id,
                records_t.c.game,
                players_t.c.finished_at,
                players_t.c.seat,
                players_t.c.side,
                players_t.c.won,
                records_t.c.summary,
            )
            .join(records_t, records_t.c.table_id == players_t.c.table_id)
            .where(players_t.c.user_id == user_id)
            .order_by(players_t.c.finished_at.desc(), players_t.c.table_id.desc())
            .limit(limit)
        )
        if before is not None:
            query = query.where(players_t.c.finished_at < before)
        async with self._read() as conn:
            rows = await conn.execute(query)
            return [
                HistoryRow(
                    r.table_id, r.game, r.finished_at, r.seat, r.side, r.won, dict(r.summary)
                )
                for r in rows
            ]
