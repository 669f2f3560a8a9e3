"""Migrations on an existing database, with real data in it, on SQLite and PostgreSQL.

A real server (the newest schema) makes the data once: a registered player and a
guest, each with a session; a cash partita between them played to the end (its log,
secrets, record, chips, ratings and profile rows); a knockout tournament the player
played against a bot (its log and its table's). Those rows are copied, column by
column, into a database made by an old revision: 0002 (before chips, ratings and
profiles) and 0006 (with them, before the revision that marks bot accounts). A
server started on that database migrates it to the newest revision and must serve
it all as before: the old session cookie logs in, the password too, the partita's
record and the tournament's record are the same and pass `cirulla verify`, the
history, the standings, the ratings and the wallets are the same (0002: the accounts
get the welcome grant a new account gets, once), the profile counts both partite and
lists the tournament, and `cirulla ledger check` holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from serverutil import Player, run_async, throwaway_pg_database
from sqlalchemy import Column, MetaData, Table, create_engine, insert, inspect, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine
from test_server_play import catch_up, last_view, play_until, run_verify, start_server
from test_server_profiles import eventually, play_a_knockout

from cirulla.store.db import MIGRATIONS
from cirulla.store.models import Base

PASSWORD = "password123"
CASH = {"players": 2, "options": {"hands": 1}, "stake": 2, "max_loss": 100}


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def _upgrade_to(connection: Connection, revision: str) -> None:
    config = _config()
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


@dataclass
class Made:
    """What the first server made, and what it served."""

    database: Path
    anna: dict[str, str]  # cookies
    guest: dict[str, str]
    cash_table: str
    tournament: str
    served: dict[str, Any]  # path -> JSON, as anna asked


def _paths(made_cash: str, tournament: str) -> list[str]:
    """What is compared before and after the upgrade (as anna asks)."""
    return [
        "/api/me",
        "/api/wallet",
        "/api/history",
        f"/api/records/{made_cash}",
        f"/api/tournaments/{tournament}",
        f"/api/tournaments/{tournament}/record",
        "/api/players/Anna/ratings",
        "/api/players/Anna",
    ]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    tmp = tmp_path_factory.mktemp("made")
    with start_server(tmp) as server:
        anna = Player(server).register("Anna", PASSWORD).connect()
        guest = Player(server).guest().connect()
        table = anna.create_table(CASH)
        assert anna.join(table)["type"] == "ack"
        assert guest.join(table)["type"] == "ack"
        assert guest.sit(table)["type"] == "ack"
        last = max(anna.version[table], guest.version[table])
        for p in (anna, guest):
            catch_up(p, table, last)
        seats = {last_view(p, table)["you"]: p for p in (anna, guest)}
        assert play_until(table, seats)["status"] == "finished"
        tournament = play_a_knockout(anna)
        eventually(lambda: anna.http.get("/api/players/Anna").json()["partite"]["played"] == 2)
        eventually(lambda: anna.http.get("/api/players/Anna/ratings").json()["ratings"]["1v1"])
        served = {path: anna.http.get(path).json() for path in _paths(table, tournament)}
        assert served["/api/players/Anna"]["tournaments"][0]["id"] == tournament
        assert served["/api/me"]["escrow"] == 0 and served["/api/wallet"]["entries"]
        cookies = dict(anna.http.cookies), dict(guest.http.cookies)
    # (the server stopped: nothing is written while the rows are read)
    return Made(server.data_dir / "cirulla.db", *cookies, table, tournament, served)


def _rows(database: Path) -> dict[str, list[dict[str, Any]]]:
    """Every row of the first server's database, read with the models' types."""
    engine = create_engine(f"sqlite:///{database}")
    try:
        with engine.connect() as conn:
            return {
                t.name: [dict(r._mapping) for r in conn.execute(select(t))]
                for t in Base.metadata.sorted_tables
            }
    finally:
        engine.dispose()


def _insert_old(conn: Connection, rows: dict[str, list[dict[str, Any]]]) -> dict[str, int]:
    """The rows of the tables this old schema has, in the columns it has; how many."""
    found = inspect(conn)
    have = set(found.get_table_names())
    copied: dict[str, int] = {}
    for model in Base.metadata.sorted_tables:
        if model.name not in have or not rows[model.name]:
            continue
        names = {c["name"] for c in found.get_columns(model.name)}
        old = Table(
            model.name, MetaData(), *(Column(c.name, c.type) for c in model.c if c.name in names)
        )
        conn.execute(
            insert(old), [{k: v for k, v in r.items() if k in names} for r in rows[model.name]]
        )
        copied[model.name] = len(rows[model.name])
        if conn.dialect.name == "postgresql" and model.autoincrement_column is not None:
            # as a server of then would have left it: the id sequence past the rows
            column = model.autoincrement_column.name
            conn.execute(
                text(
                    f"SELECT setval(pg_get_serial_sequence('{model.name}', '{column}'),"
                    f" MAX({column})) FROM {model.name}"
                )
            )
    return copied


def old_database(url: str, revision: str, rows: dict[str, list[dict[str, Any]]]) -> dict[str, int]:
    """A database of `revision`'s schema holding `rows` (those it has room for)."""

    async def go() -> dict[str, int]:
        engine = create_async_engine(url)
        try:
            async with engine.begin() as conn:
                await conn.run_sync(_upgrade_to, revision)
                copied: dict[str, int] = await conn.run_sync(_insert_old, rows)
                return copied
        finally:
            await engine.dispose()

    copied: dict[str, int] = run_async(go())
    return copied


def ledger_check(*where: str) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "cirulla", "ledger", "check", *where],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


