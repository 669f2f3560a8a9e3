"""The event loop's latency while strong bots play: an idle client's ping beside N tables
of `campione` bots.

    python benchmarks/bot_latency.py [--tables 12] [--seconds 30] [--workers N]
        [--level campione] [--json PATH]

Starts `cirulla serve` in a subprocess (SQLite in a temporary directory, bots instant,
no pause between smazzate, the abuse limits lifted for its own guests, as
server_load.py does), then creates `--tables` 4-player tables, each with one scripted
person (a guest who plays a random legal move as soon as its view says it is its turn)
and three `campione` bots (or `--level`). Beside them an idle client sends `ping` every 50 ms and
times each `pong`: that round trip is the event loop's latency as every player feels
it, since the same loop reads every socket. A partita that ends is replaced by a new
table, so the bots think for the whole window.

Prints the ping p50/p99/max, the moves a second (all seats) and the bot moves made;
`--json PATH` writes every figure. `--workers N` sets CIRULLA_BOT_WORKERS (the
processes that run the search bots; the server's default, one per core, otherwise).
The server's CPU is counted with its child processes (the bot workers). Machine load
from other processes skews every figure: run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import orjson
from _report import print_rows, write_json

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clients import Client, Run
from _servers import (  # (sibling scripts, not a package)
    log_errors,
    process_cpu,
    process_peak_rss_mb,
    start_server,
    stop_server,
)
from server_load import latency_figures

PING_EVERY = 0.05  # seconds between the idle client's pings
LEVELS = ("facile", "normale", "difficile", "campione")


def tree_cpu(pid: int) -> float:
    """CPU seconds used so far by `pid` and every live process under it (Linux /proc):
    the bot workers are children (or grandchildren) of the server."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                parents[int(entry.name)] = int(stat[1])
    tree, frontier = {pid}, [pid]
    while frontier:
        parent = frontier.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(process_cpu(p) or 0.0 for p in tree)


class Seat(Client):
    """The person at a table of bots: plays (server_load's Client) and counts the bots'
    moves it sees inside the window."""

    def __init__(self, url: str, run: Run, rng: random.Random, counts: Counter[str]) -> None:
        super().__init__(url, run, rng)
        self.counts = counts

    def receive(self, frame: dict[str, Any], now: float) -> None:
        table = frame.get("table")
        if frame.get("type") == "event" and table and self.run.start <= now < self.run.end:
            event = frame["event"]
            if event.get("type") == "move" and event.get("by") == "bot":
                self.counts["bot_moves"] += 1
            if event.get("type") == "move":
                self.counts["moves"] += 1
        super().receive(frame, now)


class Pinger(Client):
    """The idle client: nothing but pings, timed from send to pong."""

    def __init__(self, url: str, run: Run) -> None:
        super().__init__(url, run, random.Random(0))
        self.sent: dict[str, float] = {}
        self.rtts_ms: list[float] = []
        self.lost = 0

    def receive(self, frame: dict[str, Any], now: float) -> None:
        if frame.get("type") == "pong":
            sent = self.sent.pop(str(frame.get("action")), None)
            if sent is not None and self.run.start <= sent < self.run.end:
                self.rtts_ms.append((now - sent) * 1000)
            return
        super().receive(frame, now)

    async def ping_loop(self) -> None:
        assert self.ws is not None
        while time.monotonic() < self.run.end:
            action = self.next_action()
            self.sent[action] = time.monotonic()
            await self.ws.send(orjson.dumps({"type": "ping", "action": action}).decode())
            await asyncio.sleep(PING_EVERY)
        await asyncio.sleep(1.0)  # the last pongs
        self.lost = sum(1 for t in self.sent.values() if self.run.start <= t < self.run.end)


async def keep_table(
    seat: Seat, run: Run, level: str, counts: Counter[str], problems: Counter[str]
) -> None:
    """One table of bots with `seat` at it; a new one whenever a partita ends."""
    config = {"players": 4, "bots": {"1": level, "2": level, "3": level}}
    while run.running:
        r = await seat.http.post("/api/tables", json={"config": config, "seat": 0})
        if r.status_code != 201:
            problems[f"create_{r.status_code}"] += 1
            await asyncio.sleep(1)
            continue
        table = r.json()["table"]["id"]
        seat.ended[table] = asyncio.Event()
        answer = await seat.command({"type": "join", "table": table, "since": None})
        if answer["type"] != "ack":
            problems[f"join_{answer.get('code')}"] += 1
            continue
        counts["tables"] += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(seat.ended[table].wait(), max(0.0, run.end - time.monotonic()))
        if seat.ended[table].is_set():
            counts["partite_finished"] += 1


