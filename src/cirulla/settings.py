"""The server's settings: command-line options, then CIRULLA_* variables, then defaults."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

__all__ = ["WS_IMPLS", "Settings"]

#: uvicorn's WebSocket implementations the server may run on.
WS_IMPLS = ("websockets-sansio", "websockets")


def _bool(text: str) -> bool:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"not a yes/no value: {text!r}")


@dataclass(frozen=True, slots=True)
class Settings:
    """Every knob of `cirulla serve`; the environment variable is CIRULLA_ + the upper-case name."""

    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Path("cirulla-data")
    database_url: str | None = None  # default: SQLite in data_dir
    redis_url: str | None = None  # several nodes sharing tables (needs database_url)
    cluster: str = "cirulla"  # the nodes' Redis key prefix: one per cluster on a Redis
    lease_seconds: float = 10.0  # a dead node's tables move after at most this long
    # Origins allowed to open the WebSocket besides the server's own; "*" allows any.
    allowed_origins: tuple[str, ...] = ()
    # Test mode allows stacked decks and instant bots; never on in production.
    test_mode: bool = False
    bot_delay: float = 0.8  # seconds a bot "thinks" before its move appears
    grace: float = 1.0  # seconds of network lag forgiven on every clock
    deal_pause: float = 3.0  # seconds to read the score sheet before the next deal
    max_frame: int = 16_384  # bytes; a larger WebSocket frame is refused
    flood_per_second: float = 20.0  # commands a client may send per second on average
    flood_burst: int = 40
    # Compress socket frames (permessage-deflate): less bandwidth, but it took an eighth
    # of a busy server's CPU in the load benchmark. Off by default.
    ws_deflate: bool = False
    # uvicorn's WebSocket implementation: "websockets-sansio" or "websockets" (the
    # older one, whose legacy asyncio protocol costs more per frame).
    ws_impl: str = "websockets-sansio"
    bad_frames_allowed: int = 5  # malformed frames before the socket is closed (1008)
    login_attempts: int = 10  # per address per minute (login, register, guest, claim)
    session_days: int = 30
    secure_cookies: bool = False  # set the Secure flag (behind HTTPS)
    log_level: str = "info"
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.ws_impl not in WS_IMPLS:
            raise ValueError(
                f"CIRULLA_WS_IMPL must be one of {', '.join(WS_IMPLS)}, not {self.ws_impl!r}"
            )
        if self.redis_url and not (self.database_url or "").startswith("postgresql"):
            raise ValueError(
                "--redis-url (CIRULLA_REDIS_URL) shares tables between nodes, so they need"
                " one database: give --database-url postgresql+asyncpg://..."
            )
        if self.lease_seconds < 1:
            raise ValueError(f"CIRULLA_LEASE_SECONDS must be at least 1, not {self.lease_seconds}")

    @property
    def db_url(self) -> str:
        """The SQLAlchemy async URL of the database."""
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'cirulla.db').resolve()}"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Defaults, then CIRULLA_* variables of `env`, then the non-None `overrides`."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name == "extra":
                continue
            raw = env.get(f"CIRULLA_{f.name.upper()}")
            if raw is None:
                continue
            try:
                values[f.name] = _convert(f.name, raw)
            except ValueError as exc:
                raise ValueError(f"CIRULLA_{f.name.upper()}: {exc}") from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        if "data_dir" in values:
            values["data_dir"] = Path(values["data_dir"])
        return replace(cls(), **values)


def _convert(name: str, raw: str) -> Any:
    default = getattr(Settings(), name)
    if isinstance(default, bool):
        return _bool(raw)
    if isinstance(default, int):
        return int(raw)
    if isinstance(default, float):
        return float(raw)
    if isinstance(default, Path):
        return Path(raw)
    if isinstance(default, tuple):
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    return raw or None
