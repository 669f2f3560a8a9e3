"""Every table of this server: creating them, rebuilding them at start-up, finding them.

Opening a table (tables/opening.py), the lobby list (tables/lobby.py), the expiry of open
tables (tables/expiry.py) and the limits per account (tables/limits.py) are the
manager's too, each in its own module.
"""

from __future__ import annotations

import asyncio
import logging
import secrets as _secrets
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..eventlog import LogRecord
from ..settings import Settings
from ..store import RecordPlayer, SeatRow, Store, TableRow
from .actor import Subscriber, TableActor
from .config import TableConfig
from .expiry import Expiry
from .limits import AccountLimits
from .lobby import Lobby, table_summary
from .opening import Opening, invite_hash
from .records import RecordKeeper
from .state import TableError, TableState

if TYPE_CHECKING:
    from .botpool import BotPool
    from .cluster import Cluster, Watcher
    from .relay import RemoteTable

__all__ = ["TableManager", "invite_hash"]

log = logging.getLogger("cirulla.tables")

#: How long a finished or closed table stays reachable for its clients.
LINGER_SECONDS = 600.0


def _seat_rows(state: TableState) -> list[SeatRow]:
    return [
        SeatRow(seat=i, user_id=s.user, bot=s.bot, name=s.name)
        for i, s in enumerate(state.seats)
        if s is not None
    ]


def _players_of(state: TableState) -> list[RecordPlayer]:
    winner = state.winner
    out = []
    for i, s in enumerate(state.seats):
        if s is not None and s.user is not None:
            side = state.side_of(i)
            out.append(
                RecordPlayer(
                    user_id=s.user,
                    seat=i,
                    side=side,
                    won=None if winner is None else side == winner,
                )
            )
    return out


