"""Clocks against a real server (grace 0.2 s): the move timer, the partita clock, abandon,
and a disconnected player whose clock keeps running. A partita lost on time or by
abandon ends by RULES.md E6 (`forfeit`, `revealed`, `ended`), settled as
`cirulla.game.forfeit_settlement` says: in Cirulla the opponents are credited 6.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import stack
from serverutil import Player, Server, running_server

from cirulla import Game, Rules
from cirulla.game import Forfeit, forfeit_settlement
from cirulla.verify import verify_record

GRACE = 0.2

# 2 players, dealer 1: seat 0 (the creator) moves first. No hand makes a bonus and the
# table is neither 15 nor 30, so nothing is scored before the first move.
HANDS = [["4S", "KC", "QH"], ["2C", "5C", "6D"]]
TABLE = ["4D", "7C", "2S", "JD"]
DECK = [str(c) for c in stack(players=2, dealer=1, hands=HANDS, table=TABLE)]

# Seat 0's Ace sweeps the table (P4): a scopa at the first move.
SCOPA_HANDS = [["AC", "KS", "QD"], ["2C", "5C", "6D"]]
SCOPA_TABLE = ["3C", "5D", "JS", "6H"]
SCOPA_DECK = [str(c) for c in stack(players=2, dealer=1, hands=SCOPA_HANDS, table=SCOPA_TABLE)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(
        tmp_path_factory.mktemp("clocks"), grace=GRACE, login_attempts=100_000
    ) as s:
        yield s


@dataclass
class Duel:
    a: Player  # seat 0, to move first
    b: Player  # seat 1
    table: str
    started: int  # the version after the first deal


def wait_version(p: Player, table: str, version: int, timeout: float = 20) -> None:
    if p.version.get(table, -1) < version:
        p.recv_until(lambda f: f.get("table") == table and f.get("version", -1) >= version, timeout)


def start_duel(server: Server, config: dict[str, Any], deck: list[str] = DECK) -> Duel:
    a = Player(server).guest()
    table = a.create_table({"players": 2, **config}, decks=[deck], dealer=1)
    a.connect()
    a.join(table)
    b = Player(server).guest().connect()
    b.join(table)
    ack = b.sit(table)
    assert ack["type"] == "ack", ack
    for p in (a, b):
        wait_version(p, table, ack["version"])
        assert p.views[table]["status"] == "playing"
    assert a.views[table]["deal"]["to_move"] == 0
    return Duel(a, b, table, ack["version"])


def events(p: Player, table: str) -> list[dict[str, Any]]:
    """The table's events p received, once each, in version order."""
    by_version = {
        f["version"]: f["event"] for f in p.frames if f["type"] == "event" and f["table"] == table
    }
    return [by_version[v] for v in sorted(by_version)]


def wait_for_event(p: Player, table: str, kind: str, timeout: float = 10) -> dict[str, Any]:
    for e in events(p, table):
        if e["type"] == kind:
            return e
    frame = p.recv_until(
        lambda f: f["type"] == "event" and f["table"] == table and f["event"]["type"] == kind,
        timeout,
    )
    event: dict[str, Any] = frame["event"]
    return event


def expected_settlement(moves: list[str], side: int, reason: str, deck: list[str]) -> Forfeit:
    """What E6 gives after `moves` of the stacked first smazzata, by the engine."""
    game = Game(Rules.preset("cirulla"), 2, dealer=1, deck=deck)
    for move in moves:
        game.deal.play(move)
    return forfeit_settlement(game, side, reason)  # type: ignore[arg-type]


def moves_played(p: Player, table: str) -> list[str]:
    return [e["move"] for e in events(p, table) if e["type"] == "move"]


