"""Tournaments at scale: a knockout of 256 bots and a Swiss of 64 run to the end on one
server while people play ordinary tables beside them.

    python benchmarks/tournament_load.py [--knockout 256] [--swiss 64] [--rounds 6]
        [--level normale] [--hands 1] [--people 40] [--think-ms 0] [--baseline 15]
        [--timeout 900] [--database-url URL] [--bot-delay 0] [--deal-pause 0]
        [--move-seconds 60] [--poll 0.2] [--seed 1] [--json PATH] [--keep-logs DIR]

Starts `cirulla serve` in a subprocess as server_load.py does (SQLite in a temporary
directory unless --database-url; bots instant and no pause between smazzate unless
--bot-delay / --deal-pause; the per-address limits lifted, since every client comes
from 127.0.0.1). A registered organiser then makes, through the HTTP API, two public
tournaments of 1 against 1 with partite of `--hands` smazzate: a knockout of
`--knockout` bot entrants and a Swiss of `--swiss` bot entrants over `--rounds`
rounds, all of level `--level`. Either may be 0 (left out).

`--people` scripted clients (server_load's: guests, 4 to a table, each playing a
random legal move as soon as its view says it is its turn, after `--think-ms`) first
play alone for `--baseline` seconds, the reference; then the organiser starts both
tournaments at once and the people play on until both have finished (or `--timeout`
seconds have passed). The organiser polls GET /api/tournaments/{id} every `--poll`
seconds to time each tournament from its start to `finished`, and each round.

Measured: each tournament's wall time, rounds, matches, byes and tables (partite)
played, when each round began; the people's move -> own event latency (the event
with the version after the one the move was sent with) p50/p90/p99/max alone and
while the tournaments ran, their moves a second; the server's CPU (with any bot
worker processes) and peak memory over the tournaments. Checked: each tournament's
record (GET /api/tournaments/{id}/record) passes `cirulla verify`'s tournament check
in-process; each table record the organiser may read passes the table check; the
people's tables verify and every client saw each table's versions without gap or
repeat, as in server_load.py; the server logged no error.

Prints a summary table; `--json PATH` writes every figure. Exits 1 if a tournament
did not finish in time or its record does not verify, or any other check fails.
Machine load from other processes skews every figure: run it on an idle machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import resource
import secrets
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from _report import print_rows, write_json

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _clients import PLAYERS, Client, Run, Stats, check_records, play_tables
from _servers import log_errors, process_peak_rss_mb, start_server, stop_server
from bot_latency import LEVELS, tree_cpu  # (sibling scripts, not a package)
from server_load import latency_figures

from cirulla.competition.verify import TournamentError, verify_tournament
from cirulla.verify import VerifyError, verify_record


# ---- the people --------------------------------------------------------------------------------
class Person(Client):
    """server_load's client, who may think `think` seconds before each move."""

    def __init__(self, url: str, run: Run, rng: random.Random, think: float) -> None:
        super().__init__(url, run, rng)
        self.think = think
        self.thinking: set[str] = set()

    def maybe_move(self, table: str) -> None:
        if self.think <= 0:
            super().maybe_move(table)
        elif table not in self.thinking and table not in self.pending:
            self.thinking.add(table)
            asyncio.get_running_loop().call_later(self.think, self._decided, table)

    def _decided(self, table: str) -> None:
        self.thinking.discard(table)
        super().maybe_move(table)  # (checks again that it is still its turn)


# ---- the tournaments ---------------------------------------------------------------------------
@dataclass
class Followed:
    """One tournament the organiser made, and what was seen of it."""

    format: str
    entrants: int
    id: str = ""
    started: float = 0.0  # monotonic, when the start was answered
    finished: float | None = None
    status: str = "registering"
    round: int = 0
    rounds_planned: int | None = None
    round_began: list[float] = field(default_factory=list)  # seconds after the start
    detail: dict[str, Any] = field(default_factory=dict)  # the last GET answer
    polls: int = 0
    poll_errors: Counter[str] = field(default_factory=Counter)
    verified: dict[str, Any] | None = None
    verify_error: str | None = None
    table_records: Counter[str] = field(default_factory=Counter)  # HTTP status -> count
    table_records_failed: list[str] = field(default_factory=list)
    table_records_refusal: str | None = None  # the first answer other than 200, if any

    @property
    def wall(self) -> float | None:
        return None if self.finished is None else self.finished - self.started

    def figures(self) -> dict[str, Any]:
        rounds = self.detail.get("rounds") or []
        matches = [m for r in rounds for m in r["matches"]]
        played = [m for m in matches if not m["bye"]]
        done = [m for m in played if m["status"] == "finished"]
        durations = [
            round(b - a, 2)
            for a, b in zip(
                self.round_began,
                [*self.round_began[1:], self.wall if self.wall is not None else None],
                strict=True,
            )
            if b is not None
        ]
        return {
            "id": self.id,
            "format": self.format,
            "entrants": self.entrants,
            "status": self.status,
            "finished": self.finished is not None,
            "wall_seconds": None if self.wall is None else round(self.wall, 2),
            "rounds_planned": self.rounds_planned,
            "rounds_reached": self.round,
            "round_began_s": [round(t, 2) for t in self.round_began],
            "round_seconds": durations,
            "matches": len(played),
            "matches_finished": len(done),
            "byes": len(matches) - len(played),
            "tables": sum(len(m["tables"]) for m in played),
            "winner": self.detail.get("winner"),
            "polls": self.polls,
            "poll_errors": dict(self.poll_errors),
            "record_verified": self.verified,
            "record_error": self.verify_error,
            "table_records_http": dict(self.table_records),
            "table_records_failed": self.table_records_failed[:20],
            "table_records_refusal": self.table_records_refusal,
        }


