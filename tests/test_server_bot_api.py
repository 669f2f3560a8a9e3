"""The bot API against a real server (docs/bots.md): bot accounts and their tokens,
hashed storage, scopes, revocation, the event stream and the move endpoint, the
WebSocket with a bearer token, invitations, tournaments that allow bots or not, the
bot flag in frames, the lobby, profiles and records, and examples/bot_client.py
playing a whole partita across a server restart."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serverutil import Player, Server, running_server
from test_store import Backend, backend  # noqa: F401  (the fixture)
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from cirulla.gateway.bot_auth import TOKEN_PREFIX, new_bot_token
from cirulla.gateway.security import token_hash
from cirulla.store import Store
from cirulla.store.bots import BotStore

ROOT = Path(__file__).resolve().parents[1]
SHORT = {"players": 2, "options": {"hands": 1}}


# ---- helpers ---------------------------------------------------------------------------------
def make_bot(owner: Player, name: str, scopes: list[str] | None = None) -> str:
    """A bot of `owner` and a token for it (scopes: play, read, tournament by default)."""
    r = owner.http.post("/api/bots", json={"name": name})
    assert r.status_code == 201, r.text
    return new_token(owner, name, scopes or ["play", "read", "tournament"])


def new_token(owner: Player, bot: str, scopes: list[str]) -> str:
    r = owner.http.post(f"/api/bots/{bot}/tokens", json={"name": "test", "scopes": scopes})
    assert r.status_code == 201, r.text
    token: str = r.json()["token"]
    assert token.startswith(TOKEN_PREFIX)
    return token


def bot_http(server: Server, token: str) -> httpx.Client:
    return httpx.Client(
        base_url=server.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=20
    )


class Stream:
    """A bot's event stream read in a thread: its frames in a queue, in order."""

    def __init__(self, server: Server, token: str, keepalive: float = 10.0) -> None:
        self.frames: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.status: int | None = None
        self.seen: list[dict[str, Any]] = []
        self._opened = threading.Event()
        self._thread = threading.Thread(
            target=self._read, args=(server, token, keepalive), daemon=True
        )
        self._thread.start()
        assert self._opened.wait(20), "the stream did not answer"

    def _read(self, server: Server, token: str, keepalive: float) -> None:
        try:
            with (
                bot_http(server, token) as http,
                http.stream("GET", f"/api/bot/stream?keepalive={keepalive}") as r,
            ):
                self.status = r.status_code
                self._opened.set()
                for line in r.iter_lines():
                    if line:
                        self.frames.put(json.loads(line))
        except httpx.HTTPError:
            pass
        finally:
            self._opened.set()
            self.frames.put(None)  # the end of the stream

    def next(
        self, pred: Callable[[dict[str, Any]], bool] = lambda f: True, timeout: float = 30
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching line in the stream")
            try:
                frame = self.frames.get(timeout=left)
            except queue.Empty:
                raise TimeoutError("no matching line in the stream") from None
            if frame is None:
                self.frames.put(None)
                raise EOFError("the stream ended")
            self.seen.append(frame)
            if pred(frame):
                return frame

    def ended(self, timeout: float = 30) -> bool:
        """Whether the stream ends (the server closed it) within `timeout`."""
        with contextlib.suppress(TimeoutError, EOFError):
            self.next(lambda f: False, timeout)
        self._thread.join(timeout=5)
        return not self._thread.is_alive()


def play_through_stream(
    http: httpx.Client, stream: Stream, table: str, timeout: float = 120
) -> dict[str, Any]:
    """Play the bot's seat with the first legal move whenever it is to move, until the
    partita ends; the last view."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        frame = stream.next(lambda f: f.get("table") == table and "view" in f)
        view = frame["view"]
        if view["status"] != "playing":
            return view
        deal = view["deal"]
        assert "changes" not in frame, "a stream sends whole views"
        if deal["to_move"] == view["you"]:
            assert deal["seat"] == view["you"] and "history" in deal, "the whole seat view"
            body = {"action": f"m{frame['version']}", "version": frame["version"]}
            body["move"] = deal["legal_moves"][0]
            r = http.post(f"/api/bot/tables/{table}/move", json=body)
            # 429: views that queued up while the machine was busy, each answered at
            # once, passed the commands' burst: slow down and send it again (the same
            # action: never applied twice), as examples/bot_client.py does
            while r.status_code == 429 and time.monotonic() < deadline:
                time.sleep(0.5)
                r = http.post(f"/api/bot/tables/{table}/move", json=body)
            assert r.status_code in (200, 409), r.text  # 409: stale, a resync follows
    raise TimeoutError("the partita did not end")


# ---- accounts and tokens ---------------------------------------------------------------------
def test_an_owner_makes_bots_and_tokens_and_the_database_keeps_only_their_hashes(
    tmp_path: Path,
) -> None:
    with running_server(tmp_path) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna")
        listed = anna.http.get("/api/bots").json()["bots"]
        assert [(b["name"], b["bot"], b["owner"]) for b in listed] == [("robo-anna", True, "anna")]
        tokens = anna.http.get("/api/bots/robo-anna/tokens").json()["tokens"]
        assert len(tokens) == 1 and tokens[0]["scopes"] == ["play", "read", "tournament"]
        assert token not in json.dumps(tokens), "a token is shown once, when made"
        with bot_http(server, token) as http:
            me = http.get("/api/bot/account").json()
        assert me["user"]["name"] == "robo-anna" and me["user"]["bot"] is True
        assert me["user"]["owner"] == "anna" and me["user"]["guest"] is False
        assert anna.http.get("/api/me").json()["user"]["bot"] is False
        profile = anna.http.get("/api/players/robo-anna").json()
        assert profile["bot"] is True
        # names as for players, and unique among people and bots alike
        assert anna.http.post("/api/bots", json={"name": "anna"}).status_code == 409
        assert anna.http.post("/api/bots", json={"name": "x"}).status_code == 422
        # another owner does not see or touch anna's bot
        bea = Player(server).register("bea")
        assert bea.http.get("/api/bots").json()["bots"] == []
        assert bea.http.get("/api/bots/robo-anna/tokens").status_code == 404
        server.stop()  # everything written out: read the files the database is made of
        stored = b"".join(p.read_bytes() for p in (tmp_path / "data").iterdir() if p.is_file())
        assert token.encode() not in stored, "the database never holds a token"
        assert token_hash(token).encode() in stored, "... only its SHA-256"


def test_guests_cannot_make_bots_and_bots_cannot_log_in_or_make_bots(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        guest = Player(server).guest()
        r = guest.http.post("/api/bots", json={"name": "robo-ospite"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "guests_cannot_own_bots"
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna")
        for password in ("password123", "", token):
            r = httpx.post(
                f"{server.base_url}/api/login", json={"name": "robo-anna", "password": password}
            )
            assert r.status_code == 401, r.text
        # a token is no session: not as a cookie, and the bot API is its only door
        cookie = {"cirulla_session": token}
        assert httpx.get(f"{server.base_url}/api/me", cookies=cookie).status_code == 401
        with bot_http(server, token) as http:
            assert http.post("/api/bots", json={"name": "robo-robo"}).status_code == 401
            assert http.get("/api/me").status_code == 401


def test_scopes_wrong_tokens_and_revoked_tokens(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        anna = Player(server).register("anna")
        make_bot(anna, "robo-anna", ["read"])
        read_only = new_token(anna, "robo-anna", ["read"])
        play_only = new_token(anna, "robo-anna", ["play"])
        assert (
            anna.http.post(
                "/api/bots/robo-anna/tokens", json={"name": "x", "scopes": ["admin"]}
            ).status_code
            == 422
        )
        with bot_http(server, read_only) as http:
            assert http.get("/api/bot/account").status_code == 200
            r = http.get("/api/bot/stream")
            assert r.status_code == 403 and r.json()["error"]["code"] == "missing_scope"
            r = http.post(
                "/api/bot/tables/x/move", json={"action": "a", "version": 1, "move": "1D"}
            )
            assert r.status_code == 403
            assert http.post("/api/bot/tables", json={"config": SHORT}).status_code == 403
            assert http.post("/api/bot/tournaments/x/register", json={}).status_code == 403
        with bot_http(server, play_only) as http:
            assert http.get("/api/bot/account").status_code == 403
            assert http.post("/api/bot/tournaments/x/register", json={}).status_code == 403
        with bot_http(server, "not-a-token") as http:
            r = http.get("/api/bot/account")
            assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_token"
        assert httpx.get(f"{server.base_url}/api/bot/stream").status_code == 401
        # revoked: refused at once, the others still work
        tokens = anna.http.get("/api/bots/robo-anna/tokens").json()["tokens"]
        by_scopes = {tuple(t["scopes"]): t["id"] for t in tokens}
        revoked = by_scopes[("play",)]
        assert anna.http.delete(f"/api/bots/robo-anna/tokens/{revoked}").status_code == 204
        assert anna.http.delete(f"/api/bots/robo-anna/tokens/{revoked}").status_code == 404
        left = anna.http.get("/api/bots/robo-anna/tokens").json()["tokens"]
        assert revoked not in {t["id"] for t in left}
        with bot_http(server, play_only) as http:
            assert http.post("/api/bot/tables", json={"config": SHORT}).status_code == 401
        with bot_http(server, read_only) as http:
            assert http.get("/api/bot/account").status_code == 200


def test_revoking_a_token_closes_its_open_stream_and_socket_at_once(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna")
        stream = Stream(server, token)
        assert stream.status == 200
        assert stream.next()["type"] == "welcome"
        headers = {"Authorization": f"Bearer {token}"}
        with connect(server.ws_url, additional_headers=headers) as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
            [info] = anna.http.get("/api/bots/robo-anna/tokens").json()["tokens"]
            assert anna.http.delete(f"/api/bots/robo-anna/tokens/{info['id']}").status_code == 204
            last = stream.next(lambda f: f["type"] == "end", timeout=10)
            assert last["code"] == 4000
            assert stream.ended(timeout=10), "the stream closes"
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4000
        with bot_http(server, token) as http:
            assert http.get("/api/bot/stream").status_code == 401


# ---- playing -----------------------------------------------------------------------------------
def test_a_bot_plays_a_whole_partita_through_the_stream_and_the_move_endpoint(
    tmp_path: Path,
) -> None:
    with running_server(tmp_path) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna")
        stream = Stream(server, token, keepalive=1.0)
        assert stream.next()["type"] == "welcome"
        assert stream.next()["type"] == "ping", "a keep-alive line when nothing happens"
        config = {**SHORT, "bots": {"1": "facile"}}
        with bot_http(server, token) as http:
            r = http.post("/api/bot/tables", json={"config": config})
            assert r.status_code == 201, r.text
            table = r.json()["table"]["id"]
            first = stream.next(lambda f: f.get("table") == table and "view" in f)
            seats = first["view"]["seats"]
            assert seats[0]["bot_account"] is True and "bot_account" not in seats[1]
            # the answers are the socket's: a stale version, then a repeat of an action
            stale = http.post(
                f"/api/bot/tables/{table}/move",
                json={"action": "old", "version": 0, "move": "1D"},
            )
            assert stale.status_code == 409 and stale.json()["error"]["code"] == "stale"
            again = http.post(
                f"/api/bot/tables/{table}/move",
                json={"action": "old", "version": 0, "move": "1D"},
            )
            assert again.json()["repeated"] is True and again.json()["action"] == "old"
            view = play_through_stream(http, stream, table)
        assert view["status"] == "finished"
        record = anna.http.get(f"/api/records/{table}")
        assert record.status_code == 200, record.text
        assert record.json()["seats"][0]["bot_account"] is True
        assert "bot_account" not in record.json()["seats"][1]


def test_a_bot_is_invited_accepts_and_is_flagged_at_the_table_and_in_the_lobby(
    tmp_path: Path,
) -> None:
    with running_server(tmp_path) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna")
        stream = Stream(server, token)
        stream.next(lambda f: f["type"] == "welcome")
        bea = Player(server).register("bea").connect()
        table = bea.create_table({"players": 3, "options": {"hands": 1}})
        bea.join(table)
        r = bea.http.post("/api/bots/robo-anna/invite", json={"table": table, "seat": 2})
        assert r.status_code == 200 and r.json()["delivered"] == 1, r.text
        invitation = stream.next(lambda f: f["type"] == "invitation")
        assert invitation["table"] == table and invitation["from"]["name"] == "bea"
        with bot_http(server, token) as http:
            body = {"seat": invitation["seat"], "invite": invitation["invite"]}
            r = http.post(f"/api/bot/tables/{table}/sit", json=body)
            assert r.status_code == 200, r.text
        frame = stream.next(lambda f: f.get("table") == table and "view" in f)
        assert frame["view"]["you"] == 2
        seen = bea.recv_until(
            lambda f: f.get("table") == table and f["type"] == "event" and "view" in f
        )
        assert seen["view"]["seats"][2] == {
            "user": seen["view"]["seats"][2]["user"],
            "name": "robo-anna",
            "bot": None,
            "bot_account": True,
        }
        lobby = httpx.get(f"{server.base_url}/api/tables").json()["tables"]
        [entry] = [t for t in lobby if t["id"] == table]
        assert entry["seats"][2]["bot_account"] is True
        assert "bot_account" not in entry["seats"][0]
        # inviting from a table one does not sit at is refused
        carla = Player(server).register("carla")
        r = carla.http.post("/api/bots/robo-anna/invite", json={"table": table})
        assert r.status_code == 403


def test_a_bot_plays_over_the_websocket_with_a_bearer_token(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna")
        bea = Player(server).register("bea").connect()
        table = bea.create_table(SHORT)
        robo = Player(server)
        ws = connect(
            server.ws_url, additional_headers={"Authorization": f"Bearer {token}"}, max_size=2**22
        )
        robo.ws = ws.__enter__()
        robo.recv_until(lambda f: f["type"] == "welcome")
        assert robo.join(table)["type"] == "ack"
        assert robo.sit(table)["type"] == "ack"
        seats = robo.views[table]["seats"]
        assert seats[1]["bot_account"] is True and "bot_account" not in seats[0]
        assert robo.views[table]["you"] == 1
        robo.close()
        wrong = {"Authorization": "Bearer wrong"}
        with pytest.raises(InvalidStatus) as refused:  # closed before the handshake: 403
            connect(server.ws_url, additional_headers=wrong)
        assert refused.value.response.status_code == 403


# ---- tournaments -----------------------------------------------------------------------------
def test_tournaments_refuse_bots_unless_they_allow_them(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna")
        spec = {
            "name": "solo persone",
            "format": "swiss",
            "config": {"players": 2},
            "private": False,
        }
        people = anna.http.post("/api/tournaments", json=spec)
        assert people.status_code == 201, people.text
        open_to_bots = anna.http.post(
            "/api/tournaments", json={**spec, "name": "anche bot", "allow_bots": True}
        )
        assert open_to_bots.status_code == 201, open_to_bots.text
        assert open_to_bots.json()["tournament"]["allow_bots"] is True
        assert people.json()["tournament"]["allow_bots"] is False
        refused_id = people.json()["tournament"]["id"]
        allowed_id = open_to_bots.json()["tournament"]["id"]
        with bot_http(server, token) as http:
            r = http.post(f"/api/bot/tournaments/{refused_id}/register", json={})
            assert r.status_code == 403 and r.json()["error"]["code"] == "bots_not_allowed"
            r = http.post(f"/api/bot/tournaments/{allowed_id}/register", json={})
            assert r.status_code == 200, r.text
        entrants = r.json()["tournament"]["entrants"]
        assert [(e["name"], e.get("bot_account")) for e in entrants] == [("robo-anna", True)]
        # nor may a person bring a bot as partner to a people-only tournament of pairs
        pairs = {**spec, "name": "coppie", "config": {"players": 4}}
        made = anna.http.post("/api/tournaments", json=pairs)
        assert made.status_code == 201, made.text
        pairs_id = made.json()["tournament"]["id"]
        r = anna.http.post(f"/api/tournaments/{pairs_id}/register", json={"partner": "robo-anna"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "bots_not_allowed"


# ---- the example client, across a restart ------------------------------------------------------
class _Output:
    """The example's output, read in a thread, line by line."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip())
        self.lines.put(None)

    def wait_for(self, text: str, timeout: float = 120) -> None:
        """Until the example prints `text`; fails with what it printed if it exits."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"no {text!r} from the example: {self.seen}") from None
            if line is None:
                self.lines.put(None)
                raise AssertionError(f"the example exited before {text!r}: {self.seen}")
            self.seen.append(line)
            if text in line:
                return


def _person_moves(person: Player, table: str, until: Callable[[dict[str, Any]], bool]) -> None:
    """Play the person's seat (first legal move) until `until(view)` holds for the view
    the person holds; waits for frames when it is not the person's turn."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = person.views.get(table)
        if view is not None and until(view):
            return
        deal = view.get("deal") if view is not None else None
        if view is not None and view["status"] == "playing" and deal["to_move"] == view["you"]:
            answer = person.play(table, deal["legal_moves"][0])  # its frames update the view
            assert answer["type"] in ("ack", "error"), answer
            continue
        person.recv_until(lambda f: f.get("table") == table and "view" in f, timeout=60)
    raise TimeoutError("the partita did not get there")


def _moves_by(record: dict[str, Any], seat: int, after: int = 0) -> int:
    """How many moves the record's log has by `seat` after version `after`."""
    return sum(
        1
        for r in record["log"]
        if r["type"] == "move" and r["data"]["seat"] == seat and r["version"] > after
    )


@contextlib.contextmanager
def _example(server: Server, token: str, *args: str) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "examples" / "bot_client.py"),
            *("--server", server.base_url, "--token", token, *args),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def _login(server: Server, name: str) -> Player:
    p = Player(server)
    r = p.http.post("/api/login", json={"name": name, "password": "password123"})
    assert r.status_code == 200, r.text
    p.user = r.json()["user"]
    return p


