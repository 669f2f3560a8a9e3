"""What the server stands on failing (database, disk, Redis, another node): which errors
those are, the answer a command gets then, and a log that says so without flooding.

A command that meets one of these is answered `unavailable`, nothing applied, and may
be sent again; the socket stays open (gateway/socket.py, and the bot API's moves in
gateway/bots.py, answer the same way).
"""

from __future__ import annotations

import logging
import time
from typing import Final

import redis.exceptions
import sqlalchemy.exc

from ..bus import BusError
from ..store import VersionConflict

__all__ = ["INFRASTRUCTURE_ERRORS", "UNAVAILABLE_MESSAGE", "log_outage", "log_seldom"]

# the socket's logger: operators read one name for what its commands meet
log = logging.getLogger("cirulla.socket")

#: Failures of what the server stands on (database, disk, Redis, another node): the
#: command is answered `unavailable`, nothing was applied, and it may be sent again.
INFRASTRUCTURE_ERRORS: Final[tuple[type[BaseException], ...]] = (
    OSError,  # a full or read-only disk, a refused connection, a timeout
    sqlalchemy.exc.DBAPIError,  # the drivers' errors (asyncpg, sqlite3), wrapped
    sqlalchemy.exc.TimeoutError,  # no connection free in the pool
    sqlalchemy.exc.DisconnectionError,
    redis.exceptions.RedisError,
    BusError,
    VersionConflict,  # the stored log moved on: the table must be read again
)

UNAVAILABLE_MESSAGE: Final = (
    "the server cannot reach its storage just now: nothing was done, send it again in a few seconds"
)


# ---- logging without flooding the log -------------------------------------------------------
_last_logged: dict[str, float] = {}


def log_seldom(key: str, every: float = 60.0) -> bool:
    """True at most once every `every` seconds per key: what one client can make the
    server log again and again is logged once a minute."""
    now = time.monotonic()
    if now - _last_logged.get(key, -every) < every:
        return False
    if len(_last_logged) > 1000:
        _last_logged.clear()
    _last_logged[key] = now
    return True


def _short(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:200] if lines else ''}"


def log_outage(what: str, exc: BaseException) -> None:
    """A failing database or Redis, in one line and at most once a minute per kind."""
    if log_seldom(f"outage:{type(exc).__name__}"):
        log.warning("%s: unavailable (%s)", what, _short(exc))
