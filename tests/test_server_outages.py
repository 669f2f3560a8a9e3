"""Outages of what a server needs, against real server processes: /api/health says what
is down (503) and comes back to 200 by itself, and a cluster whose Redis restarts empty
goes on with every table on the node that played it, nothing rebuilt and nothing missed.

PostgreSQL is the shared one (a throwaway database is made unreachable); Redis is a
private `redis-server` of each test, since other tests use the shared one.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from serverutil import Player, Server, free_port, pg_execute, throwaway_pg_database
from test_server_play import (
    assert_versions_follow_on,
    catch_up,
    last_view,
    random_move,
    start_server,
)

LEASE = 2  # seconds


def health(server: Server) -> tuple[int, dict[str, Any]]:
    r = httpx.get(f"{server.base_url}/api/health", timeout=10)
    body: dict[str, Any] = r.json()
    return r.status_code, body


def health_is(server: Server, status: int) -> dict[str, Any] | None:
    """The health body if its status is `status`, else None."""
    code, body = health(server)
    return body if code == status else None


def wait_for(check: Callable[[], Any], timeout: float = 30, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        time.sleep(0.2)


class PrivateRedis:
    """A redis-server of the test's own, without persistence: restarted, it is empty."""

    def __init__(self, tmp_path: Path) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            pytest.skip("no redis-server to start a private Redis")
        self.exe = exe
        self.port = free_port()
        self.dir = tmp_path
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_timeout=5)

    def start(self) -> None:
        log = (self.dir / "redis.log").open("ab")
        self.proc = subprocess.Popen(
            [
                self.exe,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.dir),
            ],
            stdout=log,
            stderr=log,
        )
        wait_for(self._answers, 15, "the private Redis to start")

    def _answers(self) -> bool:
        try:
            return bool(self.client().ping())
        except redis.RedisError:
            return False

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


def test_health_says_the_database_is_down_with_503_and_ok_when_it_is_back(
    tmp_path: Path,
) -> None:
    with throwaway_pg_database() as url, start_server(tmp_path, database_url=url) as server:
        body = health_is(server, 200)
        assert body is not None and body["ok"] is True and body["database"] == "ok", body
        name = url.rsplit("/", 1)[1]
        try:
            asyncio.run(pg_execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false'))
            asyncio.run(
                pg_execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    f" WHERE datname = '{name}' AND pid <> pg_backend_pid()"
                )
            )
            body = wait_for(functools.partial(health_is, server, 503), what="503")
            assert body["ok"] is False and body["database"].startswith("down: "), body
            assert "tables" in body
        finally:
            asyncio.run(pg_execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'))
        body = wait_for(functools.partial(health_is, server, 200), what="200 again")
        assert body["ok"] is True and body["database"] == "ok" and "redis" not in body, body


def _bot_table(p: Player) -> str:
    """A table of `p` against a bot, `p` to move first; `p` has joined it."""
    config = {"players": 2, "bots": {"1": "facile"}, "options": {"hands": 3}}
    table = p.create_table(config, dealer=1)
    assert p.join(table)["type"] == "ack"
    return table


def _to_move(p: Player, table: str) -> bool:
    """`p` holds the table's current view, and it is `p`'s turn."""
    view = p.views.get(table)
    if view is None or view["version"] != p.version.get(table):
        return False
    return bool((view.get("deal") or {}).get("legal_moves"))


def _move(p: Player, table: str, rng: random.Random) -> dict[str, Any]:
    """`p` plays a legal move once it is to move (the bot answers at once)."""

    def turn() -> bool:
        if _to_move(p, table):
            return True
        p.drain(0.2)
        return False

    wait_for(turn, what=f"{table}: the turn of {p.user.get('name')}")
    return p.play(table, random_move(last_view(p, table)["deal"]["legal_moves"], rng))


def test_a_cluster_whose_redis_restarts_empty_keeps_every_table_where_it_was(
    tmp_path: Path, private_redis: PrivateRedis
) -> None:
    rng = random.Random(7)
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(throwaway_pg_database())
        env: dict[str, Any] = {
            "redis_url": private_redis.url,
            "cluster": "outage",
            "lease_seconds": LEASE,
            "database_url": database,
        }
        for name in ("a", "b"):
            (tmp_path / name).mkdir()
        a = stack.enter_context(start_server(tmp_path / "a", **env))
        b = stack.enter_context(start_server(tmp_path / "b", **env))
        node = {s: health(s)[1]["node"] for s in (a, b)}
        # anna plays a table on node a, from a and (a second socket) from node b;
        # bruno plays one on node b
        anna = Player(a).guest().connect()
        table_a = _bot_table(anna)
        anna_b = Player(b)
        anna_b.http.cookies.update(anna.http.cookies)
        anna_b.connect()
        assert anna_b.join(table_a)["type"] == "ack"
        bruno = Player(b).guest().connect()
        table_b = _bot_table(bruno)
        assert _move(anna, table_a, rng)["type"] == "ack"
        assert _move(bruno, table_b, rng)["type"] == "ack"
        assert health(a)[1]["tables"] == 1 and health(b)[1]["tables"] == 1

        private_redis.kill()
        for s in (a, b):
            body = wait_for(functools.partial(health_is, s, 503), what="503")
            assert body["redis"].startswith("down: ") and body["database"] == "ok", body
        # a command relayed to the other node is answered at once: try again later
        catch_up(anna_b, table_a, anna.version[table_a])
        relayed = anna_b.play(table_a, "??")
        assert relayed["type"] == "error" and relayed["code"] == "unavailable", relayed
        # a table goes on where it is played: nobody else can take it
        assert _move(anna, table_a, rng)["type"] == "ack"
        time.sleep(1.5 * LEASE)  # longer than a lease: a Redis with data would expire them

        private_redis.start()  # empty: every lease is forgotten
        for s in (a, b):
            wait_for(functools.partial(health_is, s, 200), what="health 200 again")
        owners = private_redis.client()
        wait_for(
            lambda: (
                owners.get(f"outage:owner:{table_a}") == node[a].encode()
                and owners.get(f"outage:owner:{table_b}") == node[b].encode()
            ),
            timeout=6 * LEASE,
            what="each node to claim its lease back",
        )
        # the frames anna_b missed while Redis was down come, once each, in order
        catch_up(anna_b, table_a, anna.version[table_a])
        # moves go on, on both nodes and relayed from b to a
        assert _move(bruno, table_b, rng)["type"] == "ack"
        answer = _move(anna_b, table_a, rng)
        assert answer["type"] == "ack", answer
        catch_up(anna, table_a, answer["version"])
        anna_b.drain(0.5)
        assert anna_b.version[table_a] >= answer["version"]
        for p, table in ((anna, table_a), (anna_b, table_a), (bruno, table_b)):
            assert_versions_follow_on(p, table)
        # nothing was rebuilt: each node still plays its own table and adopted none
        time.sleep(LEASE)
        assert health(a)[1]["tables"] == 1 and health(b)[1]["tables"] == 1
        assert owners.get(f"outage:owner:{table_a}") == node[a].encode()
        for s in (a, b):
            log = s.log_path.read_text(errors="replace")
            assert "claimed back the lease of table" in log
            assert "lost the lease" not in log and "adopted table" not in log
            assert "Traceback" not in log
