"""The lobby: the list of public tables open or in play, and its subscribers.

Apart from the manager because it is an idea of its own: each listed table's entry
cached as of its last change the lobby shows, the order and the cap of the list, the
versioned frames that push only what changed, and (in a cluster) the list every node
shares through Redis. The manager owns one `Lobby` and tells it when a table changes.
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..eventlog import LogRecord
from .actor import Subscriber, TableActor

if TYPE_CHECKING:
    from .manager import TableManager

__all__ = ["LOBBY_OPEN_MAX", "LOBBY_PLAYING_MAX", "LOBBY_RECORDS", "Lobby", "table_summary"]

#: The records that change what the lobby shows of a table: its seats, its status,
#: its totals (after each smazzata). Moves do not, so they send no lobby update.
LOBBY_RECORDS = frozenset(
    {"created", "sat", "stood", "started", "revealed", "forfeit", "ended", "closed"}
)

#: The most tables the lobby lists of each status, newest first: a lobby frame stays
#: well under a megabyte however many tables there are (docs/protocol.md).
LOBBY_OPEN_MAX = 200
LOBBY_PLAYING_MAX = 200


def _lobby_order(entry: dict[str, Any]) -> tuple[bool, int, str]:
    """Open tables first, then newest first, then by id (clients sort the same way)."""
    return (entry["status"] != "open", -int(entry.get("created") or 0), str(entry["id"]))


def _bounded(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lobby as listed: at most LOBBY_OPEN_MAX open and LOBBY_PLAYING_MAX playing."""
    entries = list(entries)
    listed = heapq.nsmallest(
        LOBBY_OPEN_MAX, (e for e in entries if e["status"] == "open"), key=_lobby_order
    )
    listed += heapq.nsmallest(
        LOBBY_PLAYING_MAX, (e for e in entries if e["status"] != "open"), key=_lobby_order
    )
    return listed


def table_summary(actor: TableActor) -> dict[str, Any]:
    """A table as the lobby lists it (and as a client asking for it is told)."""
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
        "stake": st.config.stake,  # a cash table's chips a point (0: not one)
        "max_loss": st.config.max_loss,
        "config": st._config_json,  # the whole config (stake, max_loss, rated ... in it)
        "totals": st.totals,
        "version": st.version,
        "created": actor.records[0].at,
    }


class Lobby:
    """The manager's tables as the lobby lists them, and the lobby's subscribers."""

    def __init__(self, manager: TableManager) -> None:
        self.manager = manager
        #: Each lobby subscriber with the last lobby version it was sent.
        self.subscribers: dict[Subscriber, int] = {}
        self.version = 0
        self._pending = False
        #: Each listed table's lobby entry as of its last change the lobby shows.
        self.entries: dict[str, dict[str, Any]] = {}
        #: The list last pushed (by id) and its version: the base of the next changes.
        self._base: tuple[dict[str, dict[str, Any]], int] | None = None
        self._dirty: set[str] = set()  # (cluster) tables whose lobby entry changed
        self._shared: list[dict[str, Any]] = []  # (cluster) every node's entries

    def tables(self) -> list[dict[str, Any]]:
        """Public tables open or in play, open ones first, newest first, at most
        LOBBY_OPEN_MAX open and LOBBY_PLAYING_MAX playing. An entry is the table as of
        its last change the lobby shows (so a playing table's `version` may be behind)."""
        if self.manager.cluster is not None:
            return self._shared
        return _bounded(self.entries.values())

    def note(self, actor: TableActor) -> None:
        """Keep (or drop) the table's lobby entry after a change the lobby shows."""
        st = actor.state
        if st.config.private or st.status not in ("open", "playing"):
            self.entries.pop(actor.id, None)
        else:
            self.entries[actor.id] = table_summary(actor)

    def forget_gone(self) -> None:
        """Drop the entries of tables no longer here (a table whose lease another node took)."""
        for gone in [t for t in self.entries if t not in self.manager.tables]:
            self.entries.pop(gone, None)

    def rebuilt(self, actor: TableActor) -> None:
        """A table rebuilt on this node (start-up, failover) is listed again."""
        self.note(actor)
        if self.manager.cluster is not None:  # the lobby hears of it from its new node
            self._dirty.add(actor.id)
            self._soon()

    # ---- lobby updates ------------------------------------------------------------------
    def subscribe(self, sub: Subscriber) -> None:
        """The whole list now; then, as it changes, only its changes (`_push`)."""
        tables = self.tables()
        self.subscribers[sub] = self.version
        if self._base is None:  # the base of the next changes: this list
            self._base = ({e["id"]: e for e in tables}, self.version)
        sub.deliver({"type": "lobby", "version": self.version, "tables": tables})

    def unsubscribe(self, sub: Subscriber) -> None:
        self.subscribers.pop(sub, None)

    def changed(self, actor: TableActor, new: list[LogRecord]) -> None:
        if not any(r.type in LOBBY_RECORDS for r in new):
            return  # a move or a deal: nothing the lobby shows
        self.note(actor)
        if self.manager.cluster is not None:  # the shared version moves when published
            self._dirty.add(actor.id)
            self._soon()
            return
        # The version moves with the list at once, so a list read now (a newcomer's, the
        # HTTP one) carries the version of what it shows; only the push waits.
        self.version += 1
        self._soon()

    def _soon(self) -> None:
        if not self._pending:  # coalesce a burst of changes into one update
            self._pending = True
            asyncio.get_running_loop().call_later(0.05, self._send)

    def _send(self) -> None:
        self._pending = False
        cluster = self.manager.cluster
        if cluster is not None:
            entries = {t: self.entry(t) for t in self._dirty}
            self._dirty.clear()
            cluster.publish_lobby(entries)  # every node, this one too, then reads it
            return
        self._push()

    def _push(self) -> None:
        """Send each subscriber behind the lobby's version what changed since the list it
        holds: the changes since the last push to those that hold that push's list, the
        whole list to the rest (who subscribed between a change and its push)."""
        subs = self.subscribers
        if not subs:
            self._base = None  # nobody holds a list: the next one is sent whole
            return
        version = self.version
        tables = self.tables()
        current = {e["id"]: e for e in tables}
        base = self._base
        self._base = (current, version)
        behind = [(s, seen) for s, seen in subs.items() if seen < version]
        if not behind:
            return  # everyone subscribed since the change and was sent the list then
        whole = {"type": "lobby", "version": version, "tables": tables}
        changes: dict[str, Any] | None = None
        if base is not None:
            before, since = base
            changes = {
                "type": "lobby",
                "version": version,
                "since": since,
                "changes": {
                    "set": [e for i, e in current.items() if before.get(i) != e],
                    "remove": [i for i in before if i not in current],
                },
            }
        for sub, seen in behind:
            subs[sub] = version
            if changes is not None and seen == changes["since"]:
                sub.deliver(changes)
            else:
                sub.deliver(whole)

    def entry(self, table_id: str) -> dict[str, Any] | None:
        """(cluster) The entry this node publishes for a table: None if it is not here."""
        if table_id not in self.manager.tables:
            return None
        return self.entries.get(table_id)

    def shared(self, version: int, entries: list[dict[str, Any]]) -> None:
        """(cluster) Every node's lobby entries as Redis has them: keep and push them."""
        if version < self.version:
            return  # an older read that finished late
        self._shared = _bounded(entries)
        self.version = version
        self._push()