def test_the_example_bot_plays_a_whole_partita_across_a_server_restart(tmp_path: Path) -> None:
    """bea invites the example's bot, both play; on bea's turn, after the bot's second
    move, the server restarts (same SQLite data); the example connects again by itself
    and plays on from the table's version until the partita ends, then exits 0."""
    with running_server(tmp_path) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna", ["play"])
        with _example(server, token, "--games", "1", "--level", "normale") as proc:
            out = _Output(proc)
            out.wait_for("connected as robo-anna")
            bea = Player(server).register("bea").connect()
            table = bea.create_table({"players": 2, "options": {"hands": 1}})
            bea.join(table)
            r = bea.http.post("/api/bots/robo-anna/invite", json={"table": table})
            assert r.json()["delivered"] == 1, r.text

            def bot_played_twice(view: dict[str, Any]) -> bool:
                if view["status"] != "playing" or view["deal"]["to_move"] != view["you"]:
                    return False
                plays = [e for e in bea.history[table] if e.get("type") == "play"]
                return sum(1 for e in plays if e["seat"] != view["you"]) >= 2

            _person_moves(bea, table, bot_played_twice)
            version = bea.version[table]
            bea_seat = bea.views[table]["you"]
            bea.close()
            server.restart()  # while it is bea's turn: the bot waits, then reconnects
            out.wait_for("reconnecting")
            bea = _login(server, "bea").connect()
            assert bea.join(table)["type"] == "ack"  # a sync of the table as it is
            _person_moves(bea, table, lambda v: v["status"] != "playing")
            assert proc.wait(timeout=120) == 0, "the example stops after its partita"
        assert bea.views[table]["status"] == "finished"
        record = bea.http.get(f"/api/records/{table}")
        assert record.status_code == 200, record.text
        bot_seat = 1 - bea_seat
        assert _moves_by(record.json(), bot_seat, after=version) >= 1, "it played on"
        assert record.json()["seats"][bot_seat]["bot_account"] is True
        # rated like a person's partita, and flagged on the leaderboard
        deadline = time.monotonic() + 30
        while len(entries := httpx.get(f"{server.base_url}/api/leaderboard").json()["entries"]) < 2:
            assert time.monotonic() < deadline, f"both rated: {entries}"
            time.sleep(0.1)
        assert {e["name"]: e["bot"] for e in entries} == {"bea": False, "robo-anna": True}


