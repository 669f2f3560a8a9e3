"""Chat at the tables and in the lobby (docs/chat.md).

A message is stored, then delivered as an unversioned `chat` frame to this node's
sockets watching the table (or the lobby). During a partita a spectator's message
goes to spectators only: players never read the rail. Guests chat like everyone. A
bot account's messages carry `bot_account: true`, as its seat does (docs/bots.md).
"""

from __future__ import annotations

import logging
import math
from typing import Annotated, Any

import sqlalchemy.exc
from fastapi import APIRouter, Depends, FastAPI, Query, Request

from ..settings import Settings
from ..store import Store, UserRow
from ..store.bots import BotStore
from ..store.chat import ChatRow, ChatStore
from ..tables.actor import Subscriber, TableActor
from ..tables.errors import TableError
from ..tables.manager import TableManager
from ..tables.relay import RemoteTable
from .errors import ApiError
from .history import _readable_record
from .ratelimit import AddressLimit
from .security import optional_user

__all__ = ["ChatService", "chat_service", "message_frame", "router"]

log = logging.getLogger("cirulla.chat")
router = APIRouter(prefix="/api", tags=["chat"])

#: Messages sent to whoever joins a table (or watches the lobby).
HISTORY = 50


class ChatService:
    """The chat's store, its rate limit, and delivery to this node's sockets."""

    def __init__(self, store: Store, tables: TableManager, settings: Settings) -> None:
        self.store = ChatStore(store)
        self.bots = BotStore(store)
        self.tables = tables
        self.limit = AddressLimit("chat", settings.chat_messages, settings.chat_seconds)
        cluster = tables.cluster
        if cluster is not None:  # the owner of a table delivers its chat; the lobby's is everyone's
            cluster.ops["chat_standing"] = self._standing_op
            cluster.ops["chat_deliver"] = self._deliver_op
            cluster.topics["chat"] = self._on_broadcast

    async def frames(self, rows: list[ChatRow]) -> list[dict[str, Any]]:
        """The messages as clients get them, with the bot accounts' marked."""
        bots = await self.bots.bots_among(r.user_id for r in rows)
        return [message_frame(r, r.user_id in bots) for r in rows]

    # ---- who reads what ------------------------------------------------------------------
    @staticmethod
    def sees_rail(actor: TableActor, user: str | None) -> bool:
        """Whether `user` may read the spectators' messages: anyone but a player
        while the partita is in play."""
        return actor.state.status != "playing" or user is None or actor.state.seat_of(user) is None

    # ---- the cluster: calls served for another node, broadcasts from one -----------------
    async def _standing_op(self, actor: TableActor, args: dict[str, Any]) -> list[bool]:
        return [actor.state.status == "playing", actor.state.seat_of(args["user"]) is not None]

    async def _deliver_op(self, actor: TableActor, args: dict[str, Any]) -> None:
        self._deliver(actor, args["frame"], args["audience"])

    def _on_broadcast(self, message: dict[str, Any]) -> None:
        cluster = self.tables.cluster
        if cluster is not None and message.get("from") == cluster.node:
            return  # delivered here already
        frame = message["frame"]
        # The lobby's sockets are on every node; a table's watchers are all subscribers
        # of its owner's actor (relayed ones too), so only the owner finds any.
        for sub in self._targets(frame.get("chat")):
            sub.deliver(frame)

    def _deliver(self, actor: TableActor | None, frame: dict[str, Any], audience: str) -> None:
        """To the subscribers of the lobby on this node, or of a table this node holds
        (in a cluster, those include its watchers on other nodes)."""
        for sub in self._targets(None if actor is None else actor.id):
            if (
                audience == "spectators"
                and actor is not None
                and not self.sees_rail(actor, sub.user)
            ):
                continue
            sub.deliver(frame)

    async def standing(
        self, table: TableActor | RemoteTable, user: str | None
    ) -> tuple[bool, bool]:
        """Whether the partita is in play, and whether `user` sits at the table."""
        if isinstance(table, TableActor):
            st = table.state
            return st.status == "playing", user is not None and st.seat_of(user) is not None
        if user is None:
            return bool(await table.call("chat_standing", user="")), False
        playing, seated = await table.call("chat_standing", user=user)
        return bool(playing), bool(seated)

    def _broadcast(self, frame: dict[str, Any]) -> None:
        if self.tables.cluster is not None:
            self.tables.cluster.bus.broadcast(
                {"kind": "broadcast", "topic": "chat", "frame": frame}
            )

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
        table: TableActor | RemoteTable | None = None
        if table_id is not None:
            if table_id not in conn.watching:
                raise TableError("not_watching", "join the table before chatting there")
            table = await self.tables.route(table_id)  # in a cluster, maybe another node's
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
        rail = False
        if table is not None:
            playing, seated = await self.standing(table, account.id)
            rail = playing and not seated
        audience = "spectators" if rail else "all"
        row = await self.store.add(
            table_id, account.id, account.name, text=cmd.text, phrase=cmd.phrase, audience=audience
        )
        frame = {"type": "chat", "chat": table_id, **message_frame(row, account.bot)}
        if isinstance(table, RemoteTable):  # its owner knows who reads the rail
            await table.call("chat_deliver", frame=frame, audience=audience)
            return
        self._deliver(table, frame, audience)
        if table is None:
            self._broadcast(frame)  # the lobby's sockets on the other nodes

    async def send_history(self, conn: Any, actor: TableActor | RemoteTable | None) -> None:
        """The last messages `conn` may read, to a socket that joined `actor` (None: the
        lobby). A failing database or owner skips it: the join stands."""
        table_id = None if actor is None else actor.id
        try:
            rail = True
            if actor is not None:
                playing, seated = await self.standing(actor, conn.user)
                rail = not (playing and seated)
            rows = await self.store.recent(table_id, spectators=rail, limit=HISTORY)
            messages = await self.frames(rows)
        except (OSError, sqlalchemy.exc.SQLAlchemyError, TableError) as exc:
            log.warning("chat history of %s not sent: %s", table_id, type(exc).__name__)
            return
        conn.deliver({"type": "chat_history", "chat": table_id, "messages": messages})

    def hidden(self, row: ChatRow) -> None:
        """Tell the sockets that may show `row` to remove it, on every node."""
        frame = {"type": "chat_hidden", "chat": row.table_id, "id": row.id}
        for sub in self._targets(row.table_id):
            sub.deliver(frame)
        self._broadcast(frame)


def message_frame(row: ChatRow, bot: bool) -> dict[str, Any]:
    """A message as clients get it; said by a bot account, marked so."""
    out = row.frame()
    if bot:
        out["bot_account"] = True
    return out


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
        uid = None if user is None else user.id
        try:
            table = await service.tables.route(table_id)  # in a cluster, maybe another node's
            if not await service.tables.may_enter(table, uid, invite):
                raise ApiError(
                    403, "private_table", "this table is private: you need its invite link"
                )
            playing, seated = await service.standing(table, uid)
        except TableError as exc:
            status = 404 if exc.code == "unknown_table" else 503
            raise ApiError(status, exc.code, exc.message) from None
        rows = await service.store.recent(table_id, spectators=not (playing and seated), limit=None)
    return {"chat": table_id, "messages": await service.frames(rows)}