@pytest.mark.parametrize("revision", ["0002", "0006"])
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_an_old_database_with_real_data_is_migrated_and_served_as_before(
    made: Made, tmp_path: Path, backend: str, revision: str
) -> None:
    rows = _rows(made.database)
    with _database(backend, tmp_path) as url:
        copied = old_database(url, revision, rows)
        assert {"users", "sessions", "table_events", "records", "tournament_events"} <= set(copied)
        assert ("chip_entries" in copied) == (revision == "0006")
        env = {} if backend == "sqlite" else {"database_url": url}
        with start_server(tmp_path, **env) as server:
            head = ScriptDirectory.from_config(_config()).get_current_head()
            assert database_version(url) == head
            assert _counts(url, copied) == copied  # not a row lost by the upgrade
            _check_served(made, server, revision, tmp_path)
            where = (
                ("--data-dir", str(server.data_dir))
                if backend == "sqlite"
                else ("--database-url", url)
            )
            totals = ledger_check(*where)
            # a guest's 200 and a registered account's 1000: granted once, then or now
            assert "wallets 1200, escrows 0, pools 0, grants 1200" in totals, totals


def _database(backend: str, tmp_path: Path) -> Any:
    """A URL for an empty database: PostgreSQL's thrown away after, or the SQLite file
    a server with its data in `tmp_path` uses."""
    if backend == "postgresql":
        return throwaway_pg_database()
    data = tmp_path / "data"
    data.mkdir()
    return contextlib.nullcontext(f"sqlite+aiosqlite:///{data / 'cirulla.db'}")


def _scalar_rows(url: str, query: str) -> list[Any]:
    async def go() -> list[Any]:
        engine = create_async_engine(url)
        try:
            async with engine.connect() as conn:
                return list((await conn.execute(text(query))).all())
        finally:
            await engine.dispose()

    found: list[Any] = run_async(go())
    return found


def database_version(url: str) -> str:
    [(version,)] = _scalar_rows(url, "SELECT version_num FROM alembic_version")
    return str(version)


def _counts(url: str, copied: dict[str, int]) -> dict[str, int]:
    return {name: _scalar_rows(url, f"SELECT COUNT(*) FROM {name}")[0][0] for name in copied}


def _check_served(made: Made, server: Any, revision: str, tmp_path: Path) -> None:
    anna = Player(server)
    anna.http.cookies.update(made.anna)  # the session made before the upgrade
    guest = Player(server)
    guest.http.cookies.update(made.guest)
    before = made.served
    me = anna.http.get("/api/me")
    assert me.status_code == 200, me.text
    who = {k: v for k, v in me.json()["user"].items() if k != "chips"}
    assert who == {k: v for k, v in before["/api/me"]["user"].items() if k != "chips"}
    assert guest.http.get("/api/me").json()["user"]["guest"] is True
    login = Player(server).http.post("/api/login", json={"name": "anna", "password": PASSWORD})
    assert login.status_code == 200, login.text

    # the partita and the tournament, as they were, and verifiable by anyone
    record = anna.http.get(f"/api/records/{made.cash_table}").json()
    assert record == before[f"/api/records/{made.cash_table}"]
    assert anna.http.get(f"/api/replay/{made.cash_table}").status_code == 200
    tid = made.tournament
    assert anna.http.get(f"/api/tournaments/{tid}").json() == before[f"/api/tournaments/{tid}"]
    trecord = anna.http.get(f"/api/tournaments/{tid}/record").json()
    assert trecord == before[f"/api/tournaments/{tid}/record"]
    paths = [tmp_path / "partita.json", tmp_path / "tournament.json"]
    for path, body in zip(paths, (record, trecord), strict=True):
        path.write_text(json.dumps(body))
    done = run_verify(*paths)
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(f"{path}: OK" in done.stdout for path in paths), done.stdout
    assert anna.http.get("/api/history").json() == before["/api/history"]

    # the profile: both partite (rows written at start-up from 0002's records), the
    # tournament with its rank
    def profile() -> dict[str, Any] | None:
        body: dict[str, Any] = anna.http.get("/api/players/Anna").json()
        return body if body["partite"]["played"] == 2 else None

    shown = eventually(profile)
    old = before["/api/players/Anna"]
    assert shown["tournaments"] == old["tournaments"]
    assert (shown["partite"], shown["stats"], shown["luck"]) == (
        old["partite"],
        old["stats"],
        old["luck"],
    )
    if revision == "0002":  # no chips then: the welcome grants, once
        assert (me.json()["chips"], me.json()["escrow"]) == (1000, 0)
        assert guest.http.get("/api/me").json()["chips"] == 200
        [entry] = anna.http.get("/api/wallet").json()["entries"]
        assert entry["kind"] == "welcome"
        return
    # 0006 had chips, ratings and profiles: all as they were
    assert anna.http.get("/api/wallet").json() == before["/api/wallet"]
    assert (me.json()["chips"], me.json()["escrow"]) == (
        before["/api/me"]["chips"],
        before["/api/me"]["escrow"],
    )
    ratings = anna.http.get("/api/players/Anna/ratings").json()
    assert ratings == before["/api/players/Anna/ratings"]


def test_a_second_start_grants_nothing_more(made: Made, tmp_path: Path) -> None:
    """The welcome grants for accounts older than the ledger are given once: a second
    start (or a second node) finds them given."""
    from cirulla.store import Store

    rows = _rows(made.database)
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    old_database(url, "0002", rows)

    async def main() -> None:
        store = await Store.open(url)
        try:
            users = [u["id"] for u in rows["users"]]
            assert await store.ledger.grant_missing_welcome(1000, 200) == len(users)
            assert await store.ledger.grant_missing_welcome(1000, 200) == 0
            report = await store.ledger.check()
            assert report.problems == []
            assert report.totals["grants"] == 1200
        finally:
            await store.close()

    asyncio.run(main())
