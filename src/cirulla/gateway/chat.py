"""Chat at the tables and in the lobby (docs/chat.md).

A message is stored, then delivered as an unversioned `chat` frame to this node's
sockets watching the table (or the lobby). During a partita a spectator's message
goes to spectators only: players never read the rail. Guests chat like everyone.
"""

from __future__ import annotations

import logging
import math
from typing import Annotated, Any

import sqlalchemy.exc
from fastapi import APIRouter, Depends, FastAPI, Query, Request

from ..settings import Settings
from ..store import Store, UserRow
from ..store.chat import ChatRow, ChatStore
from ..tables.actor import Subscriber, TableActor
from ..tables.errors import TableError
from ..tables.manager import TableManager
from .errors import ApiError
from .history import _readable_record
from .ratelimit import AddressLimit
from .security import optional_user

__all__ = ["ChatService", "chat_service", "router"]

log = logging.getLogger("cirulla.chat")
router = APIRouter(prefix="/api", tags=["chat"])

#: Messages sent to whoever joins a table (or watches the lobby).
HISTORY = 50


class ChatService:
    """The chat's store, its rate limit, and delivery to this node's sockets."""

    def __init__(self, store: Store, tables: TableManager, settings: Settings) -> None:
        self.store = ChatStore(store)
        self.tables = tables
        self.limit = AddressLimit("chat", settings.chat_messages, settings.chat_seconds)

    # ---- who reads what ------------------------------------------------------------------
    @staticmethod
    def sees_rail(actor: TableActor, user: str | None) -> bool:
        """Whether `user` may read the spectators' messages: anyone but a player
        while the partita is in play."""
        return actor.state.status != "playing" or user is None or actor.state.seat_of(user) is None

    def _targets(self, table_id: str | None) -> list[Subscriber]:
        if table_id is None:
            return list(self.tables.lobby_board.subscribers)
        actor = self.tables.tables.get(table_id)
        return [] if actor is None else list(actor.subscribers)

    # ---- commands --------------------------------------------------------------------------
    async def say(self, conn: Any, cmd: Any) -> None:
        """Store and deliver `cmd` (a validated Chat command) from `conn`'s account."""
        account: UserRow = conn.account
        table_id: str | None = cmd.table
        actor: TableActor | None = None
        if table_id is not None:
            if table_id not in conn.watching:
                raise TableError("not_watching", "join the table before chatting there")
            actor = self.tables.tables.get(table_id)
            if actor is None:  # owned by another node of a cluster (docs/chat.md)
                raise TableError("chat_unavailable", "chat at this table is not available here")
        until = await self.store.silenced_until(account.id)
        if until is not None:
            raise TableError(
                "silenced", f"an operator silenced your chat until {until.isoformat()[:16]} UTC"
            )
        wait = self.limit.hit(account.id)
        if wait is not None:
            raise TableError(
                "chat_too_fast", f"too many messages: wait {math.ceil(wait)} s before the next"
            )
        rail = (
            actor is not None
            and actor.state.status == "playing"
            and actor.state.seat_of(account.id) is None
        )
        audience = "spectators" if rail else "all"
        row = await self.store.add(
            table_id, account.id, account.name, text=cmd.text, phrase=cmd.phrase, audience=audience
        )
        frame = {"type": "chat", "chat": table_id, **row.frame()}
        for sub in self._targets(table_id):
            if (
                audience == "spectators"
                and actor is not None
                and not self.sees_rail(actor, sub.user)
            ):
                continue
            sub.deliver(frame)

    async def send_history(self, conn: Any, actor: Any) -> None:
        """The last messages `conn` may read, to a socket that joined `actor` (a local
        TableActor; None: the lobby). A failing database skips it: the join stands."""
        if actor is not None and not isinstance(actor, TableActor):
            return  # a table on another node: its chat is there
        table_id = None if actor is None else actor.id
        rail = actor is None or self.sees_rail(actor, conn.user)
        try:
            rows = await self.store.recent(table_id, spectators=rail, limit=HISTORY)
        except (OSError, sqlalchemy.exc.SQLAlchemyError) as exc:
            log.warning("chat history of %s not sent: %s", table_id, type(exc).__name__)
            return
        conn.deliver(
            {"type": "chat_history", "chat": table_id, "messages": [r.frame() for r in rows]}
        )

    def hidden(self, row: ChatRow) -> None:
        """Tell the sockets that may show `row` to remove it."""
        frame = {"type": "chat_hidden", "chat": row.table_id, "id": row.id}
        for sub in self._targets(row.table_id):
            sub.deliver(frame)


def chat_service(app: FastAPI) -> ChatService:
    """The app's ChatService, made on first use (after the store and tables exist)."""
    service: ChatService | None = getattr(app.state, "chat", None)
    if service is None:
        service = ChatService(app.state.store, app.state.tables, app.state.settings)
        app.state.chat = service
    return service


@router.get("/tables/{table_id}/chat")
async def table_chat(
    request: Request,
    table_id: str,
    user: Annotated[UserRow | None, Depends(optional_user)],
    invite: Annotated[str | None, Query(max_length=64)] = None,
) -> dict[str, Any]:
    """A table's chat: all of it (not hidden) for a finished partita, to whoever may see
    its replay; during play, what the caller may read at the table."""
    service = chat_service(request.app)
    store: Store = request.app.state.store
    if await store.get_record(table_id) is not None:
        await _readable_record(request, table_id, user)  # raises if the caller may not
        rows = await service.store.recent(table_id, spectators=True, limit=None)
    else:
        actor = service.tables.tables.get(table_id)
        if actor is None:
            raise ApiError(404, "unknown_table", f"there is no table {table_id!r}")
        uid = None if user is None else user.id
        if not service.tables.may_enter_here(table_id, uid, invite):
            raise ApiError(403, "private_table", "this table is private: you need its invite link")
        rows = await service.store.recent(
            table_id, spectators=service.sees_rail(actor, uid), limit=None
        )
    return {"chat": table_id, "messages": [r.frame() for r in rows]}
