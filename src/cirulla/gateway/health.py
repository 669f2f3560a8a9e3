"""`GET /api/health`: what this node holds, and which service it needs is down.

Load balancers poll it and read the status (503 takes the node out), so it is cheap
and never hangs: the database gets one `SELECT 1` at a time, shared by every poll
that comes meanwhile and reused for a moment, and nothing waits longer than
PROBE_TIMEOUT for an answer.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from fastapi import FastAPI

from ..store import Store

__all__ = ["DatabaseProbe", "health_report"]

log = logging.getLogger("cirulla.health")

PROBE_TIMEOUT = 1.0  # seconds a poll waits for each answer before saying "down"
PROBE_LIMIT = 10.0  # a database probe still running after this long is given up
FRESH = 0.5  # seconds an answer is reused by the polls that follow it


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


class DatabaseProbe:
    """`SELECT 1` on the store, one at a time."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._task: asyncio.Task[str] | None = None
        self._began = 0.0
        self._last: tuple[float, str] | None = None

    async def check(self) -> str:
        """Say "ok" or "down: <why>", within about PROBE_TIMEOUT seconds."""
        now = time.monotonic()
        if self._last is not None and now - self._last[0] < FRESH:
            return self._last[1]
        if self._task is not None and not self._task.done() and now - self._began > PROBE_LIMIT:
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
        try:
            await self.store.ping()
        except Exception as exc:
            return f"down: {_why(exc)}"
        return "ok"


async def health_report(app: FastAPI) -> tuple[int, dict[str, Any]]:
    """(HTTP status, body): 200 when the database (and, in a cluster, Redis and this
    node's subscription) answer, else 503 naming what is down."""
    state = app.state
    probe: DatabaseProbe | None = getattr(state, "database_probe", None)
    if probe is None or probe.store is not state.store:
        probe = state.database_probe = DatabaseProbe(state.store)
    manager = state.tables
    cluster = manager.cluster
    checks: dict[str, Any] = {"database": probe.check()}
    if cluster is not None:
        checks["redis"] = cluster.bus.health()
    answers = await asyncio.gather(*checks.values(), return_exceptions=True)
    body: dict[str, Any] = {"ok": True, "tables": len(manager.tables)}
    if cluster is not None:
        body["node"] = cluster.node
    for name, answer in zip(checks, answers, strict=True):
        if isinstance(answer, BaseException):  # (a bug in a probe: say so, do not fail)
            answer = f"down: {_why(answer)}"
        if answer != "ok":
            body["ok"] = False
            log.warning("health: %s %s", name, answer)  # the whole reason, for the operator
        body[name] = _public(answer)
    return (200 if body["ok"] else 503), body
