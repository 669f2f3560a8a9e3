"""Two real server processes sharing tables through Redis and one PostgreSQL database
(`cirulla serve --redis-url`): a table made on one node is listed and played from the
other, private tables stay private across nodes, and when a node is killed its tables
go on on the other one, its clients joining there from the last version they saw.
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serverutil import Player, Server, throwaway_pg_database
from test_server_play import (
    assert_finished_consistently,
    assert_verifies,
    assert_versions_follow_on,
    fetch_record,
    last_view,
    play_until,
    random_move,
    start_server,
)

from cirulla.settings import Settings

REDIS_URL = os.environ.get("CIRULLA_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
LEASE = 2  # seconds: a dead node's tables move within about this long


def _redis_or_skip() -> None:
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping()
    except Exception as exc:  # redis' errors, OSError: all mean no Redis
        pytest.skip(f"Redis not reachable at {REDIS_URL}: {exc!r}")


@pytest.fixture
def database() -> Iterator[str]:
    """A throwaway PostgreSQL database for the cluster's nodes."""
    _redis_or_skip()
    with throwaway_pg_database() as url:
        yield url


@pytest.fixture
def nodes(tmp_path: Path, database: str) -> Iterator[tuple[Server, Server]]:
    """Two nodes of one cluster (started one after the other: the first migrates)."""
    cluster = f"t{secrets.token_hex(4)}"
    env: dict[str, Any] = {"redis_url": REDIS_URL, "cluster": cluster, "lease_seconds": LEASE}
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    with contextlib.ExitStack() as stack:
        a = stack.enter_context(start_server(tmp_path / "a", database_url=database, **env))
        b = stack.enter_context(start_server(tmp_path / "b", database_url=database, **env))
        yield a, b
    _forget_cluster(cluster)


def _forget_cluster(cluster: str) -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(match=f"{cluster}:*"))
    if keys:
        client.delete(*keys)


def on(server: Server, player: Player) -> Player:
    """The same user with a socket on another node (the session is in the shared store)."""
    other = Player(server)
    other.http.cookies.update(player.http.cookies)
    other.user = player.user
    return other.connect()


def health(server: Server) -> dict[str, Any]:
    body: dict[str, Any] = httpx.get(f"{server.base_url}/api/health", timeout=5).json()
    return body


def wait_for(check: Any, timeout: float = 20, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what or check}")


def lobby_entry(p: Player, table: str, pred: Any) -> dict[str, Any]:
    frame = p.recv_until(
        lambda f: f["type"] == "lobby" and any(t["id"] == table and pred(t) for t in f["tables"])
    )
    (entry,) = [t for t in frame["tables"] if t["id"] == table]
    return entry


def two_player_table(
    a: Server, b: Server, hands: int
) -> tuple[Player, Player, str, dict[int, Player]]:
    """anna on node a makes a 2-player table and bruno, on node b, sits at it."""
    anna = Player(a).guest().connect()
    bruno = Player(b).guest().connect()
    table = anna.create_table({"players": 2, "options": {"hands": hands}})
    assert anna.join(table)["type"] == "ack"
    assert bruno.join(table)["type"] == "ack"
    assert bruno.sit(table)["type"] == "ack"
    seats = {0: anna, 1: bruno} if last_view(anna, table)["you"] == 0 else {0: bruno, 1: anna}
    return anna, bruno, table, seats


def test_each_node_has_its_own_id_and_no_node_without_postgresql() -> None:
    with pytest.raises(ValueError, match="database-url"):
        Settings.from_env({}, redis_url=REDIS_URL)
    with pytest.raises(ValueError, match="database-url"):
        Settings.from_env({}, redis_url=REDIS_URL, database_url="sqlite+aiosqlite:///x.db")
    with pytest.raises(ValueError, match="LEASE_SECONDS"):
        Settings.from_env(
            {}, redis_url=REDIS_URL, database_url="postgresql+asyncpg://h/d", lease_seconds=0.5
        )


def test_a_table_made_on_one_node_is_listed_and_played_from_the_other(
    nodes: tuple[Server, Server], tmp_path: Path
) -> None:
    a, b = nodes
    assert health(a)["node"] != health(b)["node"]
    anna = Player(a).guest().connect()
    bruno = Player(b).guest().connect()
    watcher = Player(b).guest().connect()
    assert watcher.command({"type": "lobby"})["type"] == "ack"
    table = anna.create_table({"players": 2, "name": "due nodi", "options": {"hands": 1}})
    assert anna.join(table)["type"] == "ack"
    listed = lobby_entry(watcher, table, lambda t: t["status"] == "open")
    assert listed["name"] == "due nodi" and listed["seats"][1] is None
    # node b serves the table's HTTP summary and relays bruno's commands to node a
    r = bruno.http.get(f"/api/tables/{table}")
    assert r.status_code == 200 and r.json()["table"]["id"] == table
    assert bruno.join(table)["type"] == "ack"
    answer = bruno.sit(table)
    assert answer["type"] == "ack", answer
    started = lobby_entry(watcher, table, lambda t: t["status"] == "playing")
    assert started["seats"][1]["user"] == bruno.user["id"]
    assert health(a)["tables"] == 1 and health(b)["tables"] == 0  # a owns it
    # a whole partita, one player on each node
    seats = {0: anna, 1: bruno} if last_view(anna, table)["you"] == 0 else {0: bruno, 1: anna}
    play_until(table, seats, rng=random.Random(5))
    record = fetch_record(bruno, table)
    assert_finished_consistently(table, [anna, bruno], record)
    for p in (anna, bruno):
        assert_versions_follow_on(p, table)
    assert_verifies(record, tmp_path)
    # a finished table leaves the lobby on every node
    watcher.recv_until(
        lambda f: f["type"] == "lobby" and all(t["id"] != table for t in f["tables"])
    )
    assert table not in {t["id"] for t in bruno.http.get("/api/tables").json()["tables"]}


