"""Ratings against a real `cirulla serve`: rated 1v1 and pairs partite move the ratings
(Glicko-2 and openskill, as the libraries compute them), the leaderboards and the
history show them; bot tables and unrated private tables change nothing; and a server
killed right after a partita ends rates it exactly once when it comes back."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from serverutil import Player, Server
from test_server_play import open_table, play_until, start_server

from cirulla.competition.ratings import INITIAL, glicko_1v1, pairs_update

ONE_SMAZZATA = {"preset": "cirulla", "players": 2, "options": {"hands": 1}}


def _eventually(probe: Callable[[], Any], what: str, timeout: float = 30) -> Any:
    """`probe()`'s first truthy answer, asked again until `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _ratings(server: Server, name: str, game: str = "cirulla") -> dict[str, Any]:
    r = Player(server).http.get(f"/api/players/{name}/ratings", params={"game": game})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _rated(server: Server, name: str, mode: str, partite: int) -> dict[str, Any]:
    """The player's ratings once `mode` counts `partite` rated partite."""

    def probe() -> dict[str, Any] | None:
        body = _ratings(server, name)
        rating = body["ratings"][mode]
        return body if rating is not None and rating["partite"] >= partite else None

    found: dict[str, Any] = _eventually(probe, f"{name}'s {mode} rating")
    return found


def _abandon(player: Player, table: str) -> None:
    """Abandon the partita once it is in play (E6: the player's side loses it)."""
    if player.views[table]["status"] != "playing":
        player.recv_until(
            lambda f: f.get("table") == table and "view" in f and f["view"]["status"] == "playing"
        )
    answer = player.command({"type": "abandon", "table": table, "version": player.version[table]})
    while answer["type"] == "error" and answer.get("code") == "stale":
        player.drain()
        answer = player.command(
            {"type": "abandon", "table": table, "version": player.version[table]}
        )
    assert answer["type"] == "ack", answer


def _looked_at(server: Server, table: str) -> tuple[Any, ...] | None:
    """The table's `rated_tables` row (rated, reason), read from the server's SQLite."""
    with sqlite3.connect(server.data_dir / "cirulla.db") as db:
        row = db.execute(
            "SELECT rated, reason FROM rated_tables WHERE table_id = ?", (table,)
        ).fetchone()
    return None if row is None else tuple(row)


def _registered(server: Server, *names: str) -> list[Player]:
    return [Player(server).register(n).connect() for n in names]


def test_a_rated_1v1_partita_moves_both_ratings_as_glicko2_says(tmp_path: Path) -> None:
    with start_server(tmp_path) as server:
        anna, bruno = _registered(server, "Anna", "Bruno")
        table, people = open_table(anna, [bruno], ONE_SMAZZATA)
        view = play_until(table, people)
        assert view["status"] == "finished"
        winner = view["result"]["winner"]
        names = {seat: p.user["name"] for seat, p in people.items()}
        a_after = _rated(server, names[0], "1v1", 1)
        b_after = _rated(server, names[1], "1v1", 1)
        score = 0.5 if winner is None else (1.0 if winner == 0 else 0.0)
        expected = glicko_1v1(INITIAL, INITIAL, score)
        for body, exp in ((a_after, expected[0]), (b_after, expected[1])):
            rating = body["ratings"]["1v1"]
            assert rating["rating"] == round(exp.rating, 1)
            assert rating["deviation"] == round(exp.deviation, 1)
            assert rating["provisional"] is True and rating["partite"] == 1
            assert body["ratings"]["pairs"] is None
            assert [h["table"] for h in body["history"]["1v1"]] == [table]
            assert set(body["bots"]) == {"facile", "normale", "difficile", "campione"}
        board = Player(server).http.get("/api/leaderboard", params={"mode": "1v1"}).json()
        assert {e["name"] for e in board["entries"]} == {"Anna", "Bruno"}
        assert [e["rank"] for e in board["entries"]] == [1, 2]
        ratings = [e["rating"] for e in board["entries"]]
        assert ratings == sorted(ratings, reverse=True)
        week = Player(server).http.get("/api/leaderboard", params={"period": "week"}).json()
        assert week["period"] == "week"
        for entry in week["entries"]:  # the change over the week: from 1500, their start
            assert abs(entry["change"] - (entry["rating"] - 1500)) <= 0.11
        assert {e["name"] for e in week["entries"]} == {"Anna", "Bruno"}


