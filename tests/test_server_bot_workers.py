"""Search bots think in worker processes of a real `cirulla serve` (issue 12, item 10).

The search of `campione` holds the interpreter's lock for a second a move; in worker
processes it leaves the server's event loop free. Checked from outside, as an operator
would: the workers are the server's grandchildren (through the fork server), they do the
thinking (their CPU time grows while the bot plays), they run at a lower priority, they
die with a server killed by SIGKILL, and a hung worker costs its table one move by the
cheap bot, not a stall. Linux only (/proc).
"""

from __future__ import annotations

import os
import random
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from serverutil import Player, Server
from test_server_play import events_of, open_table, play_until, start_server

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")

CAMPIONE_2P = {"players": 2, "bots": {"1": "campione"}, "move_seconds": 600}


def _stat(pid: int) -> list[str]:
    """/proc/PID/stat's fields after the command name (the 3rd field, state, first)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int(_stat(int(entry.name))[1]) == pid:
                    out.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return out


def descendants(pid: int) -> list[int]:
    found, frontier = [], [pid]
    while frontier:
        for child in children(frontier.pop()):
            found.append(child)
            frontier.append(child)
    return found


def bot_workers(server: Server) -> list[int]:
    """The server's bot workers: the children of its fork server."""
    assert server.proc is not None
    servers = [
        p
        for p in children(server.proc.pid)
        if b"forkserver" in Path(f"/proc/{p}/cmdline").read_bytes()
    ]
    return sorted(w for f in servers for w in children(f))


def alive(pid: int) -> bool:
    """Running (a zombie has exited: only its exit status is left to collect)."""
    try:
        return _stat(pid)[0] != "Z"
    except OSError:
        return False


def cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_until(condition: Callable[[], bool], timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def bot_moves(player: Player, table: str) -> int:
    return sum(1 for e in events_of(player, table, "move") if e.get("by") == "bot")


def play_until_bot_moves(player: Player, table: str, count: int, **kw: Any) -> None:
    play_until(
        table,
        {0: player},
        rng=random.Random(1),
        stop=lambda view: bot_moves(player, table) >= count,
        timeout=60,
        **kw,
    )


def test_campione_thinks_in_a_worker_process_at_a_lower_priority(tmp_path: Path) -> None:
    with start_server(tmp_path, bot_workers=1) as server:
        workers = bot_workers(server)
        assert len(workers) == 1, f"one bot worker process, not {workers}"
        [worker] = workers
        assert server.proc is not None
        nice = int(_stat(worker)[16]) - int(_stat(server.proc.pid)[16])
        assert nice > 0, "a worker yields to the server's event loop"
        before = cpu_seconds(worker)
        owner = Player(server).guest().connect()
        table, _ = open_table(owner, [], CAMPIONE_2P)
        play_until_bot_moves(owner, table, 3)
        assert bot_moves(owner, table) >= 3
        used = cpu_seconds(worker) - before
        assert used >= 0.05, f"the worker used {used:.2f} s of CPU for three campione moves"
        assert bot_workers(server) == [worker], "the same worker, still running"
        assert "played by the" not in server.log_path.read_text(), "no fallback"


def test_bot_workers_do_not_outlive_a_server_killed_with_sigkill(tmp_path: Path) -> None:
    with start_server(tmp_path, bot_workers=2) as server:
        assert server.proc is not None
        workers = bot_workers(server)
        assert len(workers) == 2, f"two bot worker processes, not {workers}"
        helpers = descendants(server.proc.pid)  # the workers, the fork server, its tracker
        server.kill()
        assert wait_until(lambda: not any(alive(p) for p in helpers), timeout=30), [
            p for p in helpers if alive(p)
        ]


def test_a_hung_worker_costs_its_table_one_cheap_move_not_a_stall(tmp_path: Path) -> None:
    # a move may take its budget (0.2 s here) and 5 s more; then the cheap bot plays it
    with start_server(tmp_path, bot_workers=1, bot_move_seconds=0.2) as server:
        [worker] = bot_workers(server)
        owner = Player(server).guest().connect()
        table, _ = open_table(owner, [], CAMPIONE_2P)
        os.kill(worker, signal.SIGSTOP)  # alive, but it never answers
        try:
            started = time.monotonic()
            play_until_bot_moves(owner, table, 1)
            waited = time.monotonic() - started
        finally:
            if alive(worker):
                os.kill(worker, signal.SIGCONT)
        assert waited >= 4, f"the table gave up on its worker after only {waited:.1f} s"
        assert wait_until(lambda: "played by the difficile bot" in server.log_path.read_text())
        assert wait_until(lambda: not alive(worker)), "the hung worker is killed"
        play_until_bot_moves(owner, table, 3)  # new workers play the moves after it
        [new] = bot_workers(server)
        assert new != worker
        assert server.log_path.read_text().count("played by the") == 1