async def organiser_account(http: httpx.AsyncClient) -> None:
    name = f"org{secrets.token_hex(4)}"
    r = await http.post("/api/register", json={"name": name, "password": secrets.token_hex(8)})
    if r.status_code != 201:
        raise RuntimeError(f"POST /api/register: {r.status_code} {r.text[:300]}")


async def make_tournament(http: httpx.AsyncClient, t: Followed, args: argparse.Namespace) -> None:
    """Create it (public) and fill it with bots, through the organiser's API."""
    body: dict[str, Any] = {
        "name": f"bench {t.format} {t.entrants}",
        "format": t.format,
        "config": {
            "players": 2,
            "options": {"hands": args.hands},
            "move_seconds": args.move_seconds,
        },
        "max_entrants": t.entrants,
        "private": False,
    }
    if t.format == "swiss":
        body["rounds"] = args.rounds
    r = await http.post("/api/tournaments", json=body)
    if r.status_code != 201:
        raise RuntimeError(f"POST /api/tournaments {body}: {r.status_code} {r.text[:300]}")
    t.id = r.json()["tournament"]["id"]
    r = await http.post(
        f"/api/tournaments/{t.id}/bots", json={"level": args.level, "count": t.entrants}
    )
    if r.status_code != 200:
        raise RuntimeError(f"POST /api/tournaments/{t.id}/bots: {r.status_code} {r.text[:300]}")


async def start_tournament(http: httpx.AsyncClient, t: Followed) -> None:
    r = await http.post(f"/api/tournaments/{t.id}/start")
    t.started = time.monotonic()
    if r.status_code != 200:
        raise RuntimeError(f"POST /api/tournaments/{t.id}/start: {r.status_code} {r.text[:300]}")
    t.status = "running"


async def follow(http: httpx.AsyncClient, t: Followed, poll: float, deadline: float) -> None:
    """Poll the tournament until it is over or the deadline; note each round's start."""
    while time.monotonic() < deadline:
        try:
            r = await http.get(f"/api/tournaments/{t.id}")
        except httpx.HTTPError as exc:
            t.poll_errors[type(exc).__name__] += 1
            await asyncio.sleep(poll)
            continue
        now = time.monotonic()
        t.polls += 1
        if r.status_code != 200:
            t.poll_errors[str(r.status_code)] += 1
            await asyncio.sleep(poll)
            continue
        t.detail = r.json()
        summary = t.detail["tournament"]
        t.status = summary["status"]
        t.rounds_planned = summary["rounds"]
        while t.round < summary["round"]:  # (a round may have gone by between two polls)
            t.round += 1
            t.round_began.append(now - t.started)
        if t.status in ("finished", "cancelled"):
            if t.status == "finished":
                t.finished = now
            return
        await asyncio.sleep(poll)


