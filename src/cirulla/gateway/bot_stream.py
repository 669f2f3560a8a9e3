"""The bot event stream: `GET /api/bot/stream`, newline-delimited JSON (docs/bots.md).

A stream is to a bot what a WebSocket is to a browser, one way: the same table frames
(a `sync` of each table the bot sits at when the stream opens, then its `event`
frames, filtered for the bot's seat), the tournament notices a socket gets, the
invitations sent to the bot, and a `ping` line when nothing else was sent for a
while, so that a client and the proxies between notice a dead connection. It is
counted with the sockets (gateway/connections.py: per account, per address, and by
its token, whose revocation ends it), and what waits for a client that does not read
is bounded like a socket's outbox: past it, the stream ends (4001). An ended stream
stops counting and watching at once, without waiting for its client to read its last
line, which it may never do (a socket's TCP connection is dropped then, see
connections.DropConnection; an HTTP response has no such way out): what is left of
it is that line and the server's socket buffers, until the client reads or goes.

Unlike a socket, a stream sends whole views: where a socket's event carries a view's
`changes`, the stream applies them itself, and each view's deal carries its history
(which a socket's events leave to the client to keep). So the `deal` of any view a
bot reads is exactly `deal.view(seat)`, ready for `cirulla.bots.SeatView`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import AsyncIterator
from typing import Any, Final

import orjson
from fastapi import FastAPI

from ..tables.manager import TableManager
from ..tables.patches import apply_changes
from ..tables.state import TableError
from .bot_auth import BotAuth, identity_lookup
from .connections import Connections
from .frames import encode

__all__ = ["KEEPALIVE_SECONDS", "BotStream", "follow_table", "streams_of"]

log = logging.getLogger("cirulla.bots")

#: Seconds without a line after which the stream sends a `ping` line.
KEEPALIVE_SECONDS: Final = 10.0
#: Seconds between two looks at whether the server is stopping (then the stream ends).
STOP_CHECK: Final = 0.5
#: Close codes written in a stream's last line (`end`), as the socket's.
TOO_SLOW: Final = 4001
SERVER_RESTARTS: Final = 1012


def streams_of(app: FastAPI, user_id: str) -> set[BotStream]:
    """The open streams of a bot on this node."""
    return set(_registry(app).get(user_id, ()))


def _registry(app: FastAPI) -> dict[str, set[BotStream]]:
    """Each bot's open streams on this node, made with the first."""
    registry: dict[str, set[BotStream]] | None = getattr(app.state, "bot_streams", None)
    if registry is None:
        registry = app.state.bot_streams = {}
    return registry


async def follow_table(app: FastAPI, user_id: str, table_id: str) -> None:
    """Make every open stream of the bot follow a table it now sits at."""
    for stream in streams_of(app, user_id):
        await stream.follow(table_id)


