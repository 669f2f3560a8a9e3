"""A protocol fuzzer against a real server: hypothesis makes WebSocket frames (commands
with hostile field values, random JSON, deep nesting, huge numbers, lone surrogates,
invalid UTF-8, binary frames, unknown types) and sends them one at a time to a player
whose turn it is. The property:

- every frame gets exactly one answer (ack, error or pong), or, after too many bad
  frames, a `disconnected` error and close code 1008 (the fuzzer connects again);
- the server never closes a socket otherwise (no 1011) and logs no traceback;
- the table is exactly as it was: no frame of these changed it.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import stack
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from serverutil import Player, Server, running_server
from websockets.exceptions import ConnectionClosed

POLICY_VIOLATION = 1008
MESSAGE_TOO_BIG = 1009
#: The largest message uvicorn takes (4 x CIRULLA_MAX_FRAME, at least 64 KiB): larger
#: is refused by the WebSocket layer before the server reads it.
MAX_MESSAGE = 65_536
ANSWERS = ("ack", "error", "pong")

DECK = [
    str(c)
    for c in stack(
        players=2,
        dealer=1,
        hands=[["4S", "KC", "QH"], ["2C", "5C", "6D"]],
        table=["4D", "7C", "2S", "JD"],
    )
]


class Game:
    """The table the fuzzer attacks: `a` (seat 0, to move) sends the frames; `b` checks."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.a = Player(server).guest()
        self.table = self.a.create_table({"players": 2}, decks=[DECK], dealer=1)
        self.a.connect()
        self.a.join(self.table)
        self.b = Player(server).guest().connect()
        self.b.join(self.table)
        assert self.b.sit(self.table)["type"] == "ack"
        self.version, self.view = self.snapshot()
        assert self.view["status"] == "playing" and self.view["deal"]["to_move"] == 0
        self.reconnects = 0

    def snapshot(self) -> tuple[int, dict[str, Any]]:
        ack = self.b.join(self.table)  # a fresh sync of the table as b sees it
        assert ack["type"] == "ack", ack
        return ack["version"], self.b.views[self.table]

    def reconnect(self) -> None:
        self.a.ws = None
        self.a.connect()
        self.reconnects += 1


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Game]:
    with running_server(
        tmp_path_factory.mktemp("fuzz"),
        login_attempts=100_000,
        registrations_per_hour=100_000,
        flood_per_second=100_000,
        flood_burst=100_000,
        bad_frames_allowed=40,
    ) as server:
        g = Game(server)
        yield g
        g.a.close()
        g.b.close()


# ---- frames -------------------------------------------------------------------------------------
TYPES = ["ping", "lobby", "join", "leave", "sit", "stand", "play", "abandon", "auto_declare"]
KNOWN_FIELDS = ["type", "action", "table", "version", "since", "seat", "move", "invite", "watch"]

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
hostile_text = st.one_of(
    st.text(max_size=80),
    st.text(max_size=3000),
    st.sampled_from(["", " ", "\x00", "\ud800", "\udfff\ud800", "🂡" * 40, "a" * 65, "a" * 64]),
    st.integers(0xD800, 0xDFFF).map(chr),  # lone surrogates
)
hostile = st.one_of(
    hostile_text,
    json_values,
    st.integers(min_value=-(10**40), max_value=10**40),
    st.sampled_from([10**30, -1, 2**63, 2**64 + 1, 1.5, True, False, None, [], {}]),
)


@st.composite
def commands(draw: st.DrawFn, table: str, version: int) -> dict[str, Any]:
    """A command of a known type whose fields are valid, hostile or missing; never one
    that would rightly change the table (its version is never the table's)."""
    kind = draw(st.sampled_from(TYPES))
    frame: dict[str, Any] = {"type": kind, "action": draw(hostile_text | hostile)}
    frame["table"] = draw(st.sampled_from([table, table + "x", "no-such-table"]) | hostile)
    frame["version"] = draw(
        (st.integers() | hostile).filter(lambda v: not (type(v) is int and v == version))
    )
    for name in ("since", "seat", "move", "invite", "watch", "on"):
        if draw(st.booleans()):
            value = draw(hostile | st.sampled_from(["4Sx4D", "KC", "!cirulla:4S", 0, 1, 5]))
            if name == "on" and isinstance(value, bool):
                continue  # a real auto_declare switch is a legitimate change
            frame[name] = value
    if draw(st.booleans()):
        del frame[draw(st.sampled_from(["action", "table", "version", "type"]))]
    if draw(st.integers(0, 9)) == 0:
        frame[draw(st.text(max_size=10))] = draw(hostile)
    return frame