async def check_tournament(http: httpx.AsyncClient, t: Followed, keep: Path | None) -> None:
    """The tournament's record passes `cirulla verify`; so does each table record the
    organiser may read (those of the tournament's tables)."""
    r = await http.get(f"/api/tournaments/{t.id}/record")
    if r.status_code != 200:
        t.verify_error = f"GET /api/tournaments/{t.id}/record: {r.status_code} {r.text[:300]}"
        return
    record = r.json()
    if keep is not None:
        (keep / f"tournament-{t.format}-{t.id}.json").write_text(json.dumps(record))
    try:
        ok = await asyncio.to_thread(verify_tournament, record)
    except TournamentError as exc:
        t.verify_error = str(exc)
    else:
        t.verified = {
            "rounds": ok.rounds,
            "matches": ok.matches,
            "partite": ok.partite,
            "winner": ok.winner,
        }
    tables = [tid for rnd in record.get("tables") or [] for m in rnd for tid in m]
    gate = asyncio.Semaphore(8)

    async def one(table: str) -> None:
        async with gate:
            answer = await http.get(f"/api/records/{table}")
        t.table_records[str(answer.status_code)] += 1
        if answer.status_code != 200 and t.table_records_refusal is None:
            t.table_records_refusal = (
                f"GET /api/records/{table}: {answer.status_code} {answer.text}"
            )
        if answer.status_code == 200:
            try:
                await asyncio.to_thread(verify_record, answer.json())
            except VerifyError as exc:
                t.table_records_failed.append(f"{table}: {exc}")

    await asyncio.gather(*(one(table) for table in tables))


# ---- the run -----------------------------------------------------------------------------------
async def drive(url: str, args: argparse.Namespace, server_pid: int) -> dict[str, Any]:
    run = Run(0.0)
    stats = run.stats
    rng = random.Random(args.seed)
    people: list[Client] = [
        Person(url, run, random.Random(rng.getrandbits(64)), args.think_ms / 1000)
        for _ in range(args.people - args.people % PLAYERS)
    ]
    stats.wanted = len(people)
    tournaments = [
        Followed(fmt, n) for fmt, n in (("knockout", args.knockout), ("swiss", args.swiss)) if n > 0
    ]
    limits = httpx.Limits(keepalive_expiry=2.0)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as org:
        await organiser_account(org)
        for t in tournaments:
            await make_tournament(org, t, args)
        gate = asyncio.Semaphore(32)

        async def setup(c: Client) -> bool:
            async with gate:
                try:
                    await c.guest()
                    await c.connect()
                except Exception as exc:  # every failure is counted
                    stats.errors[f"connect_{type(exc).__name__}"] += 1
                    return False
                return True

        ok = await asyncio.gather(*(setup(c) for c in people))
        stats.connected = sum(ok)
        groups = [
            people[i : i + PLAYERS]
            for i in range(0, len(people), PLAYERS)
            if all(ok[i : i + PLAYERS])
        ]
        finished: list[tuple[str, list[Client]]] = []
        # the people play until the end of the tournaments: Run's window ends then
        run.start = time.monotonic()
        run.end = run.start + args.baseline + args.timeout + 60
        players = [asyncio.create_task(play_tables(g, run, args.hands, finished)) for g in groups]
        await asyncio.sleep(args.baseline)
        baseline: dict[str, Any] = {
            "seconds": round(time.monotonic() - run.start, 3),
            "latency_ms": latency_figures(stats.latencies_ms),
            "moves_acked": stats.moves_acked,
        }
        baseline["moves_per_second"] = round(stats.moves_acked / max(baseline["seconds"], 0.001), 1)
        stats.latencies_ms = []
        acked_before = stats.moves_acked

        cpu_before = tree_cpu(server_pid)
        window_start = time.monotonic()
        await asyncio.gather(*(start_tournament(org, t) for t in tournaments))
        deadline = window_start + args.timeout
        await asyncio.gather(*(follow(org, t, args.poll, deadline) for t in tournaments))
        window = time.monotonic() - window_start
        server_cpu = tree_cpu(server_pid) - cpu_before

        run.end = time.monotonic()
        for c in people:
            c.playing = False
        for task in players:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
        during = {
            "seconds": round(window, 3),
            "latency_ms": latency_figures(stats.latencies_ms),
            "moves_acked": stats.moves_acked - acked_before,
            "moves_per_second": round((stats.moves_acked - acked_before) / window, 1),
        }
        await asyncio.sleep(0.5)  # answers still on the way
        await check_records([url], finished, stats)
        await asyncio.gather(*(c.close() for c in people))
        for t in tournaments:
            if t.status != "registering":
                await check_tournament(org, t, args.keep_records)
    return {
        "tournaments": [t.figures() for t in tournaments],
        "people": {
            "people": len(people),
            "connected": stats.connected,
            "think_ms": args.think_ms,
            "alone": baseline,
            "during_tournaments": during,
            "errors": dict(stats.errors),
            "version_gaps": stats.gaps,
            "version_repeats": stats.repeats,
            "tables_started": stats.tables_started,
            "tables_finished": stats.tables_finished,
            "tables_verified": stats.tables_verified,
            "records_failed": stats.records_failed[:20],
            "clients_seeing_a_different_log": stats.moves_mismatched,
        },
        "window_seconds": round(window, 3),
        "server_cpu_seconds": round(server_cpu, 2),
        "server_cpu_cores": round(server_cpu / window, 2) if window > 0 else None,
        "_stats": stats,
    }