def check_e6_ending(
    d: Duel, loser: int, reason: str, deck: list[str] = DECK
) -> tuple[dict[str, Any], dict[str, Any], Forfeit]:
    """The partita ended by E6: forfeit, revealed, ended, as both players saw it, with
    the winner the engine's settlement gives; the stored record verifies and holds the
    settlement. Returns the forfeit and ended events and the expected settlement."""
    for p in (d.a, d.b):
        if p.ws is not None:
            wait_for_event(p, d.table, "ended")
    seen = events(d.b, d.table)
    tail = [e for e in seen if e["type"] not in ("move",) and e["version"] > d.started]
    assert [e["type"] for e in tail] == ["forfeit", "revealed", "ended"], tail
    forfeit, revealed, ended = tail
    assert forfeit["seat"] == loser and forfeit["side"] == loser and forfeit["reason"] == reason

    # the revealed seed is the one committed before the deal
    (committed,) = [e for e in seen if e["type"] == "committed"]
    assert revealed["deal"] == committed["deal"] == 0
    digest = hashlib.sha256(f"{committed['shuffle']}:{revealed['seed']}".encode()).hexdigest()
    assert digest == committed["commitment"]

    expected = expected_settlement(moves_played(d.b, d.table), loser, reason, deck)
    assert ended["reason"] == reason
    assert ended["winner"] == expected.winner == 1 - loser
    assert expected.credited == 6  # Cirulla: the card points are far more than 5

    view = d.b.views[d.table]
    assert view["status"] == "finished"
    assert view["result"] == {k: ended[k] for k in view["result"]}
    assert view["forfeit"]["reason"] == reason
    assert view["seats"][loser]["user"] == (d.a, d.b)[loser].user["id"]  # still in the seat

    r = d.b.http.get(f"/api/records/{d.table}")
    assert r.status_code == 200, r.text
    record = r.json()
    verified = verify_record(record)
    assert verified.winner == 1 - loser
    assert record["game"]["forfeit"] == expected.to_dict()  # the record has the settlement
    return forfeit, ended, expected


def assert_ended_with_the_settlement(ended: dict[str, Any], expected: Forfeit) -> None:
    """What the players are told at the end is the E6 settlement."""
    assert ended["totals"] == list(expected.totals), (ended, expected)


# ---- the move timer --------------------------------------------------------------------------
def test_a_player_who_does_not_move_loses_by_timeout(server: Server) -> None:
    d = start_duel(server, {"move_seconds": 1})
    turn_began = d.b.views[d.table]["turn_since"]
    forfeit, ended, expected = check_e6_ending(d, loser=0, reason="timeout")
    waited = forfeit["at"] - turn_began
    assert 1000 + GRACE * 1000 <= waited < 1000 + GRACE * 1000 + 2000, waited
    assert moves_played(d.b, d.table) == []
    assert expected.totals == (0, 6)
    assert_ended_with_the_settlement(ended, expected)


def test_the_move_timer_restarts_with_every_move(server: Server) -> None:
    """Three moves of 0.7 s each add up to more than the 1 s limit: no timeout."""
    d = start_duel(server, {"move_seconds": 1})
    for _ in range(3):
        for p, other in ((d.a, d.b), (d.b, d.a)):
            time.sleep(0.7)
            version = p.version[d.table]
            move = p.views[d.table]["deal"]["legal_moves"][0]
            ack = p.play(d.table, move)
            assert ack["type"] == "ack", ack
            wait_version(other, d.table, ack["version"])
            wait_version(p, d.table, ack["version"])
            assert ack["version"] > version
    assert [e["type"] for e in events(d.b, d.table)].count("forfeit") == 0
    assert d.b.views[d.table]["status"] == "playing"
    assert len(moves_played(d.b, d.table)) >= 6


def test_a_move_arriving_after_the_deadline_is_refused_with_timeout(server: Server) -> None:
    """The move was sent with the last version a saw, but the server's timer has
    forfeited a's seat meanwhile: the answer must say why, `timeout`."""
    d = start_duel(server, {"move_seconds": 1})
    time.sleep(1 + GRACE + 0.4)  # well past the deadline
    error = d.a.play(d.table, "4Sx4D")
    assert error["type"] == "error", error
    assert moves_played(d.a, d.table) == []  # the move was not applied
    check_e6_ending(d, loser=0, reason="timeout")
    assert error["code"] == "timeout", error


