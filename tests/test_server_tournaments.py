"""Tournaments on a real `cirulla serve`: registration and its errors, a knockout in
which a person gets a bye, is told of the final by a socket notice and plays it, a
round robin with a registered player who never comes (V3 by the clock), and a Swiss
of bots killed with SIGKILL mid-round that goes on to its end after the restart.
Every finished tournament's record is checked by `cirulla verify`, as a command."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from serverutil import Player, Server
from test_server_play import play_until, run_verify, start_server

KNOCKOUT = {"players": 2, "options": {"hands": 1}, "move_seconds": 30}


def create(owner: Player, **body: Any) -> dict[str, Any]:
    body.setdefault("name", "sera")
    body.setdefault("format", "knockout")
    body.setdefault("config", KNOCKOUT)
    r = owner.http.post("/api/tournaments", json=body)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def post(player: Player, tid: str, what: str, body: Any = None) -> Any:
    return player.http.post(f"/api/tournaments/{tid}/{what}", json=body or {})


def error_of(r: Any) -> tuple[int, str]:
    return r.status_code, r.json()["error"]["code"]


def detail(player: Player, tid: str) -> dict[str, Any]:
    r = player.http.get(f"/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def wait_for(
    player: Player, tid: str, check: Callable[[dict[str, Any]], bool], timeout: float = 60
) -> dict[str, Any]:
    """Poll the tournament until `check` holds (generous: the machine may be busy)."""
    deadline = time.monotonic() + timeout
    while True:
        got = detail(player, tid)
        if check(got):
            return got
        assert time.monotonic() < deadline, json.dumps(got)[:3000]
        time.sleep(0.2)


def finished(got: dict[str, Any]) -> bool:
    return bool(got["tournament"]["status"] == "finished")


def verify_record(player: Player, tid: str, tmp_path: Path) -> dict[str, Any]:
    r = player.http.get(f"/api/tournaments/{tid}/record")
    assert r.status_code == 200, r.text
    record: dict[str, Any] = r.json()
    path = tmp_path / f"tournament-{tid}.json"
    path.write_text(json.dumps(record))
    done = run_verify(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{path}: OK" in done.stdout, done.stdout
    return record


def test_registration_and_its_errors(tmp_path: Path) -> None:
    with start_server(tmp_path) as server:
        anna = Player(server).register("anna")
        guest = Player(server).guest()
        stranger = Player(server).register("bruno")

        r = guest.http.post("/api/tournaments", json={"name": "x", "format": "knockout"})
        assert error_of(r) == (403, "guests_cannot_organise")
        bad = [
            ({"format": "ladder"}, "format"),
            ({"format": "swiss", "best_of": 3, "config": {"options": {"hands": 2}}}, "best_of"),
            ({"config": {**KNOCKOUT, "move_seconds": None}}, "move_seconds"),
            ({"config": {**KNOCKOUT, "players": 3}}, "players"),
            ({"format": "swiss", "config": {"options": {"target": 13}}}, "options"),
            ({"max_entrants": 1}, "max_entrants"),
        ]
        for extra, field in bad:
            body = {"name": "x", "format": "knockout", **extra}
            r = anna.http.post("/api/tournaments", json=body)
            assert error_of(r) == (422, "bad_config"), (extra, r.text)
            assert field in r.json()["error"]["message"], r.text
        assert anna.http.get("/api/tournaments").json()["tournaments"] == []  # nothing made

        made = create(anna, max_entrants=2)  # made by a player: private by default
        tid, invite = made["tournament"]["id"], made["invite"]
        assert made["tournament"]["private"]
        assert made["link"] == f"/tournament/{tid}?invite={invite}"
        assert error_of(stranger.http.get(f"/api/tournaments/{tid}")) == (403, "private_tournament")
        assert error_of(post(guest, tid, "register")) == (403, "private_tournament")
        assert stranger.http.get("/api/tournaments").json()["tournaments"] == []
        assert error_of(anna.http.get("/api/tournaments/nope")) == (404, "unknown_tournament")

        assert post(guest, tid, "register", {"invite": invite}).status_code == 200
        assert error_of(post(guest, tid, "register", {"invite": invite})) == (
            409,
            "already_registered",
        )
        assert error_of(post(anna, tid, "start")) == (409, "too_few_entrants")
        assert post(guest, tid, "unregister").status_code == 200
        assert error_of(post(guest, tid, "unregister")) == (409, "not_registered")
        assert post(guest, tid, "register", {"invite": invite}).status_code == 200
        assert post(anna, tid, "register").status_code == 200  # the organiser needs no invite
        r = post(stranger, tid, "register", {"invite": invite})
        assert error_of(r) == (409, "tournament_full")
        assert error_of(post(guest, tid, "start")) == (403, "not_organiser")
        assert error_of(post(guest, tid, "bots", {"level": "normale", "count": 1})) == (
            403,
            "not_organiser",
        )
        r = post(stranger, tid, "register", {"invite": invite, "partner": "anna"})
        assert error_of(r) == (422, "bad_request")  # partners are for 4 players

        listed = guest.http.get("/api/tournaments").json()["tournaments"]  # registered: listed
        assert [t["id"] for t in listed] == [tid]
        names = [e["name"] for e in listed[0]["entrants"]]
        assert names == [guest.user["name"], "anna"]

        # a public tournament of 4 players: a pair registers together
        pairs = create(anna, private=False, config={**KNOCKOUT, "players": 4})["tournament"]
        pid = pairs["id"]
        assert error_of(post(stranger, pid, "register", {"partner": "nobody"})) == (
            409,
            "unknown_player",
        )
        r = post(stranger, pid, "register", {"partner": "anna"})
        assert r.status_code == 200, r.text
        entrants = r.json()["tournament"]["entrants"]
        assert [(e["name"], e["partner"]) for e in entrants] == [("bruno", "e2"), ("anna", "e1")]
        assert post(anna, pid, "cancel").status_code == 200
        assert error_of(post(stranger, pid, "register")) == (409, "registration_closed")


def test_knockout_bye_then_a_person_plays_the_final_from_the_socket_notice(
    tmp_path: Path,
) -> None:
    with start_server(tmp_path) as server:
        anna = Player(server).register("anna").connect()
        tid = create(anna, private=False)["tournament"]["id"]
        assert post(anna, tid, "register").status_code == 200  # e1: the top seed
        r = post(anna, tid, "bots", {"level": "normale", "count": 2})
        assert r.status_code == 200, r.text
        assert post(anna, tid, "start").status_code == 200

        def notice(kind: str, number: int | None = None) -> Callable[[dict[str, Any]], bool]:
            return lambda f: (
                f["type"] == "tournament"
                and f["tournament"] == tid
                and f["event"]["type"] == kind
                and (number is None or f["event"].get("round") == number)
            )

        first = anna.recv_until(notice("round", 1), 30)["event"]
        assert first == {"type": "round", "round": 1, "table": None, "bye": True}
        final = anna.recv_until(notice("round", 2), 60)["event"]
        table = final["table"]
        assert table is not None and final["bye"] is False
        got = detail(anna, tid)
        assert got["me"] == {"entrant": "e1", "table": table}
        r1, r2 = got["rounds"]
        assert r1["matches"][0]["bye"] and r1["matches"][0]["sides"] == [["e1"], []]
        assert r1["matches"][1]["status"] == "finished"
        bot_winner = r1["matches"][1]["sides"][r1["matches"][1]["winner"]]
        assert r2["matches"][0]["sides"] == [["e1"], bot_winner]
        summary = anna.http.get(f"/api/tables/{table}").json()["table"]
        assert summary["tournament"] == {"id": tid, "round": 2, "match": 0}
        assert summary["status"] == "playing" and summary["private"]

        assert anna.join(table)["type"] == "ack"
        seat = anna.views[table]["you"]
        assert seat == 0
        end = play_until(table, {seat: anna}, timeout=30)
        assert end["status"] == "finished"
        ended = anna.recv_until(notice("ended"), 30)["event"]
        winner = ["e1"] if end["result"]["winner"] == 0 else bot_winner
        assert ended["winner"] == winner
        got = wait_for(anna, tid, finished)
        assert got["winner"] == winner and got["me"]["table"] is None
        assert got["standings"][0]["side"] == winner
        record = verify_record(anna, tid, tmp_path)
        assert record["deal_seeds"] == "committed" and len(record["rounds"]) == 2


def test_round_robin_a_no_show_loses_by_v3_and_the_rounds_go_on(tmp_path: Path) -> None:
    with start_server(tmp_path, grace=0.2) as server:
        anna = Player(server).register("anna")
        absent = Player(server).guest()  # registers, never opens a socket
        config = {"players": 2, "options": {"hands": 1}, "move_seconds": 1}
        tid = create(anna, format="round-robin", config=config, private=False)["tournament"]["id"]
        assert post(absent, tid, "register").status_code == 200
        assert post(anna, tid, "bots", {"level": "facile", "count": 2}).status_code == 200
        assert post(anna, tid, "start").status_code == 200
        got = wait_for(anna, tid, finished, timeout=90)
        assert len(got["rounds"]) == 3  # 3 sides: each round one side has the bye
        byes = [m for rnd in got["rounds"] for m in rnd["matches"] if m["bye"]]
        assert sorted(m["sides"][0][0] for m in byes) == ["e1", "e2", "e3"]
        absent_matches = [
            m
            for rnd in got["rounds"]
            for m in rnd["matches"]
            if not m["bye"] and ["e1"] in m["sides"]
        ]
        assert len(absent_matches) == 2
        for m in absent_matches:
            mine = m["sides"].index(["e1"])
            assert m["winner"] == 1 - mine
            assert m["vp"][mine] == 0 and m["vp"][1 - mine] >= 14  # V3
        rows = {tuple(s["side"]): s for s in got["standings"]}
        assert rows[("e1",)]["rank"] == 3 and rows[("e1",)]["vp"] == 14  # the bye's 14 VP only
        assert rows[("e1",)]["byes"] == 1 and rows[("e1",)]["won"] == 0
        assert [s["rank"] for s in got["standings"]] == [1, 2, 3]
        record = verify_record(anna, tid, tmp_path)
        forfeits = [
            game["forfeit"]
            for rnd in record["rounds"]
            for m in rnd["matches"]
            if ["e1"] in m["sides"]
            for game in m["records"]
        ]
        assert [f["reason"] for f in forfeits] == ["timeout", "timeout"], forfeits
        # Every finished partita is replayable by whoever may see the tournament, though
        # its table is private (only the entrants sit there): here two bots' partita.
        bots_match = next(
            m
            for rnd in got["rounds"]
            for m in rnd["matches"]
            if not m["bye"] and ["e1"] not in m["sides"]
        )
        for viewer in (anna, Player(server).guest()):
            r = viewer.http.get(f"/api/replay/{bots_match['table']}")
            assert r.status_code == 200, r.text
            assert viewer.http.get(f"/api/records/{bots_match['table']}").status_code == 200


def _pairings(got: dict[str, Any]) -> list[list[tuple[Any, Any]]]:
    return [[(m["sides"], m["tables"]) for m in rnd["matches"]] for rnd in got["rounds"]]


def test_swiss_killed_mid_round_goes_on_after_the_restart(tmp_path: Path) -> None:
    # bots that think a little, so that the kill finds a round being played
    with start_server(tmp_path, bot_delay=0.05) as server:
        anna = Player(server).register("anna")
        config = {"players": 2, "options": {"hands": 1}, "move_seconds": 30}
        body = {"format": "swiss", "config": config, "rounds": 3, "private": False}
        tid = create(anna, **body)["tournament"]["id"]
        assert post(anna, tid, "bots", {"level": "normale", "count": 6}).status_code == 200
        assert post(anna, tid, "start").status_code == 200

        def mid_round(got: dict[str, Any]) -> bool:
            rounds = got["rounds"]
            return bool(rounds) and any(m["status"] == "playing" for m in rounds[-1]["matches"])

        before = wait_for(anna, tid, mid_round)
        _kill_and_restart(server)
        after = wait_for(anna, tid, finished, timeout=90)
        assert len(after["rounds"]) == 3
        # the rounds paired before the kill are the same, tables and all
        kept = _pairings(before)
        assert _pairings(after)[: len(kept)] == kept
        assert all(len(rnd["matches"]) == 3 for rnd in after["rounds"])
        standings = after["standings"]
        assert [s["rank"] for s in standings] == list(range(1, 7))
        assert all(s["played"] == 3 for s in standings)
        record = verify_record(anna, tid, tmp_path)
        assert record["winner"] == after["winner"]


def _kill_and_restart(server: Server) -> None:
    server.kill()
    server.start()


def test_migration_0002_keeps_a_0001_database(tmp_path: Path) -> None:
    """A database made by the first schema, with a user in it, is migrated to the
    tournaments schema without losing anything."""
    import asyncio

    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from sqlalchemy import create_engine, inspect, text

    from cirulla.store import Store
    from cirulla.store.db import MIGRATIONS

    path = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{path}")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0001")
        assert "tournaments" not in inspect(conn).get_table_names()
        conn.execute(
            text(
                "INSERT INTO users (id, name, name_key, guest, password_hash, options, created_at)"
                " VALUES ('u1', 'Anna', 'anna', 0, NULL, '{}', '2025-01-01 00:00:00')"
            )
        )
    engine.dispose()

    async def reopen() -> None:
        store = await Store.open(f"sqlite+aiosqlite:///{path}")
        try:
            user = await store.get_user("u1")
            assert user is not None and user.name == "Anna"
            assert await store.tournaments.live() == []
        finally:
            await store.close()

    asyncio.run(reopen())
    engine = create_engine(f"sqlite:///{path}")
    with engine.connect() as conn:
        names = set(inspect(conn).get_table_names())
        assert {"users", "tables", "table_events", "tournaments", "tournament_events"} <= names
        head = ScriptDirectory.from_config(config).get_current_head()
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == head
    engine.dispose()


def test_cluster_commands_on_any_node_and_a_killed_directors_tournament_moves(
    tmp_path: Path,
) -> None:
    """Two nodes: the tournament made on node a is filled and started from node b (b
    writes to its log; a, which directs it, makes the tables); then a is killed
    mid-round and b adopts the tournament and its tables, and plays it to the end."""
    import contextlib
    import secrets

    from serverutil import throwaway_pg_database
    from test_server_cluster import LEASE, REDIS_URL, _forget_cluster, _redis_or_skip

    _redis_or_skip()
    cluster = f"t{secrets.token_hex(4)}"
    env: dict[str, Any] = {"redis_url": REDIS_URL, "cluster": cluster, "lease_seconds": LEASE}
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    with throwaway_pg_database() as database, contextlib.ExitStack() as stack:
        a = stack.enter_context(
            start_server(tmp_path / "a", database_url=database, bot_delay=0.05, **env)
        )
        b = stack.enter_context(
            start_server(tmp_path / "b", database_url=database, bot_delay=0.05, **env)
        )
        anna = Player(a).register("anna")
        config = {"players": 2, "options": {"hands": 1}, "move_seconds": 30}
        body = {"format": "swiss", "config": config, "rounds": 3, "private": False}
        tid = create(anna, **body)["tournament"]["id"]
        on_b = Player(b)
        on_b.http.cookies.update(anna.http.cookies)
        assert post(on_b, tid, "bots", {"level": "normale", "count": 6}).status_code == 200
        assert post(on_b, tid, "start").status_code == 200

        def mid_round(got: dict[str, Any]) -> bool:
            rounds = got["rounds"]
            return bool(rounds) and any(m["status"] == "playing" for m in rounds[-1]["matches"])

        before = wait_for(on_b, tid, mid_round)
        a.kill()
        after = wait_for(on_b, tid, finished, timeout=90)
        kept = _pairings(before)
        assert _pairings(after)[: len(kept)] == kept
        assert len(after["rounds"]) == 3
        assert "adopted tournament" in b.log_path.read_text()
        verify_record(on_b, tid, tmp_path)
    _forget_cluster(cluster)


def test_knockout_of_pairs_best_of_three_plays_each_partita_at_a_new_table(
    tmp_path: Path,
) -> None:
    with start_server(tmp_path) as server:
        anna = Player(server).register("anna")
        config = {"players": 4, "options": {"hands": 1}, "move_seconds": 30}
        tid = create(anna, config=config, best_of=3, private=False)["tournament"]["id"]
        assert post(anna, tid, "bots", {"level": "facile", "count": 8}).status_code == 200
        assert post(anna, tid, "start").status_code == 200
        got = wait_for(anna, tid, finished, timeout=90)
        for rnd in got["rounds"]:
            for m in rnd["matches"]:
                assert len(m["sides"][0]) == len(m["sides"][1]) == 2  # fixed pairs
                assert max(m["partite"]) == 2 and len(m["tables"]) == sum(m["partite"])
                assert len(set(m["tables"])) == len(m["tables"])
        assert [len(r["matches"]) for r in got["rounds"]] == [2, 1]
        record = verify_record(anna, tid, tmp_path)
        assert record["best_of"] == 3 and len(record["winner"]) == 2


def test_each_partita_of_a_best_of_three_shows_its_points_and_spareggi_e3_e5(
    tmp_path: Path,
) -> None:
    """The bracket's data: every partita of a match (E5) with the points each side made,
    the spareggi (E3) apart, and its table; a partita still played shows its table only.
    Round 1's first partite are dealt TIE_DECK, which two `normale` bots end level."""
    from test_server_tournament_spareggio import TIE_DEALER, TIE_DECK, create_stacked

    from cirulla.record import replay_game

    # bots that think a little, so that the start finds the matches being played
    with start_server(tmp_path, bot_delay=0.05) as server:
        anna = Player(server).register("anna")
        r = create_stacked(anna, decks=[TIE_DECK], dealer=TIE_DEALER, best_of=3)
        assert r.status_code == 201, r.text
        tid = r.json()["tournament"]["id"]
        assert post(anna, tid, "bots", {"level": "normale", "count": 4}).status_code == 200
        assert post(anna, tid, "start").status_code == 200

        playing = detail(anna, tid)["rounds"][0]["matches"]
        for m in playing:
            assert m["status"] == "playing", m
            assert [s["table"] for s in m["scores"]] == m["tables"]
            last = m["scores"][-1]
            assert last["status"] == "playing" and last["points"] is None, last
            assert last["spareggi"] == [] and last["winner"] is None

        got = wait_for(anna, tid, finished, timeout=180)
        assert len(got["rounds"]) == 2
        for number, rnd in enumerate(got["rounds"], start=1):
            for m in rnd["matches"]:
                assert [s["table"] for s in m["scores"]] == m["tables"]
                won = [0, 0]
                for k, score in enumerate(m["scores"]):
                    assert score["status"] == "finished", score
                    r = anna.http.get(f"/api/records/{score['table']}")
                    assert r.status_code == 200, r.text
                    game = replay_game(r.json()["game"])
                    totals = [d.score().totals for d in game.deals]
                    n = len(score["spareggi"])
                    assert score["spareggi"] == totals[len(totals) - n :]
                    regular = totals[: len(totals) - n]
                    assert score["points"] == [
                        sum(t[0] for t in regular),
                        sum(t[1] for t in regular),
                    ]
                    assert score["winner"] == game.winner and score["end"] == game.end_reason
                    won[score["winner"]] += 1
                    if number == 1 and k == 0:  # the stacked tie: settled by spareggi
                        assert score["points"] == [8, 8], score
                        # a cappotto (S8) dealt in a spareggio ends it too
                        assert 1 <= n <= 3, score
                        assert score["end"] in ("spareggio", "last_capture", "cappotto"), score
                    elif score["end"] in ("target", "hands"):
                        # a spareggio ends by itself, by the last capture, or by a
                        # cappotto (S8) dealt in it: the one way n > 0 with another end
                        assert n == 0, score
                assert won == m["partite"] and max(won) == 2
        verify_record(anna, tid, tmp_path)