def test_a_rated_pairs_partita_moves_the_pairs_ratings_by_openskill(tmp_path: Path) -> None:
    with start_server(tmp_path) as server:
        players = _registered(server, "Carla", "Dario", "Elena", "Fabio")
        table, people = open_table(players[0], players[1:], {"preset": "cirulla", "players": 4})
        _abandon(people[1], table)  # seats 1 and 3 lose
        winners, losers = pairs_update([INITIAL] * 2, [INITIAL] * 2, 1.0)
        for seat, person in people.items():
            body = _rated(server, person.user["name"], "pairs", 1)
            expected = (winners if seat % 2 == 0 else losers)[0]
            assert body["ratings"]["pairs"]["rating"] == round(expected.rating, 1)
            assert body["ratings"]["1v1"] is None
            assert [h["table"] for h in body["history"]["pairs"]] == [table]
        board = Player(server).http.get("/api/leaderboard", params={"mode": "pairs"}).json()
        top = {e["name"] for e in board["entries"][:2]}
        assert top == {people[0].user["name"], people[2].user["name"]}


def test_bot_tables_and_unrated_private_tables_change_no_rating(tmp_path: Path) -> None:
    with start_server(tmp_path) as server:
        gino, ida = _registered(server, "Gino", "Ida")
        bot_table, _ = open_table(gino, [], {**ONE_SMAZZATA, "bots": {"1": "facile"}})
        _abandon(gino, bot_table)
        private = {**ONE_SMAZZATA, "rated": False, "private": True}
        r = gino.http.post("/api/tables", json={"config": private})
        assert r.status_code == 201, r.text
        table, invite = r.json()["table"]["id"], r.json()["invite"]
        assert gino.join(table)["type"] == "ack"
        assert ida.join(table, invite=invite)["type"] == "ack"
        assert ida.sit(table, invite=invite)["type"] == "ack"
        _abandon(ida, table)
        assert _eventually(lambda: _looked_at(server, bot_table), "the bot table") == (0, "bot")
        assert _eventually(lambda: _looked_at(server, table), "the private table") == (
            0,
            "unrated",
        )
        for name in ("Gino", "Ida"):
            body = _ratings(server, name)
            assert body["ratings"] == {"1v1": None, "pairs": None}
            assert body["history"] == {"1v1": [], "pairs": []}
        board = Player(server).http.get("/api/leaderboard").json()
        assert board["entries"] == []


def test_bad_leaderboard_queries_and_unknown_players_are_refused(tmp_path: Path) -> None:
    with start_server(tmp_path) as server:
        http = Player(server).http
        for params in ({"mode": "3v3"}, {"game": "briscola"}, {"period": "day"}, {"limit": 0}):
            r = http.get("/api/leaderboard", params=params)
            assert r.status_code == 422, (params, r.text)
            assert r.json()["error"]["code"] == "invalid_request"
        r = http.get("/api/players/nobody-here/ratings")
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_player"


def test_a_server_killed_after_the_end_rates_the_partita_exactly_once(tmp_path: Path) -> None:
    with start_server(tmp_path) as server:
        lea, marco = _registered(server, "Lea", "Marco")
        table, people = open_table(lea, [marco], ONE_SMAZZATA)
        _abandon(people[1], table)  # seat 1 loses
        server.kill()  # right after the end: the listener may or may not have run
        server.start()
        expected = glicko_1v1(INITIAL, INITIAL, 1.0)
        winner = _rated(server, people[0].user["name"], "1v1", 1)
        loser = _rated(server, people[1].user["name"], "1v1", 1)
        assert winner["ratings"]["1v1"]["rating"] == round(expected[0].rating, 1)
        assert loser["ratings"]["1v1"]["rating"] == round(expected[1].rating, 1)
        assert len(winner["history"]["1v1"]) == 1 and len(loser["history"]["1v1"]) == 1

        # As if the node had died before its listener ran: the catch-up at the next start
        # rates the partita, once.
        server.stop()
        with sqlite3.connect(server.data_dir / "cirulla.db") as db:
            for name in ("rated_tables", "rating_history", "ratings"):
                db.execute(f"DELETE FROM {name}")
        server.start()
        again = _rated(server, people[0].user["name"], "1v1", 1)
        assert again["ratings"]["1v1"]["rating"] == round(expected[0].rating, 1)
        server.restart()  # and a start with nothing to catch up changes nothing
        assert _ratings(server, people[0].user["name"])["ratings"] == again["ratings"]
        assert len(_ratings(server, people[1].user["name"])["history"]["1v1"]) == 1
