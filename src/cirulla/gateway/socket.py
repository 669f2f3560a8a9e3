"""The WebSocket: one per client, carrying commands in and table and lobby events out.

The socket layer knows the protocol (docs/protocol.md), not the game: it checks
frames, sessions, origins, floods, repeated and stale commands, then hands each
command to the table's actor, which alone decides.

What one client can cost the server is bounded: the bytes queued for it
(`outbox_bytes`; a client that does not read is cut off with 4001), its sockets
(`sockets_per_user`, `sockets_per_address`), its frames (size, rate, bad ones) and
the answers remembered for it (`ActionMemory`). No frame, however hostile, and no
outage of the database or Redis, closes a socket with 1011: each command gets its
one answer.

The frames' encoding and the outbox are in gateway/frames.py, the answers remembered
in gateway/actions.py, outages in gateway/outages.py, the flood bucket in
gateway/ratelimit.py; this module is the connection and its commands.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any, Final
from urllib.parse import urlsplit

import orjson
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from ..settings import Settings
from ..store import UserRow
from ..tables.manager import TableManager
from ..tables.state import TableError
from .actions import ActionMemory
from .bot_auth import bearer_token, identity_lookup, token_identity
from .chat import chat_service
from .connections import ABORT_KEY, Connections
from .frames import Outbox, encode
from .outages import INFRASTRUCTURE_ERRORS, UNAVAILABLE_MESSAGE, log_outage, log_seldom
from .protocol import COMMAND
from .ratelimit import FloodBucket
from .security import SESSION_COOKIE, forget_user, token_hash, user_from_token

__all__ = ["TOO_SLOW", "router"]

log = logging.getLogger("cirulla.socket")
router = APIRouter()

POLICY_VIOLATION: Final = 1008
TRY_AGAIN_LATER: Final = 1013
INTERNAL_ERROR: Final = 1011
#: Close code of a client that does not read its frames as fast as they come.
TOO_SLOW: Final = 4001
#: Seconds a closing socket may take to send its close frame; then it is dropped.
CLOSE_SECONDS: Final = 10.0


# ---- the handshake --------------------------------------------------------------------------
def origin_allowed(origin: str | None, host: str | None, settings: Settings) -> bool:
    """Browsers always send Origin: it must be this server or an allowed origin.
    A client with no Origin is not a browser, so no other site can drive it."""
    if origin is None:
        return True
    if "*" in settings.allowed_origins or origin in settings.allowed_origins:
        return True
    return host is not None and urlsplit(origin).netloc == host


# ---- one socket -----------------------------------------------------------------------------
class Connection:
    """One client's socket: its outbox, the tables it watches, its limits."""

    def __init__(
        self,
        ws: WebSocket,
        user: UserRow,
        settings: Settings,
        tables: TableManager,
        memory: ActionMemory,
        *,
        session: str = "",
        address: str = "unknown",
    ) -> None:
        self.ws = ws
        self.account = user
        self.user: str | None = user.id  # the Subscriber protocol's field
        self.settings = settings
        self.tables = tables
        self.memory = memory
        self._session = session
        self._address = address
        self.watching: set[str] = set()
        self.seen: dict[str, int] = {}  # table -> the last version sent (to rejoin from)
        self._outbox = Outbox(settings.outbox_bytes)
        self._stop = asyncio.Event()
        self._sender: asyncio.Task[None] | None = None
        self._closer: asyncio.Task[None] | None = None
        self.bucket = FloodBucket(settings.flood_per_second, settings.flood_burst)
        self.bad_frames = 0
        #: Set when the socket is closing (the close code), or gone (the peer left).
        self.closing: int | None = None

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

    # Subscriber
    def deliver(self, frame: dict[str, Any]) -> None:
        if self.closing is not None:
            return
        try:
            text, size = encode(frame)
        except orjson.JSONEncodeError:  # a bug: say so and cut the client off rather than go quiet
            log.exception("cannot encode a %s frame for %s", frame.get("type"), self.account.name)
            self.end(INTERNAL_ERROR, "internal error")
            return
        if not self._outbox.fits(size):
            log.info(
                "closing socket of %s: %d bytes wait for it (CIRULLA_OUTBOX_BYTES %d)",
                self.account.name,
                self._outbox.queued,
                self.settings.outbox_bytes,
            )
            self.end(TOO_SLOW, "too slow: connect again and join with since")
            return
        table, version = frame.get("table"), frame.get("version")
        if table is not None and version is not None:
            self.seen[table] = version
        self._outbox.put(text, size)

    def end(self, code: int, reason: str, *, flush: bool = False) -> None:
        """Close the socket with `code`; what is queued is sent first only if `flush`.
        The socket is gone within CLOSE_SECONDS even if the client never reads."""
        if self.closing is not None:
            return
        self.closing = code
        if not flush:
            self._outbox.drop()
        self._closer = asyncio.create_task(self._close(code, reason, flush))

    async def _close(self, code: int, reason: str, flush: bool) -> None:
        sender = self._sender
        try:
            async with asyncio.timeout(CLOSE_SECONDS):
                if sender is not None:
                    if flush:
                        self._outbox.wake()  # it sends what is left, then stops
                    else:
                        sender.cancel()
                    await asyncio.wait({sender})
                await self.ws.close(code=code, reason=reason)
        except TimeoutError:  # it reads nothing: drop the connection, and what waits for it
            self._outbox.drop()
            if sender is not None:
                sender.cancel()
            _abort(self.ws)
        except Exception:  # the peer is gone already
            pass
        finally:
            self._stop.set()

    async def run(self) -> None:
        self._sender = asyncio.create_task(self._outbox.send(self.ws, self._closing))
        stopped = asyncio.create_task(self._stop.wait())
        self.memory.opened(self.account.id)
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
                receive = asyncio.ensure_future(self.ws.receive())
                await asyncio.wait({receive, stopped}, return_when=asyncio.FIRST_COMPLETED)
                if not receive.done():
                    receive.cancel()
                    break
                message = receive.result()
                if message["type"] == "websocket.disconnect":
                    break
                data: str | bytes = message.get("text") or message.get("bytes") or b""
                size = len(data.encode()) if isinstance(data, str) else len(data)
                await self.handle(data, size)
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass  # the peer is gone
        finally:
            stopped.cancel()
            self.tables.detach(self)
            self.memory.closed(self.account.id)
            if self.closing is None:  # the peer left: nothing more to send
                self.closing = 1000
                self._outbox.drop()
                self._sender.cancel()
            if self._closer is not None:
                with contextlib.suppress(Exception):
                    await self._closer

    def _closing(self) -> bool:
        return self.closing is not None

    # ---- one frame ------------------------------------------------------------------
    def _bad(self, action: str | None, code: str, message: str) -> None:
        self.bad_frames += 1
        self.deliver({"type": "error", "action": action, "code": code, "message": message})
        if self.bad_frames > self.settings.bad_frames_allowed:
            self._cut(f"too many bad frames ({self.bad_frames})")

    def _cut(self, reason: str) -> None:
        log.info("closing socket of %s: %s", self.account.name, reason)
        self.deliver({"type": "error", "action": None, "code": "disconnected", "message": reason})
        self.end(POLICY_VIOLATION, reason, flush=True)

    async def handle(self, data: str | bytes, size: int) -> None:
        """One frame in, exactly one answer out; no exception escapes."""
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
            # orjson refuses what would hurt later: lone surrogates, invalid UTF-8,
            # nesting over 1024 deep; a huge integer becomes a float (a bad_command).
            raw = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            self._bad(None, "bad_json", f"the frame is not JSON: {exc.msg} at character {exc.pos}")
            return
        action = raw.get("action") if isinstance(raw, dict) else None
        echo = action if isinstance(action, str) and 0 < len(action) <= 64 else None
        try:
            cmd = COMMAND.validate_python(raw)
        except ValidationError as exc:
            first = exc.errors(include_url=False, include_input=False)[0]
            where = ".".join(str(p) for p in first["loc"])[:80] or "frame"
            self._bad(echo, "bad_command", f"{where}: {first['msg']}"[:250])
            return
        except (ValueError, TypeError, RecursionError):  # pydantic's own limits
            self._bad(echo, "bad_command", "the frame is not a command")
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
            if exc.code == "unavailable":  # not remembered: it may be sent again
                self.deliver(answer)
                return
            if exc.code == "stale":
                self.memory.put(self.account.id, cmd.action, answer)
                self.deliver(answer)
                await self._resync(cmd.table)
                return
        except INFRASTRUCTURE_ERRORS as exc:
            # Not remembered: the same action may be sent again and applied once the
            # storage is back (a table applies a command only after storing it).
            log_outage(f"{cmd.type} of {self.account.name}", exc)
            self.deliver(
                {
                    "type": "error",
                    "action": cmd.action,
                    "code": "unavailable",
                    "message": UNAVAILABLE_MESSAGE,
                }
            )
            return
        except Exception:  # a bug: the client still gets its answer and keeps its socket
            if log_seldom(f"bug:{cmd.type}"):
                log.exception("%s of %s failed", cmd.type, self.account.name)
            self.deliver(
                {
                    "type": "error",
                    "action": cmd.action,
                    "code": "internal_error",
                    "message": "the server failed on this command: nothing was done",
                }
            )
            return
        self.memory.put(self.account.id, cmd.action, answer)
        self.deliver(answer)

    async def _resync(self, table_id: str) -> None:
        try:
            await (await self.tables.route(table_id)).resync(self)
        except TableError:
            pass  # the table went away meanwhile: the client's next join says so
        except INFRASTRUCTURE_ERRORS as exc:
            log_outage(f"resync of {self.account.name}", exc)

    async def dispatch(self, cmd: Any) -> int | None:
        kind = cmd.type
        if kind == "lobby":
            if cmd.watch:
                self.tables.subscribe_lobby(self)
                await chat_service(self.ws.app).send_history(self, None)
            else:
                self.tables.unsubscribe_lobby(self)
            return self.tables.lobby_version
        store = self.ws.app.state.store
        if kind == "auto_declare":
            fresh = await store.get_user(self.account.id)
            options = dict(fresh.options if fresh is not None else {})
            options["auto_declare"] = cmd.on
            await store.set_options(self.account.id, options)
            forget_user(self.account.id)  # GET /api/me must not serve the cached old options
            for table_id in list(self.watching):
                table = await self.tables.route(table_id)
                await table.set_auto_declare(self.account.id, cmd.on)
            return None
        if kind == "chat":
            await chat_service(self.ws.app).say(self, cmd)
            return None
        actor = await self.tables.route(cmd.table)
        user = self.account.id
        if kind == "join":
            if not await self.tables.may_enter(actor, user, cmd.invite):
                raise TableError("private_table", "this table is private: you need its invite link")
            self.watching.add(cmd.table)
            version = await actor.join(self, cmd.since)
            await chat_service(self.ws.app).send_history(self, actor)
            return version
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
            await self.tables.opening.check_sit(user, actor)  # e.g. a playban
            if cmd.table not in self.watching:  # watch first, so the seat's own event arrives
                self.watching.add(cmd.table)
                await actor.join(self, cmd.version)
            return await actor.sit(
                user, self.account.name, cmd.seat, auto, cmd.version, self.account.bot
            )
        if kind == "stand":
            return await actor.stand(user, cmd.version)
        if kind == "play":
            return await actor.play(user, cmd.move, cmd.version)
        if kind == "abandon":
            return await actor.abandon(user, cmd.version)
        raise TableError("bad_command", f"unknown command {kind!r}")  # pragma: no cover


