"""The WebSocket: one per client, carrying commands in and table and lobby events out.

The socket layer knows the protocol (docs/protocol.md), not the game: it checks
frames, sessions, origins, floods, repeated and stale commands, then hands each
command to the table's actor, which alone decides.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import OrderedDict
from typing import Any
from urllib.parse import urlsplit

import orjson
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from ..settings import Settings
from ..store import UserRow
from ..tables.manager import TableManager
from ..tables.state import TableError
from .protocol import COMMAND
from .security import SESSION_COOKIE, user_from_token

__all__ = ["ActionMemory", "router"]

log = logging.getLogger("cirulla.socket")
router = APIRouter()

POLICY_VIOLATION = 1008
OUTBOX_LIMIT = 5000  # frames waiting for a client that does not read: it is cut off


def _encode(frame: dict[str, Any]) -> str:
    """JSON text of a frame; orjson, since encoding views is much of a busy server's work."""
    return orjson.dumps(frame, option=orjson.OPT_NON_STR_KEYS).decode()


class ActionMemory:
    """The answer to each recent action id, per user, so a repeated command is
    answered again and never applied twice (even from a new connection)."""

    def __init__(self, per_user: int = 256) -> None:
        self.per_user = per_user
        self._answers: dict[str, OrderedDict[str, dict[str, Any]]] = {}

    def get(self, user: str, action: str) -> dict[str, Any] | None:
        return self._answers.get(user, OrderedDict()).get(action)

    def put(self, user: str, action: str, answer: dict[str, Any]) -> None:
        answers = self._answers.setdefault(user, OrderedDict())
        answers[action] = answer
        while len(answers) > self.per_user:
            answers.popitem(last=False)


def origin_allowed(origin: str | None, host: str | None, settings: Settings) -> bool:
    """Browsers always send Origin: it must be this server or an allowed origin.
    A client with no Origin is not a browser, so no other site can drive it."""
    if origin is None:
        return True
    if "*" in settings.allowed_origins or origin in settings.allowed_origins:
        return True
    return host is not None and urlsplit(origin).netloc == host


