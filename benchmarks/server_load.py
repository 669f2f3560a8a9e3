"""Server capacity: scripted WebSocket clients playing 4-player tables as fast as they may.

    python benchmarks/server_load.py [--clients 500] [--seconds 60] [--database-url URL]
        [--processes 1] [--hands 1] [--deal-pause 0] [--json PATH] [--url http://HOST:PORT]
        [--nodes 1] [--redis-url redis://127.0.0.1:6379/0] [--keep-logs DIR]

Starts `cirulla serve` in a subprocess (SQLite in a temporary directory unless
--database-url; bots instant, no pause between smazzate unless --deal-pause (the
server's own default is 3 s, for reading the score sheet), log level warning, guest
creation and the flood limit lifted so that the clients are not throttled), then
runs `--clients` clients in one process (or split over `--processes`): each
registers as a guest and opens its socket; every four make a 4-player table (the
first creates it, the others sit), play it to the end, and start another, until
`--seconds` have passed. A client plays a random legal move from its view as soon
as the view says it is its turn.

Measured over the run: clients connected, moves acknowledged by the server per
second, the latency from sending a move to receiving that move's event (the event
with the version after the one the move was sent with) on the sender's socket,
errors, and the integrity of what the clients saw: every table's versions, as each
client received them, have no gap and no repeat, the moves match the table's
stored record, and each finished table's record passes `cirulla verify`.

Prints a summary table; `--json PATH` writes every figure. Exits 1 if any client
saw a gap, a repeat or a log other than the record's, a record does not verify, or
the server logged an error.

With --nodes N (N > 1), the script starts a cluster instead: N `cirulla serve`
processes on their own ports and data directories, one after the other (the first
migrates the database), sharing --database-url (PostgreSQL only) and --redis-url under
a fresh CIRULLA_CLUSTER prefix, whose keys are deleted at the end. A table is played by
the node its creator talks to, so the clients are spread to make relaying the rule:
client k of the g-th table is on node (g + k) % N, which puts the four players of a
table on different nodes where N allows and rotates the creators, and so the tables,
over the nodes. Latency is also reported apart for the players on the table's own node
(local) and on another (relayed); the server's CPU and peak memory per node and summed;
records are fetched from every node in turn. --url drives one external server only.

With --database-url, give a throwaway database: the server creates its tables there
and the run leaves thousands of guests and tables behind. The server's CPU is
measured over the window (Linux /proc); machine load from other processes skews
every figure, so run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import platform
import random
import resource
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
from _report import print_rows, write_json
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from cirulla.tables.patches import apply_changes
from cirulla.verify import VerifyError, verify_record

PLAYERS = 4


# ---- the server ---------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(
    data_dir: Path,
    database_url: str | None,
    deal_pause: float = 0.0,
    cluster: dict[str, str] | None = None,
) -> tuple[subprocess.Popen[bytes], str]:
    """Start one `cirulla serve` and wait for its health; `cluster` adds the CIRULLA_*
    variables that make it a node of a cluster."""
    port = free_port()
    env = dict(os.environ)
    env.update(
        {
            "CIRULLA_BOT_DELAY": "0",
            "CIRULLA_DEAL_PAUSE": str(deal_pause),
            "CIRULLA_LOG_LEVEL": "warning",
            # every client comes from 127.0.0.1: the limits per address would see one abuser
            "CIRULLA_LOGIN_ATTEMPTS": "100000",
            "CIRULLA_REGISTRATIONS_PER_HOUR": "100000",
            "CIRULLA_SOCKETS_PER_ADDRESS": "100000",
            # the clients play as fast as the server answers: do not cut them off as a flood
            "CIRULLA_FLOOD_PER_SECOND": "100000",
            "CIRULLA_FLOOD_BURST": "100000",
            "CIRULLA_TEST_MODE": "0",
        }
    )
    if database_url:
        env["CIRULLA_DATABASE_URL"] = database_url
    env.update(cluster or {})
    data_dir.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "cirulla", "serve", "--port", str(port)]
    cmd += ["--data-dir", str(data_dir)]
    log = (data_dir / "server.log").open("ab")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}; see {log.name}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                return proc, url
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"the server did not start; see {log.name}")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Node:
    """One server process the script started, and what it measured of it."""

    proc: subprocess.Popen[bytes]
    url: str
    data_dir: Path
    node_id: str | None = None  # as /api/health names it
    tables: int | None = None  # the tables it plays, by /api/health after the window
    peak_rss_mb: float | None = None


def start_nodes(
    tmp: Path, count: int, database_url: str | None, deal_pause: float, cluster: dict[str, str]
) -> list[Node]:
    """One server, or a cluster of `count`, started one after the other: the first runs
    the database migrations, which the others must not race."""
    nodes: list[Node] = []
    try:
        for i in range(count):
            data_dir = tmp if count == 1 else tmp / f"node{i}"
            proc, url = start_server(data_dir, database_url, deal_pause, cluster or None)
            nodes.append(Node(proc, url, data_dir))
    except BaseException:
        stop_nodes(nodes)
        raise
    return nodes


def stop_nodes(nodes: list[Node]) -> None:
    """SIGTERM every node at once, so that none spends its shutdown on a dead peer."""
    for n in nodes:
        if n.proc.poll() is None:
            n.proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 15
    for n in nodes:  # (a second SIGTERM would make uvicorn skip its graceful shutdown)
        try:
            n.proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            n.proc.kill()
            n.proc.wait()


def read_health(node: Node) -> None:
    """The node's id and how many tables it plays (None if it does not answer)."""
    with contextlib.suppress(httpx.HTTPError, ValueError):
        health = httpx.get(f"{node.url}/api/health", timeout=10).json()
        node.node_id = health.get("node")
        node.tables = health.get("tables")


