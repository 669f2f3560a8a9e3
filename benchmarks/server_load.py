"""Server capacity: scripted WebSocket clients playing 4-player tables as fast as they may.

    python benchmarks/server_load.py [--clients 500] [--seconds 60] [--database-url URL]
        [--processes 1] [--hands 1] [--deal-pause 0] [--json PATH] [--url http://HOST:PORT]

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
    data_dir: Path, database_url: str | None, deal_pause: float = 0.0
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = dict(os.environ)
    env.update(
        {
            "CIRULLA_BOT_DELAY": "0",
            "CIRULLA_DEAL_PAUSE": str(deal_pause),
            "CIRULLA_LOG_LEVEL": "warning",
            "CIRULLA_LOGIN_ATTEMPTS": "100000",
            # the clients play as fast as the server answers: do not cut them off as a flood
            "CIRULLA_FLOOD_PER_SECOND": "100000",
            "CIRULLA_FLOOD_BURST": "100000",
            "CIRULLA_TEST_MODE": "0",
        }
    )
    if database_url:
        env["CIRULLA_DATABASE_URL"] = database_url
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
            total.errors.update(p["errors"])
            total.records_failed += p["records_failed"]
            total.window = max(total.window, p["window"])
        return total


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

    def __init__(self, url: str, run: Run, rng: random.Random) -> None:
        self.url = url
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
                self.run.stats.latencies_ms.append((now - pending[2]) * 1000)
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
CONFIG: dict[str, Any] = {"players": PLAYERS, "move_seconds": None}


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


async def check_records(url: str, finished: list[tuple[str, list[Client]]], stats: Stats) -> None:
    """Each finished table's record verifies, and every client saw exactly its log."""
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        for table, group in finished:
            r = await http.get(f"/api/records/{table}")
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
    url: str,
    clients: int,
    seconds: float,
    hands: int,
    seed: int,
    barrier: Any = None,
    server_pid: int | None = None,
) -> dict[str, Any]:
    """One process's share of the clients; returns its Stats as a dict. With
    `server_pid`, also the server's CPU time over the window."""
    run = Run(seconds)
    run.stats.wanted = clients
    rng = random.Random(seed)
    group_count = clients // PLAYERS
    all_clients = [
        Client(url, run, random.Random(rng.getrandbits(64))) for _ in range(group_count * PLAYERS)
    ]
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
    groups = [
        all_clients[i : i + PLAYERS]
        for i in range(0, len(all_clients), PLAYERS)
        if all(ok[i : i + PLAYERS])  # a table whose four clients are all connected
    ]
    if barrier is not None:
        await asyncio.to_thread(barrier.wait)
    cpu_before = time.process_time()
    server_before = process_cpu(server_pid) if server_pid else None
    run.begin()
    finished: list[tuple[str, list[Client]]] = []
    await asyncio.gather(*(play_tables(g, run, hands, finished) for g in groups))
    run.stats.window = time.monotonic() - run.start
    run.stats.cpu_seconds = time.process_time() - cpu_before
    server_after = process_cpu(server_pid) if server_pid else None
    if server_before is not None and server_after is not None:
        run.stats.server_cpu_seconds = server_after - server_before
    for c in all_clients:
        c.playing = False
    await asyncio.sleep(0.5)  # answers still on the way
    await check_records(url, finished, run.stats)
    await asyncio.gather(*(c.close() for c in all_clients))
    return run.stats.to_dict()


