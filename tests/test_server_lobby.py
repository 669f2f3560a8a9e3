"""The lobby against a real server: the list and its pushed updates, private tables and
their invites, refused table configs, the create-table choices, and test tables that only
a server in test mode makes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import stack
from serverutil import Player, Server, running_server

from cirulla.bots.levels import LEVELS
from cirulla.rules import OPTIONS, PRESETS


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # Its tests make many tables as one guest: more than one account may keep open.
    with running_server(
        tmp_path_factory.mktemp("lobby"),
        login_attempts=100_000,
        registrations_per_hour=100_000,
        open_tables_per_user=1000,
    ) as s:
        yield s


def watcher(server: Server) -> Player:
    """A client that asked for the lobby; its first lobby frame is read."""
    w = Player(server).guest().connect()
    ack = w.command({"type": "lobby"})
    assert ack["type"] == "ack", ack
    (first,) = [f for f in w.frames if f["type"] == "lobby"]
    assert ack["version"] == first["version"]
    return w


def lobby_frames(p: Player) -> list[dict[str, Any]]:
    return [f for f in p.frames if f["type"] == "lobby"]


def next_lobby(
    p: Player, pred: Callable[[list[dict[str, Any]]], bool], timeout: float = 10
) -> dict[str, Any]:
    """The next lobby frame whose tables satisfy `pred`."""
    return p.recv_until(lambda f: f["type"] == "lobby" and pred(f["tables"]), timeout)


def entry(tables: list[dict[str, Any]], table_id: str) -> dict[str, Any] | None:
    found = [t for t in tables if t["id"] == table_id]
    assert len(found) <= 1, found
    return found[0] if found else None


def listed_ids(p: Player) -> set[str]:
    r = p.http.get("/api/tables")
    assert r.status_code == 200, r.text
    return {t["id"] for t in r.json()["tables"]}


def table_count(server: Server) -> int:
    count: int = httpx.get(f"{server.base_url}/api/health", timeout=5).json()["tables"]
    return count


# ---- the list and its updates --------------------------------------------------------------
def test_the_lobby_command_sends_the_list_of_public_tables(server: Server) -> None:
    a = Player(server).guest()
    table = a.create_table({"players": 2, "name": "sera"})
    w = watcher(server)
    (frame,) = lobby_frames(w)
    mine = entry(frame["tables"], table)
    assert mine is not None
    assert mine["name"] == "sera" and mine["status"] == "open" and mine["players"] == 2
    assert mine["seats"][0]["user"] == a.user["id"] and mine["seats"][1] is None
    # the HTTP list says the same
    r = w.http.get("/api/tables")
    assert r.status_code == 200
    assert r.json()["version"] == frame["version"]
    assert {t["id"] for t in r.json()["tables"]} == {t["id"] for t in frame["tables"]}


def test_the_lobby_version_moves_with_the_list_at_once_not_with_the_later_push(
    tmp_path: Path,
) -> None:
    """A list read between a change and its coalesced push names the change's version."""
    with running_server(tmp_path) as server:  # alone: no other table may change the lobby
        a = Player(server).guest()
        before = a.http.get("/api/tables").json()
        table = a.create_table({"players": 2})
        now = a.http.get("/api/tables").json()  # well inside the 50 ms before the push
        assert table in {t["id"] for t in now["tables"]}
        assert now["version"] == before["version"] + 1
        w = watcher(server)
        time.sleep(0.3)  # the push has gone out: w had this version already, so gets nothing
        assert [f["version"] for f in lobby_frames(w)] == [now["version"]]
        assert a.http.get("/api/tables").json() == now


def test_creating_sitting_and_starting_push_lobby_updates_with_rising_versions(
    server: Server,
) -> None:
    w = watcher(server)
    a = Player(server).guest()
    table = a.create_table({"players": 3})
    created = next_lobby(w, lambda ts: entry(ts, table) is not None)
    t = entry(created["tables"], table)
    assert t is not None and t["status"] == "open"
    assert [s and s["user"] for s in t["seats"]] == [a.user["id"], None, None]

    b = Player(server).guest().connect()
    b.join(table)
    assert b.sit(table)["type"] == "ack"
    seated = next_lobby(w, lambda ts: (e := entry(ts, table)) is not None and e["seats"][1])
    assert seated["version"] > created["version"]
    t = entry(seated["tables"], table)
    assert t is not None and t["status"] == "open" and t["seats"][1]["user"] == b.user["id"]

    c = Player(server).guest().connect()
    c.join(table)
    assert c.sit(table)["type"] == "ack"
    started = next_lobby(
        w, lambda ts: (e := entry(ts, table)) is not None and e["status"] == "playing"
    )
    assert started["version"] > seated["version"]
    t = entry(started["tables"], table)
    assert t is not None and all(s is not None for s in t["seats"])

    versions = [f["version"] for f in lobby_frames(w)]
    assert versions == sorted(set(versions)), versions  # rising, none repeated