def clean_redis(redis_url: str, prefix: str) -> None:
    """Delete the cluster's keys (leases, the lobby): each run has its own prefix."""
    import redis  # only for a cluster

    with contextlib.suppress(redis.RedisError):
        client = redis.Redis.from_url(redis_url)
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        for i in range(0, len(keys), 1000):
            client.delete(*keys[i : i + 1000])
        client.close()


def log_errors(path: Path) -> list[str]:
    """The server's log lines at level error or worse (the log is JSON lines)."""
    out = []
    for line in path.read_text(errors="replace").splitlines():
        with contextlib.suppress(ValueError):
            if json.loads(line).get("level") in ("error", "critical"):
                out.append(line)
    return out


def process_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) a process has used so far (Linux /proc), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def process_peak_rss_mb(pid: int) -> float | None:
    """The most memory (resident) the process has held so far, in MB (Linux), or None."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


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


async def drive(
    urls: list[str],
    clients: int,
    seconds: float,
    hands: int,
    seed: int,
    barrier: Any = None,
    server_pids: list[int] | None = None,
    first_group: int = 0,
) -> dict[str, Any]:
    """One process's share of the clients (its tables numbered from `first_group`);
    returns its Stats as a dict. With `server_pids`, also each server's CPU time over
    the window. Client k of table g talks to node (g + k) % len(urls): the players of a
    table on different nodes, and the creators (so the tables) spread over the nodes."""
    run = Run(seconds)
    run.stats.wanted = clients
    rng = random.Random(seed)
    group_count = clients // PLAYERS
    all_clients = [
        Client(
            urls[(first_group + i // PLAYERS + i % PLAYERS) % len(urls)],
            run,
            random.Random(rng.getrandbits(64)),
            (first_group + i // PLAYERS + i % PLAYERS) % len(urls),
        )
        for i in range(group_count * PLAYERS)
    ]
    for i, c in enumerate(all_clients):
        c.relayed = c.node != all_clients[i - i % PLAYERS].node  # the creator's node
    gate = asyncio.Semaphore(32)

    async def setup(c: Client) -> bool:
        async with gate:
            try:
                await c.guest()
                await c.connect()
            except Exception as exc:  # every failure is counted
                run.stats.errors[f"connect_{type(exc).__name__}"] += 1
                return False
            return True

    ok = await asyncio.gather(*(setup(c) for c in all_clients))
    run.stats.connected = sum(ok)
    run.stats.connected_by_node = [
        sum(1 for c, up in zip(all_clients, ok, strict=True) if up and c.node == n)
        for n in range(len(urls))
    ]
    groups = [
        all_clients[i : i + PLAYERS]
        for i in range(0, len(all_clients), PLAYERS)
        if all(ok[i : i + PLAYERS])  # a table whose four clients are all connected
    ]
    if barrier is not None:
        await asyncio.to_thread(barrier.wait)
    cpu_before = time.process_time()
    servers_before = [process_cpu(pid) for pid in server_pids or ()]
    run.begin()
    finished: list[tuple[str, list[Client]]] = []
    await asyncio.gather(*(play_tables(g, run, hands, finished) for g in groups))
    run.stats.window = time.monotonic() - run.start
    run.stats.cpu_seconds = time.process_time() - cpu_before
    servers_after = [process_cpu(pid) for pid in server_pids or ()]
    if servers_before and None not in servers_before and None not in servers_after:
        run.stats.server_cpu_by_node = [
            after - before
            for before, after in zip(servers_before, servers_after, strict=True)
            if before is not None and after is not None
        ]
        run.stats.server_cpu_seconds = sum(run.stats.server_cpu_by_node)
    for c in all_clients:
        c.playing = False
    await asyncio.sleep(0.5)  # answers still on the way
    await check_records(urls, finished, run.stats)
    await asyncio.gather(*(c.close() for c in all_clients))
    return run.stats.to_dict()


def _worker(
    urls: list[str],
    clients: int,
    seconds: float,
    hands: int,
    seed: int,
    barrier: Any,
    server_pids: list[int] | None,
    first_group: int,
    out: Any,
) -> None:
    out.put(
        asyncio.run(drive(urls, clients, seconds, hands, seed, barrier, server_pids, first_group))
    )


# ---- the report ---------------------------------------------------------------------------------
def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(stats: Stats, args: argparse.Namespace, server: dict[str, Any]) -> dict[str, Any]:
    lat = stats.latencies_ms
    window = stats.window or 1.0
    return {
        "clients": args.clients,
        "tables": args.clients // PLAYERS,
        "seconds": args.seconds,
        "window": round(window, 3),
        "processes": args.processes,
        "nodes": args.nodes,
        "hands_per_partita": args.hands,
        "deal_pause": args.deal_pause,
        "database": "postgresql" if (args.database_url or "").startswith("postgres") else "sqlite",
        "clients_wanted": stats.wanted,
        "clients_connected": stats.connected,
        "moves_sent": stats.moves_sent,
        "moves_acked": stats.moves_acked,
        "moves_per_second": round(stats.moves_acked / window, 1),
        "latency_ms": latency_figures(lat),
        "latency_ms_local": latency_figures(stats.latencies_local_ms),
        "latency_ms_relayed": latency_figures(stats.latencies_relayed_ms),
        "errors": dict(stats.errors),
        "error_count": sum(stats.errors.values()),
        "version_gaps": stats.gaps,
        "version_repeats": stats.repeats,
        "tables_started": stats.tables_started,
        "tables_finished": stats.tables_finished,
        "tables_verified": stats.tables_verified,
        "records_failed": stats.records_failed,
        "clients_seeing_a_different_log": stats.moves_mismatched,
        "client_cpu_cores": round(stats.cpu_seconds / window, 2),  # all client processes
        "server": server,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
        },
    }


def latency_figures(lat: list[float]) -> dict[str, Any]:
    return {
        "count": len(lat),
        "p50": _round(percentile(lat, 50)),
        "p90": _round(percentile(lat, 90)),
        "p99": _round(percentile(lat, 99)),
        "max": _round(max(lat) if lat else None),
        "mean": _round(statistics.fmean(lat) if lat else None),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def print_summary(s: dict[str, Any]) -> None:
    lat = s["latency_ms"]

    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v:.1f}"

    server = s["server"]
    nodes = s.get("nodes", 1)
    rows = [
        ("clients connected", f"{s['clients_connected']} / {s['clients_wanted']}"),
        (
            "tables (4 players)",
            f"{s['tables']}, partite of {s['hands_per_partita']} smazzata(e),"
            f" {s['deal_pause']:g} s between smazzate",
        ),
        (
            "window",
            f"{s['window']:.1f} s, {s['processes']} client process(es), {s['database']}"
            + (f", {nodes} nodes" if nodes > 1 else ""),
        ),
        ("moves acknowledged", f"{s['moves_acked']}  ({s['moves_per_second']:.1f} a second)"),
        (
            "move -> own event (ms)",
            f"p50 {ms(lat['p50'])}  p90 {ms(lat['p90'])}  p99 {ms(lat['p99'])}"
            f"  max {ms(lat['max'])}  (n={lat['count']})",
        ),
    ]
    if nodes > 1:
        for key, name in (("latency_ms_local", "local"), ("latency_ms_relayed", "relayed")):
            part = s[key]
            rows.append(
                (
                    f"  {name} players",
                    f"p50 {ms(part['p50'])}  p90 {ms(part['p90'])}  p99 {ms(part['p99'])}"
                    f"  max {ms(part['max'])}  (n={part['count']})",
                )
            )
    rows += [
        ("errors", f"{s['error_count']}  {s['errors'] or ''}".rstrip()),
        ("version gaps / repeats", f"{s['version_gaps']} / {s['version_repeats']}"),
        (
            "partite started / finished",
            f"{s['tables_started']} / {s['tables_finished']}",
        ),
        (
            "records verified",
            f"{s['tables_verified']}, failed {len(s['records_failed'])},"
            f" clients seeing another log {s['clients_seeing_a_different_log']}",
        ),
        ("client CPU", f"{s['client_cpu_cores']:.2f} cores"),
    ]
    if server.get("cpu_cores") is not None:
        rows.append(
            (
                "server CPU, peak memory" + (" (sum)" if nodes > 1 else ""),
                f"{server['cpu_cores']:.2f} cores, {server['peak_rss_mb'] or 0:.0f} MB",
            )
        )
    if nodes > 1:
        for i, n in enumerate(server.get("by_node") or ()):
            cores = "-" if n["cpu_cores"] is None else f"{n['cpu_cores']:.2f}"
            rows.append(
                (
                    f"  node {i} ({n['node']})",
                    f"{cores} cores, {n['peak_rss_mb'] or 0:.0f} MB, {n['clients_connected']}"
                    f" clients, {n['tables']} tables held at the end, {n['log_errors']} log errors",
                )
            )
    if server.get("log_errors") is not None:
        rows.append(("server log errors", str(len(server["log_errors"]))))
    load = ", ".join(f"{x:.1f}" for x in s["machine"]["load_average"] or ())
    rows.append(("machine", f"{s['machine']['cpus']} CPUs, load average {load}"))
    print_rows("cirulla server load", rows, 40)
    for failure in s["records_failed"][:10]:
        print(f"record failed: {failure}")
    for line in (server.get("log_errors") or [])[:5]:
        print(f"server log: {line[:300]}")
    if s["client_cpu_cores"] / s["processes"] > 0.8:
        print(
            "note: the client processes were busy; more --processes may measure the server better"
        )


# ---- main ---------------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=500, help="clients (4 a table; 500)")
    parser.add_argument("--seconds", type=float, default=60.0, help="run length (60)")
    parser.add_argument(
        "--database-url", help="the server's database (default: SQLite in a temp dir)"
    )
    parser.add_argument("--url", help="drive a server already running at this URL instead")
    parser.add_argument("--processes", type=int, default=1, help="client processes (1)")
    parser.add_argument("--hands", type=int, default=1, help="smazzate a partita (option hands; 1)")
    parser.add_argument(
        "--deal-pause",
        type=float,
        default=0.0,
        help="the server's pause before each new smazzata, in seconds (0; `cirulla serve` "
        "waits 3 so that players can read the score sheet)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the clients' choices")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument(
        "--nodes",
        type=int,
        default=1,
        help="server processes sharing the tables as a cluster (1; more need a PostgreSQL "
        "--database-url and Redis)",
    )
    parser.add_argument(
        "--redis-url",
        default="redis://127.0.0.1:6379/0",
        help="the cluster's Redis, with --nodes > 1 (redis://127.0.0.1:6379/0)",
    )
    parser.add_argument(
        "--keep-logs", type=Path, help="copy each server's log into this directory at the end"
    )
    args = parser.parse_args()
    if args.clients < PLAYERS:
        parser.error(f"--clients must be at least {PLAYERS}")
    if args.nodes < 1:
        parser.error("--nodes must be at least 1")
    if args.nodes > 1 and args.url:
        parser.error("--url drives one server already running, --nodes starts a cluster: not both")
    if args.nodes > 1 and not (args.database_url or "").startswith("postgresql"):
        parser.error(
            "--nodes > 1 makes a cluster, whose nodes share one database: give --database-url"
            " postgresql+asyncpg://USER@HOST/DB (a throwaway one)"
        )
    args.clients -= args.clients % PLAYERS
    resource.setrlimit(resource.RLIMIT_NOFILE, _nofile(args.clients))

    cluster: dict[str, str] = {}
    if args.nodes > 1:  # a fresh key prefix: nothing left by another run can interfere
        cluster = {
            "CIRULLA_REDIS_URL": args.redis_url,
            "CIRULLA_CLUSTER": f"load{secrets.token_hex(4)}",
        }
    with tempfile.TemporaryDirectory(prefix="cirulla-load-") as tmp:
        nodes: list[Node] = []
        try:
            if args.url:
                urls = [args.url.rstrip("/")]
            else:
                nodes = start_nodes(
                    Path(tmp), args.nodes, args.database_url, args.deal_pause, cluster
                )
                urls = [n.url for n in nodes]
            print(
                f"server {', '.join(urls)}; {args.clients} clients, {args.seconds:.0f} s",
                flush=True,
            )
            if cluster:
                print(f"cluster {cluster['CIRULLA_CLUSTER']} on {args.redis_url}", flush=True)
            parts = run_clients(urls, args, [n.proc.pid for n in nodes] or None)
            for n in nodes:
                read_health(n)
                n.peak_rss_mb = process_peak_rss_mb(n.proc.pid)
            stop_nodes(nodes)
            node_errors = [log_errors(n.data_dir / "server.log") for n in nodes]
        finally:
            stop_nodes(nodes)
            if args.keep_logs and nodes:
                args.keep_logs.mkdir(parents=True, exist_ok=True)
                for i, n in enumerate(nodes):
                    with contextlib.suppress(OSError):
                        shutil.copy(n.data_dir / "server.log", args.keep_logs / f"node{i}.log")
            if cluster:
                clean_redis(args.redis_url, cluster["CIRULLA_CLUSTER"])
    stats = Stats.merge(parts)
    window = stats.window or 1.0
    by_node = [
        {
            "url": n.url,
            "node": n.node_id,
            "clients_connected": (stats.connected_by_node or [0] * len(nodes))[i],
            "tables": n.tables,
            "cpu_cores": (
                round(stats.server_cpu_by_node[i] / window, 2)
                if i < len(stats.server_cpu_by_node)
                else None
            ),
            "peak_rss_mb": n.peak_rss_mb,
            "log_errors": len(node_errors[i]),
        }
        for i, n in enumerate(nodes)
    ]
    server: dict[str, Any] = {"cpu_cores": None, "peak_rss_mb": None, "log_errors": None}
    if nodes:  # summed over the nodes (one node: its own figures, as before --nodes)
        if stats.server_cpu_by_node:
            server["cpu_cores"] = round(stats.server_cpu_seconds / window, 2)
        rss = [n.peak_rss_mb for n in nodes]
        server["peak_rss_mb"] = None if None in rss else sum(r or 0.0 for r in rss)
        server["log_errors"] = [line for errors in node_errors for line in errors]
        server["by_node"] = by_node
    result = summary(stats, args, server)
    print_summary(result)
    write_json(result, args.json, said=True)
    broken = (
        stats.gaps
        or stats.repeats
        or stats.records_failed
        or stats.moves_mismatched
        or server.get("log_errors")
    )
    return 1 if broken else 0


def run_clients(
    urls: list[str], args: argparse.Namespace, server_pids: list[int] | None
) -> list[dict[str, Any]]:
    groups = args.clients // PLAYERS
    if args.processes <= 1:
        run = drive(urls, args.clients, args.seconds, args.hands, args.seed, None, server_pids)
        return [asyncio.run(run)]
    ctx = multiprocessing.get_context("spawn")
    workers = min(args.processes, groups)
    barrier = ctx.Barrier(workers)
    out = ctx.Queue()
    procs = []
    first_group = 0
    for i in range(workers):
        share = groups // workers + (1 if i < groups % workers else 0)
        p = ctx.Process(
            target=_worker,
            args=(
                urls,
                share * PLAYERS,
                args.seconds,
                args.hands,
                args.seed * 1000 + i,
                barrier,
                server_pids if i == 0 else None,  # every process starts at the barrier
                first_group,
                out,
            ),
        )
        p.start()
        procs.append(p)
        first_group += share
    parts = [out.get() for _ in procs]
    for p in procs:
        p.join()
    return parts


def _nofile(clients: int) -> tuple[int, int]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(soft, 4 * clients + 256)
    return (want if hard == resource.RLIM_INFINITY else min(want, hard), hard)


if __name__ == "__main__":
    sys.exit(main())
