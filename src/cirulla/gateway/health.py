"""`GET /api/health`: what this node holds, and which service it needs is down.

Load balancers poll it and read the status (503 takes the node out), so it is cheap
and never hangs: each probe runs one at a time, shared by every poll that comes
meanwhile and reused for a moment, and nothing waits longer than PROBE_TIMEOUT for
an answer. The database gets a `SELECT 1`; a SQLite database's disk (which a
`SELECT 1` cannot see: reads work on a full disk) is looked at too: its free space,
whether it is mounted read-only, and now and then a small file written and removed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from ..store import Store

__all__ = ["DISK_RESERVE", "DatabaseProbe", "DiskProbe", "health_report"]

log = logging.getLogger("cirulla.health")

PROBE_TIMEOUT = 1.0  # seconds a poll waits for each answer before saying "down"
PROBE_LIMIT = 10.0  # a database probe still running after this long is given up
FRESH = 0.5  # seconds an answer is reused by the polls that follow it
#: Free bytes under which the SQLite disk counts as full: SQLite's log (WAL) and its
#: checkpoints need room to grow, and writes start failing soon below this.
DISK_RESERVE = 1 << 20
#: Seconds between two write probes of a disk that was fine (every poll while it is not).
WRITE_EVERY = 10.0
_PROBE_FILE = ".cirulla-health-probe"
_PROBE_BYTES = b"\0" * 4096


def _public(answer: str) -> str:
    """What an anonymous caller is told: the kind of failure, not the driver's text
    (which may name hosts, databases or users); the log has the rest."""
    head, sep, rest = answer.partition(": ")
    if not sep:
        return answer
    kind, _, _ = rest.partition(": ")
    return f"{head}: {kind}"


def _why(exc: BaseException) -> str:
    """One short line on what failed (the driver's error, not SQLAlchemy's wrapping)."""
    inner = getattr(exc, "orig", None) or exc
    text = str(inner).strip().splitlines()[0] if str(inner).strip() else "no details"
    return f"{type(inner).__name__}: {text[:160]}"


class _Probe:
    """One check at a time, its answer shared and reused for FRESH seconds."""

    #: Seconds after which a check still running is cancelled and a new one started
    #: (None: never, as a new one would hang the same way).
    restart_after: float | None = None

    def __init__(self) -> None:
        self._task: asyncio.Task[str] | None = None
        self._began = 0.0
        self._last: tuple[float, str] | None = None

    async def check(self) -> str:
        """Say "ok" or "down: <why>", within about PROBE_TIMEOUT seconds."""
        now = time.monotonic()
        if self._last is not None and now - self._last[0] < FRESH:
            return self._last[1]
        limit = self.restart_after
        running = self._task is not None and not self._task.done()
        if running and limit is not None and now - self._began > limit:
            assert self._task is not None
            self._task.cancel()  # a connection that hangs: try a new one
            self._task = None
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._probe())
            self._began = now
        try:
            answer = await asyncio.wait_for(asyncio.shield(self._task), PROBE_TIMEOUT)
        except TimeoutError:
            return f"down: no answer in {PROBE_TIMEOUT:g} s"
        self._last = (time.monotonic(), answer)
        return answer

    async def _probe(self) -> str:
        raise NotImplementedError


class DatabaseProbe(_Probe):
    """`SELECT 1` on the store, one at a time."""

    restart_after = PROBE_LIMIT

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store

    async def _probe(self) -> str:
        try:
            await self.store.ping()
        except Exception as exc:
            return f"down: {_why(exc)}"
        return "ok"


class DiskProbe(_Probe):
    """The disk of a SQLite database: room left, not read-only, and (every
    WRITE_EVERY seconds, or every poll while it fails) a 4 KiB file written, synced
    and removed beside the database. Looked at in a thread: a disk that hangs keeps
    that one thread, never the event loop, and no second one is started beside it."""

    def __init__(self, directory: Path) -> None:
        super().__init__()
        self.directory = directory
        self._written = -WRITE_EVERY  # when the last write probe succeeded

    async def _probe(self) -> str:
        write = time.monotonic() - self._written >= WRITE_EVERY
        try:
            answer = await asyncio.to_thread(self._look, write)
        except OSError as exc:
            return f"down: cannot write ({exc.strerror or type(exc).__name__})"
        if answer == "ok" and write:
            self._written = time.monotonic()
        return answer

    def _look(self, write: bool) -> str:
        stat = os.statvfs(self.directory)
        if stat.f_flag & os.ST_RDONLY:
            return "down: read-only"
        free = stat.f_bavail * stat.f_frsize
        if free < DISK_RESERVE:
            return f"down: full ({free // 1024} KiB free)"
        if write:
            path = self.directory / _PROBE_FILE
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, _PROBE_BYTES)
                os.fsync(fd)
            finally:
                os.close(fd)
                path.unlink(missing_ok=True)
        return "ok"


def _probes(app: FastAPI) -> dict[str, _Probe]:
    """The probes of the app's store, made once (again if the store is replaced)."""
    state = app.state
    store: Store = state.store
    probes: dict[str, _Probe] | None = getattr(state, "health_probes", None)
    if probes is None or getattr(probes["database"], "store", None) is not store:
        probes = {"database": DatabaseProbe(store)}
        if store.file is not None:
            probes["disk"] = DiskProbe(store.file.parent)
        state.health_probes = probes
    return probes


async def health_report(app: FastAPI) -> tuple[int, dict[str, Any]]:
    """(HTTP status, body): 200 when the database (with SQLite, its disk; in a
    cluster, Redis and this node's subscription) answer, else 503 naming what is down."""
    manager = app.state.tables
    cluster = manager.cluster
    checks: dict[str, Any] = {name: probe.check() for name, probe in _probes(app).items()}
    if cluster is not None:
        checks["redis"] = cluster.bus.health()
    answers = await asyncio.gather(*checks.values(), return_exceptions=True)
    body: dict[str, Any] = {"ok": True, "tables": len(manager.tables)}
    if cluster is not None:
        body["node"] = cluster.node
    said: dict[str, str] | None = getattr(app.state, "health_said", None)
    if said is None:
        said = app.state.health_said = {}
    for name, answer in zip(checks, answers, strict=True):
        if isinstance(answer, BaseException):  # (a bug in a probe: say so, do not fail)
            answer = f"down: {_why(answer)}"
        if answer != "ok":
            body["ok"] = False
        # The whole reason, for the operator: once when it changes, not at every poll.
        if said.get(name, "ok") != answer:
            if answer == "ok":
                log.info("health: %s ok again", name)
            else:
                log.warning("health: %s %s", name, answer)
        said[name] = answer
        body[name] = _public(answer)
    return (200 if body["ok"] else 503), body
