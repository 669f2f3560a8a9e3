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
import multiprocessing
import os
import platform
import random
import resource
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _clients import PLAYERS, Client, Run, Stats, check_records, play_tables
from _report import print_rows, write_json
from _servers import (
    Node,
    clean_redis,
    log_errors,
    process_cpu,
    process_peak_rss_mb,
    read_health,
    start_nodes,
    stop_nodes,
)


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