def test_the_example_bot_opens_its_own_table_and_stops_after_its_partita(
    tmp_path: Path,
) -> None:
    with running_server(tmp_path) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna", ["play"])
        config = json.dumps({**SHORT, "bots": {"1": "facile"}})
        with _example(server, token, "--games", "1", "--create", config) as proc:
            assert proc.wait(timeout=120) == 0
        # the profile's row is written just after the end, by the server's end listener
        deadline = time.monotonic() + 30
        while not (recent := anna.http.get("/api/players/robo-anna").json()["recent"]):
            assert time.monotonic() < deadline, "the bot's partita reached its profile"
            time.sleep(0.1)
        assert [e["result"] in ("won", "lost", "drawn") for e in recent] == [True]


def test_a_bot_token_is_never_read_as_a_command_line_option() -> None:
    # one token in 64 began with "-", and `bot_client.py --token $TOKEN` refused it
    parser = argparse.ArgumentParser(exit_on_error=False)
    parser.add_argument("--token", required=True)
    tokens = [new_bot_token() for _ in range(500)]
    assert [parser.parse_args(["--token", t]).token for t in tokens] == tokens
    assert len(set(tokens)) == 500


def test_a_revoked_token_stops_the_example_bot(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        anna = Player(server).register("anna")
        token = make_bot(anna, "robo-anna", ["play"])
        with _example(server, token) as proc:
            out = _Output(proc)
            out.wait_for("connected as robo-anna")
            [info] = anna.http.get("/api/bots/robo-anna/tokens").json()["tokens"]
            anna.http.delete(f"/api/bots/robo-anna/tokens/{info['id']}")
            assert proc.wait(timeout=60) != 0, "refused: it does not reconnect in a loop"


# ---- the token store on SQLite and PostgreSQL ----------------------------------------------
def test_the_token_store_keeps_hashes_lists_and_revokes(backend: Backend) -> None:  # noqa: F811
    async def main() -> None:
        store = await Store.open(backend.url, schema=backend.schema)
        try:
            owner = await store.create_user("anna", "x")
            bots = BotStore(store)
            bot = await bots.create_bot(owner.id, "robo-anna", chips=100)
            assert bot.bot and (await store.get_user(bot.id)).bot  # type: ignore[union-attr]
            assert not (await store.get_user(owner.id)).bot  # type: ignore[union-attr]
            assert [b.id for b in await bots.bots_of(owner.id)] == [bot.id]
            assert await bots.owner_of(bot.id) == owner.id
            row = await bots.create_token(bot.id, token_hash("s3cret"), "t", ("read", "play"))
            assert row.scopes == ("play", "read")
            found = await bots.token_user(token_hash("s3cret"))
            assert found is not None and found[0].id == bot.id and found[1].id == row.id
            assert await bots.token_user(token_hash("other")) is None
            await bots.touch(row.id)
            [listed] = await bots.tokens_of(bot.id)
            assert listed.last_used_at is not None
            assert await bots.revoke(bot.id, "nope") is None
            assert await bots.revoke(owner.id, row.id) is None, "only the bot's own token"
            assert await bots.revoke(bot.id, row.id) == token_hash("s3cret")
            assert await bots.token_user(token_hash("s3cret")) is None
            assert (await store.ledger.balances(bot.id))[0] == 100
        finally:
            await store.close()

    asyncio.run(main())
