"""The WebSocket protocol against a real server: the handshake, and bad input of every
kind. Each bad command gets a clear error, changes nothing at the table, and does not
stop the server from serving the other players; a client that keeps sending garbage
or floods the server is cut off with close code 1008, and only that client.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from conftest import stack
from serverutil import Player, Server, running_server
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from cirulla import Deal, Rules

POLICY_VIOLATION = 1008

# A 2-player smazzata where seat 0 (the table's creator) moves first (dealer 1).
# Every card of seat 0 can capture, so each must capture (P6).
HAND_0 = ["4S", "KC", "QH"]
HAND_1 = ["2C", "5C", "6D"]
TABLE = ["4D", "7C", "2S", "JD"]
DECK = [str(c) for c in stack(players=2, dealer=1, hands=[HAND_0, HAND_1], table=TABLE)]


def first_deal() -> Deal:
    return Deal(Rules.preset("cirulla"), 2, 1, deck=DECK)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("protocol"), login_attempts=100_000) as s:
        yield s


@dataclass
class Duel:
    """Two people at a 2-player table with the stacked deck: `a` at seat 0, to move."""

    a: Player
    b: Player
    table: str


@pytest.fixture
def duel(server: Server) -> Iterator[Duel]:
    a = Player(server).guest()
    table = a.create_table({"players": 2}, decks=[DECK], dealer=1)
    a.connect()
    a.join(table)
    b = Player(server).guest().connect()
    b.join(table)
    started = b.sit(table)
    assert started["type"] == "ack", started
    for p in (a, b):
        wait_version(p, table, started["version"])
        assert p.views[table]["status"] == "playing"
    assert a.views[table]["deal"]["to_move"] == 0
    yield Duel(a, b, table)
    for p in (a, b):
        p.close()
        p.http.close()


def wait_version(p: Player, table: str, version: int, timeout: float = 20) -> None:
    """Read until p has seen `version` of the table (frames already read count)."""
    if p.version.get(table, -1) < version:
        p.recv_until(lambda f: f.get("table") == table and f.get("version", -1) >= version, timeout)
    assert p.version[table] == version, (p.version[table], version)


def snapshot(p: Player, table: str) -> tuple[int, dict[str, Any]]:
    """The table's version and p's whole view, as the server has them now (a fresh sync)."""
    ack = p.join(table)
    assert ack["type"] == "ack", ack
    assert p.version[table] == ack["version"]
    return ack["version"], p.views[table]


def assert_readable(error: dict[str, Any], code: str | tuple[str, ...]) -> None:
    codes = (code,) if isinstance(code, str) else code
    assert error["type"] == "error", error
    assert error["code"] in codes, error
    message = error["message"]
    assert isinstance(message, str) and 10 <= len(message) <= 300, error
    assert "Traceback" not in message and "Error(" not in message, error


def assert_nothing_changed(d: Duel, before: dict[str, tuple[int, dict[str, Any]]]) -> None:
    """Both players see exactly the table they saw before; no event was sent meanwhile."""
    for who, p in (("a", d.a), ("b", d.b)):
        seen = len(p.frames)
        version, view = snapshot(p, d.table)
        assert (version, view) == before[who], f"{who}'s view of the table changed"
        events = [f for f in p.frames[seen:] if f["type"] == "event"]
        assert events == [], events


def assert_still_served(d: Duel) -> None:
    """The game goes on: seat 0 makes a legal move, and both players get its event."""
    version = d.a.version[d.table]
    ack = d.a.play(d.table, "4Sx4D")
    assert ack["type"] == "ack", ack
    assert ack["version"] == version + 1  # the move is the only new record
    for p in (d.a, d.b):
        if p.ws is None:  # cut off
            continue
        wait_version(p, d.table, version + 1)
        (event,) = [f for f in p.frames if f["type"] == "event" and f["version"] == version + 1]
        assert event["event"]["type"] == "move" and event["event"]["move"] == "4Sx4D"


def ping(p: Player) -> dict[str, Any]:
    action = p.send({"type": "ping"})
    return p.recv_until(lambda f: f.get("action") == action)


def before_of(d: Duel) -> dict[str, tuple[int, dict[str, Any]]]:
    return {"a": snapshot(d.a, d.table), "b": snapshot(d.b, d.table)}


# ---- the handshake ---------------------------------------------------------------------------
def refused(server: Server, headers: dict[str, str]) -> int:
    """The HTTP status the WebSocket handshake is refused with."""
    with pytest.raises(InvalidStatus) as info, connect(server.ws_url, additional_headers=headers):
        pass
    return info.value.response.status_code


def test_handshake_without_a_session_cookie_is_refused(server: Server) -> None:
    assert refused(server, {}) == 403


def test_handshake_with_a_bad_session_cookie_is_refused(server: Server) -> None:
    assert refused(server, {"Cookie": "cirulla_session=not-a-real-token"}) == 403
    assert refused(server, {"Cookie": "cirulla_session=" + "x" * 5000}) == 403


def test_handshake_from_a_foreign_origin_is_refused(server: Server) -> None:
    p = Player(server).guest()
    assert refused(server, {"Cookie": p.cookie, "Origin": "http://evil.example"}) == 403
    # the same cookie is fine without the foreign origin
    p.connect()
    assert p.frames[-1]["type"] == "welcome"
    p.close()


def test_handshake_from_the_servers_own_origin_or_without_origin_is_accepted(
    server: Server,
) -> None:
    p = Player(server).guest()
    for origin in (server.base_url, None):
        p.connect(origin=origin)
        welcome = p.frames[-1]
        assert welcome["type"] == "welcome"
        assert welcome["user"] == {"id": p.user["id"], "name": p.user["name"]}
        assert ping(p)["type"] == "pong"
        p.close()


def test_a_logged_out_session_can_no_longer_open_the_socket(server: Server) -> None:
    p = Player(server).guest()
    cookie = p.cookie
    assert p.http.post("/api/logout").status_code == 204
    assert refused(server, {"Cookie": cookie}) == 403


# ---- bad commands: a clear error, nothing changes, the others are still served -------------
def test_unknown_table_is_refused_and_changes_nothing(duel: Duel) -> None:
    before = before_of(duel)
    for frame in (
        {"type": "join", "table": "no-such-table"},
        {"type": "sit", "table": "no-such-table", "version": 1, "seat": None},
        {"type": "play", "table": "no-such-table", "version": 1, "move": "4Sx4D"},
        {"type": "abandon", "table": "no-such-table", "version": 1},
    ):
        error = duel.a.command(frame)
        assert_readable(error, "unknown_table")
    assert_nothing_changed(duel, before)
    assert_still_served(duel)


def test_sitting_at_a_full_table_is_refused(server: Server, duel: Duel) -> None:
    before = before_of(duel)
    c = Player(server).guest().connect()
    c.join(duel.table)  # as a spectator
    error = c.sit(duel.table)
    # a full table has already started: "begun" is the accurate answer
    assert_readable(error, ("table_full", "table_started"))
    error = c.sit(duel.table, seat=1)
    assert_readable(error, ("table_full", "table_started", "seat_taken"))
    assert_nothing_changed(duel, before)
    assert_still_served(duel)
    c.close()


def test_taking_a_taken_seat_or_sitting_twice_is_refused(server: Server) -> None:
    a = Player(server).guest()
    table = a.create_table({"players": 3})
    a.connect()
    a.join(table)
    b = Player(server).guest().connect()
    b.join(table)
    before = snapshot(a, table)

    assert_readable(a.sit(table), "already_seated")
    assert_readable(a.sit(table, seat=1), "already_seated")
    assert_readable(b.sit(table, seat=0), "seat_taken")  # a's seat
    assert_readable(b.sit(table, seat=3), ("bad_seat", "bad_command"))
    assert snapshot(a, table) == before

    ack = b.sit(table, seat=2)  # still served
    assert ack["type"] == "ack" and ack["version"] == before[0] + 1
    assert_readable(b.sit(table), "already_seated")
    seats = snapshot(a, table)[1]["seats"]
    assert [s and s["user"] for s in seats] == [a.user["id"], None, b.user["id"]]


def test_playing_out_of_turn_is_refused(duel: Duel) -> None:
    before = before_of(duel)
    error = duel.b.play(duel.table, "2C")
    assert_readable(error, "not_your_turn")
    # a seat that would capture with its own card: still not its turn
    error = duel.b.play(duel.table, "2Cx2S")
    assert_readable(error, "not_your_turn")
    assert_nothing_changed(duel, before)
    assert_still_served(duel)


def test_a_spectator_cannot_play(server: Server, duel: Duel) -> None:
    before = before_of(duel)
    c = Player(server).guest().connect()
    c.join(duel.table)
    assert_readable(c.play(duel.table, "4Sx4D"), "not_seated")
    assert_readable(
        c.command({"type": "abandon", "table": duel.table, "version": c.version[duel.table]}),
        "not_seated",
    )
    assert_nothing_changed(duel, before)
    assert_still_served(duel)
    c.close()


@pytest.mark.parametrize(
    "move",
    [
        "4S",  # 4S can capture 4D, so it must (P6)
        "KCx4D7C",  # 4 + 7 is neither 10 nor 15 - 10
        "KCx2S",  # 10 + 2 is neither
        "QHx7C",  # 9 + 7 = 16
        "4Sx4D2S",  # a capture with a card too many
    ],
)
def test_an_illegal_capture_is_refused_and_changes_nothing(duel: Duel, move: str) -> None:
    legal = [str(m) for m in first_deal().legal_moves()]
    assert move not in legal  # the engine agrees it is illegal
    assert duel.a.views[duel.table]["deal"]["legal_moves"] == legal
    before = before_of(duel)
    error = duel.a.play(duel.table, move)
    assert_readable(error, "illegal_move")
    assert move.split("x")[0] in error["message"]  # it names the card played
    assert_nothing_changed(duel, before)
    assert_still_served(duel)


def test_a_card_not_in_hand_is_refused(duel: Duel) -> None:
    before = before_of(duel)
    for move in ("5H", "2C", "2Cx2S"):  # a card nobody holds; then the opponent's own card
        error = duel.a.play(duel.table, move)
        assert_readable(error, "illegal_move")
        assert "not in the hand" in error["message"]
    assert_nothing_changed(duel, before)
    assert_still_served(duel)


@pytest.mark.parametrize("move", ["hello", "5Cx", "ZZ", "4Sx4D4D", "!cirulla:4S", "11C", "4S 4D"])
def test_a_malformed_move_string_is_refused(duel: Duel, move: str) -> None:
    before = before_of(duel)
    error = duel.a.play(duel.table, move)
    assert_readable(error, ("bad_move", "illegal_move"))
    assert_nothing_changed(duel, before)
    assert_still_served(duel)


def test_a_move_that_is_not_a_string_is_refused(duel: Duel) -> None:
    before = before_of(duel)
    version = duel.a.version[duel.table]
    for move in (42, ["4S", "4D"], None, ""):
        error = duel.a.command(
            {"type": "play", "table": duel.table, "version": version, "move": move}
        )
        assert_readable(error, "bad_command")
        assert "move" in error["message"]
    assert_nothing_changed(duel, before)
    assert_still_served(duel)


def test_a_stale_version_is_refused_and_resynced(duel: Duel) -> None:
    before = before_of(duel)
    version = duel.a.version[duel.table]
    action = duel.a.send(
        {"type": "play", "table": duel.table, "version": version - 1, "move": "4Sx4D"}
    )
    error = duel.a.recv_until(lambda f: f.get("action") == action)
    assert_readable(error, "stale")
    sync = duel.a.recv_until(lambda f: f["type"] == "sync")
    assert (sync["version"], sync["view"]) == before["a"]
    assert_nothing_changed(duel, before)
    assert_still_served(duel)


def bad_frame_error(p: Player, raw: str | bytes) -> dict[str, Any]:
    seen = len(p.frames)
    p.send_raw(raw)
    error = p.recv_until(lambda f: f["type"] == "error")
    assert all(f["type"] != "event" for f in p.frames[seen:])
    return error


def test_malformed_json_is_refused(duel: Duel) -> None:
    before = before_of(duel)
    for raw in ('{"type": "ping", "action": ', "not json at all", "{'type': 'ping'}"):
        error = bad_frame_error(duel.a, raw)
        assert_readable(error, "bad_json")
        assert error["action"] is None
    assert_nothing_changed(duel, before)
    assert_still_served(duel)


def test_a_frame_that_is_not_a_known_command_is_refused(duel: Duel) -> None:
    before = before_of(duel)
    for frame, action in (
        ({"type": "dance", "action": "d1"}, "d1"),
        ({"type": "play!", "action": "d2", "table": duel.table}, "d2"),
        ([1, 2, 3], None),
        ("ping", None),
        (None, None),
    ):
        error = bad_frame_error(duel.a, json.dumps(frame))
        assert_readable(error, "bad_command")
        assert error["action"] == action
    assert_nothing_changed(duel, before)
    assert_still_served(duel)


def test_a_command_with_a_missing_or_extra_field_is_refused(duel: Duel) -> None:
    before = before_of(duel)
    version = duel.a.version[duel.table]
    cases = [
        ({"type": "play", "action": "m1", "table": duel.table, "version": version}, "move"),
        ({"type": "play", "action": "m2", "table": duel.table, "move": "4Sx4D"}, "version"),
        ({"type": "play", "action": "m3", "version": version, "move": "4Sx4D"}, "table"),
        ({"type": "ping"}, "action"),
    ]
    for frame, field in cases:
        error = bad_frame_error(duel.a, json.dumps(frame))
        assert_readable(error, "bad_command")
        assert field in error["message"], error
    assert_nothing_changed(duel, before)
    assert_still_served(duel)


def test_an_oversized_frame_is_refused(duel: Duel) -> None:
    before = before_of(duel)
    version = duel.a.version[duel.table]
    big = {"type": "play", "action": "big", "table": duel.table, "version": version}
    big["move"] = "4Sx4D" + " " * 17_000  # over 16 KiB, otherwise a legal move
    raw = json.dumps(big)
    assert len(raw.encode()) > 16 * 1024
    error = bad_frame_error(duel.a, raw)
    assert_readable(error, "frame_too_large")
    error = bad_frame_error(duel.a, raw.encode())  # as a binary frame too
    assert_readable(error, "frame_too_large")
    assert_nothing_changed(duel, before)
    assert_still_served(duel)


def test_binary_garbage_is_refused(duel: Duel) -> None:
    before = before_of(duel)
    for raw in (b"\xff\xfe\x00garbage\x80", bytes(range(256)), b"\x00"):
        error = bad_frame_error(duel.a, raw)
        assert_readable(error, ("bad_json", "bad_command"))
    assert_nothing_changed(duel, before)
    assert_still_served(duel)


def test_a_command_as_a_binary_utf8_frame_is_understood(duel: Duel) -> None:
    frame = {"type": "ping", "action": "bin-ping"}
    duel.a.send_raw(json.dumps(frame).encode())
    pong = duel.a.recv_until(lambda f: f.get("action") == "bin-ping")
    assert pong["type"] == "pong"


# ---- cutting off abusive clients ---------------------------------------------------------------
def close_code(p: Player, timeout: float = 10) -> int | None:
    """Read until the server closes the socket; the close code it sent."""
    assert p.ws is not None
    with pytest.raises(ConnectionClosed) as info:
        while True:
            p.recv(timeout=timeout)
    rcvd = info.value.rcvd
    return None if rcvd is None else rcvd.code


def test_five_bad_frames_are_forgiven_the_sixth_closes_the_socket_with_1008(duel: Duel) -> None:
    before = before_of(duel)
    for _ in range(5):
        assert_readable(bad_frame_error(duel.b, "{oops"), "bad_json")
    assert ping(duel.b)["type"] == "pong"  # still connected
    duel.b.send_raw("{oops")
    assert close_code(duel.b) == POLICY_VIOLATION
    errors = [f for f in duel.b.frames if f["type"] == "error"]
    assert errors[-2]["code"] == "bad_json"
    assert_readable(errors[-1], "disconnected")
    duel.b.ws = None

    # b lost only its socket: the seat is b's, and a plays on
    assert_still_served(duel)
    version, view = snapshot(duel.a, duel.table)
    assert view["seats"] == before["a"][1]["seats"]
    assert version == before["a"][0] + 1


def test_a_flood_of_pings_closes_the_socket_with_1008_and_spares_the_other_player(
    duel: Duel,
) -> None:
    before = before_of(duel)
    assert duel.b.ws is not None
    for i in range(300):
        try:
            duel.b.ws.send(json.dumps({"type": "ping", "action": f"flood-{i}"}))
        except ConnectionClosed:  # the server may cut the flood off before it is all sent
            break
    assert close_code(duel.b) == POLICY_VIOLATION
    pongs = [f for f in duel.b.frames if f["type"] == "pong"]
    assert 20 <= len(pongs) < 300  # the burst is answered, the rest is not
    assert_readable(duel.b.frames[-1], "disconnected")
    duel.b.ws = None

    # a, at the same table, notices nothing
    assert ping(duel.a)["type"] == "pong"
    assert_still_served(duel)
    version, view = snapshot(duel.a, duel.table)
    assert version == before["a"][0] + 1 and view["seats"] == before["a"][1]["seats"]

    # b may come back on a new socket and finds the move it missed
    duel.b.connect()
    duel.b.join(duel.table, since=before["b"][0])
    assert duel.b.version[duel.table] == version


def test_a_bad_seat_number_is_refused(server: Server) -> None:
    a = Player(server).guest()
    table = a.create_table({"players": 2})
    a.connect()
    a.join(table)
    b = Player(server).guest().connect()
    b.join(table)
    before = snapshot(a, table)
    for seat in (-1, 7, 1.5, "one", [1]):
        error = b.command(
            {"type": "sit", "table": table, "version": b.version[table], "seat": seat}
        )
        assert_readable(error, ("bad_command", "bad_seat"))
    assert snapshot(a, table) == before


def test_fields_must_have_their_exact_types(server: Server) -> None:
    """A seat "1", a version true: refused, not coerced (pydantic's strict mode)."""
    a = Player(server).guest()
    table = a.create_table({"players": 2})
    a.connect()
    a.join(table)
    b = Player(server).guest().connect()
    b.join(table)
    before = snapshot(a, table)
    version = b.version[table]
    for field, value in (
        ("seat", "1"),
        ("seat", True),
        ("version", str(version)),
        ("version", True),
    ):
        frame = {"type": "sit", "table": table, "version": version, "seat": 1, field: value}
        error = b.command(frame)
        assert_readable(error, "bad_command")
        assert field in error["message"], error
    assert snapshot(a, table) == before
    assert b.sit(table, 1)["type"] == "ack"


def test_the_server_is_up_and_logged_no_error_after_the_abuse(server: Server) -> None:
    """Run last in this module: nothing above made the server fail inside."""
    r = httpx.get(f"{server.base_url}/api/health", timeout=5)
    assert r.status_code == 200 and r.json()["ok"] is True
    log = server.log_path.read_text(errors="replace")
    errors = [line for line in log.splitlines() if '"level": "error"' in line]
    assert errors == [], errors[:3]
    assert "Traceback" not in log
