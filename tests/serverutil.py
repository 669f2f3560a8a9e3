"""A real `cirulla serve` in a subprocess, and clients that talk to it over HTTP and WebSocket.

Tests of the server use these so that they exercise what players get: uvicorn,
the socket protocol, the database on disk; nothing is mocked.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from cirulla.tables.patches import apply_changes

PG_URL = os.environ.get("CIRULLA_TEST_PG_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")


async def pg_execute(sql: str) -> None:
    """One statement on PG_URL's server (outside a transaction, as CREATE DATABASE needs)."""
    import asyncpg
    from sqlalchemy.engine import make_url

    url = make_url(PG_URL).set(drivername="postgresql").render_as_string(hide_password=False)
    conn = await asyncpg.connect(url, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def run_async(coro: Any) -> Any:
    """`asyncio.run(coro)` in a thread of its own, so that it works even when this thread
    has an event loop running (Playwright's sync API keeps one while a browser is open)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


@contextlib.contextmanager
def throwaway_pg_database() -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database, dropped afterwards; the test is
    skipped (a failure in CI, see conftest.py) if PostgreSQL cannot be reached."""
    import pytest
    from sqlalchemy.engine import make_url

    name = f"t_{secrets.token_hex(6)}"
    try:
        run_async(pg_execute(f'CREATE DATABASE "{name}"'))
    except Exception as exc:  # asyncpg's errors, OSError, a timeout: all mean no database
        pytest.skip(f"PostgreSQL not reachable at {PG_URL}: {exc!r}")
    try:
        yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        run_async(pg_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def apply_lobby(held: dict[str, Any] | None, frame: dict[str, Any]) -> dict[str, Any]:
    """The lobby list ({"version", "tables"}) a lobby frame makes of the one held, as a
    client keeps it (docs/protocol.md): a whole list, or changes since the version held."""
    if "changes" not in frame:
        return {"version": frame["version"], "tables": frame["tables"]}
    assert held is not None and held["version"] == frame["since"], (held and held["version"], frame)
    by_id = {t["id"]: t for t in held["tables"]}
    for table_id in frame["changes"]["remove"]:
        by_id.pop(table_id, None)
    for entry in frame["changes"]["set"]:
        by_id[entry["id"]] = entry
    order = sorted(by_id.values(), key=lambda e: (e["status"] != "open", -e["created"], e["id"]))
    return {"version": frame["version"], "tables": order}


#: Ports for test servers lie below the kernel's ephemeral range (32768-60999 by default),
#: where no client socket is given one, in a block for each pytest-xdist worker: between
#: `free_port()` and the server binding the port, neither a connection nor another worker
#: can take it, as a port the kernel picked (bind to 0) could be taken.
PORT_BLOCK = 4000
PORTS_FROM = 12000
BLOCKS = (32768 - PORTS_FROM) // PORT_BLOCK  # workers beyond share a block, modulo
_next_port = itertools.count(secrets.randbelow(PORT_BLOCK))  # two runs on one machine differ


def worker_port_block(worker: str | None) -> range:
    """The ports `free_port` hands out in this pytest-xdist worker ("gw0", ...; None alone)."""
    index = int(worker[2:]) if worker and worker[2:].isdigit() else 0
    start = PORTS_FROM + (index % BLOCKS) * PORT_BLOCK
    return range(start, start + PORT_BLOCK)


def free_port() -> int:
    """A port of this worker's block that is free now, not handed out before in this run
    (a server killed a moment ago may still hold its own)."""
    block = worker_port_block(os.environ.get("PYTEST_XDIST_WORKER"))
    for _ in range(PORT_BLOCK):
        port = block[next(_next_port) % PORT_BLOCK]
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError(f"no free port in {block}")


class Server:
    """A running server process; `restart()` starts it again on the same data."""

    def __init__(self, data_dir: Path, env: dict[str, str], log_path: Path) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.env = env
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> None:
        cmd = [
            sys.executable,
            "-m",
            "cirulla",
            "serve",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
        ]
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(cmd, env=self.env, stdout=log, stderr=log)
        deadline = time.monotonic() + 60  # (a loaded CI machine starts slowly)
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log()}")
            try:
                if httpx.get(f"{self.base_url}/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.proc.kill()  # no orphan left serving after the test
        self.proc.wait()
        raise RuntimeError(f"server did not start:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-5000:]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a crash."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def restart(self) -> None:
        self.stop()
        self.start()


@contextlib.contextmanager
def running_server(
    tmp_path: Path,
    *,
    database_url: str | None = None,
    test_mode: bool = True,
    bot_delay: float = 0.0,
    deal_pause: float = 0.0,
    **env: Any,
) -> Iterator[Server]:
    """A server on a free port with its data in `tmp_path`; extra CIRULLA_* settings by keyword."""
    full = dict(os.environ)
    full.update(
        {
            "CIRULLA_TEST_MODE": "1" if test_mode else "0",
            "CIRULLA_BOT_DELAY": str(bot_delay),
            "CIRULLA_DEAL_PAUSE": str(deal_pause),
            "CIRULLA_LOG_LEVEL": "info",
            # Every test client comes from 127.0.0.1: the limits per address would count
            # the whole suite as one abuser. Tests of those limits set them explicitly.
            "CIRULLA_REGISTRATIONS_PER_HOUR": "100000",
            "CIRULLA_SOCKETS_PER_ADDRESS": "100000",
        }
    )
    if database_url is not None:
        full["CIRULLA_DATABASE_URL"] = database_url
    for key, value in env.items():
        full[f"CIRULLA_{key.upper()}"] = str(value)
    server = Server(tmp_path / "data", full, tmp_path / "server.log")
    server.start()
    try:
        yield server
    finally:
        server.stop()


class Player:
    """A scripted player: an HTTP session (cookie) and one WebSocket."""

    _ids = itertools.count(1)

    def __init__(self, server: Server) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.base_url, timeout=10)
        self.ws: ClientConnection | None = None
        self.frames: list[dict[str, Any]] = []  # every frame received, in order
        self.version: dict[str, int] = {}  # table -> last version seen
        self.views: dict[str, dict[str, Any]] = {}
        self.history: dict[str, list[dict[str, Any]]] = {}  # table -> the deal's history
        self.lobby: dict[str, Any] | None = None  # the lobby list held: {"version", "tables"}
        self.user: dict[str, Any] = {}

    # HTTP
    def guest(self) -> Player:
        r = self.http.post("/api/guest")
        assert r.status_code == 201, r.text
        self.user = r.json()["user"]
        return self

    def register(self, name: str, password: str = "password123") -> Player:
        r = self.http.post("/api/register", json={"name": name, "password": password})
        assert r.status_code == 201, r.text
        self.user = r.json()["user"]
        return self

    def create_table(self, config: dict[str, Any], **extra: Any) -> str:
        path = "/api/test/tables" if "decks" in extra or "dealer" in extra else "/api/tables"
        r = self.http.post(path, json={"config": config, **extra})
        assert r.status_code == 201, r.text
        table_id: str = r.json()["table"]["id"]
        return table_id

    @property
    def cookie(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())

    # WebSocket
    def connect(self, origin: str | None = None) -> Player:
        headers = {"Cookie": self.cookie}
        if origin is not None:
            headers["Origin"] = origin
        ws = connect(self.server.ws_url, additional_headers=headers, max_size=2**22)
        self.ws = ws.__enter__()  # closed by close(); entering marks it as managed
        self.recv_until(lambda f: f["type"] == "welcome")
        return self

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
            self.ws = None

    def send(self, frame: dict[str, Any]) -> str:
        action = frame.setdefault("action", f"a{next(self._ids)}")
        assert self.ws is not None
        self.ws.send(json.dumps(frame))
        return str(action)

    def send_raw(self, text: str | bytes) -> None:
        assert self.ws is not None
        self.ws.send(text)

    def recv(self, timeout: float = 10) -> dict[str, Any]:
        assert self.ws is not None
        frame: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        self.frames.append(frame)
        table = frame.get("table")
        if frame["type"] in ("event", "sync") and table:
            if "changes" in frame:  # as the web client does: the view they make, whole
                assert "view" not in frame, "an event frame carries a view or its changes"
                view = apply_changes(self.views[table], frame["changes"])
                if view.get("deal") is not None:
                    view["deal"] = {k: v for k, v in view["deal"].items() if k != "history"}
                frame["view"] = view
            self.version[table] = frame["version"]
            self._keep_history(table, frame)
            if "view" in frame:
                self.views[table] = frame["view"]
        if frame["type"] == "lobby":  # as the web client does: changes make the whole list
            self.lobby = apply_lobby(self.lobby, frame)
            frame["tables"] = self.lobby["tables"]
        return frame

    def _keep_history(self, table: str, frame: dict[str, Any]) -> None:
        """The deal's history, as a client keeps it (docs/protocol.md): whole in a
        sync's view, then each event's engine events; an event's view leaves it out."""
        view = frame.get("view")
        deal = view.get("deal") if view else None
        if frame["type"] == "sync":
            self.history[table] = list(deal["history"]) if deal else []
            return
        record = frame["event"]
        if record["type"] == "committed":
            self.history[table] = list(record.get("events", []))
        else:
            self.history.setdefault(table, []).extend(record.get("events", []))
        if deal is not None:
            assert "history" not in deal, "an event's view carries no history"
            deal["history"] = list(self.history[table])

    def recv_until(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = 20
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching frame")
            frame = self.recv(timeout=left)
            if pred(frame):
                return frame

    def command(self, frame: dict[str, Any], timeout: float = 20) -> dict[str, Any]:
        """Send a command and return its ack or error (frames before it are kept)."""
        action = self.send(frame)
        return self.recv_until(
            lambda f: f["type"] in ("ack", "error") and f.get("action") == action, timeout
        )

    def join(self, table: str, since: int | None = None, **extra: Any) -> dict[str, Any]:
        return self.command({"type": "join", "table": table, "since": since, **extra})

    def sit(self, table: str, seat: int | None = None, **extra: Any) -> dict[str, Any]:
        return self.command(
            {"type": "sit", "table": table, "seat": seat, "version": self.version[table], **extra}
        )

    def play(self, table: str, move: str) -> dict[str, Any]:
        return self.command(
            {"type": "play", "table": table, "move": move, "version": self.version[table]}
        )

    def drain(self, quiet: float = 0.2) -> None:
        """Read frames until none comes for `quiet` seconds."""
        with contextlib.suppress(TimeoutError):
            while True:
                self.recv(timeout=quiet)
