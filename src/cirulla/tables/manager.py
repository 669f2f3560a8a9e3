"""Every table of this server: creating them, rebuilding them at start-up, the lobby list."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets as _secrets
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..eventlog import LogRecord
from ..shuffle import SHUFFLE_VERSION
from ..store import RecordPlayer, SeatRow, Store, TableRow
from .actor import Subscriber, TableActor, now_ms
from .config import TableConfig
from .state import TableError, TableState

if TYPE_CHECKING:
    from .cluster import Cluster, RemoteTable, Watcher

__all__ = ["TableManager", "invite_hash"]

log = logging.getLogger("cirulla.tables")

#: How long a finished or closed table stays reachable for its clients.
LINGER_SECONDS = 600.0

#: The records that change what the lobby shows of a table: its seats, its status,
#: its totals (after each smazzata). Moves do not, so they send no lobby update.
LOBBY_RECORDS = frozenset(
    {"created", "sat", "stood", "started", "revealed", "forfeit", "ended", "closed"}
)


def invite_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


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
    ) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.grace = grace
        self.deal_pause = deal_pause
        self.test_mode = test_mode
        self.tables: dict[str, TableActor] = {}
        self.invites: dict[str, str | None] = {}  # table -> invite hash (private tables)
        #: Each lobby subscriber with the last lobby version it was sent.
        self.lobby_subscribers: dict[Subscriber, int] = {}
        self.lobby_version = 0
        self._lobby_pending = False
        self._reapers: set[asyncio.Task[None]] = set()
        #: Set by `cirulla serve --redis-url`: tables shared with other nodes.
        self.cluster: Cluster | None = None
        self._lobby_dirty: set[str] = set()  # (cluster) tables whose lobby entry changed
        self._lobby_shared: list[dict[str, Any]] = []  # (cluster) every node's entries

    def _actor(self, state: TableState, records: list[LogRecord]) -> TableActor:
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
        )
        self.tables[state.id] = actor
        return actor

    # ---- creating and restoring -----------------------------------------------------
    async def create(
        self,
        owner: str,
        owner_name: str,
        config: TableConfig,
        *,
        seat: int | None = None,
        auto_declare: bool = True,
        decks: list[list[str]] | None = None,
        dealer: int | None = None,
    ) -> tuple[TableActor, str | None]:
        """A new table with its bots seated and its creator at `seat` (the first free one
        if None); returns the actor and, for a private table, the invite token."""
        if (decks is not None or dealer is not None) and not self.test_mode:
            raise TableError("test_mode_only", "stacked decks are only for a server in test mode")
        if seat is not None and (seat in config.bots or not 0 <= seat < config.players):
            raise TableError("bad_seat", f"seat {seat} is not free at this table")
        table_id = _secrets.token_urlsafe(8)
        if self.cluster is not None and not await self.cluster.bus.claim(table_id):
            raise TableError("unavailable", "could not reserve a table id: try again")
        token = _secrets.token_urlsafe(16) if config.private else None
        data: dict[str, Any] = {
            "config": config.model_dump(mode="json"),
            "owner": owner,
            "shuffle": SHUFFLE_VERSION,
        }
        if decks is not None:
            data["decks"] = decks
        if dealer is not None:
            data["dealer"] = dealer
        first = LogRecord.first("created", data, now_ms())
        state = TableState.from_log(table_id, [first])  # checks decks and dealer too
        if decks is not None:
            _check_decks(decks, config)
        await self.store.create_table(
            table_id,
            game=config.preset,
            config=config.model_dump(mode="json"),
            private=config.private,
            invite_hash=invite_hash(token) if token else None,
            owner=owner,
            first=first,
        )
        self.invites[table_id] = invite_hash(token) if token else None
        actor = self._actor(state, [first])
        async with actor._lock:
            steps: list[tuple[str, dict[str, Any]]] = [
                (
                    "sat",
                    {
                        "seat": s,
                        "user": None,
                        "name": _bot_name(level, s),
                        "bot": level,
                        "auto_declare": True,
                    },
                )
                for s, level in sorted(config.bots.items())
            ]
            free = [i for i in range(config.players) if i not in config.bots]
            mine = free[0] if seat is None else seat
            steps.append(
                (
                    "sat",
                    {
                        "seat": mine,
                        "user": owner,
                        "name": owner_name,
                        "bot": None,
                        "auto_declare": auto_declare,
                    },
                )
            )
            await actor._commit(steps)
        return actor, token

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
            actor = await self._rebuild(row)
            if actor is None:
                continue
            restored += 1
            if row.status in ("open", "playing"):
                await actor.catch_up()
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
        return restored

    async def adopt(self, table_id: str) -> TableActor:
        """(cluster) Rebuild a table from the shared store, whose lease this node now holds."""
        row = await self.store.get_table(table_id)
        if row is None:
            raise TableError("unknown_table", f"there is no table {table_id!r}")
        actor = await self._rebuild(row)
        if actor is None:
            raise TableError("unavailable", f"table {table_id} cannot be rebuilt")
        if row.status in ("open", "playing"):
            await actor.catch_up()
        else:  # ended: reachable for its clients for what is left of the linger
            left = LINGER_SECONDS - (datetime.now(UTC) - row.updated_at).total_seconds()
            self._reap_later(actor, max(0.0, left))
        return actor

    async def _rebuild(self, row: TableRow) -> TableActor | None:
        records = await self.store.load_log(row.id)
        secrets = await self.store.load_secrets(row.id)
        try:
            state = TableState.from_log(row.id, records, secrets)
        except (TableError, ValueError) as exc:
            log.error("table %s cannot be rebuilt from its log: %s", row.id, exc)
            return None
        self.invites[row.id] = row.invite_hash
        if self.cluster is not None:  # the lobby hears of it from its new node
            self._lobby_dirty.add(row.id)
            self._lobby_soon()
        return self._actor(state, records)

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
        if self.cluster is not None:
            self.cluster.attach(watcher)

    def detach(self, watcher: Watcher) -> None:
        for table_id in watcher.watching:
            actor = self.tables.get(table_id)
            if actor is not None:
                actor.unsubscribe(watcher)
        self.unsubscribe_lobby(watcher)
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
        st = actor.state
        return {
            "id": st.id,
            "name": st.config.name,
            "preset": st.config.preset,
            "game": st.config.game,
            "family": st.rules.game if st.config.game == "cirulla" else "cirulo",
            "players": st.config.players,
            "status": st.status,
            "private": st.config.private,
            "seats": [None if s is None else s.public() for s in st.seats],
            "move_seconds": st.config.move_seconds,
            "partita_seconds": st.config.partita_seconds,
            "target": getattr(st.rules, "target", None),
            "hands": st.rules.hands,
            "point_value": getattr(st.rules, "point_value", None),  # Cirulo: chips per point
            "totals": st.totals,
            "version": st.version,
            "created": actor.records[0].at,
        }

    def lobby(self) -> list[dict[str, Any]]:
        """Public tables open or in play, open ones first, newest first."""
        if self.cluster is not None:
            return self._lobby_shared
        live = [
            a
            for a in self.tables.values()
            if a.state.status in ("open", "playing") and not a.state.config.private
        ]
        live.sort(key=lambda a: (a.state.status != "open", -a.records[0].at))
        return [self.summary(a) for a in live]

    # ---- lobby updates ------------------------------------------------------------------
    def subscribe_lobby(self, sub: Subscriber) -> None:
        self.lobby_subscribers[sub] = self.lobby_version
        sub.deliver({"type": "lobby", "version": self.lobby_version, "tables": self.lobby()})

    def unsubscribe_lobby(self, sub: Subscriber) -> None:
        self.lobby_subscribers.pop(sub, None)

    def _changed(self, actor: TableActor, new: list[LogRecord]) -> None:
        if actor.state.status in ("finished", "closed"):
            self._reap_later(actor)
        if not any(r.type in LOBBY_RECORDS for r in new):
            return  # a move or a deal: nothing the lobby shows
        if self.cluster is not None:  # the shared version moves when the entry is published
            self._lobby_dirty.add(actor.id)
            self._lobby_soon()
            return
        # The version moves with the list at once, so a list read now (a newcomer's, the
        # HTTP one) carries the version of what it shows; only the push waits.
        self.lobby_version += 1
        self._lobby_soon()

    def _lobby_soon(self) -> None:
        if not self._lobby_pending:  # coalesce a burst of changes into one update
            self._lobby_pending = True
            asyncio.get_running_loop().call_later(0.05, self._send_lobby)

    def _send_lobby(self) -> None:
        self._lobby_pending = False
        if self.cluster is not None:
            entries = {t: self._lobby_entry(t) for t in self._lobby_dirty}
            self._lobby_dirty.clear()
            self.cluster.publish_lobby(entries)  # every node, this one too, then reads it
            return
        self._push_lobby()

    def _push_lobby(self) -> None:
        behind = [s for s, seen in self.lobby_subscribers.items() if seen < self.lobby_version]
        if not behind:
            return  # everyone subscribed since the change and was sent the list then
        frame = {"type": "lobby", "version": self.lobby_version, "tables": self.lobby()}
        for sub in behind:
            self.lobby_subscribers[sub] = self.lobby_version
            sub.deliver(frame)

    def _lobby_entry(self, table_id: str) -> dict[str, Any] | None:
        actor = self.tables.get(table_id)
        if actor is None or actor.state.config.private:
            return None
        if actor.state.status not in ("open", "playing"):
            return None
        return self.summary(actor)

    def shared_lobby(self, version: int, entries: list[dict[str, Any]]) -> None:
        """(cluster) Every node's lobby entries as Redis has them: keep and push them."""
        if version < self.lobby_version:
            return  # an older read that finished late
        entries.sort(key=lambda e: (e["status"] != "open", -e.get("created", 0)))
        self._lobby_shared = entries
        self.lobby_version = version
        self._push_lobby()

    def _reap_later(self, actor: TableActor, delay: float = LINGER_SECONDS) -> None:
        async def reap() -> None:
            await asyncio.sleep(delay)
            actor.close()
            if self.tables.get(actor.id) is actor:
                del self.tables[actor.id]
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


def _bot_name(level: str, seat: int) -> str:
    return f"bot {level} {seat + 1}"


def _check_decks(decks: list[list[str]], config: TableConfig) -> None:
    rules = config.rules()
    for deck in decks:
        try:
            config.kind.new_game(rules, config.players, 0, 0, deck)
        except ValueError as exc:
            raise TableError("bad_deck", f"stacked deck: {exc}") from None
