"""`cirulla serve`: the game server on uvicorn, logging one JSON line per event."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import socket
import sqlite3
import sys
import tempfile
from typing import Any

from .settings import Settings

__all__ = ["JsonLines", "StartupError", "add_cli", "serve", "ws_max_size"]

# Attributes every logging.LogRecord has; anything else was passed in `extra`.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonLines(logging.Formatter):
    """One JSON object per line: time, level, logger, message and the `extra` fields,
    so an operator can grep or ship the log as it is."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD:
                out[key] = value
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def _logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def ws_max_size(max_frame: int) -> int:
    """The largest WebSocket message uvicorn reads: four times `max_frame`, at least 64 KiB.

    Frames up to it are read and, when over `max_frame`, answered `frame_too_large` (the
    socket stays open); a larger one is not read at all: uvicorn closes the socket
    with 1009 (message too big). The margin lets a client that is a little off be told
    why, without letting anyone make the server buffer megabytes.
    """
    return max(max_frame * 4, 65_536)


class StartupError(Exception):
    """The server cannot start; the message is one line for the operator."""


def _one_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _check_data_dir(settings: Settings) -> None:
    """The SQLite data directory exists (or can be made) and can be written."""
    path = settings.data_dir
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise StartupError(
            f"the data directory {str(path)!r} cannot be used ({reason}): give --data-dir"
            " (CIRULLA_DATA_DIR) a directory the server may create and write"
        ) from None


def _listen(settings: Settings) -> socket.socket:
    """The listening socket, bound here so that a port in use is a clear error."""
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((settings.host, settings.port))
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        raise StartupError(
            f"cannot listen on {settings.host}:{settings.port} ({reason}): stop what uses"
            " that port or choose another with --port (CIRULLA_PORT) and --host (CIRULLA_HOST)"
        ) from None
    return sock


async def _ping_database(url: str) -> None:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    finally:
        await engine.dispose()


def _check_database(settings: Settings) -> None:
    """The database answers; whatever stops it is told as one line."""
    from .gateway.app import _safe_url

    try:
        asyncio.run(asyncio.wait_for(_ping_database(settings.db_url), 20))
    except Exception as exc:
        what = "CIRULLA_DATABASE_URL (--database-url)"
        if settings.database_url is None:
            what = "CIRULLA_DATA_DIR (--data-dir), where the SQLite database lives,"
        reason = "no answer in 20 seconds" if isinstance(exc, TimeoutError) else _one_line(exc)
        raise StartupError(
            f"cannot open the database {_safe_url(settings.db_url)} ({reason}): check"
            f" {what} and that the database is running and reachable"
        ) from None


def _check_redis(settings: Settings) -> None:
    """A Redis URL that redis-py can read (whether Redis is up is the cluster's business)."""
    if not settings.redis_url:
        return
    import redis.asyncio

    try:
        redis.asyncio.Redis.from_url(settings.redis_url)
    except Exception as exc:
        raise StartupError(
            f"CIRULLA_REDIS_URL (--redis-url) is not a Redis URL ({_one_line(exc)}):"
            " write it as redis://host:6379/0"
        ) from None


def _check_tournaments_file(settings: Settings) -> None:
    """The operator's tournaments file (if any) is read and every entry is valid."""
    from .competition.schedule import ScheduleError, load_schedule

    try:
        load_schedule(settings.tournaments_file)
    except ScheduleError as exc:
        raise StartupError(str(exc)) from None


def _explain(exc: BaseException, settings: Settings) -> str:
    """A start-up failure inside the application, as one line for the operator."""
    import redis.exceptions
    from sqlalchemy.exc import SQLAlchemyError

    from .competition.schedule import ScheduleError

    if isinstance(exc, StartupError | ScheduleError):
        return str(exc)
    if isinstance(exc, redis.exceptions.RedisError):
        return (
            f"Redis failed while the server started ({_one_line(exc)}): check that it runs"
            " and that CIRULLA_REDIS_URL (--redis-url) points at it"
        )
    if isinstance(exc, SQLAlchemyError | OSError | sqlite3.Error) or type(
        exc
    ).__module__.startswith(("asyncpg", "alembic")):
        return (
            f"the database failed while the server started ({_one_line(exc)}): check"
            " CIRULLA_DATABASE_URL (--database-url) or CIRULLA_DATA_DIR, the database,"
            " and the free disk space"
        )
    return f"the server could not start ({_one_line(exc)}); the log above may say more"


