"""The lobby's limits against a real server (issue 12, items 2 and 9): open tables and
search-bot seats per account, open tables that expire (also across a restart), the lobby
sent as changes with a bounded list, and table configs within bounds.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browserutil import expect, page_opener
from serverutil import Player, Server, running_server

from cirulla.tables.lobby import LOBBY_OPEN_MAX

#: Generous: other tests run on the same two cores.
PATIENCE = 30.0

#: Many guests from one address in these tests: the address limits must not get in the way.
OPEN_DOORS: dict[str, Any] = {"login_attempts": 100_000, "registrations_per_hour": 100_000}


def until(check: Callable[[], Any], what: str, timeout: float = PATIENCE) -> Any:
    """Poll `check` until it returns something true, and return that."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def status_of(p: Player, table: str) -> str:
    r = p.http.get(f"/api/tables/{table}")
    assert r.status_code == 200, r.text
    status: str = r.json()["table"]["status"]
    return status


def listed(p: Player) -> dict[str, Any]:
    r = p.http.get("/api/tables")
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def lobby_ids(p: Player) -> set[str]:
    """The tables of the lobby list `p` holds, once the frames sent so far are read."""
    p.drain(0.1)
    assert p.lobby is not None
    return {t["id"] for t in p.lobby["tables"]}


def closed_reason(p: Player, table: str, since: int) -> str:
    """The reason of the table's `closed` record, read as a client does: the events
    after version `since` (they come before the join's ack)."""
    assert p.join(table, since=since)["type"] == "ack"
    (frame,) = [
        f
        for f in p.frames
        if f["type"] == "event" and f["table"] == table and f["event"]["type"] == "closed"
    ]
    reason: str = frame["event"]["reason"]
    return reason


def make(p: Player, config: dict[str, Any]) -> httpx.Response:
    return p.http.post("/api/tables", json={"config": config})


# ---- open tables and search bots per account -------------------------------------------------
@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(
        tmp_path_factory.mktemp("limits"),
        open_tables_per_user=2,
        bot_seats_per_user=3,
        **OPEN_DOORS,
    ) as s:
        yield s


def test_an_account_may_keep_only_so_many_open_tables(limited: Server) -> None:
    anna = Player(limited).guest()
    # a table that starts at once (a bot takes the other seat) is not open: it does not count
    playing = anna.create_table({"players": 2, "bots": {"1": "normale"}})
    assert status_of(anna, playing) == "playing"
    first = anna.create_table({"players": 2})
    anna.create_table({"players": 3})
    before = {t["id"] for t in listed(anna)["tables"]}
    r = make(anna, {"players": 2})
    assert r.status_code == 409, r.text
    error = r.json()["error"]
    assert error["code"] == "too_many_tables"
    assert "2" in error["message"] and "stand" in error["message"]
    assert {t["id"] for t in listed(anna)["tables"]} == before  # nothing was made

    # a seat at someone else's open table counts too
    bruno = Player(limited).guest()
    bruno.create_table({"players": 3})
    bruno.connect()
    other = Player(limited).guest().create_table({"players": 3})
    bruno.join(other)
    assert bruno.sit(other)["type"] == "ack"
    assert make(bruno, {"players": 2}).json()["error"]["code"] == "too_many_tables"

    # freeing one (its only player stands up: it closes) lets the account make another
    anna.connect()
    anna.join(first)
    ack = anna.command({"type": "stand", "table": first, "version": anna.version[first]})
    assert ack["type"] == "ack", ack
    assert make(anna, {"players": 2}).status_code == 201


def test_an_account_may_keep_only_so_many_campione_bots_busy(limited: Server) -> None:
    carla = Player(limited).guest()
    # open (seat 3 is free), so the campione bots do not play yet: they count all the same
    config = {"players": 4, "bots": {"1": "campione", "2": "campione"}}
    carla.create_table(config)
    r = make(carla, config)  # 2 + 2 > 3
    assert r.status_code == 409, r.text
    error = r.json()["error"]
    assert error["code"] == "too_many_bots"
    assert "3" in error["message"] and "campione" in error["message"]
    # one more fits (Cirulo's campione counts as well); then none
    assert make(carla, {"game": "cirulo", "players": 4, "bots": {"1": "campione"}}).status_code == (
        201
    )
    # the other levels are not limited
    dora = Player(limited).guest()
    for _ in range(2):
        r = make(dora, {"players": 4, "bots": {"1": "difficile", "2": "difficile"}})
        assert r.status_code == 201, r.text