async def _bot_user(app: Any, bearer: str) -> tuple[UserRow | None, str | None]:
    """The bot of a bearer token that may play, and the token (its hash is the
    socket's "session", so revoking the token closes the socket); or (None, None)."""
    auth = await token_identity(app.state.store, bearer)
    if auth is None or "play" not in auth.token.scopes:
        return None, None
    return auth.user, bearer


def _abort(ws: WebSocket) -> None:
    """Drop the TCP connection of a client that reads nothing (see DropConnection)."""
    abort = ws.scope.get(ABORT_KEY)
    if callable(abort):
        abort()


@router.websocket("/ws")
async def socket(ws: WebSocket) -> None:
    app = ws.app
    settings: Settings = app.state.settings
    registry: Connections = app.state.connections
    if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), settings):
        await ws.close(code=POLICY_VIOLATION, reason="origin not allowed")
        return
    token = ws.cookies.get(SESSION_COOKIE)
    bearer = bearer_token(ws.headers)  # a bot's token (docs/bots.md): the header only
    try:
        if bearer is not None:
            user, token = await _bot_user(app, bearer)
        else:
            user = await user_from_token(app.state.store, token)
    except INFRASTRUCTURE_ERRORS as exc:
        log_outage("a socket's session", exc)
        # Accepted only to be closed with a code the browser sees (a refused handshake
        # is just a failed connection to it): try again later.
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await ws.accept()
            await ws.close(code=TRY_AGAIN_LATER, reason="unavailable: try again in a few seconds")
        return
    if user is None or token is None:
        reason = "bad bot token, or no 'play' scope" if bearer is not None else "not logged in"
        await ws.close(code=POLICY_VIOLATION, reason=reason)
        return
    address = ws.client.host if ws.client is not None else "unknown"
    refusal = registry.refusal(user.id, address)
    if refusal is not None:
        log.info("refusing a socket of %s from %s: %s", user.name, address, refusal)
        await ws.close(code=POLICY_VIOLATION, reason=refusal[:120])  # HTTP 403
        return
    conn = Connection(
        ws,
        user,
        settings,
        app.state.tables,
        app.state.actions,
        session=token_hash(token),
        address=address,
    )
    registry.add(conn, identity_lookup(app.state.store))  # counted before the first await
    try:
        await ws.accept()
        await conn.run()
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass  # gone during the handshake
    finally:
        registry.remove(conn)