def test_a_table_whose_only_player_leaves_closes_and_leaves_the_lobby(server: Server) -> None:
    w = watcher(server)
    a = Player(server).guest()
    table = a.create_table({"players": 2})
    listed = next_lobby(w, lambda ts: entry(ts, table) is not None)
    a.connect()
    a.join(table)
    ack = a.command({"type": "stand", "table": table, "version": a.version[table]})
    assert ack["type"] == "ack", ack
    gone = next_lobby(w, lambda ts: entry(ts, table) is None)
    assert gone["version"] > listed["version"]
    assert table not in listed_ids(w)


def test_watch_false_stops_the_lobby_updates(server: Server) -> None:
    w = watcher(server)
    assert w.command({"type": "lobby", "watch": False})["type"] == "ack"
    seen = len(lobby_frames(w))
    Player(server).guest().create_table({"players": 2})
    w.drain(0.5)
    assert len(lobby_frames(w)) == seen


# ---- private tables ------------------------------------------------------------------------------
def test_a_private_table_is_unlisted_and_needs_its_invite(server: Server) -> None:
    w = watcher(server)
    a = Player(server).guest()
    r = a.http.post("/api/tables", json={"config": {"players": 2, "private": True}})
    assert r.status_code == 201, r.text
    body = r.json()
    table = body["table"]["id"]
    invite = body["invite"]
    assert isinstance(invite, str) and len(invite) >= 16
    assert body["link"] == f"/table/{table}?invite={invite}"
    assert body["table"]["private"] is True

    # not in the lobby, over HTTP or pushed
    a2 = Player(server).guest()
    public = a2.create_table({"players": 2})  # a later public table: the lobby moved on
    next_lobby(w, lambda ts: entry(ts, public) is not None)
    assert all(entry(f["tables"], table) is None for f in lobby_frames(w))
    assert table not in listed_ids(w) and public in listed_ids(w)

    # without the invite: 403 private_table over HTTP, private_table on the socket
    b = Player(server).guest().connect()
    for query in ("", "?invite=wrong-invite"):
        r = b.http.get(f"/api/tables/{table}{query}")
        assert r.status_code == 403, r.text
        assert r.json()["error"]["code"] == "private_table"
        assert r.json()["error"]["message"]
    assert b.join(table)["code"] == "private_table"
    assert b.join(table, invite="wrong-invite")["code"] == "private_table"
    version = a.http.get(f"/api/tables/{table}").json()["table"]["version"]
    error = b.command({"type": "sit", "table": table, "version": version, "seat": None})
    assert error["type"] == "error" and error["code"] == "private_table", error
    assert table not in b.version  # b was sent nothing of the table

    # the creator needs no invite; with the invite anyone may watch and sit
    a.connect()
    assert a.join(table)["type"] == "ack"
    r = b.http.get(f"/api/tables/{table}", params={"invite": invite})
    assert r.status_code == 200 and r.json()["table"]["id"] == table
    assert b.join(table, invite=invite)["type"] == "ack"
    assert b.views[table]["seats"][1] is None
    ack = b.sit(table, invite=invite)
    assert ack["type"] == "ack", ack
    assert b.views[table]["status"] == "playing"
    # started, and still not listed
    assert table not in listed_ids(w)


def test_a_public_table_has_no_invite(server: Server) -> None:
    a = Player(server).guest()
    r = a.http.post("/api/tables", json={"config": {"players": 2}})
    assert r.status_code == 201, r.text
    assert "invite" not in r.json() and "link" not in r.json()
    assert r.json()["table"]["private"] is False


# ---- bad configs --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"preset": "briscola"}, ["preset", "briscola"]),
        ({"options": {"tressette": True}}, ["tressette"]),
        ({"options": {"target": "lots"}}, ["target"]),
        ({"players": 5}, ["players"]),
        ({"players": 1}, ["players"]),
        ({"preset": "scopa", "players": 3}, ["scopa", "3"]),
        ({"preset": "cirullone", "players": 2}, ["cirullone", "2"]),
        ({"bots": {"1": "godlike"}}, ["godlike"]),
        ({"players": 2, "bots": {"0": "normale", "1": "facile"}}, ["seat"]),
        ({"players": 2, "bots": {"5": "normale"}}, ["5"]),
        ({"move_seconds": 0}, ["move_seconds"]),
        ({"partita_seconds": 1}, ["partita_seconds"]),
        ({"colour": "red"}, ["colour"]),
    ],
)
def test_a_bad_config_is_refused_with_422_naming_the_problem(
    server: Server, config: dict[str, Any], named: list[str]
) -> None:
    a = Player(server).guest()
    before_count, before_ids = table_count(server), listed_ids(a)
    r = a.http.post("/api/tables", json={"config": config})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "bad_config", error
    for word in named:
        assert word in error["message"], (word, error)
    assert "Traceback" not in error["message"]
    assert table_count(server) == before_count  # no table was made
    assert listed_ids(a) == before_ids