class BotStream:
    """One open stream: a Subscriber of the bot's tables, counted like a socket."""

    def __init__(self, app: FastAPI, auth: BotAuth, address: str, keepalive: float) -> None:
        self.app = app
        self.account = auth.user
        self.user: str | None = auth.user.id  # the Subscriber protocol's field
        self._session = auth.key
        self._address = address
        self.keepalive = keepalive
        self.watching: set[str] = set()
        self.seen: dict[str, int] = {}
        self.closing: int | None = None
        self._lines: deque[bytes] = deque()
        self._queued = 0
        self._limit: int = app.state.settings.outbox_bytes
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._views: dict[str, dict[str, Any]] = {}  # table -> the view held, no history
        self._history: dict[str, list[Any]] = {}  # table -> the deal's history so far
        self._registered = False

    # the registry's Socket protocol
    @property
    def user_id(self) -> str:
        return self.account.id

    @property
    def address(self) -> str:
        return self._address

    @property
    def session(self) -> str:
        return self._session

    @property
    def tables(self) -> TableManager:
        manager: TableManager = self.app.state.tables
        return manager

    def deliver(self, frame: dict[str, Any]) -> None:
        if self.closing is not None:
            return
        if frame.get("type") in ("event", "sync") and isinstance(frame.get("table"), str):
            frame = self._whole(frame)
        text, size = encode(frame)
        if self._queued and self._queued + size > self._limit:
            log.info(
                "closing the stream of %s: %d bytes wait for it (CIRULLA_OUTBOX_BYTES %d)",
                self.account.name,
                self._queued,
                self._limit,
            )
            self.end(TOO_SLOW, "too slow: open the stream again")
            return
        table, version = frame.get("table"), frame.get("version")
        if table is not None and version is not None:
            self.seen[table] = version
        self._put(text.encode() + b"\n")
        event = frame.get("event") if frame.get("type") == "tournament" else None
        if isinstance(event, dict) and isinstance(event.get("table"), str):
            self._spawn(self.follow(event["table"]))  # a tournament seated the bot

    def _whole(self, frame: dict[str, Any]) -> dict[str, Any]:
        """The frame with a whole view (never `changes`) whose deal holds its history.
        A new dict: the frame given is shared with the table's other subscribers."""
        table = frame["table"]
        if frame["type"] == "sync":
            deal = frame["view"].get("deal")
            self._history[table] = list(deal.get("history", ())) if deal else []
        else:
            record = frame["event"]
            events = list(record.get("events", ()))
            if record.get("type") == "committed":  # a new smazzata: a new history
                self._history[table] = events
            else:
                self._history.setdefault(table, []).extend(events)
        if "changes" in frame:
            base = self._views.get(table)
            changes = frame["changes"]
            frame = {k: v for k, v in frame.items() if k != "changes"}
            if base is not None:  # (always: the table sent this stream its view before)
                frame["view"] = apply_changes(base, changes)
        view = frame.get("view")
        if not isinstance(view, dict):
            return frame
        deal = view.get("deal")
        if isinstance(deal, dict):
            self._views[table] = {**view, "deal": {k: v for k, v in deal.items() if k != "history"}}
            view = {**view, "deal": {**deal, "history": list(self._history.get(table, ()))}}
        else:
            self._views[table] = view
        return {**frame, "view": view}

    def _put(self, line: bytes) -> None:
        self._lines.append(line)
        self._queued += len(line)
        self._wake.set()

    def end(self, code: int, reason: str) -> None:
        """Close the stream after a last `end` line saying why."""
        if self.closing is not None:
            return
        self.closing = code
        self._lines.clear()
        self._queued = 0
        self._put(orjson.dumps({"type": "end", "code": code, "reason": reason}) + b"\n")
        # Not now: this may run inside a table's loop over its subscribers.
        asyncio.get_running_loop().call_soon(self._release)

    def _register(self) -> None:
        """Count the stream with the sockets and let the tables reach it."""
        registry: Connections = self.app.state.connections
        registry.add(self, identity_lookup(self.app.state.store))
        _registry(self.app).setdefault(self.user_id, set()).add(self)
        self.app.state.actions.opened(self.user_id)
        self.tables.attach(self)
        self._registered = True

    def _release(self) -> None:
        """Undo `_register`, once: when the stream ends, or its client goes."""
        if not self._registered:
            return
        self._registered = False
        for task in list(self._tasks):
            task.cancel()
        self.tables.detach(self)
        self.app.state.actions.closed(self.user_id)
        mine = _registry(self.app).get(self.user_id)
        if mine is not None:
            mine.discard(self)
            if not mine:
                del _registry(self.app)[self.user_id]
        registry: Connections = self.app.state.connections
        registry.remove(self)
        self._views.clear()
        self._history.clear()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def follow(self, table_id: str) -> None:
        """Watch a table the bot sits at (from the last version sent, if any)."""
        if table_id in self.watching or self.closing is not None:
            return
        self.watching.add(table_id)
        try:
            actor = await self.tables.route(table_id)
            await actor.join(self, self.seen.get(table_id))
            if not self._registered:  # it ended meanwhile: watch nothing
                self.tables.detach(self)
        except TableError as exc:
            self.watching.discard(table_id)
            log.info("stream of %s cannot follow %s: %s", self.account.name, table_id, exc)
        except Exception as exc:  # the storage or another node is down: the next open retries
            self.watching.discard(table_id)
            log.warning("stream of %s cannot follow %s: %s", self.account.name, table_id, exc)

    async def lines(self) -> AsyncIterator[bytes]:
        """The stream's body: registered on the first line, released when it ends."""
        self._register()
        try:
            welcome = {
                "type": "welcome",
                "user": {"id": self.account.id, "name": self.account.name, "bot": True},
                "time": int(time.time() * 1000),
            }
            self.deliver(welcome)
            for row in await self.app.state.store.live_tables_of(self.user_id):
                await self.follow(row.id)
            stopping = getattr(self.app.state, "stopping", None)
            last = time.monotonic()
            while True:
                while self._lines:
                    line = self._lines.popleft()
                    self._queued -= len(line)
                    last = time.monotonic()
                    yield line
                if self.closing is not None:
                    return
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), min(self.keepalive, STOP_CHECK))
                if stopping is not None and stopping():
                    self.end(SERVER_RESTARTS, "the server is stopping: connect again")
                elif not self._lines and time.monotonic() - last >= self.keepalive:
                    self.deliver({"type": "ping", "time": int(time.time() * 1000)})
        finally:
            self.closing = self.closing or 1000
            self._release()
