"""The `cirulla serve` processes a load benchmark starts, stops and measures.

Shared by server_load.py, bot_latency.py and tournament_load.py: one server or a
cluster of nodes on free ports, with the limits a scripted load would trip lifted,
and what Linux's /proc says of their CPU and memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx


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
