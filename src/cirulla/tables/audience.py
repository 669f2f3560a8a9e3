"""Who watches one table, and what each watcher is sent.

Every frame is filtered for the watcher's seat (a spectator gets the spectator's
view), so the hidden cards of one seat never reach another. Kept apart from the
actor, which decides what happens at the table: the audience only fans out what
was committed, and never changes the table.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..eventlog import LogRecord
from .patches import view_changes
from .state import TableState

__all__ = ["REPLAY_LIMIT", "Audience", "Subscriber"]

#: Events kept for a reconnecting client; one further behind gets a full view instead.
REPLAY_LIMIT = 400


class Subscriber(Protocol):
    """A client watching a table (seated or not). `deliver` must not block."""

    user: str | None

    def deliver(self, frame: dict[str, Any]) -> None: ...


class Audience:
    """A table's subscribers and the last view each holds.

    Event frames carry a view's changes (tables/patches.py), made against the views of
    the last broadcast: for each subscriber, the seat and version of the last view it
    got says whether it holds that base. The table's state is passed in, not kept: the
    actor replaces it when it reloads its log.
    """

    def __init__(self) -> None:
        self.subscribers: set[Subscriber] = set()
        self._bases: dict[int | None, dict[str, Any]] = {}
        self._bases_version: int | None = None
        self._seen: dict[Subscriber, tuple[int | None, int]] = {}
        self._watchers_sent: dict[str, Any] = {"count": 0, "names": []}

    @staticmethod
    def viewer(sub: Subscriber, st: TableState) -> int | None:
        return None if sub.user is None else st.seat_of(sub.user)

    def add(
        self, sub: Subscriber, since: int | None, st: TableState, records: list[LogRecord]
    ) -> None:
        """Watch the table; send what `sub` missed since version `since` (or a full view)."""
        self.subscribers.add(sub)
        viewer = self.viewer(sub, st)
        if since is not None and st.version - REPLAY_LIMIT <= since < st.version:
            missed = records[since:]
            for i, rec in enumerate(missed):
                frame = self._event_frame(rec, viewer, st)
                if i == len(missed) - 1:
                    frame["view"] = st.view(viewer, history=False)
                sub.deliver(frame)
        elif since != st.version:
            self.sync(sub, st)
        # (since == version: the client holds this version's view already)
        self._seen[sub] = (viewer, st.version)
        self._send_watchers(st, sub)

    def sync(self, sub: Subscriber, st: TableState) -> None:
        """The whole view again, for a client that lost track of the table."""
        viewer = self.viewer(sub, st)
        view = st.view(viewer)
        sub.deliver({"type": "sync", "table": st.id, "version": st.version, "view": view})
        self._seen[sub] = (viewer, st.version)

    def remove(self, sub: Subscriber, st: TableState) -> None:
        self.subscribers.discard(sub)
        self._seen.pop(sub, None)
        self._send_watchers(st)

    def watchers(self, st: TableState) -> dict[str, Any]:
        """Who watches without a seat: a count and the names this node knows (a client
        on another node counts, unnamed). Names only: nothing of the cards."""
        names: dict[str, str | None] = {}
        anonymous = 0
        for sub in self.subscribers:
            if sub.user is None:
                anonymous += 1
            elif st.seat_of(sub.user) is None:
                names[sub.user] = getattr(getattr(sub, "account", None), "name", None)
        listed = sorted({n for n in names.values() if isinstance(n, str)})
        return {"count": len(names) + anonymous, "names": listed}

    def _send_watchers(self, st: TableState, new: Subscriber | None = None) -> None:
        """A `watchers` frame (unversioned: it changes no view) to everyone when the
        spectators change, else to a newcomer when there are any."""
        current = self.watchers(st)
        if current != self._watchers_sent:
            self._watchers_sent = current
            targets = list(self.subscribers)
        elif new is not None and current["count"]:
            targets = [new]
        else:
            return
        frame = {"type": "watchers", "watching": st.id, **current}
        for sub in targets:
            sub.deliver(frame)

    @staticmethod
    def _event_frame(rec: LogRecord, viewer: int | None, st: TableState) -> dict[str, Any]:
        return {
            "type": "event",
            "table": st.id,
            "version": rec.version,
            "event": st.public_record(rec, viewer),
        }

    def broadcast(self, new: list[LogRecord], st: TableState) -> None:
        """Each record to each subscriber, filtered for its seat; the last one with the
        view (without the deal's history: see `TableState.view`), as its changes since
        the view the subscriber holds when that is the last broadcast's, else whole.
        Frames are made once per seat and kind, since spectators and a player's second
        tab see the same."""
        version = st.version
        subs = [(sub, self.viewer(sub, st)) for sub in self.subscribers]
        if not subs:
            self._bases, self._bases_version = {}, None
            return
        views = st.views({viewer for _, viewer in subs}, history=False)
        bases, bases_version, seen = self._bases, self._bases_version, self._seen
        made: dict[tuple[int | None, bool], list[dict[str, Any]]] = {}
        memo: dict[tuple[int, int], bool] = {}  # the views' shared values, compared once
        for sub, viewer in subs:
            base = bases.get(viewer) if seen.get(sub) == (viewer, bases_version) else None
            key = (viewer, base is not None)
            frames = made.get(key)
            if frames is None:
                frames = made[key] = [self._event_frame(rec, viewer, st) for rec in new]
                if base is None:
                    frames[-1]["view"] = views[viewer]
                else:
                    frames[-1]["changes"] = view_changes(base, views[viewer], memo)
            for frame in frames:
                sub.deliver(frame)
            seen[sub] = (viewer, version)
        self._bases, self._bases_version = views, version
        if any(rec.type in ("sat", "stood") for rec in new):
            self._send_watchers(st)  # a spectator who sits is a player now