def test_a_config_out_of_bounds_is_refused_naming_the_field(limited: Server) -> None:
    dario = Player(limited).guest()
    for config, named in [
        ({"options": {"target": 10**30}}, ["target"]),
        ({"options": {"hands": 10**9}}, ["hands"]),
        ({"game": "cirulo", "players": 4, "options": {"point_value": 10**40}}, ["point_value"]),
        ({"move_seconds": None, "partita_seconds": None}, ["move_seconds", "partita_seconds"]),
    ]:
        r = make(dario, config)
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["code"] == "bad_config", error
        for word in named:
            assert word in error["message"], (word, error)
    # one clock is enough
    assert make(dario, {"move_seconds": None, "partita_seconds": 600}).status_code == 201


# ---- open tables expire ------------------------------------------------------------------------
def test_open_tables_nobody_watches_or_nobody_starts_close_by_themselves(tmp_path: Path) -> None:
    with running_server(
        tmp_path, empty_table_seconds=2, open_table_seconds=6, **OPEN_DOORS
    ) as server:
        w = Player(server).guest().connect()
        assert w.command({"type": "lobby"})["type"] == "ack"
        anna = Player(server).guest().connect()
        watched = anna.create_table({"players": 2})
        anna.join(watched)  # anna watches her table: it is not empty
        bruno = Player(server).guest()
        empty = bruno.create_table({"players": 2})  # made over HTTP, and nobody ever joins it

        until(lambda: status_of(w, empty) == "closed", "the empty table to close")
        assert status_of(w, watched) == "open"
        assert "no player" in closed_reason(w, empty, 1)
        until(lambda: lobby_ids(w) == {watched}, "the lobby to drop the empty table")

        # the watched one closes too once it has waited open_table_seconds without starting
        until(lambda: status_of(w, watched) == "closed", "the unstarted table to close")
        closed = anna.recv_until(
            lambda f: f["type"] == "event" and f["table"] == watched, timeout=PATIENCE
        )
        assert closed["event"]["type"] == "closed" and "not started" in closed["event"]["reason"]
        assert anna.views[watched]["status"] == "closed"
        until(lambda: lobby_ids(w) == set(), "the lobby to drop the unstarted table")
        assert {t["id"] for t in listed(w)["tables"]}.isdisjoint({watched, empty})


def test_open_tables_expire_across_restarts(tmp_path: Path) -> None:
    with running_server(tmp_path, **OPEN_DOORS) as server:
        bruno = Player(server).guest()
        empty = bruno.create_table({"players": 2})  # never joined
        server.stop()
        # A restored table nobody comes back to closes (after its players' grace to
        # reconnect, here the whole empty-table time).
        server.env["CIRULLA_EMPTY_TABLE_SECONDS"] = "2"
        server.start()
        assert status_of(bruno, empty) == "open"
        until(lambda: status_of(bruno, empty) == "closed", "the empty table to close")
        assert "no player" in closed_reason(Player(server).guest().connect(), empty, 1)

        anna = Player(server).guest().connect()
        unstarted = anna.create_table({"players": 2})
        anna.join(unstarted)
        server.stop()
        # A table that should have closed while the server was down is closed at
        # start-up, before the server answers anyone.
        server.env["CIRULLA_EMPTY_TABLE_SECONDS"] = "600"
        server.env["CIRULLA_OPEN_TABLE_SECONDS"] = "1"
        time.sleep(1.2)
        server.start()
        assert status_of(anna, unstarted) == "closed"
        assert "not started" in closed_reason(Player(server).guest().connect(), unstarted, 1)
        assert {t["id"] for t in listed(anna)["tables"]}.isdisjoint({empty, unstarted})


# ---- the lobby as changes ---------------------------------------------------------------------
def raw_size(frame: dict[str, Any]) -> int:
    """The frame's size as sent (Player.recv adds the list the changes make, as `tables`)."""
    sent = {k: v for k, v in frame.items() if not (k == "tables" and "changes" in frame)}
    return len(json.dumps(sent, separators=(",", ":")))


