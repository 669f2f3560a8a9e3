"""The server's settings: command-line options, then CIRULLA_* variables, then defaults."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

__all__ = ["WS_IMPLS", "Settings"]

#: uvicorn's WebSocket implementations the server may run on.
WS_IMPLS = ("websockets-sansio", "websockets")


#: Limits that must be more than zero (a zero would refuse everyone or divide by it).
_POSITIVE = (
    "max_frame",
    "max_body",
    "outbox_bytes",
    "sockets_per_user",
    "sockets_per_address",
    "login_attempts",
    "login_per_account",
    "login_max_delay",
    "registrations_per_hour",
    "open_tables_per_user",
    "open_table_seconds",
    "empty_table_seconds",
    "bot_seats_per_user",
    "bot_move_seconds",
    "db_pool_size",
    "db_pool_timeout",
    "session_cache_seconds",
    "flood_per_second",
    "flood_burst",
    "welcome_chips",
    "topup_chips",
    "topup_floor",
    "max_stake",
    "max_max_loss",
    "max_entry_fee",
    "chat_messages",
    "chat_seconds",
)


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
    # Seconds between smazzate: the score sheet is shown over the table only then, and
    # no clock runs (the next deal, and its first mover's clock, start after it).
    deal_pause: float = 6.0
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
    secure_cookies: bool = False  # always set the Secure flag (else only over https)
    # --- limits against abuse (README "Limits"); every one can be changed by its variable
    # Addresses (or CIDR networks) of reverse proxies whose X-Forwarded-For/-Proto are
    # believed; nobody's by default, so a client cannot choose its own address.
    trusted_proxies: tuple[str, ...] = ()
    max_body: int = 65_536  # bytes of an HTTP request body; larger is refused with 413
    outbox_bytes: int = 4_194_304  # bytes queued for one socket; a client that falls behind is cut
    sockets_per_user: int = 16  # open WebSockets per account
    sockets_per_address: int = 64  # open WebSockets per client address
    login_per_account: int = 5  # failed logins per account before each attempt must wait
    login_max_delay: float = 30.0  # the longest that wait grows to (a slow-down, not a lock-out)
    registrations_per_hour: int = 20  # new accounts (registered or guest) per address an hour
    open_tables_per_user: int = 5  # tables one account has open (not yet started) at once
    open_table_seconds: float = 3600.0  # an open table whose partita has not begun closes
    empty_table_seconds: float = 300.0  # an open table with no player connected closes
    bot_seats_per_user: int = 9  # search-bot (campione) seats in play at one account's tables
    bot_workers: int = 0  # processes that run the search bots; 0: one per core
    bot_move_seconds: float = 1.0  # the most a search bot may think a move
    db_pool_size: int = 10  # database connections kept open (PostgreSQL)
    db_pool_overflow: int = 20  # further connections under load
    db_pool_timeout: float = 3.0  # seconds to wait for a connection before answering 503
    session_cache_seconds: float = 10.0  # a session lookup is trusted this long (logout is at once)
    # --- the operator's scheduled and recurring tournaments: a JSON file (README
    # "Tournaments"), checked at start-up; none by default
    tournaments_file: str | None = None
    # --- chips, play money only (docs/chips.md)
    welcome_chips: int = 1000  # a registered account's first wallet
    guest_chips: int = 200  # a guest's (kept when the guest claims the account); 0: none
    topup_chips: int = 500  # the daily top-up, once per UTC day ...
    topup_floor: int = 200  # ... for a player with fewer chips than this (wallet + escrows)
    max_stake: int = 100  # the most a cash table's stake (chips a point) may be
    max_max_loss: int = 5000  # the most a cash table's maximum loss may be
    max_entry_fee: int = 10_000  # the most a tournament's entry fee may be (chips)
    # --- chat (docs/chat.md): messages per account in a moving window, and the
    # operator's token for the moderation routes (unset: /api/admin answers 404)
    chat_messages: int = 5
    chat_seconds: int = 10
    admin_token: str | None = field(default=None, repr=False)
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
        for name in _POSITIVE:
            value = getattr(self, name)
            if not value > 0:
                raise ValueError(f"CIRULLA_{name.upper()} must be more than 0, not {value}")
        if self.guest_chips < 0:
            raise ValueError(f"CIRULLA_GUEST_CHIPS must be 0 or more, not {self.guest_chips}")
        if self.bot_workers < 0:
            raise ValueError(
                f"CIRULLA_BOT_WORKERS must be 0 (one per core) or more, not {self.bot_workers}"
            )
        for proxy in self.trusted_proxies:
            if proxy != "*":
                try:
                    ipaddress.ip_network(proxy, strict=False)
                except ValueError:
                    raise ValueError(
                        f"CIRULLA_TRUSTED_PROXIES: {proxy!r} is not an address or a network"
                    ) from None

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
