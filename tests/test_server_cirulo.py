"""Cirulo tables on a real server: created from the lobby, played by people and bots,
stored, verified, and only ever showing a seat what it may know (RULES.md section 13)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serverutil import Player, Server
from test_server_play import catch_up, guests, open_table, play_until, start_server

from cirulla.cirulo import replay_cirulo_game
from cirulla.verify import verify_record


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with start_server(tmp_path_factory.mktemp("cirulo")) as srv:
        yield srv


def cirulo(players: int = 4, **options: Any) -> dict[str, Any]:
    return {"game": "cirulo", "players": players, "options": {"hands": 1, **options}}


def test_CI1_a_cirulo_table_of_four_people_plays_to_the_end_and_verifies(server: Server) -> None:
    people = guests(server, 4)
    table, seats = open_table(people[0], people[1:], cirulo(4, point_value=2))
    view = play_until(table, seats, rng=random.Random(1))
    assert view["status"] == "finished" and view["game"] == "cirulo"
    record = people[0].http.get(f"/api/records/{table}").json()
    verified = verify_record(record)
    assert verified.deals == 1 and verified.winner is None
    game = replay_cirulo_game(record["game"])
    assert view["totals"] == [int(b) for b in game.balances]
    assert view["chips"] == [2 * int(b) for b in game.balances]
    assert sum(int(t) for t in view["totals"]) + int(view["pot"]) == 0  # CI5: the pot balances


@pytest.mark.parametrize("players", [5, 6])
def test_CI2_uneven_deals_with_bots_end_and_verify(server: Server, players: int) -> None:
    owner = Player(server).guest().connect()
    levels = ["normale", "facile", "difficile", "normale", "facile"]
    bots = {str(s): levels[s - 1] for s in range(1, players)}
    table, seats = open_table(owner, [], {**cirulo(players, deck="poker52"), "bots": bots})
    view = play_until(table, seats, rng=random.Random(players))
    assert view["status"] == "finished"
    removed = view["deal"]["removed"]
    assert len(removed) == 52 % players and not any(c.endswith("O") for c in removed)
    verify_record(owner.http.get(f"/api/records/{table}").json())


def test_CI3_a_card_that_does_not_follow_suit_is_refused(server: Server) -> None:
    a, b, c, d = guests(server, 4)
    table, seats = open_table(a, [b, c, d], cirulo(4))
    rng = random.Random(3)
    for _ in range(200):  # play until someone could follow suit but holds another suit too
        view = seats[0].views[table]
        seat = view["deal"]["to_move"]
        mover = seats[seat]
        mine = mover.views[table]["deal"]
        led = mine["led"]
        off = [card for card in mine["hand"] if led and card not in mine["legal_moves"]]
        if off:
            before = mover.version[table]
            answer = mover.play(table, off[0])
            assert answer["type"] == "error" and answer["code"] == "illegal_move", answer
            assert "follow" in answer["message"] or "suit" in answer["message"]
            assert mover.play(table, mine["legal_moves"][0])["version"] == before + 1
            return
        answer = mover.play(table, rng.choice(mine["legal_moves"]))
        assert answer["type"] == "ack", answer
        for p in seats.values():
            catch_up(p, table, answer["version"])
    pytest.fail("no hand where a player could not play every card")


def test_a_cirulo_seat_sees_no_other_hand(server: Server) -> None:
    people = guests(server, 4)
    table, seats = open_table(people[0], people[1:], cirulo(4))
    play_until(table, seats, rng=random.Random(7))
    record = people[0].http.get(f"/api/records/{table}").json()
    game = replay_cirulo_game(record["game"])
    deal = game.deals[0]
    first = next(e for e in deal.events if e["type"] == "deal")
    dealt = [set(h) for h in first["hands"]]
    assert [len(h) for h in dealt] == [12, 12, 12, 12]  # the 48-card deck, all dealt
    code = re.compile(r"^(1[0-2]|[1-9]|[AJQK])[OCEB]$")
    for seat, player in seats.items():
        played: set[str] = set()
        for frame in player.frames:
            if frame.get("table") != table or frame["type"] not in ("event", "sync"):
                continue
            event = frame.get("event", {})
            if event.get("type") == "move":
                played.add(event["move"])
            for text in _strings(frame):
                if code.match(text):
                    owner = next((s for s, h in enumerate(dealt) if text in h), None)
                    assert owner in (None, seat) or text in played, (seat, text, frame["type"])


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


@pytest.mark.parametrize(
    ("config", "words"),
    [
        (cirulo(3), "4, 5 or 6"),
        ({**cirulo(4), "preset": "scopa"}, "presets"),
        (cirulo(4, trumps=True), "trumps"),
        (cirulo(4, deck="tarot"), "deck"),
        ({"game": "briscola"}, "briscola"),
        ({"players": 5}, "5"),
    ],
)
def test_a_bad_cirulo_config_is_refused(server: Server, config: dict[str, Any], words: str) -> None:
    p = Player(server).guest()
    before = p.http.get("/api/tables").json()["tables"]
    r = p.http.post("/api/tables", json={"config": config})
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "bad_config"
    assert words in r.json()["error"]["message"]
    assert p.http.get("/api/tables").json()["tables"] == before


def test_a_cirulo_table_is_listed_as_cirulo(server: Server, tmp_path: Path) -> None:
    p = Player(server).guest()
    table = p.create_table({**cirulo(5), "bots": {"1": "normale"}})
    listed = {t["id"]: t for t in p.http.get("/api/tables").json()["tables"]}
    assert listed[table]["game"] == "cirulo" and listed[table]["players"] == 5