# ---- the report --------------------------------------------------------------------------------
def _ms(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}"


def _latency(lat: dict[str, Any]) -> str:
    return (
        f"p50 {_ms(lat['p50'])}  p90 {_ms(lat['p90'])}  p99 {_ms(lat['p99'])}"
        f"  max {_ms(lat['max'])}  (n={lat['count']})"
    )


def print_summary(s: dict[str, Any]) -> None:
    rows: list[tuple[str, str]] = [
        (
            "server",
            f"{s['database']}, bot delay {s['bot_delay']:g} s, deal pause {s['deal_pause']:g} s,"
            f" {s['level']} bots, partite of {s['hands']} smazzata(e)",
        )
    ]
    for t in s["tournaments"]:
        wall = "did not finish" if t["wall_seconds"] is None else f"{t['wall_seconds']:.1f} s"
        rounds = f"{t['rounds_reached']}/{t['rounds_planned']}"
        rows.append(
            (
                f"{t['format']} of {t['entrants']}",
                f"{wall}, {rounds} rounds, {t['matches_finished']}/{t['matches']} matches,"
                f" {t['byes']} byes, {t['tables']} tables, status {t['status']}",
            )
        )
        if t["round_seconds"]:
            per_round = " ".join(f"{x:.1f}" for x in t["round_seconds"])
            rows.append(("  each round (s)", per_round))
        if t["record_verified"] is not None:
            v = t["record_verified"]
            check = f"OK: {v['rounds']} rounds, {v['matches']} matches, {v['partite']} partite"
        else:
            check = f"FAILED: {t['record_error']}"
        http = ", ".join(f"{k}: {n}" for k, n in sorted(t["table_records_http"].items()))
        rows.append(("  record verified", check))
        rows.append(
            (
                "  table records (HTTP)",
                f"{http or 'none'}; failed {len(t['table_records_failed'])}",
            )
        )
        if t["table_records_refusal"]:
            rows.append(("  first refusal", t["table_records_refusal"][:150]))
    p = s["people"]
    rows += [
        ("people", f"{p['connected']} / {p['people']} connected, think {p['think_ms']:g} ms"),
        (
            f"move -> own event, alone {p['alone']['seconds']:.0f} s",
            _latency(p["alone"]["latency_ms"]) + f"  {p['alone']['moves_per_second']}/s",
        ),
        (
            "move -> own event, tournaments",
            _latency(p["during_tournaments"]["latency_ms"])
            + f"  {p['during_tournaments']['moves_per_second']}/s",
        ),
        (
            "people's tables",
            f"{p['tables_started']} started, {p['tables_finished']} finished,"
            f" {p['tables_verified']} verified, failed {len(p['records_failed'])}",
        ),
        (
            "errors, gaps / repeats",
            f"{sum(p['errors'].values())} {p['errors'] or ''}, {p['version_gaps']} /"
            f" {p['version_repeats']}, clients seeing another log"
            f" {p['clients_seeing_a_different_log']}",
        ),
        (
            "server CPU, peak memory",
            f"{s['server']['cpu_cores'] or 0:.2f} cores over {s['window_seconds']:.1f} s,"
            f" {s['server']['peak_rss_mb'] or 0:.0f} MB (main process)",
        ),
        ("server log errors", str(len(s["server"]["log_errors"]))),
    ]
    load = ", ".join(f"{x:.1f}" for x in s["machine"]["load_average"] or ())
    rows.append(("machine", f"{s['machine']['cpus']} CPUs, load average {load}"))
    print_rows("cirulla tournament load", rows, 60)
    for t in s["tournaments"]:
        for failure in t["table_records_failed"][:5]:
            print(f"{t['format']} table record failed: {failure}")
    for failure in p["records_failed"][:5]:
        print(f"people's record failed: {failure}")
    for line in s["server"]["log_errors"][:5]:
        print(f"server log: {line[:300]}")


