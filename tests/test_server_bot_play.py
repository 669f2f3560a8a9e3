"""A bot account plays through the event stream, against a real server: the view the
stream gives it is exactly the engine's `deal.view(seat)` for its seat after every
move (nothing hidden leaks, nothing is missing), and it plays a whole tournament
round that a tournament allowing bots seats it at (docs/bots.md)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from serverutil import Player
from test_server_bot_api import Stream, _person_moves, bot_http, make_bot, play_through_stream
from test_server_play import run_verify, start_server
from test_server_socket_limits import DECK  # seat 0 moves first; no bonus at the deal
from test_server_tournaments import KNOCKOUT, create, detail, finished, post, wait_for

from cirulla import Deal, Rules


def in_thread(target: Any, *args: Any) -> tuple[threading.Thread, list[Any]]:
    """Run `target(*args)` in a thread; its result (or exception) lands in the list."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(target(*args))
        except BaseException as exc:  # re-raised by the test
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def result_of(thread: threading.Thread, out: list[Any], timeout: float = 180) -> Any:
    thread.join(timeout)
    assert not thread.is_alive(), "the bot did not finish"
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]


def test_the_streams_view_is_exactly_the_engines_seat_view_after_every_move(
    tmp_path: Path,
) -> None:
    """bea (seat 0, a socket) and the bot (seat 1, the stream and the move endpoint)
    play a stacked smazzata. For every view the stream sent, the engine replays the
    deck and the record's moves up to that view's version: the view's `deal` is
    `deal.view(1)` of that position, exactly (as JSON); and the views cover every
    position a player moved from."""
    with start_server(tmp_path) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna", ["play"])
        stream = Stream(server, token)
        stream.next(lambda f: f["type"] == "welcome")
        bea = Player(server).register("bea").connect()
        table = bea.create_table({"players": 2, "options": {"hands": 1}}, decks=[DECK], dealer=1)
        bea.join(table)
        with bot_http(server, token) as http:
            r = http.post(f"/api/bot/tables/{table}/sit", json={"seat": 1})
            assert r.status_code == 200, r.text
            thread, out = in_thread(play_through_stream, http, stream, table)
            _person_moves(bea, table, lambda v: v["status"] not in ("open", "playing"))
            last = result_of(thread, out)
        assert last["status"] == "finished"
        record = bea.http.get(f"/api/records/{table}")
        assert record.status_code == 200, record.text
        log = record.json()["log"]
        moves = [(r["version"], r["data"]["move"]) for r in log if r["type"] == "move"]
        chosen = [r for r in log if r["type"] == "move" and r["data"]["by"] == "player"]
        assert {r["data"]["seat"] for r in chosen} == {0, 1}
        views = [
            f
            for f in stream.seen
            if f.get("table") == table and "view" in f and f["view"].get("deal") is not None
        ]
        rules = Rules.from_dict(views[0]["view"]["deal"]["rules"])
        assert rules.hands == 1
        for frame in views:
            assert frame["view"]["you"] == 1
            deal = Deal(rules, 2, dealer=1, deck=DECK)
            played = [move for version, move in moves if version <= frame["version"]]
            for move in played:
                deal.play(move)
            expected = json.loads(json.dumps(deal.view(1)))
            assert frame["view"]["deal"] == expected, (frame["version"], played)
        # A view ends each batch of records (an automatic declaration joins the move
        # before it): the bot saw every position a player chose a move from, and the end.
        seen = {frame["version"] for frame in views}
        assert {r["version"] - 1 for r in chosen} <= seen
        assert log[-1]["version"] in seen
        # and the person's last view, through the socket, is the engine's for seat 0
        deal = Deal(rules, 2, dealer=1, deck=DECK)
        for _, move in moves:
            deal.play(move)
        assert bea.views[table]["deal"] == json.loads(json.dumps(deal.view(0)))


def test_a_bot_account_plays_a_whole_tournament_round_through_the_stream(
    tmp_path: Path,
) -> None:
    """A knockout that allows bots: the bot account enters through the bot API, the
    organiser adds one of the server's bots and starts it. The stream gets the round's
    notice and follows its table by itself; the bot plays the partita there through
    the stream and the move endpoint, and the tournament ends with its record verified."""
    with start_server(tmp_path) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna", ["play", "tournament"])
        tid = create(anna, private=False, allow_bots=True, config=KNOCKOUT)["tournament"]["id"]
        with bot_http(server, token) as http:
            r = http.post(f"/api/bot/tournaments/{tid}/register", json={})
            assert r.status_code == 200, r.text
            r = post(anna, tid, "bots", {"level": "facile", "count": 1})
            assert r.status_code == 200, r.text
            stream = Stream(server, token)
            stream.next(lambda f: f["type"] == "welcome")
            assert post(anna, tid, "start").status_code == 200
            notice = stream.next(
                lambda f: f["type"] == "tournament" and f["event"]["type"] == "round", timeout=60
            )
            assert notice["tournament"] == tid and notice["event"]["round"] == 1
            table = notice["event"]["table"]
            last = play_through_stream(http, stream, table)
        assert last["status"] == "finished"
        seats = last["seats"]
        mine = [i for i, s in enumerate(seats) if s and s.get("bot_account")]
        assert len(mine) == 1 and seats[1 - mine[0]]["bot"] == "facile"
        got = wait_for(anna, tid, finished)
        [match] = got["rounds"][0]["matches"]
        assert match["table"] == table and match["status"] == "finished"
        won = last["result"]["winner"] == mine[0]
        entrants = {e["id"]: e for e in got["tournament"]["entrants"]}
        winner = entrants[got["winner"][0]]
        assert (winner["name"] == "robo-anna") == won
        assert winner.get("bot_account") is (True if won else None)
        r = anna.http.get(f"/api/tournaments/{tid}/record")
        assert r.status_code == 200, r.text
        path = tmp_path / "tournament.json"
        path.write_text(json.dumps(r.json()))
        done = run_verify(path)
        assert done.returncode == 0, done.stdout + done.stderr
        assert detail(anna, tid)["tournament"]["status"] == "finished"
