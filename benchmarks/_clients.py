"""The scripted WebSocket clients of the load benchmarks: a guest who plays a random
legal move as soon as its view says it may, four of them to a table, and what they
measured (latency, gaps and repeats in the versions, the moves of every table they
played, checked against the table's stored record).

Shared by server_load.py, bot_latency.py and tournament_load.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from cirulla.tables.patches import apply_changes
from cirulla.verify import VerifyError, verify_record

PLAYERS = 4


# ---- one client ------------------------------------------------------------------------------
@dataclass
class Stats:
    """What one client process measured; merged across processes at the end."""

    wanted: int = 0
    connected: int = 0
    moves_sent: int = 0
    moves_acked: int = 0  # acknowledged inside the measured window
    latencies_ms: list[float] = field(default_factory=list)
    # the same, split: players on the node that plays the table, and relayed players
    latencies_local_ms: list[float] = field(default_factory=list)
    latencies_relayed_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    gaps: int = 0
    repeats: int = 0
    tables_started: int = 0
    tables_finished: int = 0
    tables_verified: int = 0
    records_failed: list[str] = field(default_factory=list)
    moves_mismatched: int = 0
    window: float = 0.0
    cpu_seconds: float = 0.0
    server_cpu_seconds: float = 0.0  # over the window (measured by one client process)
    server_cpu_by_node: list[float] = field(default_factory=list)  # the same, each node
    connected_by_node: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = dict(vars(self))
        out["errors"] = dict(self.errors)
        return out

    @classmethod
    def merge(cls, parts: list[dict[str, Any]]) -> Stats:
        total = cls()
        for p in parts:
            for key in (
                "wanted",
                "connected",
                "moves_sent",
                "moves_acked",
                "gaps",
                "repeats",
                "tables_started",
                "tables_finished",
                "tables_verified",
                "moves_mismatched",
                "cpu_seconds",
                "server_cpu_seconds",
            ):
                setattr(total, key, getattr(total, key) + p[key])
            total.latencies_ms += p["latencies_ms"]
            total.latencies_local_ms += p["latencies_local_ms"]
            total.latencies_relayed_ms += p["latencies_relayed_ms"]
            total.server_cpu_by_node = _add(total.server_cpu_by_node, p["server_cpu_by_node"])
            total.connected_by_node = _add(total.connected_by_node, p["connected_by_node"])
            total.errors.update(p["errors"])
            total.records_failed += p["records_failed"]
            total.window = max(total.window, p["window"])
        return total


def _add(a: list[Any], b: list[Any]) -> list[Any]:
    """Element-wise sum of two per-node lists (the shorter padded with zeros)."""
    n = max(len(a), len(b))
    return [(a[i] if i < len(a) else 0) + (b[i] if i < len(b) else 0) for i in range(n)]


class Run:
    """The measured window, shared by the clients of one process."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.start = 0.0
        self.end = float("inf")
        self.stats = Stats()

    def begin(self) -> None:
        self.start = time.monotonic()
        self.end = self.start + self.seconds

    @property
    def running(self) -> bool:
        return self.start > 0 and time.monotonic() < self.end