# ---- main --------------------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--knockout", type=int, default=256, help="knockout entrants (256; 0: none)"
    )
    parser.add_argument("--swiss", type=int, default=64, help="Swiss entrants (64; 0: none)")
    parser.add_argument("--rounds", type=int, default=6, help="the Swiss's rounds (6)")
    parser.add_argument("--level", choices=LEVELS, default="normale", help="the bots (normale)")
    parser.add_argument("--hands", type=int, default=1, help="smazzate a partita (1)")
    parser.add_argument("--people", type=int, default=40, help="scripted people, 4 a table (40)")
    parser.add_argument("--think-ms", type=float, default=0.0, help="people's think time (0)")
    parser.add_argument(
        "--baseline", type=float, default=15.0, help="seconds the people play alone first (15)"
    )
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="the most the tournaments may take (900 s)"
    )
    parser.add_argument(
        "--database-url", help="the server's database (default: SQLite in a temp dir)"
    )
    parser.add_argument("--bot-delay", type=float, default=0.0, help="CIRULLA_BOT_DELAY (0)")
    parser.add_argument("--deal-pause", type=float, default=0.0, help="CIRULLA_DEAL_PAUSE (0)")
    parser.add_argument(
        "--move-seconds", type=float, default=60.0, help="the tournaments' move clock (60)"
    )
    parser.add_argument("--poll", type=float, default=0.2, help="seconds between polls (0.2)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the people's choices")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--keep-logs", type=Path, help="copy the server's log here at the end")
    parser.add_argument(
        "--keep-records", type=Path, help="write the tournament records into this directory"
    )
    args = parser.parse_args()
    if args.knockout < 0 or args.swiss < 0 or args.knockout + args.swiss == 0:
        parser.error("give at least one tournament: --knockout N and/or --swiss N")
    for name, n in (("--knockout", args.knockout), ("--swiss", args.swiss)):
        if n == 1 or n > 256:
            parser.error(f"{name}: 0 (none), or 2 to 256 entrants")
    if not 1 <= args.rounds <= 64:
        parser.error("--rounds: 1 to 64")
    if not 1 <= args.hands <= 6:
        parser.error("--hands: 1 to 6 (a Swiss needs a length with VP)")
    if args.people < 0 or args.think_ms < 0 or args.baseline < 0:
        parser.error("--people, --think-ms and --baseline cannot be negative")
    if args.timeout <= 0 or args.poll <= 0 or args.move_seconds <= 0:
        parser.error("--timeout, --poll and --move-seconds must be positive")
    if args.keep_records is not None:
        args.keep_records.mkdir(parents=True, exist_ok=True)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(soft, 4 * args.people + 512)
    resource.setrlimit(
        resource.RLIMIT_NOFILE, (want if hard == resource.RLIM_INFINITY else min(want, hard), hard)
    )
    extra = {  # (start_server sets its own variables first: these come after)
        "CIRULLA_BOT_DELAY": str(args.bot_delay),
        "CIRULLA_OPEN_TABLES_PER_USER": "1000",
    }
    with tempfile.TemporaryDirectory(prefix="cirulla-tournaments-") as tmp:
        proc, url = start_server(Path(tmp), args.database_url, args.deal_pause, extra)
        try:
            print(
                f"server {url}; knockout {args.knockout}, Swiss {args.swiss} ({args.rounds}"
                f" rounds) of {args.level} bots; {args.people} people; timeout"
                f" {args.timeout:.0f} s",
                flush=True,
            )
            out = asyncio.run(drive(url, args, proc.pid))
            peak = process_peak_rss_mb(proc.pid)
            with contextlib.suppress(httpx.HTTPError, ValueError):
                out["health"] = httpx.get(f"{url}/api/health", timeout=10).json()
        finally:
            stop_server(proc)
            if args.keep_logs:
                args.keep_logs.mkdir(parents=True, exist_ok=True)
                with contextlib.suppress(OSError):
                    shutil.copy(Path(tmp) / "server.log", args.keep_logs / "server.log")
        errors = log_errors(Path(tmp) / "server.log")
    stats: Stats = out.pop("_stats")
    result = {
        "knockout": args.knockout,
        "swiss": args.swiss,
        "swiss_rounds": args.rounds,
        "level": args.level,
        "hands": args.hands,
        "bot_delay": args.bot_delay,
        "deal_pause": args.deal_pause,
        "move_seconds": args.move_seconds,
        "timeout": args.timeout,
        "poll_seconds": args.poll,
        "database": "postgresql" if (args.database_url or "").startswith("postgres") else "sqlite",
        **out,
        "server": {
            "cpu_cores": out["server_cpu_cores"],
            "peak_rss_mb": None if peak is None else round(peak, 1),
            "log_errors": errors,
        },
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
        },
    }
    print_summary(result)
    write_json(result, args.json, said=True)
    broken = (
        any(not t["finished"] or t["record_verified"] is None for t in result["tournaments"])
        or any(t["table_records_failed"] for t in result["tournaments"])
        or stats.gaps
        or stats.repeats
        or stats.records_failed
        or stats.moves_mismatched
        or errors
    )
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
