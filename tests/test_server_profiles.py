"""Profiles against a real server: partite lost on time show in the profile with the
statistics their records give, repeated timeouts bring a playban that refuses rated
tables (creating or sitting) but not unrated ones, and a restart writes the rows no
listener wrote, exactly once."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import Any

from conftest import stack
from serverutil import Player, Server, running_server

from cirulla.competition.profiles import aggregate, partita_rows
from cirulla.store.db import RecordPlayer

# dealer 1: seat 0 (the creator) moves first; nothing scores before the first move
HANDS = [["4S", "KC", "QH"], ["2C", "5C", "6D"]]
TABLE = ["4D", "7C", "2S", "JD"]
DECK = [str(c) for c in stack(players=2, dealer=1, hands=HANDS, table=TABLE)]


def eventually(check: Callable[[], Any], timeout: float = 30) -> Any:
    """The first truthy value of `check()`, polled until `timeout` (then it fails)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


def lose_on_time(a: Player, b: Player) -> str:
    """a creates a 1-second table, b sits, a never moves: a forfeits by timeout (E6)."""
    table = a.create_table({"players": 2, "move_seconds": 1}, decks=[DECK], dealer=1)
    a.join(table)
    b.join(table)
    ack = b.sit(table)
    assert ack["type"] == "ack", ack
    b.recv_until(
        lambda f: f["type"] == "event" and f["table"] == table and f["event"]["type"] == "ended",
        timeout=30,
    )
    return table


def profile(p: Player, name: str) -> dict[str, Any]:
    r = p.http.get(f"/api/players/{name}")
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def test_profile_playban_and_restart_catch_up(tmp_path: Any) -> None:
    with running_server(tmp_path, grace=0.2) as server:
        run(server, tmp_path)


def run(server: Server, tmp_path: Any) -> None:
    a = Player(server).register("Alda").connect()
    b = Player(server).register("Bruno").connect()
    assert profile(b, "alda")["partite"]["played"] == 0
    missing = b.http.get("/api/players/nobody-here")
    assert missing.status_code == 404 and "nobody-here" in missing.text

    first = lose_on_time(a, b)
    shown = eventually(lambda: (p := profile(b, "Alda"))["partite"]["played"] == 1 and p)
    assert shown["playban"] is None  # the first forfeit costs nothing
    second = lose_on_time(a, b)
    shown = eventually(lambda: (p := profile(b, "Alda"))["partite"]["played"] == 2 and p)

    # the partite, newest first, each with its replay
    assert shown["partite"] == {"played": 2, "won": 0, "lost": 2, "drawn": 0}
    assert [r["table"] for r in shown["recent"]] == [second, first]
    for r in shown["recent"]:
        assert (r["result"], r["forfeit"], r["players"]) == ("lost", "timeout", 2)
        assert r["replay"] == f"/replay/{r['table']}"
        assert b.http.get(f"/api/replay/{r['table']}").status_code == 200
    # the statistics are those the stored records give
    rows = []
    for table in (first, second):
        record = b.http.get(f"/api/records/{table}").json()
        rows += partita_rows(table, record, [RecordPlayer(a.user["id"], 0, 0, False)], _now())
    assert shown["stats"] == aggregate(rows)["stats"]
    assert shown["stats"]["accusi_received"]["hands"] == 2  # one hand each time, then time ran out
    assert shown["luck"]["hands"] == 2 and shown["luck"]["expected_points"] > 0
    bruno = profile(a, "Bruno")
    assert bruno["partite"]["won"] == 2 and bruno["playban"] is None
    assert bruno["stats"]["dealer_bonus"]["dealt"] == 2  # seat 1 dealt both

    # two forfeits: a playban, shown, and enforced on rated tables only
    ban = shown["playban"]
    assert ban is not None and ban["until"] > _now().isoformat()
    refused = a.http.post("/api/tables", json={"config": {"players": 2, "move_seconds": 30}})
    assert refused.status_code == 400 and "playban" in refused.text, refused.text
    rated = b.create_table({"players": 2, "move_seconds": 30})
    a.join(rated)
    error = a.sit(rated)
    assert error["type"] == "error" and error["code"] == "playban", error
    assert ban["until"] in error["message"]
    unrated = b.create_table({"players": 2, "move_seconds": 30, "rated": False})
    a.join(unrated)
    assert a.sit(unrated)["type"] == "ack"

    # restart with the rows gone (as if no listener had run): written again, once each
    a.close()
    b.close()
    server.stop()
    db = sqlite3.connect(tmp_path / "data" / "cirulla.db")
    with db:
        assert db.execute("DELETE FROM player_partite").rowcount == 4
    server.start()
    again = eventually(lambda: (p := profile(b, "Alda"))["partite"]["played"] == 2 and p)
    assert again["stats"] == shown["stats"] and again["playban"] is not None
    eventually(lambda: profile(b, "Bruno")["partite"]["played"] == 2)
    server.stop()
    server.start()  # nothing left to catch up: no row twice
    assert profile(b, "Bruno")["partite"]["played"] == 2
    count = db.execute("SELECT COUNT(*) FROM player_partite").fetchone()[0]
    assert count == 4
    db.close()


def _now() -> Any:
    from datetime import UTC, datetime

    return datetime.now(UTC)