class TableManager:
    """The tables in play on this node and the lobby's subscribers."""

    def __init__(
        self,
        store: Store,
        *,
        bot_delay: float = 0.8,
        grace: float = 1.0,
        deal_pause: float = 2.0,
        test_mode: bool = False,
        settings: Settings | None = None,
        bots: BotPool | None = None,
    ) -> None:
        self.store = store
        self.bots = bots  # worker processes for the search bots (tables/botpool.py)
        self.bot_delay = bot_delay
        self.grace = grace
        self.deal_pause = deal_pause
        self.test_mode = test_mode
        #: The limits per account and the open tables' expiry (the "limits" settings).
        self.limits = settings if settings is not None else Settings()
        self.tables: dict[str, TableActor] = {}
        self.invites: dict[str, str | None] = {}  # table -> invite hash (private tables)
        self._reapers: set[asyncio.Task[None]] = set()
        #: Set by `cirulla serve --redis-url`: tables shared with other nodes.
        self.cluster: Cluster | None = None
        #: The lobby list and its subscribers (tables/lobby.py).
        self.lobby_board = Lobby(self)
        #: The sweep that closes expired open tables (tables/expiry.py).
        self.expiry = Expiry(self)
        #: The sweep that saves finished partite's missing records (tables/records.py).
        self.record_keeper = RecordKeeper(self)
        #: Open tables and search-bot seats per account (tables/limits.py).
        self.account_limits = AccountLimits(store, self.limits)
        #: How tables are made and who may sit (tables/opening.py).
        self.opening = Opening(self)
        #: Who is told when a table ends (a tournament's director), by table id.
        self._end_hooks: dict[str, Callable[[TableActor], None]] = {}
        #: Who is told of every table that ends (finished or closed) on this node: the
        #: ledger, the ratings, the statistics. Each must be idempotent and catch up by
        #: itself at start-up, since a node can die between the end and the call.
        self.end_listeners: list[Callable[[TableActor], Awaitable[None]]] = []
        self._ended: set[str] = set()
        #: Checks a person passes before sitting (at a table or one they create): each
        #: raises TableError to refuse, e.g. a playban (competition/playban.py).
        self.sit_guards: list[Callable[[str, TableConfig], Awaitable[None]]] = []
        #: The chips a table's new records move (competition/cash.py; set before `restore`).
        self.movements: Callable[[TableState, list[Any], list[LogRecord]], Any] | None = None
        self._listening: set[asyncio.Task[None]] = set()
        #: Each user's sockets on this node (tournament notices go to all of them).
        self._user_subs: dict[str, set[Subscriber]] = {}

    def add_actor(self, state: TableState, records: list[LogRecord]) -> TableActor:
        """The actor of a table made or rebuilt here, played on this node from now on."""
        actor = TableActor(
            state,
            records,
            self.store,
            bot_delay=self.bot_delay,
            grace=self.grace,
            deal_pause=self.deal_pause,
            on_change=self._changed,
            seat_rows=_seat_rows,
            players_of=_players_of,
            bots=self.bots,
            movements=self.movements,
        )
        self.tables[state.id] = actor
        return actor

    # ---- restoring -------------------------------------------------------------------
    def on_end(self, table_id: str, hook: Callable[[TableActor], None]) -> None:
        """Call `hook(actor)` once the table's partita ends here (or at once if it has)."""
        actor = self.tables.get(table_id)
        if actor is not None and actor.state.status in ("finished", "closed"):
            hook(actor)
            return
        self._end_hooks[table_id] = hook

    def notify_user(self, user_id: str, frame: dict[str, Any]) -> int:
        """Send `frame` to every socket of `user_id` on this node; how many got it."""
        subs = list(self._user_subs.get(user_id, ()))
        for sub in subs:
            sub.deliver(frame)
        return len(subs)

    async def restore(self) -> int:
        """Rebuild every table that was open or in play when the server stopped, and
        those that ended less than LINGER_SECONDS ago (their clients may come back for
        the end); save any finished partita's record a crash kept from being saved."""
        now = datetime.now(UTC)
        recent = await self.store.ended_since(now - timedelta(seconds=LINGER_SECONDS))
        unrecorded = await self.store.finished_without_record()
        rows = await self.store.live_tables()
        restored = 0
        for row in [*rows, *recent, *(r for r in unrecorded if r.id not in {t.id for t in recent})]:
            if self.cluster is not None and not await self.cluster.bus.claim(row.id):
                continue  # another node has it
            actor = await self.rebuild(row)
            if actor is None:
                continue
            restored += 1
            if row.status in ("open", "playing"):
                await actor.catch_up()
                self.expiry.watch_from_log(actor)
                continue
            if row.status == "finished" and row.id in {u.id for u in unrecorded}:
                await actor.save_record()
            if row in recent:
                left = LINGER_SECONDS - (now - row.updated_at).total_seconds()
                self._reap_later(actor, max(0.0, left))
            else:
                actor.close()
                del self.tables[row.id]
        log.info("restored %d tables", restored)
        await self.expiry.sweep()  # tables that should have closed while the server was down
        self.expiry.soon()
        self.record_keeper.start()
        return restored

    async def adopt(self, table_id: str) -> TableActor:
        """(cluster) Rebuild a table from the shared store, whose lease this node now holds."""
        row = await self.store.get_table(table_id)
        if row is None:
            raise TableError("unknown_table", f"there is no table {table_id!r}")
        actor = await self.rebuild(row)
        if actor is None:
            raise TableError("unavailable", f"table {table_id} cannot be rebuilt")
        if row.status in ("open", "playing"):
            await actor.catch_up()
            self.expiry.watch_from_log(actor)
            self.expiry.soon()
        else:  # ended: reachable for its clients for what is left of the linger
            left = LINGER_SECONDS - (datetime.now(UTC) - row.updated_at).total_seconds()
            self._reap_later(actor, max(0.0, left))
        return actor

    async def rebuild(self, row: TableRow) -> TableActor | None:
        """The table folded again from its stored log, held here (None: its log does
        not fold, which is logged)."""
        records = await self.store.load_log(row.id)
        secrets = await self.store.load_secrets(row.id)
        try:
            state = TableState.from_log(row.id, records, secrets)
        except (TableError, ValueError) as exc:
            log.error("table %s cannot be rebuilt from its log: %s", row.id, exc)
            return None
        self.invites[row.id] = row.invite_hash
        actor = self.add_actor(state, records)
        self.lobby_board.rebuilt(actor)
        return actor

    # ---- finding ----------------------------------------------------------------------
    def get(self, table_id: str) -> TableActor:
        actor = self.tables.get(table_id)
        if actor is None:
            raise TableError("unknown_table", f"there is no table {table_id!r}")
        return actor

    async def route(self, table_id: str) -> TableActor | RemoteTable:
        """The table's actor, or (in a cluster) a handle on the node that owns it."""
        actor = self.tables.get(table_id)
        if actor is not None:
            return actor
        if self.cluster is None:
            raise TableError("unknown_table", f"there is no table {table_id!r}")
        return await self.cluster.route(table_id)

    async def may_enter(
        self, table: TableActor | RemoteTable, user: str | None, invite: str | None
    ) -> bool:
        if isinstance(table, TableActor):
            return self.may_enter_here(table.id, user, invite)
        return await table.may_enter(user, invite)

    async def summary_of(self, table: TableActor | RemoteTable) -> dict[str, Any]:
        if isinstance(table, TableActor):
            return self.summary(table)
        return await table.summary()

    def attach(self, watcher: Watcher) -> None:
        """A client socket opened (a cluster joins it again where its tables move)."""
        if watcher.user is not None:
            self._user_subs.setdefault(watcher.user, set()).add(watcher)
        if self.cluster is not None:
            self.cluster.attach(watcher)

    def detach(self, watcher: Watcher) -> None:
        for table_id in watcher.watching:
            actor = self.tables.get(table_id)
            if actor is not None:
                actor.unsubscribe(watcher)
        self.unsubscribe_lobby(watcher)
        if watcher.user is not None:
            mine = self._user_subs.get(watcher.user)
            if mine is not None:
                mine.discard(watcher)
                if not mine:
                    del self._user_subs[watcher.user]
        if self.cluster is not None:
            self.cluster.detach(watcher)

    def may_enter_here(self, table_id: str, user: str | None, invite: str | None) -> bool:
        """A private table lets in its players and whoever holds the invite."""
        expected = self.invites.get(table_id)
        if expected is None:
            return True
        actor = self.tables.get(table_id)
        if actor is not None and user is not None and actor.state.seat_of(user) is not None:
            return True
        return invite is not None and _secrets.compare_digest(invite_hash(invite), expected)

    def summary(self, actor: TableActor) -> dict[str, Any]:
        out = table_summary(actor)
        tournament = actor.records[0].data.get("tournament") if actor.records else None
        if tournament is not None:
            out["tournament"] = tournament
        return out

    # ---- the lobby (tables/lobby.py) ------------------------------------------------------
    def lobby(self) -> list[dict[str, Any]]:
        """Public tables open or in play, as the lobby lists them."""
        return self.lobby_board.tables()

    @property
    def lobby_version(self) -> int:
        return self.lobby_board.version

    def subscribe_lobby(self, sub: Subscriber) -> None:
        """The whole list now; then, as it changes, only its changes."""
        self.lobby_board.subscribe(sub)

    def unsubscribe_lobby(self, sub: Subscriber) -> None:
        self.lobby_board.unsubscribe(sub)

    def _changed(self, actor: TableActor, new: list[LogRecord]) -> None:
        if actor.state.status in ("finished", "closed"):
            self._reap_later(actor)
            hook = self._end_hooks.pop(actor.id, None)
            if hook is not None:
                try:
                    hook(actor)
                except Exception:
                    log.exception("table %s: the end hook failed", actor.id)
            if actor.id not in self._ended:
                self._ended.add(actor.id)
                self.tell_end(actor)
        self.lobby_board.changed(actor, new)

    def tell_end(self, actor: TableActor) -> None:
        """Tell the end listeners, in the background, that `actor` ended."""

        async def tell() -> None:
            for listener in list(self.end_listeners):
                try:
                    await listener(actor)
                except Exception:  # each listener catches up at the next start-up
                    log.exception("table %s: an end listener failed", actor.id)

        task = asyncio.create_task(tell())
        self._listening.add(task)
        task.add_done_callback(self._listening.discard)

    # ---- tables that end ----------------------------------------------------------------
    def _reap_later(self, actor: TableActor, delay: float = LINGER_SECONDS) -> None:
        async def reap() -> None:
            await asyncio.sleep(delay)
            actor.close()
            if self.tables.get(actor.id) is actor:
                del self.tables[actor.id]
                self._ended.discard(actor.id)
                if self.cluster is not None:
                    await self.cluster.bus.release(actor.id)

        task = asyncio.create_task(reap())
        self._reapers.add(task)
        task.add_done_callback(self._reapers.discard)

    def close(self) -> None:
        for actor in self.tables.values():
            actor.close()
        for task in self._reapers:
            task.cancel()
        self.expiry.close()
        self.record_keeper.close()