def test_a_bad_seat_for_the_creator_makes_no_table(server: Server) -> None:
    a = Player(server).guest()
    before = table_count(server)
    for body in (
        {"config": {"players": 2, "bots": {"1": "normale"}}, "seat": 1},  # the bot's seat
        {"config": {"players": 2}, "seat": 3},
    ):
        r = a.http.post("/api/tables", json=body)
        assert 400 <= r.status_code < 500, r.text
        assert r.json()["error"]["code"] in ("bad_seat", "bad_config"), r.text
    assert table_count(server) == before


def test_creating_a_table_needs_a_login(server: Server) -> None:
    before = table_count(server)
    r = httpx.post(f"{server.base_url}/api/tables", json={"config": {}}, timeout=5)
    assert r.status_code == 401
    assert r.json()["error"]["code"] == "not_logged_in"
    assert table_count(server) == before


# ---- choices -------------------------------------------------------------------------------------
def test_choices_list_presets_options_and_levels(server: Server) -> None:
    r = httpx.get(f"{server.base_url}/api/choices", timeout=5)
    assert r.status_code == 200
    body = r.json()
    assert set(body["presets"]) == set(PRESETS)
    assert body["presets"]["scopa"]["game"] == "scopa"
    assert body["players"]["scopa"] == [2, 4]
    assert body["players"]["cirulla"] == [2, 3, 4]
    assert body["players"]["cirullone"] == [4]
    names = {o["name"] for o in body["options"]}
    assert names == {o.name for o in OPTIONS}
    assert {"target", "hands", "carte_viste", "carte_scoperte"} <= names
    for option in body["options"]:
        assert isinstance(option["meaning"], str) and option["meaning"]
    assert set(body["levels"]) == set(LEVELS) >= {"facile", "normale", "difficile", "campione"}
    assert all(isinstance(d, str) and d for d in body["levels"].values())


def test_every_listed_choice_makes_a_table(server: Server) -> None:
    """What the form offers, the server accepts: each preset at each listed player count."""
    choices = httpx.get(f"{server.base_url}/api/choices", timeout=5).json()
    a = Player(server).guest()
    for preset, counts in choices["players"].items():
        for players in counts:
            r = a.http.post("/api/tables", json={"config": {"preset": preset, "players": players}})
            assert r.status_code == 201, (preset, players, r.text)
            assert r.json()["table"]["preset"] == preset


# ---- test tables ------------------------------------------------------------------------------
def test_stacked_decks_are_refused_by_a_server_not_in_test_mode(tmp_path: Path) -> None:
    deck = [str(c) for c in stack(players=2, dealer=0)]
    with running_server(tmp_path, test_mode=False) as plain:
        a = Player(plain).guest()
        before = table_count(plain)
        r = a.http.post("/api/test/tables", json={"config": {"players": 2}, "decks": [deck]})
        assert r.status_code == 404, r.text
        r = a.http.post("/api/test/tables", json={"config": {"players": 2}, "dealer": 1})
        assert r.status_code == 404, r.text
        # nor can the decks ride along on the ordinary path
        r = a.http.post("/api/tables", json={"config": {"players": 2}, "decks": [deck]})
        assert r.status_code == 422, r.text
        r = a.http.post("/api/tables", json={"config": {"players": 2, "decks": [deck]}})
        assert r.status_code == 422, r.text
        assert table_count(plain) == before
        # the server itself works: an ordinary table is made
        assert a.create_table({"players": 2})
        assert table_count(plain) == before + 1


def test_a_server_in_test_mode_deals_the_stacked_deck(server: Server) -> None:
    hands = [["4S", "KC", "QH"], ["2C", "5C", "6D"]]
    deck = [str(c) for c in stack(players=2, dealer=1, hands=hands, table=["4D", "7C", "2S", "JD"])]
    a = Player(server).guest()
    table = a.create_table({"players": 2, "bots": {"1": "normale"}}, decks=[deck], dealer=1)
    a.connect()
    a.join(table)
    deal = a.views[table]["deal"]
    assert deal["dealer"] == 1
    assert sorted(deal["hand"]) == sorted(hands[0])
    assert [c["card"] for c in deal["table"]] == ["4D", "7C", "2S", "JD"]
    r = a.http.post(
        "/api/test/tables", json={"config": {"players": 2}, "decks": [deck[:-1]], "dealer": 0}
    )
    assert r.status_code in (400, 422), r.text  # a 39-card deck