class _Bucket:
    """Token bucket: `rate` commands a second on average, bursts up to `burst`."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.stamp = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Connection:
    """One client's socket: its outbox, the tables it watches, its limits."""

    def __init__(
        self,
        ws: WebSocket,
        user: UserRow,
        settings: Settings,
        tables: TableManager,
        memory: ActionMemory,
    ) -> None:
        self.ws = ws
        self.account = user
        self.user: str | None = user.id  # the Subscriber protocol's field
        self.settings = settings
        self.tables = tables
        self.memory = memory
        self.watching: set[str] = set()
        self.seen: dict[str, int] = {}  # table -> the last version sent (to rejoin from)
        self.outbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.bucket = _Bucket(settings.flood_per_second, settings.flood_burst)
        self.bad_frames = 0
        self.closing: int | None = None

    # Subscriber
    def deliver(self, frame: dict[str, Any]) -> None:
        if self.closing is not None:
            return
        if self.outbox.qsize() >= OUTBOX_LIMIT:
            self.closing = POLICY_VIOLATION
            self.outbox.put_nowait(None)
            return
        table, version = frame.get("table"), frame.get("version")
        if table is not None and version is not None:
            self.seen[table] = version
        self.outbox.put_nowait(frame)

    async def sender(self) -> None:
        while True:
            frame = await self.outbox.get()
            if frame is None:
                return
            try:
                text = _encode(frame)
            except TypeError:  # a bug: say so and cut the client off rather than go quiet
                log.exception(
                    "cannot encode a %s frame for %s", frame.get("type"), self.account.name
                )
                self.closing = 1011
                with contextlib.suppress(Exception):
                    await self.ws.close(code=1011)
                return
            await self.ws.send_text(text)

    async def run(self) -> None:
        sender = asyncio.create_task(self.sender())
        self.tables.attach(self)
        self.deliver(
            {
                "type": "welcome",
                "user": {"id": self.account.id, "name": self.account.name},
                "time": int(time.time() * 1000),
            }
        )
        try:
            while self.closing is None:
                message = await self.ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    raw = message.get("bytes") or b""
                    size = len(raw)
                    try:
                        text = raw.decode()
                    except UnicodeDecodeError:
                        text = None
                else:
                    size = len(text.encode())
                await self.handle(text, size)
        except WebSocketDisconnect:
            pass
        finally:
            self.tables.detach(self)
            if self.closing is not None:
                self.outbox.put_nowait(None)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(sender, 2.0)
                with contextlib.suppress(Exception):
                    await self.ws.close(code=self.closing)
            sender.cancel()

    # ---- one frame ------------------------------------------------------------------
    def _bad(self, action: Any, code: str, message: str) -> None:
        self.bad_frames += 1
        self.deliver({"type": "error", "action": action, "code": code, "message": message})
        if self.bad_frames > self.settings.bad_frames_allowed:
            self._cut(f"too many bad frames ({self.bad_frames})")

    def _cut(self, reason: str) -> None:
        log.info("closing socket of %s: %s", self.account.name, reason)
        self.deliver({"type": "error", "action": None, "code": "disconnected", "message": reason})
        self.closing = POLICY_VIOLATION
        self.outbox.put_nowait(None)

    async def handle(self, text: str | None, size: int) -> None:
        if not self.bucket.take():
            self._cut("too many commands: slow down")
            return
        if size > self.settings.max_frame:
            self._bad(
                None,
                "frame_too_large",
                f"a frame may hold at most {self.settings.max_frame} bytes, not {size}",
            )
            return
        try:
            raw = json.loads(text) if text is not None else None
        except json.JSONDecodeError as exc:
            self._bad(None, "bad_json", f"the frame is not JSON: {exc.msg} at character {exc.pos}")
            return
        action = raw.get("action") if isinstance(raw, dict) else None
        try:
            cmd = COMMAND.validate_python(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "frame"
            self._bad(
                action if isinstance(action, str) else None,
                "bad_command",
                f"{where}: {first['msg']}",
            )
            return
        if cmd.type == "ping":
            self.deliver({"type": "pong", "action": cmd.action, "time": int(time.time() * 1000)})
            return
        earlier = self.memory.get(self.account.id, cmd.action)
        if earlier is not None:  # a repeat: the same answer, nothing applied again
            self.deliver({**earlier, "repeated": True})
            return
        try:
            version = await self.dispatch(cmd)
            answer: dict[str, Any] = {"type": "ack", "action": cmd.action, "version": version}
        except TableError as exc:
            answer = {
                "type": "error",
                "action": cmd.action,
                "code": exc.code,
                "message": exc.message,
            }
            if exc.code == "stale":
                self.memory.put(self.account.id, cmd.action, answer)
                self.deliver(answer)
                await self._resync(cmd.table)
                return
        self.memory.put(self.account.id, cmd.action, answer)
        self.deliver(answer)

    async def _resync(self, table_id: str) -> None:
        await (await self.tables.route(table_id)).resync(self)

    async def dispatch(self, cmd: Any) -> int | None:
        kind = cmd.type
        if kind == "lobby":
            if cmd.watch:
                self.tables.subscribe_lobby(self)
            else:
                self.tables.unsubscribe_lobby(self)
            return self.tables.lobby_version
        store = self.ws.app.state.store
        if kind == "auto_declare":
            fresh = await store.get_user(self.account.id)
            options = dict(fresh.options if fresh is not None else {})
            options["auto_declare"] = cmd.on
            await store.set_options(self.account.id, options)
            for table_id in list(self.watching):
                table = await self.tables.route(table_id)
                await table.set_auto_declare(self.account.id, cmd.on)
            return None
        actor = await self.tables.route(cmd.table)
        user = self.account.id
        if kind == "join":
            if not await self.tables.may_enter(actor, user, cmd.invite):
                raise TableError("private_table", "this table is private: you need its invite link")
            self.watching.add(cmd.table)
            return await actor.join(self, cmd.since)
        if kind == "leave":
            self.watching.discard(cmd.table)
            return await actor.leave(self)
        # The table checks `version` under its lock: a stale command is never applied.
        if kind == "sit":
            if not await self.tables.may_enter(actor, user, cmd.invite):
                raise TableError("private_table", "this table is private: you need its invite link")
            fresh = await store.get_user(user)
            options = fresh.options if fresh is not None else self.account.options
            auto = bool(options.get("auto_declare", True))
            if cmd.table not in self.watching:  # watch first, so the seat's own event arrives
                self.watching.add(cmd.table)
                await actor.join(self, cmd.version)
            return await actor.sit(user, self.account.name, cmd.seat, auto, cmd.version)
        if kind == "stand":
            return await actor.stand(user, cmd.version)
        if kind == "play":
            return await actor.play(user, cmd.move, cmd.version)
        if kind == "abandon":
            return await actor.abandon(user, cmd.version)
        raise TableError("bad_command", f"unknown command {kind!r}")  # pragma: no cover


@router.websocket("/ws")
async def socket(ws: WebSocket) -> None:
    app = ws.app
    settings: Settings = app.state.settings
    if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), settings):
        await ws.close(code=POLICY_VIOLATION, reason="origin not allowed")
        return
    user = await user_from_token(app.state.store, ws.cookies.get(SESSION_COOKIE))
    if user is None:
        await ws.close(code=POLICY_VIOLATION, reason="not logged in")
        return
    await ws.accept()
    await Connection(ws, user, settings, app.state.tables, app.state.actions).run()