def as_text(value: Any) -> str:
    return json.dumps(value)  # ensure_ascii: lone surrogates go as \\udXXX escapes


def deep(depth: int, opener: str, closer: str) -> str:
    return opener * depth + closer * depth


raw_frames = st.one_of(
    st.binary(max_size=200),  # binary frames: mostly invalid UTF-8
    st.text(max_size=200),  # text that is rarely JSON
    st.integers(1, 6000).map(lambda n: deep(n, "[", "]")),
    st.integers(1, 3000).map(lambda n: deep(n, '{"a":', "}").replace('{"a":}', '{"a":1}')),
    st.integers(1, 5000).map(lambda n: '{"type": "ping", "action": "n", "v": ' + "9" * n + "}"),
    st.integers(300, 6000).map(lambda n: "-" + "1" * n),
    st.sampled_from(
        [
            '{"type": "ping", "action": "\\ud800"}',
            '{"type": "ping", "action": "x", "type": "play"}',
            '{"type": "ping", "action": 1e999}',
            "NaN",
            "Infinity",
            '{"type": "ping", "action": "x"} trailing',
            "\ufeff{}",
            "[]",
            "{}",
            "null",
            '"ping"',
        ]
    ),
)


# ---- the property -----------------------------------------------------------------------------
def send_and_count_answers(g: Game, frame: str | bytes) -> None:
    a = g.a
    assert a.ws is not None
    seen = len(a.frames)
    size = len(frame.encode() if isinstance(frame, str) else frame)
    sentinel = f"sentinel-{uuid.uuid4().hex}"
    with contextlib.suppress(ConnectionClosed):  # closed already: read what came first
        a.send_raw(frame)
        a.send({"type": "ping", "action": sentinel})
    try:
        a.recv_until(lambda f: f["type"] == "pong" and f.get("action") == sentinel, timeout=30)
    except ConnectionClosed as closed:
        code = closed.rcvd.code if closed.rcvd is not None else None
        if size > MAX_MESSAGE:  # over the WebSocket layer's own cap: closed unread
            assert code == MESSAGE_TOO_BIG, (code, size)
            g.reconnect()
            return
        assert code == POLICY_VIOLATION, (code, frame[:200])
        answers = [f for f in a.frames[seen:] if f["type"] in ANSWERS]
        assert answers and answers[-1]["code"] == "disconnected", answers
        assert len(answers) <= 2, answers  # the frame's answer, then the farewell
        g.reconnect()
        return
    answers = [f for f in a.frames[seen:] if f["type"] in ANSWERS]
    assert len(answers) == 2, (frame[:200], answers)  # the frame's and the sentinel's
    assert answers[-1]["action"] == sentinel
    answer = answers[0]
    if answer["type"] == "error":
        message = answer["message"]
        assert isinstance(message, str) and 5 <= len(message) <= 300, answer
        assert answer["code"] not in ("internal_error", "unavailable"), (frame[:200], answer)


@settings(
    max_examples=300,
    deadline=None,
    database=None,
    # The server's state carries over from one example to the next (bad frames counted,
    # sockets cut), so a shrunk replay would not be the same run: report the frame as made.
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_every_fuzzed_frame_gets_one_answer_and_changes_nothing(
    game: Game, data: st.DataObject
) -> None:
    choice = data.draw(st.integers(0, 2))
    if choice == 0:
        frame: str | bytes = as_text(data.draw(commands(game.table, game.version)))
    elif choice == 1:
        frame = data.draw(raw_frames)
    else:
        frame = as_text(data.draw(json_values))
    if data.draw(st.integers(0, 5)) == 0 and isinstance(frame, str):
        frame = frame.encode()  # the same as a binary frame
    send_and_count_answers(game, frame)


def test_after_the_fuzzing_the_table_is_unchanged_and_nothing_failed(game: Game) -> None:
    """Run after the fuzzer (pytest keeps the file's order)."""
    assert game.snapshot() == (game.version, game.view)
    # the table still works: the player to move plays
    assert game.a.join(game.table)["version"] == game.version
    ack = game.a.play(game.table, "4Sx4D")
    assert ack["type"] == "ack" and ack["version"] == game.version + 1, ack
    text = game.server.log_path.read_text(errors="replace")
    lines = [json.loads(x) for x in text.splitlines() if x.startswith("{")]
    assert [x for x in lines if "error" in x] == []
    assert [x for x in lines if x["level"] in ("error", "critical")] == []
    assert "Traceback" not in text
