"""Profiles against a real server: partite lost on time show in the profile with the
statistics their records give, repeated timeouts bring a playban that refuses rated
tables (creating or sitting) but not unrated ones, and a restart writes the rows no
listener wrote, exactly once. A tournament a player played shows on their profile with
its rank, at once and however many tournaments finished after it."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from conftest import stack
from serverutil import Player, Server, running_server
from test_server_play import start_server

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


# ---- the tournaments a profile lists ---------------------------------------------------------


def play_a_knockout(anna: Player) -> str:
    """anna and one bot play a public knockout (its one match is the final); its id."""
    from test_server_play import play_until
    from test_server_tournaments import create, finished, post, wait_for

    tid: str = create(anna, name="Coppa", private=False)["tournament"]["id"]
    assert post(anna, tid, "register").status_code == 200
    assert post(anna, tid, "bots", {"level": "facile", "count": 1}).status_code == 200
    assert post(anna, tid, "start").status_code == 200
    notice = anna.recv_until(
        lambda f: f["type"] == "tournament" and f["tournament"] == tid and f["event"].get("table"),
        timeout=60,
    )
    table = notice["event"]["table"]
    assert anna.join(table)["type"] == "ack"
    assert play_until(table, {anna.views[table]["you"]: anna}, timeout=30)["status"] == "finished"
    wait_for(anna, tid, finished)
    return tid


def a_bots_tournament(bruno: Player) -> str:
    from test_server_tournaments import create, finished, post, wait_for

    tid: str = create(bruno, name="Robot", private=False)["tournament"]["id"]
    assert post(bruno, tid, "bots", {"level": "facile", "count": 2}).status_code == 200
    assert post(bruno, tid, "start").status_code == 200
    wait_for(bruno, tid, finished)
    return tid


def test_a_tournament_played_shows_on_the_profile_with_its_rank_however_old(
    tmp_path: Path,
) -> None:
    """Right after it ends, and again when it is older than 600 tournaments finished
    since and its rows are gone (as in a database made before they existed): the
    start-up catch-up writes them from the log, and the profile reads them by index."""
    with start_server(tmp_path) as server:
        anna = Player(server).register("Anna").connect()
        bruno = Player(server).register("Bruno")
        assert profile(bruno, "Anna")["tournaments"] == []
        tid = play_a_knockout(anna)
        standings = anna.http.get(f"/api/tournaments/{tid}").json()["standings"]
        [rank] = [s["rank"] for s in standings if s["side"] == ["e1"]]  # anna registered first
        shown = profile(bruno, "Anna")["tournaments"]  # at once: the view writes the rows
        assert [(t["id"], t["name"], t["format"], t["rank"], t["entrants"]) for t in shown] == [
            (tid, "Coppa", "knockout", rank, 2)
        ]
        assert shown[0]["finished"] <= _now().isoformat()
        assert profile(anna, "Bruno")["tournaments"] == []  # organised, not played
        robots = a_bots_tournament(bruno)
        assert profile(bruno, "Anna")["tournaments"] == shown

        server.stop()
        db = sqlite3.connect(tmp_path / "data" / "cirulla.db")
        with db:  # anna's is a month old; 600 newer ones (copies of the bots'); no rows
            month_ago = (_now() - timedelta(days=30)).replace(tzinfo=None)
            db.execute("UPDATE tournaments SET updated_at = ? WHERE id = ?", (str(month_ago), tid))
            for i in range(600):
                copy = f"{robots}-{i}"
                db.execute(
                    "INSERT INTO tournaments SELECT ?, name, format, config, organiser, private,"
                    " invite_hash, status, starts_at, summary, version, last_hash, created_at,"
                    " updated_at FROM tournaments WHERE id = ?",
                    (copy, robots),
                )
                db.execute(
                    "INSERT INTO tournament_events SELECT ?, version, type, data, at, prev, hash"
                    " FROM tournament_events WHERE tournament_id = ?",
                    (copy, robots),
                )
            assert db.execute("DELETE FROM player_tournaments").rowcount == 2 + 2
        server.start()
        again = eventually(lambda: profile(bruno, "Anna")["tournaments"], timeout=90)
        assert [(t["id"], t["rank"]) for t in again] == [(tid, rank)]
        # every entrant of every tournament has its row again, bots included, once
        count = "SELECT COUNT(*) FROM player_tournaments"
        eventually(lambda: db.execute(count).fetchone()[0] == 2 + 2 * 601, timeout=90)
        db.close()