class StampedReader(threading.Thread):
    """Reads a socket in a thread, noting when each frame arrived."""

    def __init__(self, p: Player) -> None:
        super().__init__(daemon=True)
        assert p.ws is not None
        self.ws = p.ws
        self.frames: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()

    def run(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                raw = self.ws.recv()
                self.frames.put((time.time(), json.loads(raw)))

    def until(self, pred: Any, timeout: float = 10) -> tuple[float, dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while True:
            stamp, frame = self.frames.get(timeout=max(0.01, deadline - time.monotonic()))
            if pred(frame):
                return stamp, frame


def test_a_move_in_the_instant_after_the_deadline_is_refused_with_timeout(
    server: Server,
) -> None:
    """The move arrives after the deadline, but before the server's own timer (10 ms
    later) has forfeited the seat: the move is refused with `timeout` and the seat
    forfeits, once. The instant is aimed at from the arrival of the turn's event, a
    few times if need be."""
    offset = 0.002
    outcomes = []
    for _ in range(8):
        a = Player(server).guest()
        table = a.create_table({"players": 2, "move_seconds": 1}, decks=[DECK], dealer=1)
        a.connect()
        a.join(table)
        reader = StampedReader(a)
        reader.start()
        b = Player(server).guest().connect()
        b.join(table)
        ack = b.sit(table)
        assert ack["type"] == "ack", ack
        started = ack["version"]
        turn_began, _ = reader.until(lambda f, v=started: f.get("version") == v)
        time.sleep(max(0.0, turn_began + 1 + GRACE + offset - time.time()))
        move = {"type": "play", "action": f"late-{offset}", "table": table, "version": started}
        assert a.ws is not None
        a.ws.send(json.dumps({**move, "move": "4Sx4D"}))
        _, answer = reader.until(lambda f, m=move: f.get("action") == m["action"])
        ended = wait_for_event(b, table, "ended")
        outcomes.append((offset, answer.get("code", answer["type"])))
        a.close()
        reader.join(5)
        if answer["type"] == "error" and answer["code"] == "timeout":
            kinds = [e["type"] for e in events(b, table) if e["version"] > started]
            assert kinds == ["forfeit", "revealed", "ended"], kinds
            assert ended["reason"] == "timeout" and ended["winner"] == 1
            return
        if answer["type"] == "ack":  # in time after all: aim later
            offset += 0.004
        else:  # the timer was first: aim earlier
            offset -= 0.003
    pytest.fail(f"no move landed just after the deadline: {outcomes}")


def test_a_move_just_before_the_deadline_is_taken(server: Server) -> None:
    """The grace forgives lag: a move arriving 1.05 s into a 1 s turn still counts."""
    d = start_duel(server, {"move_seconds": 1})
    time.sleep(max(0.0, d.a.views[d.table]["turn_since"] / 1000 + 1.05 - time.time()))
    ack = d.a.play(d.table, "4Sx4D")
    assert ack["type"] == "ack", ack
    assert moves_played(d.a, d.table) == ["4Sx4D"]
    assert all(e["type"] != "forfeit" for e in events(d.a, d.table))


# ---- the partita clock ---------------------------------------------------------------------
def test_the_partita_clock_runs_down_across_moves_and_then_times_out(server: Server) -> None:
    d = start_duel(server, {"move_seconds": None, "partita_seconds": 10})
    assert d.a.views[d.table]["clocks"] == [10_000, 10_000]
    think = 0.8
    a_clocks: list[int] = []
    for _ in range(2):
        time.sleep(think)
        ack = d.a.play(d.table, d.a.views[d.table]["deal"]["legal_moves"][0])
        assert ack["type"] == "ack", ack
        wait_version(d.b, d.table, ack["version"])
        (mine,) = [e for e in events(d.b, d.table) if e["type"] == "move" and e["seat"] == 0][-1:]
        a_clocks.append(mine["clock"])
        assert d.b.views[d.table]["clocks"][0] == mine["clock"]
        # b answers at once: lag within the grace is free
        ack = d.b.play(d.table, d.b.views[d.table]["deal"]["legal_moves"][0])
        assert ack["type"] == "ack", ack
        wait_version(d.a, d.table, ack["version"])
    spent = int((think - GRACE) * 1000)
    assert a_clocks[0] <= 10_000 - spent and a_clocks[1] <= a_clocks[0] - spent, a_clocks
    assert a_clocks[1] > 10_000 - 2 * spent - 1500, a_clocks  # not much more than thought
    b_moves = [e for e in events(d.a, d.table) if e["type"] == "move" and e["seat"] == 1]
    assert len(b_moves) == 2
    assert all(e["clock"] >= 10_000 - 300 for e in b_moves), b_moves  # at most a little

    # a now waits: the partita clock, not the (absent) move timer, runs out
    turn_began = d.a.views[d.table]["turn_since"]
    forfeit, _, _ = check_e6_ending(d, loser=0, reason="timeout")
    waited = forfeit["at"] - turn_began
    assert a_clocks[1] + GRACE * 1000 <= waited < a_clocks[1] + GRACE * 1000 + 2000, waited


# ---- abandon --------------------------------------------------------------------------------
def test_abandon_ends_the_partita_by_e6(server: Server) -> None:
    d = start_duel(server, {"move_seconds": 60})
    # b abandons while it is a's turn: abandoning does not wait for one's turn
    ack = d.b.command({"type": "abandon", "table": d.table, "version": d.b.version[d.table]})
    assert ack["type"] == "ack", ack
    _, ended, expected = check_e6_ending(d, loser=1, reason="abandon")
    assert expected.totals == (6, 0)
    # nothing more can be played or abandoned
    for p in (d.a, d.b):
        error = p.command({"type": "abandon", "table": d.table, "version": p.version[d.table]})
        assert error["type"] == "error" and error["code"] == "not_playing", error
    error = d.a.play(d.table, "4Sx4D")
    assert error["type"] == "error" and error["code"] == "not_playing", error
    assert_ended_with_the_settlement(ended, expected)


def test_abandon_keeps_the_points_already_made_in_the_smazzata(server: Server) -> None:
    d = start_duel(server, {"move_seconds": 60}, deck=SCOPA_DECK)
    ack = d.a.play(d.table, "ACx3C5DJS6H")  # a scopa for seat 0
    assert ack["type"] == "ack", ack
    wait_version(d.b, d.table, ack["version"])
    ack = d.b.command({"type": "abandon", "table": d.table, "version": d.b.version[d.table]})
    assert ack["type"] == "ack", ack
    _, ended, expected = check_e6_ending(d, loser=1, reason="abandon", deck=SCOPA_DECK)
    assert expected.totals == (1 + 6, 0)
    assert_ended_with_the_settlement(ended, expected)


def test_abandon_by_the_seat_to_move_and_by_a_spectator(server: Server) -> None:
    d = start_duel(server, {"move_seconds": 60})
    c = Player(server).guest().connect()
    c.join(d.table)
    error = c.command({"type": "abandon", "table": d.table, "version": c.version[d.table]})
    assert error["type"] == "error" and error["code"] == "not_seated", error
    ack = d.a.command({"type": "abandon", "table": d.table, "version": d.a.version[d.table]})
    assert ack["type"] == "ack", ack
    _, ended, _ = check_e6_ending(d, loser=0, reason="abandon")
    assert ended["winner"] == 1
    # the spectator saw the end too
    assert wait_for_event(c, d.table, "ended")["winner"] == 1


def test_abandon_before_the_partita_starts_is_refused(server: Server) -> None:
    a = Player(server).guest()
    table = a.create_table({"players": 2})
    a.connect()
    a.join(table)
    error = a.command({"type": "abandon", "table": table, "version": a.version[table]})
    assert error["type"] == "error" and error["code"] == "not_playing", error
    assert a.join(table)["version"] == a.version[table] == 2  # created, sat: nothing new


# ---- disconnected players ----------------------------------------------------------------------
def test_a_disconnected_player_keeps_the_seat_and_times_out(server: Server) -> None:
    c = Player(server).guest().connect()
    d = start_duel(server, {"move_seconds": 1})
    last_seen = d.a.version[d.table]
    d.a.close()  # a's turn, and a is gone
    time.sleep(0.2)
    # still a's seat, still a's turn, nothing happened yet
    c.join(d.table)
    view = c.views[d.table]
    assert view["seats"][0]["user"] == d.a.user["id"]
    assert view["status"] == "playing" and view["deal"]["to_move"] == 0
    assert view["version"] == last_seen

    forfeit, _, _ = check_e6_ending(d, loser=0, reason="timeout")
    assert forfeit["version"] == last_seen + 1

    # back again: a gets exactly what it missed, the last with the view
    d.a.connect()
    ack = d.a.join(d.table, since=last_seen)
    assert ack["type"] == "ack", ack
    missed = [f for f in d.a.frames if f["type"] in ("event", "sync")][-3:]
    assert [f["type"] for f in missed] == ["event"] * 3
    assert [f["event"]["type"] for f in missed] == ["forfeit", "revealed", "ended"]
    assert [f["version"] for f in missed] == [last_seen + 1, last_seen + 2, last_seen + 3]
    assert "view" in missed[-1] and missed[-1]["view"]["status"] == "finished"
    assert missed[-1]["view"]["you"] == 0


def test_a_disconnected_opponents_clock_does_not_stop_the_other_from_winning(
    server: Server,
) -> None:
    """b drops while a is to move: a's own timer still runs, and a can still play."""
    d = start_duel(server, {"move_seconds": 1})
    d.b.close()
    ack = d.a.play(d.table, "4Sx4D")
    assert ack["type"] == "ack", ack
    # now it is b's turn, and b is away: b loses on time
    d.b.connect()  # a new socket, but b does not play
    d.b.join(d.table, since=d.started)
    forfeit = wait_for_event(d.b, d.table, "forfeit", timeout=5)
    assert forfeit["seat"] == 1 and forfeit["reason"] == "timeout"
    _, ended, _ = check_e6_ending(d, loser=1, reason="timeout")
    assert ended["winner"] == 0
