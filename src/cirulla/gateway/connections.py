"""The live WebSockets of this node, by account, address and session.

The registry is what lets the server refuse one account (or one address) its
seventeenth socket, and close at once every socket of a session that ends (logout,
a guest claimed, a new login over an old session). A session that ends elsewhere (on
another node of a cluster, or by expiring) is noticed by the periodic re-check.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Protocol

from starlette.types import ASGIApp, Receive, Scope, Send

from ..store import UserRow
from ..tables.failures import FailureLog

__all__ = ["ABORT_KEY", "SESSION_ENDED", "Connections", "DropConnection", "Socket"]

log = logging.getLogger("cirulla.socket")

#: Close code of a socket whose session ended: the client must log in again.
SESSION_ENDED = 4000


class Socket(Protocol):
    """What the registry needs of a connection (gateway.socket.Connection has it)."""

    @property
    def user_id(self) -> str: ...

    @property
    def address(self) -> str: ...

    @property
    def session(self) -> str: ...  # the SHA-256 of its session token

    def end(self, code: int, reason: str) -> None: ...


class Connections:
    """Counts sockets per account and per address, and ends a session's sockets."""

    def __init__(self, per_user: int, per_address: int, recheck_seconds: float) -> None:
        self.per_user = per_user
        self.per_address = per_address
        self.recheck_seconds = recheck_seconds
        self._by_user: Counter[str] = Counter()
        self._by_address: Counter[str] = Counter()
        self._by_session: dict[str, set[Socket]] = {}
        self._checker: asyncio.Task[None] | None = None
        self._failures = FailureLog(log, "re-checking the sessions of sockets")

    def __len__(self) -> int:
        return sum(len(s) for s in self._by_session.values())

    def refusal(self, user_id: str, address: str) -> str | None:
        """Why one more socket for this account and address is refused, or None."""
        if self._by_user[user_id] >= self.per_user:
            return (
                f"this account has {self.per_user} sockets open already"
                " (CIRULLA_SOCKETS_PER_USER): close a tab"
            )
        if self._by_address[address] >= self.per_address:
            return (
                f"this address has {self.per_address} sockets open already"
                " (CIRULLA_SOCKETS_PER_ADDRESS)"
            )
        return None

    def add(self, sock: Socket, lookup: Callable[[str], Awaitable[UserRow | None]]) -> None:
        """Count `sock` in; `lookup` (a session hash to its user) re-checks sessions."""
        self._by_user[sock.user_id] += 1
        self._by_address[sock.address] += 1
        self._by_session.setdefault(sock.session, set()).add(sock)
        if self._checker is None or self._checker.done():
            self._checker = asyncio.create_task(self._recheck(lookup))

    def remove(self, sock: Socket) -> None:
        sockets = self._by_session.get(sock.session)
        if sockets is None or sock not in sockets:
            return
        sockets.discard(sock)
        if not sockets:
            del self._by_session[sock.session]
        for counter, key in ((self._by_user, sock.user_id), (self._by_address, sock.address)):
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]

    def end_session(self, session: str) -> int:
        """Close every socket of the session (the SHA-256 of its token); how many."""
        sockets = list(self._by_session.get(session, ()))
        for sock in sockets:
            sock.end(SESSION_ENDED, "session ended")
        return len(sockets)

    async def _recheck(self, lookup: Callable[[str], Awaitable[UserRow | None]]) -> None:
        """Every `recheck_seconds`, end the sockets of sessions that are gone (ended on
        another node, expired). A store that does not answer ends nothing."""
        while self._by_session:
            await asyncio.sleep(self.recheck_seconds)
            for session, sockets in list(self._by_session.items()):
                if not sockets:
                    continue
                try:
                    user = await lookup(session)
                except Exception as exc:  # the database is down: keep serving, check later
                    self._failures.failed("sessions", exc, trace=False)
                    break
                self._failures.succeeded("sessions")
                if user is None:
                    self.end_session(session)

    def close(self) -> None:
        if self._checker is not None:
            self._checker.cancel()
            self._checker = None


#: Where `DropConnection` puts, in a WebSocket's scope, the function that drops it.
ABORT_KEY = "cirulla.abort"


class DropConnection:
    """Pure ASGI: give each WebSocket a way to drop its TCP connection at once.

    A client that reads nothing keeps its connection open for as long as it likes, and
    the server's close frame, with the frame before it, waits in memory behind it: ASGI
    can only close politely. uvicorn's `send` belongs to the connection's protocol,
    whose transport can `abort()`; under another server there is nothing to add.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            transport = getattr(getattr(send, "__self__", None), "transport", None)
            abort = getattr(transport, "abort", None)
            if callable(abort):
                scope[ABORT_KEY] = abort
        await self.app(scope, receive, send)