class _StartupErrors:
    """Wraps the application so that a failure in its start-up (the lifespan) is one
    `error: ...` line on stderr rather than a traceback in the log."""

    def __init__(self, app: Any, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.failed = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        startup_failed = False

        async def quiet_send(message: Any) -> None:
            nonlocal startup_failed
            if message["type"] == "lifespan.startup.failed":
                startup_failed = True  # told once the exception is known
                return
            await send(message)

        try:
            await self.app(scope, receive, quiet_send)
        except Exception as exc:
            if not startup_failed:
                raise
            self.failed = True
            print(f"error: {_explain(exc, self.settings)}", file=sys.stderr, flush=True)
            await send({"type": "lifespan.startup.failed", "message": ""})
            return
        if startup_failed:
            await send({"type": "lifespan.startup.failed", "message": ""})


def serve(settings: Settings) -> int:
    """Run the server until it is stopped: 0, or 1 with one `error:` line on stderr
    when it cannot start (a port in use, an unusable data directory or database)."""
    import uvicorn

    from .gateway.app import create_app

    _logging(settings.log_level)
    try:
        _check_redis(settings)
        _check_tournaments_file(settings)
        if settings.database_url is None:
            _check_data_dir(settings)
        sock = _listen(settings)
        _check_database(settings)
    except StartupError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 1
    fastapi_app = create_app(settings)
    app = _StartupErrors(fastapi_app, settings)
    # A busy table server makes many short-lived dicts (frames, views): collect the young
    # generation less often, and keep the code and the app, which live for the whole
    # run, out of the older generations' collections.
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    trusted = list(settings.trusted_proxies)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,  # keep our JSON lines for uvicorn's own messages too
        log_level=settings.log_level,
        # X-Forwarded-For/-Proto only from the proxies named: uvicorn's default
        # believes 127.0.0.1, which lets any local client choose its address.
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or [],
        ws_max_size=ws_max_size(settings.max_frame),
        ws_per_message_deflate=settings.ws_deflate,
        ws=settings.ws_impl,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
    )
    server = uvicorn.Server(config)
    # uvicorn waits for open responses before it stops: the bots' event streams
    # (gateway/bot_stream.py) watch this and end themselves
    fastapi_app.state.stopping = lambda: server.should_exit
    with sock, contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[sock])
    if not server.started:
        if not app.failed:
            print("error: the server did not start: see the log above", file=sys.stderr)
        return 1
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_env(
            host=args.host,
            port=args.port,
            data_dir=args.data_dir,
            database_url=args.database_url,
            redis_url=args.redis_url,
            test_mode=True if args.test_mode else None,
            bot_delay=args.bot_delay,
            log_level=args.log_level,
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return serve(settings)


def add_cli(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="run the game server (SQLite in --data-dir unless --database-url)",
        description="Run the game server: accounts, lobby, tables with people and bots."
        " Every option can also be set by an environment variable: CIRULLA_PORT and so on.",
    )
    p.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (default 8000)")
    p.add_argument("--data-dir", help="where the SQLite database lives (default ./cirulla-data)")
    p.add_argument("--database-url", help="e.g. postgresql+asyncpg://user@host/db")
    p.add_argument(
        "--redis-url",
        help="share tables with the other nodes on this Redis (needs --database-url)",
    )
    p.add_argument("--bot-delay", type=float, help="seconds a bot waits before moving (0.8)")
    p.add_argument("--log-level", choices=["debug", "info", "warning", "error"])
    p.add_argument("--test-mode", action="store_true", help="allow stacked decks (tests only)")
    p.set_defaults(func=_cmd_serve)