def _worker(
    url: str,
    clients: int,
    seconds: float,
    hands: int,
    seed: int,
    barrier: Any,
    server_pid: int | None,
    out: Any,
) -> None:
    out.put(asyncio.run(drive(url, clients, seconds, hands, seed, barrier, server_pid)))


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
        "hands_per_partita": args.hands,
        "deal_pause": args.deal_pause,
        "database": "postgresql" if (args.database_url or "").startswith("postgres") else "sqlite",
        "clients_wanted": stats.wanted,
        "clients_connected": stats.connected,
        "moves_sent": stats.moves_sent,
        "moves_acked": stats.moves_acked,
        "moves_per_second": round(stats.moves_acked / window, 1),
        "latency_ms": {
            "count": len(lat),
            "p50": _round(percentile(lat, 50)),
            "p90": _round(percentile(lat, 90)),
            "p99": _round(percentile(lat, 99)),
            "max": _round(max(lat) if lat else None),
            "mean": _round(statistics.fmean(lat) if lat else None),
        },
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


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def print_summary(s: dict[str, Any]) -> None:
    lat = s["latency_ms"]

    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v:.1f}"

    server = s["server"]
    rows = [
        ("clients connected", f"{s['clients_connected']} / {s['clients_wanted']}"),
        (
            "tables (4 players)",
            f"{s['tables']}, partite of {s['hands_per_partita']} smazzata(e),"
            f" {s['deal_pause']:g} s between smazzate",
        ),
        ("window", f"{s['window']:.1f} s, {s['processes']} client process(es), {s['database']}"),
        ("moves acknowledged", f"{s['moves_acked']}  ({s['moves_per_second']:.1f} a second)"),
        (
            "move -> own event (ms)",
            f"p50 {ms(lat['p50'])}  p90 {ms(lat['p90'])}  p99 {ms(lat['p99'])}"
            f"  max {ms(lat['max'])}  (n={lat['count']})",
        ),
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
                "server CPU, peak memory",
                f"{server['cpu_cores']:.2f} cores, {server['peak_rss_mb'] or 0:.0f} MB",
            )
        )
    if server.get("log_errors") is not None:
        rows.append(("server log errors", str(len(server["log_errors"]))))
    load = ", ".join(f"{x:.1f}" for x in s["machine"]["load_average"] or ())
    rows.append(("machine", f"{s['machine']['cpus']} CPUs, load average {load}"))
    width = max(len(k) for k, _ in rows)
    print()
    print("cirulla server load")
    print("-" * (width + 40))
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    print("-" * (width + 40))
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
    args = parser.parse_args()
    if args.clients < PLAYERS:
        parser.error(f"--clients must be at least {PLAYERS}")
    args.clients -= args.clients % PLAYERS
    resource.setrlimit(resource.RLIMIT_NOFILE, _nofile(args.clients))

    with tempfile.TemporaryDirectory(prefix="cirulla-load-") as tmp:
        proc: subprocess.Popen[bytes] | None = None
        if args.url:
            url = args.url.rstrip("/")
        else:
            proc, url = start_server(Path(tmp), args.database_url, args.deal_pause)
        print(f"server {url}; {args.clients} clients, {args.seconds:.0f} s", flush=True)
        try:
            parts = run_clients(url, args, proc.pid if proc is not None else None)
            server: dict[str, Any] = {"cpu_cores": None, "peak_rss_mb": None, "log_errors": None}
            if proc is not None:
                server["peak_rss_mb"] = process_peak_rss_mb(proc.pid)
                stop_server(proc)
                server["log_errors"] = log_errors(Path(tmp) / "server.log")
        finally:
            if proc is not None:
                stop_server(proc)
    stats = Stats.merge(parts)
    if proc is not None and stats.server_cpu_seconds:
        server["cpu_cores"] = round(stats.server_cpu_seconds / (stats.window or 1.0), 2)
    result = summary(stats, args, server)
    print_summary(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {args.json}")
    broken = (
        stats.gaps
        or stats.repeats
        or stats.records_failed
        or stats.moves_mismatched
        or server.get("log_errors")
    )
    return 1 if broken else 0


def run_clients(url: str, args: argparse.Namespace, server_pid: int | None) -> list[dict[str, Any]]:
    groups = args.clients // PLAYERS
    if args.processes <= 1:
        run = drive(url, args.clients, args.seconds, args.hands, args.seed, None, server_pid)
        return [asyncio.run(run)]
    ctx = multiprocessing.get_context("spawn")
    workers = min(args.processes, groups)
    barrier = ctx.Barrier(workers)
    out = ctx.Queue()
    procs = []
    for i in range(workers):
        share = (groups // workers + (1 if i < groups % workers else 0)) * PLAYERS
        p = ctx.Process(
            target=_worker,
            args=(
                url,
                share,
                args.seconds,
                args.hands,
                args.seed * 1000 + i,
                barrier,
                server_pid if i == 0 else None,  # every process starts at the barrier
                out,
            ),
        )
        p.start()
        procs.append(p)
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