async def drive(
    url: str, tables: int, level: str, seconds: float, warmup: float, seed: int, server_pid: int
) -> dict[str, Any]:
    run = Run(seconds)
    counts: Counter[str] = Counter()
    problems: Counter[str] = Counter()
    rng = random.Random(seed)
    seats = [Seat(url, run, random.Random(rng.getrandbits(64)), counts) for _ in range(tables)]
    pinger = Pinger(url, run)
    for c in [pinger, *seats]:
        await c.guest()
        await c.connect()
    # the tables start before the window, so that it measures bots already at work
    run.start = time.monotonic()  # (Run.running is true from here; the window is reset below)
    run.end = float("inf")
    players = [asyncio.create_task(keep_table(s, run, level, counts, problems)) for s in seats]
    await asyncio.sleep(warmup)
    counts.clear()
    run.begin()
    cpu_before = tree_cpu(server_pid)
    await pinger.ping_loop()
    cpu = tree_cpu(server_pid) - cpu_before
    for c in [pinger, *seats]:
        c.playing = False
    for task in players:
        task.cancel()
    await asyncio.gather(*players, return_exceptions=True)
    window = run.end - run.start
    await asyncio.gather(*(c.close() for c in [pinger, *seats]))
    return {
        "window": window,
        "server_cpu_cores": cpu / (time.monotonic() - run.start),
        "rtts_ms": pinger.rtts_ms,
        "pongs_lost": pinger.lost,
        "counts": dict(counts),
        "errors": dict(run.stats.errors + problems),
        "human_moves_acked": run.stats.moves_acked,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=12, help="tables of 3 bots (12)")
    parser.add_argument("--level", choices=LEVELS, default="campione", help="the bots' level")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured window (30)")
    parser.add_argument("--warmup", type=float, default=5.0, help="bots at work before it (5)")
    parser.add_argument("--workers", type=int, help="CIRULLA_BOT_WORKERS (server default)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the person's moves")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args()
    if args.tables < 0:
        parser.error("--tables must be 0 or more")
    extra = {
        # every table is its own guest's; lift the per-address and per-account limits
        "CIRULLA_REGISTRATIONS_PER_HOUR": "100000",
        "CIRULLA_OPEN_TABLES_PER_USER": "1000",
        "CIRULLA_BOT_SEATS_PER_USER": "1000",
        "CIRULLA_SOCKETS_PER_ADDRESS": "10000",
    }
    if args.workers is not None:
        extra["CIRULLA_BOT_WORKERS"] = str(args.workers)
    with tempfile.TemporaryDirectory(prefix="cirulla-bots-") as tmp:
        saved = dict(os.environ)
        os.environ.update(extra)  # start_server passes the environment on
        try:
            proc, url = start_server(Path(tmp), None)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        try:
            print(f"server {url}; {args.tables} tables of 3 {args.level}, {args.seconds:.0f} s")
            out = asyncio.run(
                drive(url, args.tables, args.level, args.seconds, args.warmup, args.seed, proc.pid)
            )
            server_cpu = out["server_cpu_cores"]
            peak = process_peak_rss_mb(proc.pid)
            with contextlib.suppress(httpx.HTTPError, ValueError):
                out["health"] = httpx.get(f"{url}/api/health", timeout=10).json()
        finally:
            stop_server(proc)
        errors = log_errors(Path(tmp) / "server.log")
        # moves the cheap bot played because no worker answered in time (tables/botpool.py)
        log_text = (Path(tmp) / "server.log").read_text(errors="replace")
        fallbacks = log_text.count("played by the")
    window = out["window"] or 1.0
    counts = out["counts"]
    result = {
        "tables": args.tables,
        "bot_level": args.level,
        "seconds": args.seconds,
        "window": round(window, 3),
        "workers": args.workers,
        "ping_every_ms": PING_EVERY * 1000,
        "ping_ms": latency_figures(out["rtts_ms"]),
        "pongs_lost": out["pongs_lost"],
        "moves": counts.get("moves", 0),
        "moves_per_second": round(counts.get("moves", 0) / window, 2),
        "bot_moves": counts.get("bot_moves", 0),
        "bot_moves_per_second": round(counts.get("bot_moves", 0) / window, 2),
        "fallback_moves": fallbacks,
        "tables_made": counts.get("tables", 0),
        "partite_finished": counts.get("partite_finished", 0),
        "errors": out["errors"],
        "server": {
            "cpu_cores_with_workers": round(server_cpu, 2),
            "peak_rss_mb_main": peak,
            "log_errors": len(errors),
            "health": out.get("health"),
        },
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_average": os.getloadavg(),
        },
    }
    ping = result["ping_ms"]
    rows = [
        ("tables", f"{args.tables}, 3 {args.level} bots and 1 scripted person each"),
        ("window", f"{window:.1f} s (after {args.warmup:g} s of warm-up)"),
        (
            "idle client's ping (ms)",
            f"p50 {ping['p50']}  p90 {ping['p90']}  p99 {ping['p99']}  max {ping['max']}"
            f"  (n={ping['count']}, lost {out['pongs_lost']})",
        ),
        ("moves a second", f"{result['moves_per_second']:.2f} ({result['moves']} moves)"),
        (
            "bot moves",
            f"{result['bot_moves']} ({result['bot_moves_per_second']:.2f} a second),"
            f" {fallbacks} by the fallback bot",
        ),
        ("server CPU (with workers)", f"{server_cpu:.2f} cores, main {peak or 0:.0f} MB peak"),
        ("errors", f"{result['errors'] or 0}, server log errors {len(errors)}"),
        ("machine", f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"),
    ]
    print_rows("cirulla bot latency", rows, 50)
    for line in errors[:5]:
        print(f"server log: {line[:300]}")
    write_json(result, args.json, said=True)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