def test_a_private_table_lets_in_on_another_node_only_whoever_has_the_invite(
    nodes: tuple[Server, Server],
) -> None:
    a, b = nodes
    anna = Player(a).guest()
    r = anna.http.post("/api/tables", json={"config": {"players": 2, "private": True}})
    assert r.status_code == 201, r.text
    table, invite = r.json()["table"]["id"], r.json()["invite"]
    bruno = Player(b).guest().connect()
    r = bruno.http.get(f"/api/tables/{table}")
    assert r.status_code == 403 and r.json()["error"]["code"] == "private_table"
    refused = bruno.join(table)
    assert refused["type"] == "error" and refused["code"] == "private_table"
    assert bruno.http.get(f"/api/tables/{table}", params={"invite": invite}).status_code == 200
    assert bruno.join(table, invite=invite)["type"] == "ack"
    # and an unknown table is unknown on every node
    unknown = bruno.join("nosuchtable")
    assert unknown["type"] == "error" and unknown["code"] == "unknown_table"
    assert bruno.http.get("/api/tables/nosuchtable").status_code == 404


def test_when_a_node_is_killed_its_table_goes_on_on_the_other_node(
    nodes: tuple[Server, Server], tmp_path: Path
) -> None:
    a, b = nodes
    anna, bruno, table, seats = two_player_table(a, b, hands=2)
    rng = random.Random(11)
    view = play_until(table, seats, rng=rng, stop=lambda v: len(v["deal"]["history"]) > 8)
    last = view["version"]
    a.kill()  # node a owned the table; anna's socket dies with it
    # node b finds the owner gone when the lease runs out, rebuilds the table from the
    # shared log and joins bruno there again from the version he last saw
    wait_for(lambda: health(b)["tables"] == 1, timeout=6 * LEASE, what="node b to adopt")
    bruno.drain(0.5)
    assert bruno.version[table] == last  # nothing was missed, nothing new happened
    anna_b = on(b, anna)
    mark = len(anna_b.frames)
    joined = anna_b.join(table, since=last)
    assert joined["type"] == "ack" and joined["version"] == last
    assert [f for f in anna_b.frames[mark:] if f.get("table") == table] == []
    # anna's new socket has not seen any view: she asks for the whole table
    assert anna_b.join(table)["type"] == "ack"
    people = {s: (anna_b if p is anna else p) for s, p in seats.items()}
    play_until(table, people, rng=rng)
    record = fetch_record(bruno, table)
    assert_finished_consistently(table, [anna_b, bruno], record)
    assert_versions_follow_on(bruno, table)
    assert_verifies(record, tmp_path)


def test_a_dead_nodes_table_with_a_bot_is_adopted_even_if_nobody_watches_it(
    nodes: tuple[Server, Server], tmp_path: Path
) -> None:
    a, b = nodes
    anna = Player(a).guest().connect()
    config = {"players": 2, "bots": {"1": "facile"}, "options": {"hands": 1}}
    table = anna.create_table(config, dealer=1)  # anna (seat 0) moves first
    assert anna.join(table)["type"] == "ack"
    view = last_view(anna, table)
    assert view["deal"]["to_move"] == 0
    answer = anna.play(table, random_move(view["deal"]["legal_moves"], random.Random(1)))
    assert answer["type"] == "ack"
    a.kill()
    # no socket on b watches it: the sweep for orphans adopts it, and its bot plays on
    wait_for(lambda: health(b)["tables"] == 1, timeout=6 * LEASE, what="the orphan sweep")
    anna_b = on(b, anna)
    assert anna_b.join(table)["type"] == "ack"
    view = play_until(table, {0: anna_b}, rng=random.Random(2))
    assert view["status"] == "finished"
    assert_verifies(fetch_record(anna_b, table), tmp_path)


def test_a_node_that_loses_a_lease_stops_playing_the_table_and_its_clients_follow_it(
    nodes: tuple[Server, Server], tmp_path: Path
) -> None:
    """As when a node stalls past its lease: it must let go of the table, which is
    rebuilt from the log (on either node), and every client goes on from where it was."""
    import redis

    a, b = nodes
    anna, bruno, table, seats = two_player_table(a, b, hands=1)
    rng = random.Random(3)
    view = play_until(table, seats, rng=rng, stop=lambda v: len(v["deal"]["history"]) > 6)
    cluster = a.env["CIRULLA_CLUSTER"]
    redis.Redis.from_url(REDIS_URL).delete(f"{cluster}:owner:{table}")
    wait_for(lambda: "lost the lease of table" in a.log(), timeout=4 * LEASE, what="a to let go")
    wait_for(
        lambda: health(a)["tables"] + health(b)["tables"] == 1,
        timeout=6 * LEASE,
        what="the table to be rebuilt",
    )
    for p in (anna, bruno):
        p.drain(0.3)
        assert p.version[table] == view["version"]
    play_until(table, seats, rng=rng)
    record = fetch_record(anna, table)
    assert_finished_consistently(table, [anna, bruno], record)
    for p in (anna, bruno):
        assert_versions_follow_on(p, table)
    assert_verifies(record, tmp_path)