class Client:
    """A guest with one socket: reads every frame, checks the versions of each table,
    and plays a legal move whenever its view says it is its turn."""

    def __init__(self, url: str, run: Run, rng: random.Random, node: int = 0) -> None:
        self.url = url
        self.node = node  # index of the node it talks to
        self.relayed = False  # its tables are played by another node than its own
        self.run = run
        self.rng = rng
        # idle connections are dropped before the server's keep-alive (5 s) would, so a
        # request never races the server closing its connection (an httpx ReadError)
        limits = httpx.Limits(keepalive_expiry=2.0)
        self.http = httpx.AsyncClient(base_url=url, timeout=60, limits=limits)
        self.ws: ClientConnection | None = None
        self.reader: asyncio.Task[None] | None = None
        self.user: dict[str, Any] = {}
        self.answers: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.actions = 0
        self.last: dict[str, int] = {}  # table -> last version received
        self.seen: dict[str, list[tuple[int, str, str | None]]] = {}  # (version, type, move)
        self.views: dict[str, dict[str, Any]] = {}
        self.ended: dict[str, asyncio.Event] = {}
        self.pending: dict[str, tuple[str, int, float]] = {}  # table -> (action, version, sent)
        self.playing = True

    # -- setting up
    async def guest(self) -> None:
        r = await self.http.post("/api/guest")
        r.raise_for_status()
        self.user = r.json()["user"]

    async def connect(self) -> None:
        cookie = "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())
        ws_url = self.url.replace("http", "ws", 1) + "/ws"
        self.ws = await connect(
            ws_url, additional_headers={"Cookie": cookie}, max_size=2**22, open_timeout=60
        )
        self.reader = asyncio.create_task(self.read())

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.reader
        await self.http.aclose()

    def next_action(self) -> str:
        self.actions += 1
        return f"a{self.actions}"

    async def command(self, frame: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
        assert self.ws is not None
        action = frame["action"] = self.next_action()
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.answers[action] = future
        await self.ws.send(orjson.dumps(frame).decode())
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self.answers.pop(action, None)

    # -- receiving
    async def read(self) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                self.receive(orjson.loads(raw), time.monotonic())
        except ConnectionClosed:
            pass
        finally:
            if self.playing:
                self.run.stats.errors["disconnected"] += 1
            for future in self.answers.values():
                if not future.done():
                    future.set_exception(ConnectionError("socket closed"))

    def receive(self, frame: dict[str, Any], now: float) -> None:
        kind = frame.get("type")
        table = frame.get("table")
        if kind == "sync" and table:
            self.last[table] = frame["version"]
            self.seen.setdefault(table, [])
        elif kind == "event" and table:
            self.check_version(table, frame["version"])
            event = frame["event"]
            self.seen.setdefault(table, []).append(
                (frame["version"], event["type"], event.get("move"))
            )
            pending = self.pending.get(table)
            if (
                pending is not None
                and frame["version"] == pending[1] + 1  # the event of the move sent
                and event["type"] == "move"
                and event.get("seat") == self.views[table].get("you")
                and pending[2] < self.run.end
            ):
                latency = (now - pending[2]) * 1000
                self.run.stats.latencies_ms.append(latency)
                if self.relayed:
                    self.run.stats.latencies_relayed_ms.append(latency)
                else:
                    self.run.stats.latencies_local_ms.append(latency)
            if event["type"] == "ended":
                self.ended.setdefault(table, asyncio.Event()).set()
        elif kind in ("ack", "error"):
            action = frame.get("action")
            if kind == "error":
                self.run.stats.errors[str(frame.get("code"))] += 1
            for t, (pending_action, _, _) in list(self.pending.items()):
                if pending_action == action:
                    del self.pending[t]
                    if kind == "ack" and self.run.start <= now < self.run.end:
                        self.run.stats.moves_acked += 1
                    self.maybe_move(t)
                    return
            future = self.answers.get(action) if isinstance(action, str) else None
            if future is not None and not future.done():
                future.set_result(frame)
            return
        if "changes" in frame and table:  # docs/protocol.md: the view's changes
            self.views[table] = apply_changes(self.views[table], frame["changes"])
            self.maybe_move(table)
        elif "view" in frame and table:
            self.views[table] = frame["view"]
            self.maybe_move(table)

    def check_version(self, table: str, version: int) -> None:
        last = self.last.get(table)
        if last is not None:
            if version <= last:
                self.run.stats.repeats += 1
            elif version != last + 1:
                self.run.stats.gaps += 1
        self.last[table] = max(version, last or 0)

    # -- playing
    def maybe_move(self, table: str) -> None:
        view = self.views.get(table)
        if view is None or table in self.pending or not self.playing or not self.run.running:
            return
        deal = view.get("deal")
        if view.get("status") != "playing" or not deal or view.get("forfeit") is not None:
            return
        legal = deal.get("legal_moves")
        if deal.get("to_move") != view.get("you") or not legal:
            return
        move = self.rng.choice(legal)
        action = self.next_action()
        version = view["version"]
        frame = {"type": "play", "action": action, "table": table, "version": version}
        frame["move"] = move
        self.pending[table] = (action, version, time.monotonic())
        self.run.stats.moves_sent += 1
        assert self.ws is not None
        task = asyncio.create_task(self.ws.send(orjson.dumps(frame).decode()))
        task.add_done_callback(_ignore)


def _ignore(task: asyncio.Task[None]) -> None:
    with contextlib.suppress(BaseException):
        task.result()


# ---- four clients at a table ------------------------------------------------------------------
# every table has a clock (a table without one could stall for ever): one that never binds
CONFIG: dict[str, Any] = {"players": PLAYERS, "move_seconds": 3600}


async def play_tables(
    group: list[Client], run: Run, hands: int, finished: list[tuple[str, list[Client]]]
) -> None:
    """The group's tables, one after the other, until the window closes."""
    creator, others = group[0], group[1:]
    config = {**CONFIG, "options": {"hands": hands}}
    while run.running:
        try:
            r = await creator.http.post("/api/tables", json={"config": config, "seat": 0})
            if r.status_code != 201:
                run.stats.errors[f"create_{r.status_code}"] += 1
                await asyncio.sleep(1)
                continue
            table = r.json()["table"]["id"]
            for c in group:
                c.ended[table] = asyncio.Event()
            answer = await creator.command({"type": "join", "table": table, "since": None})
            if answer["type"] != "ack":
                continue
            for c in others:
                answer = await c.command({"type": "join", "table": table, "since": None})
                if answer["type"] != "ack":
                    break
                sit = {"type": "sit", "table": table, "version": c.last[table], "seat": None}
                answer = await c.command(sit)
                if answer["type"] != "ack":
                    break
            else:
                run.stats.tables_started += 1
                remaining = run.end - time.monotonic()
                if remaining <= 0:
                    return
                waits = [asyncio.create_task(c.ended[table].wait()) for c in group]
                done, pending = await asyncio.wait(waits, timeout=remaining)
                for task in pending:
                    task.cancel()
                if len(done) == len(group):
                    run.stats.tables_finished += 1
                    finished.append((table, group))
        except (ConnectionError, TimeoutError, httpx.HTTPError) as exc:
            run.stats.errors[type(exc).__name__] += 1
            return


async def check_records(
    urls: list[str], finished: list[tuple[str, list[Client]]], stats: Stats
) -> None:
    """Each finished table's record verifies, and every client saw exactly its log. The
    records are fetched from the nodes in turn: any node must serve any record."""
    async with contextlib.AsyncExitStack() as stack:
        https = [
            await stack.enter_async_context(httpx.AsyncClient(base_url=url, timeout=120))
            for url in urls
        ]
        for i, (table, group) in enumerate(finished):
            r = await https[i % len(https)].get(f"/api/records/{table}")
            if r.status_code != 200:
                stats.records_failed.append(f"{table}: HTTP {r.status_code}")
                continue
            record = r.json()
            try:
                await asyncio.to_thread(verify_record, record)
            except VerifyError as exc:
                stats.records_failed.append(f"{table}: {exc}")
                continue
            log = [(r["version"], r["type"], r["data"].get("move")) for r in record["log"]]
            for c in group:
                seen = c.seen.get(table, [])
                first = seen[0][0] if seen else len(log) + 1
                if seen != log[first - 1 :]:
                    stats.moves_mismatched += 1
            stats.tables_verified += 1
