"""The store on SQLite (a file in tmp_path) and on the real PostgreSQL (a throwaway
schema per test): users, sessions, tables and their hash-chained logs, records,
history; the migration, reopening, and racing writers."""

from __future__ import annotations

import asyncio
import functools
import os
import random
import secrets
import sqlite3
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from cirulla import Game, Rules, game_record
from cirulla.eventlog import GENESIS, ChainError, LogRecord, chain_hash, verify_chain
from cirulla.store import (
    HistoryRow,
    NameTaken,
    RecordPlayer,
    SeatRow,
    Store,
    TableRow,
    UserRow,
    VersionConflict,
    record_summary,
)
from cirulla.store.db import MIGRATIONS
from cirulla.store.models import Base

PG_DEFAULT = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
PG_URL = os.environ.get("CIRULLA_TEST_PG_URL", PG_DEFAULT)
BIG_SEED = 2**128 - 1


# ---- backends ----------------------------------------------------------------------------
async def _execute(url: str, *statements: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            for statement in statements:
                await conn.execute(text(statement))
    finally:
        await engine.dispose()


@functools.cache
def _postgres() -> tuple[str | None, str]:
    """A PostgreSQL URL that answers (the configured one, else user postgres, then
    root), or None and why not."""
    candidates = [PG_URL] if "CIRULLA_TEST_PG_URL" in os.environ else [PG_DEFAULT]
    candidates += [] if candidates[0] != PG_DEFAULT else [PG_DEFAULT.replace("postgres@", "root@")]
    reason = ""
    for url in candidates:
        try:
            asyncio.run(asyncio.wait_for(_execute(url, "SELECT 1"), 10))
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}"
        else:
            return url, ""
    return None, reason


@dataclass(frozen=True)
class Backend:
    name: str
    url: str
    schema: str | None = None

    async def open(self) -> Store:
        return await Store.open(self.url, schema=self.schema)

    def run(self, check: Callable[[Store], Awaitable[None]]) -> None:
        """Open a store, run `check` on it, close it: one event loop per test."""

        async def main() -> None:
            store = await self.open()
            try:
                await check(store)
            finally:
                await store.close()

        asyncio.run(main())


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        yield Backend("sqlite", f"sqlite+aiosqlite:///{tmp_path / 'store.db'}")
        return
    url, reason = _postgres()
    if url is None:
        pytest.skip(f"PostgreSQL not reachable at {PG_URL}: {reason}")
    schema = f"t_{secrets.token_hex(6)}"
    asyncio.run(_execute(url, f"CREATE SCHEMA {schema}"))
    try:
        yield Backend("postgresql", url, schema)
    finally:
        asyncio.run(_execute(url, f"DROP SCHEMA {schema} CASCADE"))


# ---- helpers -------------------------------------------------------------------------------
def log_of(n: int, seed: int = 0) -> list[LogRecord]:
    """A chained log of `n` records with varied data."""
    records = [LogRecord.first("created", {"config": {"preset": "cirulla"}, "owner": None}, 1000)]
    for i in range(1, n):
        data = {"seat": i % 4, "move": f"{i}D", "seed": BIG_SEED - seed, "nome": "Niccolò"}
        records.append(records[-1].next("move", data, 1000 + i))
    return records


async def new_table(store: Store, table_id: str = "tab1", **kw: Any) -> LogRecord:
    first = log_of(1)[0]
    args: dict[str, Any] = {
        "game": "cirulla",
        "config": {"preset": "cirulla", "players": 4},
        "private": False,
        "invite_hash": None,
        "owner": None,
    }
    args.update(kw)
    await store.create_table(table_id, first=first, **args)
    return first


