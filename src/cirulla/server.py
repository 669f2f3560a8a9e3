"""`cirulla serve`: the game server on uvicorn, logging one JSON line per event."""

from __future__ import annotations

import argparse
import gc
import json
import logging
import sys
from typing import Any

from .settings import Settings

__all__ = ["JsonLines", "add_cli", "serve"]

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


def serve(settings: Settings) -> None:
    import uvicorn

    from .gateway.app import create_app

    _logging(settings.log_level)
    app = create_app(settings)
    # A busy table server makes many short-lived dicts (frames, views): collect the young
    # generation less often, and keep the code and the app, which live for the whole
    # run, out of the older generations' collections.
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,  # keep our JSON lines for uvicorn's own messages too
        log_level=settings.log_level,
        ws_max_size=max(settings.max_frame * 4, 65_536),
        ws_per_message_deflate=settings.ws_deflate,
        ws=settings.ws_impl,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
    )


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
    serve(settings)
    return 0


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
