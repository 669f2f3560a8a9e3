"""What one account may have at once: open tables and search-bot seats.

Apart from the manager because the limits are a policy against abuse, not part of
making a table: they are read from the store (so every node of a cluster counts the
same tables) and checked with one creation at a time per account on this node.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from ..settings import Settings
from ..store import Store
from .config import TableConfig
from .games import kind_of
from .state import TableError

__all__ = ["AccountLimits", "minutes", "search_seats"]


def minutes(seconds: float) -> str:
    """A limit in words: "90 seconds", "5 minutes"."""
    if seconds < 120:
        return "1 second" if seconds == 1 else f"{seconds:g} seconds"
    return f"{seconds / 60:g} minutes"


def search_seats(config: dict[str, Any]) -> int:
    """How many search bots (the ones run in worker processes) a table's config, as
    stored, seats: Cirulla's campione, Cirulo's difficile and campione."""
    bots = config.get("bots") or {}
    try:
        kind = kind_of(str(config.get("game", "cirulla")))
    except ValueError:
        return 0
    return sum(1 for level in bots.values() if kind.searches(str(level)))


class AccountLimits:
    """The open tables and search-bot seats of each account (the "limits" settings)."""

    def __init__(self, store: Store, limits: Settings) -> None:
        self.store = store
        self.limits = limits
        self._creating: dict[str, tuple[asyncio.Lock, int]] = {}  # user -> lock, users of it

    @contextlib.asynccontextmanager
    async def creating(self, owner: str, config: TableConfig) -> AsyncIterator[None]:
        """Hold the account's turn to make a table, once its limits allow this one."""
        lock, users = self._creating.get(owner, (asyncio.Lock(), 0))
        self._creating[owner] = (lock, users + 1)
        try:
            async with lock:
                await self.check(owner, config)
                yield
        finally:
            lock, users = self._creating[owner]
            if users <= 1:
                del self._creating[owner]
            else:
                self._creating[owner] = (lock, users - 1)

    async def check(self, owner: str, config: TableConfig) -> None:
        """Refuse a table over the account's open tables or search-bot seats (read from
        the store, so that every node of a cluster counts the same tables)."""
        limits = self.limits
        rows = await self.store.live_tables_of(owner)
        open_tables = sum(1 for r in rows if r.status == "open")
        if open_tables >= limits.open_tables_per_user:
            raise TableError(
                "too_many_tables",
                f"you already have {open_tables} open tables, the most one account may have"
                f" ({limits.open_tables_per_user}): start one, or leave one (stand up) before"
                f" making another; a table nobody sits at closes by itself after"
                f" {minutes(limits.empty_table_seconds)}",
            )
        adding = search_seats(config.model_dump(mode="json"))
        if adding:
            busy = sum(search_seats(r.config) for r in rows if r.owner == owner)
            if busy + adding > limits.bot_seats_per_user:
                raise TableError(
                    "too_many_bots",
                    f"your tables in play already have {busy} searching bots (Cirulla's"
                    f" campione, Cirulo's difficile and campione) and this one adds"
                    f" {adding}: one account may keep at most {limits.bot_seats_per_user} busy"
                    f" at once; wait for a partita to end, or choose a lower level",
                )