def played_game(seed: int, players: int = 2) -> Game:
    game = Game(Rules.preset("cirulla").replace(target=11), players=players, seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        deal = game.deal
        while not deal.is_over:
            deal.play(rng.choice(deal.legal_moves()))
        if not game.is_over:
            game.next_deal()
    return game


def table_record(table_id: str, game: Game, users: list[str | None]) -> dict[str, Any]:
    seats = [
        {"seat": i, "name": f"p{i}" if u else f"bot{i}", "user": u, "bot": None if u else "facile"}
        for i, u in enumerate(users)
    ]
    return {
        "format": "cirulla.table/1",
        "table": table_id,
        "seats": seats,
        "game": game_record(game),
    }


# ---- schema ----------------------------------------------------------------------------------
def _schema_drift(connection: Connection) -> list[Any]:
    return list(compare_metadata(MigrationContext.configure(connection), Base.metadata))


def _table_names(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


def test_migration_from_empty_builds_the_models_schema(backend: Backend) -> None:
    head = ScriptDirectory.from_config(_alembic_config()).get_current_head()

    async def check(store: Store) -> None:
        async with store._engine.connect() as conn:
            names = await conn.run_sync(_table_names)
            assert {
                "users",
                "sessions",
                "tables",
                "seats",
                "table_events",
                "table_secrets",
                "records",
                "record_players",
                "alembic_version",
            } <= names
            version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).all()
            assert version == [(head,)]
            # The migration and the models describe the same schema, column for column.
            assert await conn.run_sync(_schema_drift) == []

    backend.run(check)


def _alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def test_sqlite_pragmas(tmp_path: Path) -> None:
    async def main() -> None:
        store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'nested' / 'x.db'}")
        try:
            async with store._engine.connect() as conn:
                assert (await conn.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
                assert (await conn.execute(text("PRAGMA foreign_keys"))).scalar() == 1
                assert (await conn.execute(text("PRAGMA busy_timeout"))).scalar() >= 1000
        finally:
            await store.close()

    asyncio.run(main())
    assert (tmp_path / "nested" / "x.db").exists()  # the directory was made


def test_schema_is_for_postgresql_only(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="PostgreSQL only"):
        asyncio.run(Store.open(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}", schema="s"))


def test_reopening_keeps_everything(backend: Backend) -> None:
    async def main() -> None:
        store = await backend.open()
        user = await store.create_user("Anna", "hash", options={"language": "en"})
        log = log_of(3)
        await store.create_table("keep", first=log[0], **_table_args(owner=user.id))
        await store.append("keep", log[1:], status="playing", secrets={0: BIG_SEED})
        expires = datetime.now(UTC) + timedelta(days=1)
        await store.create_session("h" * 64, user.id, expires)
        await store.close()

        store = await backend.open()  # the migration finds the schema current
        try:
            assert await store.get_user(user.id) == user
            assert await store.load_log("keep") == log
            assert await store.load_secrets("keep") == {0: BIG_SEED}
            assert await store.session_user("h" * 64) == user
            table = await store.get_table("keep")
            assert table is not None and table.status == "playing" and table.version == 3
        finally:
            await store.close()

    asyncio.run(main())


def _table_args(**kw: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "game": "cirulla",
        "config": {"preset": "cirulla"},
        "private": False,
        "invite_hash": None,
        "owner": None,
    }
    args.update(kw)
    return args


# ---- users -----------------------------------------------------------------------------------
def test_users(backend: Backend) -> None:
    async def check(store: Store) -> None:
        anna = await store.create_user("Anna", "argon2-hash", options={"deck_style": "french"})
        assert isinstance(anna, UserRow)
        assert len(anna.id) == 16 and int(anna.id, 16) >= 0
        assert not anna.guest and anna.password_hash == "argon2-hash"
        assert anna.created_at.tzinfo is not None and anna.created_at.utcoffset() == timedelta(0)
        assert await store.get_user(anna.id) == anna
        assert await store.find_user("anna") == anna
        assert await store.find_user("ANNA") == anna
        assert await store.find_user("anna2") is None
        assert await store.get_user("0" * 16) is None
        with pytest.raises(NameTaken):
            await store.create_user("aNNa", "other")
        guest = await store.create_user("ospite-1234", None, guest=True)
        assert guest.guest and guest.password_hash is None and guest.options == {}
        assert guest.id != anna.id

        changed = await store.set_options(anna.id, {"deck_style": "piacentine", "language": "en"})
        assert changed.options == {"deck_style": "piacentine", "language": "en"}
        assert (await store.get_user(anna.id)) == changed
        rehashed = await store.set_password_hash(anna.id, "new-hash")
        assert rehashed.password_hash == "new-hash"
        with pytest.raises(LookupError):
            await store.set_options("nobody", {})

    backend.run(check)


def test_claim_guest(backend: Backend) -> None:
    async def check(store: Store) -> None:
        await store.create_user("Bruno", "h")
        guest = await store.create_user("ospite-0001", None, guest=True)
        with pytest.raises(NameTaken):
            await store.claim_guest(guest.id, "BRUNO", "h2")
        assert (await store.get_user(guest.id)) == guest  # unchanged
        claimed = await store.claim_guest(guest.id, "Carla", "h2")
        assert claimed.id == guest.id and claimed.name == "Carla"
        assert not claimed.guest and claimed.password_hash == "h2"
        assert claimed.created_at == guest.created_at
        assert await store.find_user("carla") == claimed
        assert await store.find_user("ospite-0001") is None  # the guest name is free again
        with pytest.raises(ValueError, match="not a guest"):
            await store.claim_guest(guest.id, "Carla2", "h3")
        with pytest.raises(LookupError):
            await store.claim_guest("nobody", "Dario", "h")

    backend.run(check)


# ---- sessions ----------------------------------------------------------------------------------
def test_sessions(backend: Backend) -> None:
    async def check(store: Store) -> None:
        user = await store.create_user("Elena", "h")
        now = datetime.now(UTC)
        await store.create_session("a" * 64, user.id, now + timedelta(hours=1))
        await store.create_session("b" * 64, user.id, now + timedelta(hours=1))
        assert await store.session_user("a" * 64) == user
        assert await store.session_user("c" * 64) is None
        # Expired: None, and the session is gone even for an earlier clock.
        assert await store.session_user("a" * 64, now + timedelta(hours=2)) is None
        assert await store.session_user("a" * 64, now) is None
        await store.delete_session("b" * 64)
        assert await store.session_user("b" * 64) is None
        await store.delete_session("b" * 64)  # deleting twice is fine
        with pytest.raises(LookupError):
            await store.create_session("d" * 64, "nobody", now + timedelta(hours=1))
        await store.create_session("e" * 64, user.id, now + timedelta(minutes=1))
        await store.create_session("f" * 64, user.id, now + timedelta(days=1))
        assert await store.purge_sessions(now + timedelta(hours=1)) == 1
        assert await store.session_user("f" * 64) == user

    backend.run(check)


# ---- tables and logs --------------------------------------------------------------------------
def test_create_table_and_append(backend: Backend) -> None:
    async def check(store: Store) -> None:
        owner = await store.create_user("Fabio", "h")
        log = log_of(6)
        await store.create_table(
            "t1",
            game="cirullone",
            config={"preset": "cirullone", "players": 4, "seed": BIG_SEED},
            private=True,
            invite_hash="i" * 64,
            owner=owner.id,
            first=log[0],
        )
        table = await store.get_table("t1")
        assert isinstance(table, TableRow)
        assert (table.game, table.status, table.private, table.version) == (
            "cirullone",
            "open",
            True,
            1,
        )
        assert table.config == {"preset": "cirullone", "players": 4, "seed": BIG_SEED}
        assert table.invite_hash == "i" * 64 and table.owner == owner.id
        assert table.created_at.utcoffset() == timedelta(0)
        assert await store.load_log("t1") == log[:1]
        assert await store.get_table("nope") is None

        seats = [SeatRow(0, owner.id, None, "Fabio"), SeatRow(1, None, "facile", "Bot")]
        await store.append("t1", log[1:3], status="playing", seats=seats, secrets={0: BIG_SEED})
        await store.append("t1", log[3:4])  # status, seats and secrets untouched
        more = [SeatRow(0, owner.id, None, "Fabio"), SeatRow(2, None, "campione", "Bot 2")]
        await store.append("t1", log[4:], seats=more, secrets={1: 7, 2: 2**127})

        after = await store.get_table("t1")
        assert after is not None
        assert after.version == 6 and after.status == "playing"
        assert after.updated_at >= table.updated_at
        assert await store.get_seats("t1") == more
        assert await store.load_secrets("t1") == {0: BIG_SEED, 1: 7, 2: 2**127}
        stored = await store.load_log("t1")
        assert stored == log
        verify_chain(stored)  # the data came back exactly as hashed
        assert await store.load_log("t1", after=4) == log[4:]
        assert await store.load_log("t1", after=6) == []
        await store.append("t1", [], status="finished", seats=[])
        final = await store.get_table("t1")
        assert final is not None and final.status == "finished" and final.version == 6
        assert await store.get_seats("t1") == []

    backend.run(check)


def test_create_table_twice_is_a_conflict(backend: Backend) -> None:
    async def check(store: Store) -> None:
        await new_table(store, "dup")
        with pytest.raises(VersionConflict):
            await new_table(store, "dup", game="scopa")
        table = await store.get_table("dup")
        assert table is not None and table.game == "cirulla"
        with pytest.raises(ChainError):
            await store.create_table("x", first=log_of(2)[1], **_table_args())

    backend.run(check)


def test_version_conflicts_change_nothing(backend: Backend) -> None:
    async def check(store: Store) -> None:
        log = log_of(4)
        await store.create_table("c", first=log[0], **_table_args())
        await store.append("c", log[1:2], status="playing", seats=[SeatRow(0, None, "x", "X")])
        before = (
            await store.get_table("c"),
            await store.load_log("c"),
            await store.get_seats("c"),
            await store.load_secrets("c"),
        )
        other = log[0].next("move", {"seat": 1, "move": "KS"}, 5000)  # a rival version 2
        attempts: list[list[LogRecord]] = [
            log[1:3],  # version 2 exists already
            [other, other.next("move", {}, 5001)],  # version 2 exists (from another chain)
            [log[2].next("move", {}, 9)],  # version 4: a gap
            [_hashed(LogRecord(3, "move", {}, 9, "f" * 64, ""))],  # links to a wrong hash
            [log[2], log[3].next("move", {}, 1)],  # versions 3 and 5 in one batch
        ]
        for records in attempts:
            with pytest.raises(VersionConflict):
                await store.append("c", records, status="finished", seats=[], secrets={5: 5, 6: 6})
            after = (
                await store.get_table("c"),
                await store.load_log("c"),
                await store.get_seats("c"),
                await store.load_secrets("c"),
            )
            assert after == before
        # A record whose hash is not its content's is a bug, said as such.
        bad = LogRecord(3, "move", {"x": 1}, 1, log[1].hash, "0" * 64)
        with pytest.raises(ChainError):
            await store.append("c", [bad])
        with pytest.raises(LookupError):
            await store.append("nowhere", log[1:2])
        # And the right next record still goes in.
        await store.append("c", log[2:])
        assert await store.load_log("c") == log

    backend.run(check)


def _hashed(rec: LogRecord) -> LogRecord:
    """The record with its right hash (whatever it links to)."""
    return LogRecord(
        rec.version,
        rec.type,
        rec.data,
        rec.at,
        rec.prev,
        chain_hash(rec.prev, rec.version, rec.type, rec.data, rec.at),
    )


def test_concurrent_appends_exactly_one_wins(backend: Backend) -> None:
    """Writers racing on one table, on two connections pools (as two nodes would):
    every round, exactly one batch lands and the log stays one chain."""

    async def main() -> None:
        first_store, second_store = await backend.open(), await backend.open()
        try:
            first = await new_table(first_store, "race")
            last = first
            for round_ in range(5):
                batches = [
                    [last.next("move", {"writer": w, "round": round_}, 2000 + w)] for w in range(6)
                ]
                results = await asyncio.gather(
                    *(
                        (first_store if w % 2 else second_store).append("race", batch)
                        for w, batch in enumerate(batches)
                    ),
                    return_exceptions=True,
                )
                winners = [b for b, r in zip(batches, results, strict=True) if r is None]
                losers = [r for r in results if r is not None]
                assert len(winners) == 1, results
                assert all(isinstance(r, VersionConflict) for r in losers), losers
                last = winners[0][0]
            log = await second_store.load_log("race")
            assert len(log) == 6 and log[-1] == last
            verify_chain(log)
            table = await first_store.get_table("race")
            assert table is not None and table.version == 6
        finally:
            await first_store.close()
            await second_store.close()

    asyncio.run(main())


def test_appends_of_many_tables_at_once_keep_each_tables_seats_secrets_and_status(
    backend: Backend,
) -> None:
    """Appends that arrive together (on SQLite, one group commit): each table gets its
    own records, seats, secrets and status; a second append to one table in the same
    burst is a conflict that changes nothing, and the others still land."""

    async def check(store: Store) -> None:
        firsts = [await new_table(store, f"g{i}") for i in range(4)]
        seats = [SeatRow(0, None, "facile", "Bot 0"), SeatRow(3, None, "campione", "Bot 3")]
        moves = [f.next("move", {"table": i}, 3000 + i) for i, f in enumerate(firsts)]
        await asyncio.gather(
            store.append("g0", [moves[0]], seats=seats),
            store.append("g1", [moves[1]], seats=[], secrets={0: 2**127 - 1}),
            store.append("g2", [moves[2]], status="playing"),
        )
        rival = firsts[3].next("move", {"rival": True}, 3100)
        results = await asyncio.gather(
            store.append("g3", [moves[3]]),
            store.append("g3", [rival]),
            store.append("g2", [moves[2].next("move", {"more": 1}, 3200)]),
            return_exceptions=True,
        )
        assert results[2] is None
        assert results[:2].count(None) == 1  # one of g3's two wins
        assert any(isinstance(r, VersionConflict) for r in results[:2])
        assert await store.get_seats("g0") == seats
        assert await store.get_seats("g1") == []
        assert await store.load_secrets("g1") == {0: 2**127 - 1}
        statuses = {t: (await store.get_table(t)) for t in ("g0", "g1", "g2", "g3")}
        assert {t: (row.status, row.version) for t, row in statuses.items() if row} == {
            "g0": ("open", 2),
            "g1": ("open", 2),
            "g2": ("playing", 3),
            "g3": ("open", 2),
        }
        for i in range(2):
            assert await store.load_log(f"g{i}") == [firsts[i], moves[i]]
        assert (await store.load_log("g2"))[:2] == [firsts[2], moves[2]]
        assert (await store.load_log("g3"))[1] in (moves[3], rival)

    backend.run(check)


def test_a_stale_append_in_a_group_commit_fails_alone(backend: Backend) -> None:
    """A batch whose compare-and-set finds one table's log moved on (another node wrote
    it) is rolled back whole, then each append is tried alone: the stale one gets a
    VersionConflict and changes nothing, the others land."""

    async def check(store: Store) -> None:
        firsts = [await new_table(store, f"s{i}") for i in range(3)]
        ahead = firsts[0].next("move", {"elsewhere": True}, 4000)
        await store.append("s0", [ahead])  # the log moves on before the burst
        stale = firsts[0].next("move", {"late": True}, 4001)
        fresh = [f.next("move", {"ok": i}, 4100 + i) for i, f in enumerate(firsts)]
        results = await asyncio.gather(
            store.append("s1", [fresh[1]], status="playing"),
            store.append("s0", [stale]),
            store.append("s2", [fresh[2]], secrets={1: 7}),
            return_exceptions=True,
        )
        assert results[0] is None and results[2] is None
        assert isinstance(results[1], VersionConflict)
        assert await store.load_log("s0") == [firsts[0], ahead]
        assert await store.load_log("s1") == [firsts[1], fresh[1]]
        assert await store.load_log("s2") == [firsts[2], fresh[2]]
        assert await store.load_secrets("s2") == {1: 7}
        row = await store.get_table("s1")
        assert row is not None and (row.status, row.version) == ("playing", 2)

    backend.run(check)


def test_live_tables(backend: Backend) -> None:
    async def check(store: Store) -> None:
        for table_id, status in [
            ("a", None),
            ("b", "playing"),
            ("c", "finished"),
            ("d", "closed"),
        ]:
            first = await new_table(store, table_id)
            if status is not None:
                await store.append(table_id, [first.next("started", {}, 2)], status=status)
        live = await store.live_tables()
        assert [(t.id, t.status) for t in live] == [("a", "open"), ("b", "playing")]

    backend.run(check)


# ---- records and history ---------------------------------------------------------------------
def test_records_and_history(backend: Backend) -> None:
    async def check(store: Store) -> None:
        gina = await store.create_user("Gina", "h")
        ugo = await store.create_user("Ugo", "h")
        start = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
        records = {}
        for k in range(5):
            table_id = f"r{k}"
            await new_table(store, table_id, game="cirulla" if k % 2 else "scopa")
            game = played_game(k)
            record = table_record(table_id, game, [gina.id, ugo.id if k < 2 else None])
            records[table_id] = record
            winner = game.winner
            players = [RecordPlayer(gina.id, 0, 0, winner == 0)]
            if k < 2:
                players.append(RecordPlayer(ugo.id, 1, 1, winner == 1))
            await store.save_record(
                table_id, record, players, finished_at=start + timedelta(minutes=k)
            )
        assert await store.get_record("r3") == records["r3"]
        assert await store.get_record("missing") is None
        assert await store.record_players("r1") == [
            RecordPlayer(gina.id, 0, 0, records["r1"]["game"]["winner"] == 0),
            RecordPlayer(ugo.id, 1, 1, records["r1"]["game"]["winner"] == 1),
        ]

        # Idempotent: saving again (even something else) keeps the first.
        await store.save_record("r3", {"other": True}, [RecordPlayer(ugo.id, 1, 1, True)])
        assert await store.get_record("r3") == records["r3"]
        assert [p.user_id for p in await store.record_players("r3")] == [gina.id]

        rows = await store.history(gina.id)
        assert [r.table_id for r in rows] == ["r4", "r3", "r2", "r1", "r0"]
        assert all(isinstance(r, HistoryRow) for r in rows)
        top = rows[0]
        assert top.finished_at == start + timedelta(minutes=4)
        assert (top.game, top.seat, top.side) == ("scopa", 0, 0)
        game4 = records["r4"]["game"]
        assert top.won == (game4["winner"] == 0)
        assert top.summary["players"] == ["p0", "bot1"]
        assert top.summary["totals"] == game4["totals"]
        assert top.summary["winner"] == game4["winner"]
        assert top.summary["end_reason"] == game4["end_reason"]

        page = await store.history(gina.id, limit=2)
        assert [r.table_id for r in page] == ["r4", "r3"]
        page = await store.history(gina.id, limit=2, before=page[-1].finished_at)
        assert [r.table_id for r in page] == ["r2", "r1"]
        assert [r.table_id for r in await store.history(ugo.id)] == ["r1", "r0"]
        assert (await store.history(ugo.id))[0].seat == 1
        assert await store.history("nobody") == []
        with pytest.raises(LookupError):
            await store.save_record("no-table", {}, [])

    backend.run(check)


def test_record_summary_is_tolerant() -> None:
    assert record_summary({}) == {
        "players": [],
        "bots": [],
        "totals": None,
        "winner": None,
        "end_reason": None,
        "target": None,
        "deals": None,
    }
    odd = {
        "game": {"players": 3, "totals": [1, 2, 3], "winner": 2, "rules": {"target": 51}},
        "seats": [None, {"seat": 2, "name": "Zoe", "bot": None}, "junk", {"seat": 9}],
    }
    summary = record_summary(odd)
    assert summary["players"] == [None, None, "Zoe"]
    assert summary["totals"] == [1, 2, 3] and summary["winner"] == 2
    assert summary["target"] == 51
    # Without a player count, the seats say how many there were.
    assert record_summary({"seats": [{"seat": 1, "name": "B", "bot": "facile"}]})["bots"] == [
        None,
        "facile",
    ]


def test_sqlite_file_holds_hashes_and_text_seeds(tmp_path: Path) -> None:
    """Seeds are kept as text (128-bit), sessions only as hashes."""
    url = f"sqlite+aiosqlite:///{tmp_path / 's.db'}"

    async def main() -> None:
        store = await Store.open(url)
        try:
            first = await new_table(store, "s")
            await store.append("s", [first.next("x", {}, 1)], secrets={0: BIG_SEED})
        finally:
            await store.close()

    asyncio.run(main())
    with sqlite3.connect(tmp_path / "s.db") as db:
        assert db.execute("SELECT seed, typeof(seed) FROM table_secrets").fetchall() == [
            (str(BIG_SEED), "text")
        ]
        assert db.execute("SELECT prev FROM table_events WHERE version = 1").fetchall() == [
            (GENESIS,)
        ]
