"""A bot account is held to a person's limits, against a real server (docs/bots.md,
"Limits"): moves over HTTP are flood-limited (429 `rate_limited`, nothing applied),
streams and sockets opened with a bot's token count in the per-account cap, a bot that
does not move loses on the clock by E6, and a stream whose reader stops is cut off
like a slow socket (4001), its memory bounded and its place given back at once."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from serverutil import Player, Server, running_server
from test_server_bot_api import Stream, bot_http, make_bot
from test_server_socket_limits import poll, rss_bytes
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

from cirulla.verify import verify_record


def log_messages(server: Server) -> list[str]:
    lines = server.log_path.read_text(errors="replace").splitlines()
    return [json.loads(x)["message"] for x in lines if x.startswith("{")]


def bot_table(http: httpx.Client, config: dict[str, Any]) -> str:
    r = http.post("/api/bot/tables", json={"config": config})
    assert r.status_code == 201, r.text
    table: str = r.json()["table"]["id"]
    return table


def bot_socket(server: Server, token: str) -> ClientConnection:
    headers = {"Authorization": f"Bearer {token}"}
    ws = connect(server.ws_url, additional_headers=headers).__enter__()  # closed by the test
    assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
    return ws


class OpenStream:
    """The bot's stream, opened (its welcome read) or refused (its error code)."""

    def __init__(self, http: httpx.Client) -> None:
        self._cm = http.stream("GET", "/api/bot/stream")
        self.response = self._cm.__enter__()
        self.status = self.response.status_code
        self.code: str | None = None
        if self.status != 200:
            self.response.read()
            self.code = self.response.json()["error"]["code"]
            self.close()
            return
        self.lines = self.response.iter_lines()
        assert json.loads(next(self.lines))["type"] == "welcome"

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


def refused(http: httpx.Client) -> str | None:
    """The error code a new stream is refused with (None: it opened, and is closed again)."""
    stream = OpenStream(http)
    if stream.status == 200:
        stream.close()
    return stream.code


# ---- the flood limit -------------------------------------------------------------------------
def test_moves_over_http_flooding_the_limit_get_429_rate_limited_and_change_nothing(
    tmp_path: Path,
) -> None:
    """A burst of 6 commands and almost no refill: the table's creation and five stale
    moves pass the limit (and are answered as the socket answers them); the next
    command, a legal move at the table's version, is refused with 429 and not played."""
    with running_server(tmp_path, flood_per_second=0.001, flood_burst=6) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna")
        with bot_http(server, token) as http:
            stream = Stream(server, token)
            table = bot_table(http, {"players": 2, "bots": {"1": "facile"}})
            deadline = time.monotonic() + 60
            while True:  # until it is the bot's turn (the server's bot may move first)
                frame = stream.next(lambda f: f.get("table") == table and "view" in f)
                deal = frame["view"]["deal"]
                if deal["to_move"] == frame["view"]["you"]:
                    break
                assert time.monotonic() < deadline
            for n in range(5):
                r = http.post(
                    f"/api/bot/tables/{table}/move",
                    json={"action": f"old{n}", "version": 0, "move": "1D"},
                )
                assert r.status_code == 409 and r.json()["error"]["code"] == "stale", r.text
            body = {"action": "now", "version": frame["version"], "move": deal["legal_moves"][0]}
            r = http.post(f"/api/bot/tables/{table}/move", json=body)
            assert r.status_code == 429, r.text
            assert r.json()["error"]["code"] == "rate_limited"
            summary = anna.http.get(f"/api/tables/{table}").json()["table"]
            assert summary["version"] == frame["version"], "the move was not played"
            assert http.post("/api/bot/tables", json={"config": {"players": 2}}).status_code == 429


# ---- streams and sockets per account ------------------------------------------------------------
def test_a_bots_streams_and_sockets_count_together_in_the_per_account_cap(
    tmp_path: Path,
) -> None:
    with running_server(tmp_path, sockets_per_user=3) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna")
        with bot_http(server, token) as http:
            opened = [OpenStream(http), OpenStream(http)]
            assert [stream.status for stream in opened] == [200, 200]
            ws = bot_socket(server, token)  # the third
            assert refused(http) == "too_many_connections"
            with pytest.raises(InvalidStatus) as no:
                connect(server.ws_url, additional_headers={"Authorization": f"Bearer {token}"})
            assert no.value.response.status_code == 403
            # another account is not affected (the cap is per account)
            assert Player(server).register("bea").connect().ws is not None
            # a stream that closes gives its place back, to a socket or a stream
            opened.pop().close()
            poll(lambda: refused(http) is None, what="the freed place")
            ws.close()

            def two_more() -> bool:  # with the one open: the socket's place is free too
                more = [OpenStream(http) for _ in range(2)]
                for stream in more:
                    if stream.status == 200:
                        stream.close()
                return all(stream.status == 200 for stream in more)

            poll(two_more, what="the socket's place")
            for stream in opened:
                stream.close()
        messages = [m for m in log_messages(server) if m.startswith("refusing")]
        assert any("this account has 3 sockets open" in m for m in messages), messages


