"""The coach on the server (gateway/coach.py): the analysis of a finished partita started
by one click of a player and run once in the bot workers, and hints at practice tables
that the partita's record and history remember."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from serverutil import Player, Server
from test_server_play import (
    assert_verifies,
    fetch_record,
    last_view,
    open_table,
    play_until,
    start_server,
)
from test_store import Backend, new_table
from test_store import backend as backend  # the fixture

from cirulla import Game, Rules, game_record
from cirulla.bots.coach import DEFAULT_SAMPLES, LEAST_SAMPLES
from cirulla.gateway.coach import HINT_SAMPLES
from cirulla.store import RecordPlayer, Store
from cirulla.store.coach import CoachStore


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with start_server(tmp_path_factory.mktemp("coach"), bot_workers=2) as s:
        yield s


def guest(server: Server) -> Player:
    return Player(server).guest()


def error_code(r: httpx.Response) -> tuple[int, str]:
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    return r.status_code, body["error"]["code"]


def wait_for_analysis(player: Player, table: str, timeout: float = 240) -> dict[str, Any]:
    """Poll the analysis until it is no longer running (generous: CI machines are slow)."""
    deadline = time.monotonic() + timeout
    seen_progress = []
    while time.monotonic() < deadline:
        r = player.http.get(f"/api/history/{table}/analysis")
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        seen_progress.append(body["done"])
        if body["status"] != "running":
            assert seen_progress == sorted(seen_progress), "progress only moves forward"
            return body
        time.sleep(0.5)
    raise AssertionError(f"the analysis of {table} did not end in {timeout} s")


@pytest.fixture(scope="module")
def practice(server: Server) -> dict[str, Any]:
    """A practice partita (one smazzata against a bot) in which the player asked for a
    hint on the first move and played it."""
    me = guest(server).connect()
    config = {"players": 2, "options": {"hands": 1}, "bots": {"1": "normale"}}
    table, people = open_table(me, [], config)
    view = last_view(me, table)
    assert view["deal"]["to_move"] == 0
    r = me.http.post(f"/api/tables/{table}/hint")
    assert r.status_code == 200, r.text
    hint = r.json()
    first = list(play_until(table, people, stop=lambda v: True)["deal"]["legal_moves"])
    answer = me.play(table, hint["best"])
    assert answer["type"] == "ack", answer
    view = play_until(table, people)
    assert view["status"] != "playing"
    return {"me": me, "table": table, "hint": hint, "legal": first}


def test_a_hint_is_one_of_the_seats_legal_moves_with_every_move_valued(
    practice: dict[str, Any],
) -> None:
    hint = practice["hint"]
    assert hint["seat"] == 0 and hint["hints"] == 1
    assert set(hint["values"]) == set(practice["legal"])
    assert hint["best"] in practice["legal"]
    assert hint["values"][hint["best"]] == max(hint["values"].values())
    assert hint["samples"] == HINT_SAMPLES  # all of them, however busy the machine


def test_a_partita_with_hints_is_marked_in_its_record_history_and_replay(
    practice: dict[str, Any], tmp_path: Path
) -> None:
    me, table = practice["me"], practice["table"]
    record = fetch_record(me, table)
    assert record["coach"] == {"hints": [{"seat": 0, "count": 1}]}
    assert_verifies(record, tmp_path)  # the mark does not break the record's chain
    history = me.http.get("/api/history").json()["history"]
    mine = next(h for h in history if h["table"] == table)
    assert mine["summary"]["hints"] == [0]
    replay = me.http.get(f"/api/replay/{table}").json()
    assert replay["hints"] == [{"seat": 0, "count": 1}]


def test_hints_only_for_the_seated_player_on_their_turn(
    server: Server, practice: dict[str, Any]
) -> None:
    me, table = practice["me"], practice["table"]
    assert error_code(me.http.post(f"/api/tables/{table}/hint")) == (409, "not_your_turn")
    stranger = guest(server)
    assert error_code(stranger.http.post(f"/api/tables/{table}/hint")) == (403, "not_seated")
    anonymous = httpx.Client(base_url=server.base_url, timeout=10)
    assert anonymous.post(f"/api/tables/{table}/hint").status_code == 401
    assert error_code(me.http.post("/api/tables/nosuchtable/hint"))[0] == 404


def test_no_hints_at_a_table_with_another_person(server: Server) -> None:
    anna, bruno = guest(server).connect(), guest(server).connect()
    table, people = open_table(anna, [bruno], {"players": 2, "options": {"hands": 1}})
    view = play_until(table, people, stop=lambda v: True)
    mover = people[view["deal"]["to_move"]]
    assert error_code(mover.http.post(f"/api/tables/{table}/hint")) == (403, "not_practice")


def test_one_click_analyses_a_finished_partita_once_in_the_workers(
    server: Server, practice: dict[str, Any]
) -> None:
    me, table = practice["me"], practice["table"]
    url = f"/api/history/{table}/analysis"
    before = me.http.get(url).json()
    assert before["status"] == "none" and before["can_start"] is True
    assert before["analysis"] is None
    stranger = guest(server)
    assert stranger.http.get(url).json()["can_start"] is False  # a public partita: readable
    assert error_code(stranger.http.post(url)) == (403, "not_a_player")
    assert httpx.Client(base_url=server.base_url).post(url).status_code == 401

    # two clicks at once start it once
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: me.http.post(url), range(2)))
    codes = sorted(a.status_code for a in answers)
    assert codes == [200, 202], [a.text for a in answers]
    assert all(a.json()["status"] in ("running", "done") for a in answers)
    assert all(a.json()["can_start"] is False for a in answers)

    done = wait_for_analysis(me, table)
    assert done["status"] == "done", done
    assert done["done"] == done["total"] > 0
    analysis = done["analysis"]
    record = fetch_record(me, table)
    moves = sum(len(d["moves"]) for d in record["game"]["deals"])
    assert len(analysis["moves"]) == moves == done["total"]
    for m in analysis["moves"]:
        assert {"deal", "index", "seat", "played", "best", "loss", "class", "values"} <= set(m)
        assert m["loss"] >= 0 and m["played"] in m["values"]
        # however busy the machine, never judged on fewer draws than the floor; the
        # last stage at 2 players is solved on the one deal that fits the view
        if m["exact"]:
            assert m["samples"] == 1
        else:
            assert LEAST_SAMPLES <= m["samples"] <= DEFAULT_SAMPLES
    assert any(m["exact"] for m in analysis["moves"])
    assert analysis["least"] == LEAST_SAMPLES
    assert [s["seat"] for s in analysis["summary"]] == [0, 1]
    # the player's first play is the hint (a bonus hand's automatic accuso, B8, when the
    # random deal gives one, comes before it in the record)
    first = next(m for m in analysis["moves"] if not m["played"].startswith("!"))
    assert first["seat"] == 0 and first["played"] == practice["hint"]["best"]

    again = me.http.post(url)
    assert again.status_code == 200 and again.json()["status"] == "done"
    assert stranger.http.get(url).json()["analysis"] == analysis
    log = server.log()
    assert log.count(f"coach: analysed {table}") == 1, "the analysis ran once"


def test_analysis_of_an_unknown_partita_is_404(server: Server) -> None:
    me = guest(server)
    assert error_code(me.http.get("/api/history/nosuchtable/analysis")) == (404, "unknown_table")
    assert error_code(me.http.post("/api/history/nosuchtable/analysis")) == (404, "unknown_table")


# ---- the store, on SQLite and PostgreSQL ------------------------------------------------


def _game() -> Game:
    game = Game(Rules.preset("cirulla").replace(hands=1), 2, seed=3)
    deal = game.deal
    while not deal.is_over:
        deal.play(deal.legal_moves()[0])
    return game


def test_coach_store_claims_an_analysis_once_and_counts_hints(backend: Backend) -> None:
    async def check(store: Store) -> None:
        coach = CoachStore(store)
        user = await store.create_user("gina", None)
        await new_table(store, "t1")
        assert await coach.add_hint("t1", 0, user.id) == 1
        assert await coach.add_hint("t1", 0, user.id) == 2
        assert await coach.add_hint("t1", 1, None) == 1
        assert await coach.hints("t1") == [{"seat": 0, "count": 2}, {"seat": 1, "count": 1}]
        record = {"format": "cirulla.table/1", "game": game_record(_game()), "seats": []}
        await store.save_record("t1", record, [RecordPlayer(user.id, 0, 0, True)])
        saved = await store.get_record("t1")
        assert saved is not None and saved["coach"]["hints"][0] == {"seat": 0, "count": 2}
        assert (await store.history(user.id))[0].summary["hints"] == [0, 1]

        now = datetime.now(UTC)
        old = now - timedelta(minutes=5)
        claims = await asyncio.gather(*(coach.claim("t1", user.id, 10, old) for _ in range(3)))
        assert sorted(mine for _, mine in claims) == [False, False, True]
        await coach.progress("t1", 4)
        row = await coach.analysis("t1")
        assert row is not None and (row.status, row.done, row.total) == ("running", 4, 10)
        assert (await coach.claim("t1", user.id, 10, old))[1] is False  # running, not stale
        assert (await coach.claim("t1", user.id, 10, now + timedelta(seconds=1)))[1] is True
        await coach.fail("t1", "boom")
        assert (await coach.analysis("t1")).status == "failed"  # type: ignore[union-attr]
        assert (await coach.claim("t1", user.id, 10, old))[1] is True  # a failed run restarts
        await coach.finish("t1", {"moves": []})
        row = await coach.analysis("t1")
        assert row is not None and (row.status, row.done, row.result) == ("done", 10, {"moves": []})
        assert (await coach.claim("t1", user.id, 10, now + timedelta(hours=1)))[1] is False

    backend.run(check)