def test_the_lobby_sends_changes_that_make_the_list_of_the_same_version(tmp_path: Path) -> None:
    with running_server(tmp_path, open_tables_per_user=1000, **OPEN_DOORS) as server:
        w = Player(server).guest().connect()
        assert w.command({"type": "lobby"})["type"] == "ack"
        anna = Player(server).guest().connect()

        def changed(table: str, pred: Callable[[dict[str, Any] | None], bool]) -> dict[str, Any]:
            def ok(f: dict[str, Any]) -> bool:
                if f["type"] != "lobby":
                    return False
                found = [t for t in f["tables"] if t["id"] == table]
                return pred(found[0] if found else None)

            return w.recv_until(ok)

        # one table, as the only one: the change frame that adds it
        first = anna.create_table({"players": 3, "name": "prima"})
        small = changed(first, lambda e: e is not None)
        assert "changes" in small and small["changes"]["set"][0]["id"] == first
        # sit, start, close: each a change the list shows, and only changes after the first
        bruno = Player(server).guest().connect()
        bruno.join(first)
        assert bruno.sit(first)["type"] == "ack"
        changed(first, lambda e: e is not None and e["seats"][1] is not None)
        second = anna.create_table({"players": 2})
        anna.join(second)
        carla = Player(server).guest().connect()
        carla.join(second)
        assert carla.sit(second)["type"] == "ack"
        changed(second, lambda e: e is not None and e["status"] == "playing")
        anna.join(first)
        ack = anna.command({"type": "stand", "table": first, "version": anna.version[first]})
        assert ack["type"] == "ack", ack
        bruno.recv_until(lambda f: f.get("table") == first and f["version"] == ack["version"])
        ack = bruno.command({"type": "stand", "table": first, "version": bruno.version[first]})
        assert ack["type"] == "ack", ack
        changed(first, lambda e: e is None)
        frames = [f for f in w.frames if f["type"] == "lobby"]
        assert "tables" in frames[0] and "changes" not in frames[0]
        assert all("changes" in f for f in frames[1:]), frames
        assert any(f["changes"]["remove"] == [first] for f in frames[1:])

        # many tables: the whole list is bounded, a change is as small as with one table
        many = [anna.create_table({"players": 3, "name": "prima"}) for _ in range(LOBBY_OPEN_MAX)]
        w.drain(0.5)  # (their pushes are out: the next change is one table's alone)
        newest = anna.create_table({"players": 3, "name": "prima"})
        big = changed(newest, lambda e: e is not None)
        assert raw_size(big) < raw_size(small) + 200, (raw_size(big), raw_size(small))
        assert many[0] not in {t["id"] for t in big["tables"]}  # pushed out by the newer ones

        # what the changes made is the list GET /api/tables gives at that version
        def same_version() -> dict[str, Any] | None:
            w.drain(0.3)
            now = listed(w)
            return now if w.lobby is not None and now["version"] == w.lobby["version"] else None

        now = until(same_version, "the lobby and GET /api/tables at one version")
        assert w.lobby is not None and w.lobby["tables"] == now["tables"]
        statuses = [t["status"] for t in now["tables"]]
        assert statuses.count("open") == LOBBY_OPEN_MAX and statuses.count("playing") == 1
        # a newcomer gets the same list whole, and a whole list stays far below a megabyte
        x = Player(server).guest().connect()
        assert x.command({"type": "lobby"})["type"] == "ack"
        (whole,) = [f for f in x.frames if f["type"] == "lobby"]
        assert whole["version"] >= now["version"] and len(whole["tables"]) == LOBBY_OPEN_MAX + 1
        assert raw_size(whole) < 400_000


def test_the_web_lobby_keeps_its_list_from_the_changes(browser: Any, tmp_path: Path) -> None:
    """The browser's lobby (web/js/socket.js applyLobby) adds, updates, orders and drops
    tables from change frames alone."""
    with (
        running_server(tmp_path, **OPEN_DOORS) as server,
        page_opener(browser, server.base_url) as open_page,
    ):
        page = open_page()
        lobby_frames: list[dict[str, Any]] = []

        def on_socket(ws: Any) -> None:
            def on_frame(payload: str | bytes) -> None:
                frame = json.loads(payload)
                if frame.get("type") == "lobby":
                    lobby_frames.append(frame)

            ws.on("framereceived", on_frame)

        page.on("websocket", on_socket)
        page.goto("/")
        page.get_by_role("button", name=re.compile("ospite|guest", re.I)).click()
        page.wait_for_url("**/lobby")
        expect(page.locator(".lobby-list")).to_have_attribute("aria-busy", "false")
        anna = Player(server).guest().connect()
        older = anna.create_table({"players": 2, "name": "prima"})
        newer = anna.create_table({"players": 2, "name": "seconda"})
        items = page.locator(".lobby-table")
        expect(items).to_have_count(2)
        shown = items.evaluate_all("els => els.map((e) => e.dataset.table)")
        assert shown == [newer, older]  # newest first
        # someone sits at the newer one: it starts, and goes after the open one
        bruno = Player(server).guest().connect()
        bruno.join(newer)
        assert bruno.sit(newer)["type"] == "ack"
        expect(page.locator(f'.lobby-table.status-playing[data-table="{newer}"]')).to_be_visible()
        shown = items.evaluate_all("els => els.map((e) => e.dataset.table)")
        assert shown == [older, newer]
        # its only player leaves the older one: it closes and leaves the list
        anna.join(older)
        ack = anna.command({"type": "stand", "table": older, "version": anna.version[older]})
        assert ack["type"] == "ack", ack
        expect(items).to_have_count(1)
        expect(page.locator(f'.lobby-table[data-table="{newer}"]')).to_be_visible()
        # and all of it came as changes after the first, whole, list
        assert "tables" in lobby_frames[0]
        assert len(lobby_frames) >= 4 and all("changes" in f for f in lobby_frames[1:])