# ---- the clock ---------------------------------------------------------------------------------
def test_a_bot_that_does_not_move_loses_on_the_clock_by_e6(tmp_path: Path) -> None:
    """The move timer (1 s, grace 0.2 s) runs for a bot as for a person: it never moves,
    so the partita ends by E6 with reason `timeout`, the other side the winner."""
    with running_server(tmp_path, grace=0.2) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna")
        stream = Stream(server, token)
        config = {"players": 2, "move_seconds": 1, "bots": {"1": "facile"}}
        with bot_http(server, token) as http:
            table = bot_table(http, config)
        frame = stream.next(
            lambda f: f.get("table") == table and "view" in f and f["view"]["status"] != "playing",
            timeout=60,
        )
        view = frame["view"]
        assert view["status"] == "finished" and view["you"] == 0
        assert view["forfeit"]["reason"] == "timeout" and view["forfeit"]["side"] == 0
        events = [f["event"] for f in stream.seen if f.get("table") == table and "event" in f]
        assert [e["type"] for e in events][-3:] == ["forfeit", "revealed", "ended"], events
        plays = [e for e in events if e["type"] == "move" and not e["move"].startswith("!")]
        assert all(e["seat"] == 1 for e in plays), "the bot never played a card"
        r = anna.http.get(f"/api/records/{table}")
        assert r.status_code == 200, r.text
        record = r.json()
        assert verify_record(record).winner == 1
        assert record["game"]["forfeit"]["reason"] == "timeout"
        assert record["seats"][0]["bot_account"] is True


# ---- a stream that is not read -------------------------------------------------------------------
class RawStream:
    """The bot's stream on a bare TCP socket with a small receive buffer, which reads
    its welcome and then nothing until told to: what the server sends piles up there."""

    def __init__(self, server: Server, token: str) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.connect(("127.0.0.1", server.port))
        self.sock.sendall(
            b"GET /api/bot/stream?keepalive=60 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + f"Authorization: Bearer {token}\r\n".encode()
            + b"Connection: close\r\n\r\n"
        )
        self.sock.settimeout(30)
        self.data = b""
        while b'"type":"welcome"' not in self.data:
            chunk = self.sock.recv(1024)
            assert chunk, self.data
            self.data += chunk

    def read_to_the_end(self, timeout: float = 60) -> bytes:
        """Everything the server sent, until it closes the connection."""
        self.sock.settimeout(timeout)
        data = self.data
        while chunk := self.sock.recv(65536):
            data += chunk
        self.sock.close()
        return data


def test_a_stream_that_is_not_read_is_cut_off_with_4001_and_gives_its_place_back(
    tmp_path: Path,
) -> None:
    """The bot's one stream (CIRULLA_SOCKETS_PER_USER 1) stops reading; each stale move
    sends it the table again (a whole view), until more than CIRULLA_OUTBOX_BYTES wait:
    then the stream ends. The server's memory grew by far less than was sent; the
    place is free at once, though the client still reads nothing; a new stream gets
    the table; and reading, the old client finds the `end` line with 4001, then the end."""
    with running_server(
        tmp_path,
        outbox_bytes=65_536,
        sockets_per_user=1,
        flood_per_second=100_000,
        flood_burst=100_000,
    ) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna")
        raw = RawStream(server, token)
        with bot_http(server, token) as http:
            assert refused(http) == "too_many_connections"
            bots = {"1": "facile", "2": "facile", "3": "facile"}
            table = bot_table(http, {"players": 4, "bots": bots})
            before = rss_bytes(server)

            def cut() -> bool:
                return any("closing the stream of robo-anna" in m for m in log_messages(server))

            for n in range(20_000):
                r = http.post(
                    f"/api/bot/tables/{table}/move",
                    json={"action": f"s{n}", "version": 0, "move": "1D"},
                )
                assert r.status_code == 409, r.text  # stale: the table again on the stream
                if n % 50 == 49 and cut():
                    break
            poll(cut, what="the server to give up on the stream")
            [message] = [m for m in log_messages(server) if "closing the stream of" in m]
            assert "bytes wait for it (CIRULLA_OUTBOX_BYTES 65536)" in message
            assert rss_bytes(server) - before < 40_000_000, "what waits is bounded"
            # the place is given back without the old client reading a byte more
            poll(lambda: refused(http) is None, what="the place of the stream cut off")
            stream = OpenStream(http)
            for line in stream.lines:
                frame = json.loads(line)
                if frame.get("table") == table:
                    assert frame["type"] == "sync" and frame["view"]["you"] == 0
                    break
            stream.close()
        data = raw.read_to_the_end()
        assert data.startswith(b"HTTP/1.1 200"), data[:200]
        assert b'{"type":"end","code":4001,' in data
        assert data.endswith(b"0\r\n\r\n"), "the response ended, and the connection"
