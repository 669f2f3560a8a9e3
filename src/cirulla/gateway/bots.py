"""The bot API (docs/bots.md): bot accounts and their tokens for their owners, and
what a bot does with a token: its account, the event stream, moves, tables,
invitations and tournaments.

A bot plays under the same rules as a person: the same actor checks its commands,
the same seat views reach it, the same clocks run; a move over HTTP passes the
socket's flood limit and repeated-action memory (gateway/actions.py), so a bot
gains nothing by leaving the WebSocket. Owners are registered people; a bot never
logs in (it has no password) and cannot make bots.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from ..competition.service import TournamentService
from ..competition.tournament_log import DirectorError, summary
from ..settings import Settings
from ..store import NameTaken, Store, UserRow
from ..tables.manager import TableManager
from ..tables.state import TableError
from . import lobby
from .accounts import check_name, public_user
from .bot_auth import SCOPES, BotAuth, bot_store, new_bot_token, require_scope
from .bot_stream import KEEPALIVE_SECONDS, BotStream, follow_table, streams_of
from .errors import ApiError, error_body
from .outages import INFRASTRUCTURE_ERRORS, UNAVAILABLE_MESSAGE, log_outage
from .ratelimit import FloodBucket
from .security import current_user, forget_user, token_hash

__all__ = ["MAX_BOTS", "MAX_TOKENS", "router"]

router = APIRouter(prefix="/api", tags=["bots"])

#: Bot accounts one person may own, and tokens one bot may hold.
MAX_BOTS: Final = 10
MAX_TOKENS: Final = 10
#: Per-bot flood buckets kept for HTTP moves (the least recently used go first).
_BUCKETS_KEPT: Final = 10_000

#: HTTP statuses of the table errors a bot's command may get (others are 409).
_STATUS: Final = {
    "unknown_table": 404,
    "private_table": 403,
    "unavailable": 503,
    "bad_command": 422,
    "bad_move": 422,
    "illegal_move": 422,
    "rate_limited": 429,
    "internal_error": 500,
}


class NewBot(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(max_length=64)


class NewToken(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field("token", min_length=1, max_length=40)
    scopes: list[str] = Field(default_factory=lambda: ["play", "read"], max_length=8)


class MoveBody(BaseModel):
    """The socket's play command without its type and table (docs/protocol.md)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    action: str = Field(min_length=1, max_length=64)
    version: int = Field(ge=0)
    move: str = Field(min_length=1, max_length=64)


class SitBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    seat: int | None = Field(None, ge=0, le=5)
    invite: str | None = Field(None, max_length=64)
    version: int | None = Field(None, ge=0)


class VersionBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    version: int | None = Field(None, ge=0)


class InviteBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    table: str = Field(min_length=1, max_length=64)
    invite: str | None = Field(None, max_length=64)
    seat: int | None = Field(None, ge=0, le=5)


class TournamentBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    invite: str | None = Field(None, max_length=64)


def _tables(request: Request) -> TableManager:
    manager: TableManager = request.app.state.tables
    return manager


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def public_bot(bot: UserRow, owner: str | None = None) -> dict[str, Any]:
    out = {"id": bot.id, "name": bot.name, "bot": True}
    if owner is not None:
        out["owner"] = owner
    return out


def _token_info(token: Any) -> dict[str, Any]:
    return {
        "id": token.id,
        "name": token.name,
        "scopes": list(token.scopes),
        "created_at": int(token.created_at.timestamp() * 1000),
        "last_used_at": None
        if token.last_used_at is None
        else int(token.last_used_at.timestamp() * 1000),
    }


def _table_error(exc: TableError) -> ApiError:
    return ApiError(_STATUS.get(exc.code, 409), exc.code, exc.message)


# ---- owners: bots and their tokens ----------------------------------------------------------
def _owner(user: UserRow) -> UserRow:
    if user.guest:
        raise ApiError(403, "guests_cannot_own_bots", "Register an account to make bots.")
    if user.bot:
        raise ApiError(403, "bots_cannot_own_bots", "A bot account cannot make bots.")
    return user


async def _my_bot(request: Request, owner: UserRow, name: str) -> UserRow:
    """The owner's bot called `name`; 404 for anyone else's (not telling which exist)."""
    store: Store = request.app.state.store
    bot = await store.find_user(name) if len(name) <= 64 else None
    if bot is None or not bot.bot or await bot_store(store).owner_of(bot.id) != owner.id:
        raise ApiError(404, "unknown_bot", f"You have no bot called {name!r}.")
    return bot


@router.post("/bots", status_code=201)
async def create_bot(
    request: Request, body: NewBot, user: Annotated[UserRow, Depends(current_user)]
) -> dict[str, Any]:
    """A bot account owned by the caller (names as for players); no password, ever."""
    owner = _owner(user)
    name = check_name(body.name)
    bots = bot_store(request.app.state.store)
    if await bots.count_of(owner.id) >= MAX_BOTS:
        raise ApiError(409, "too_many_bots", f"One player may own at most {MAX_BOTS} bots.")
    try:
        bot = await bots.create_bot(owner.id, name, chips=_settings(request).welcome_chips)
    except NameTaken:
        raise ApiError(409, "name_taken", f"The name '{name}' is taken: choose another.") from None
    return {"bot": public_bot(bot, owner.name)}


@router.get("/bots")
async def list_bots(
    request: Request, user: Annotated[UserRow, Depends(current_user)]
) -> dict[str, Any]:
    """The caller's bots, oldest first."""
    owner = _owner(user)
    bots = await bot_store(request.app.state.store).bots_of(owner.id)
    return {"bots": [public_bot(b, owner.name) for b in bots]}


@router.post("/bots/{name}/tokens", status_code=201)
async def create_token(
    request: Request, name: str, body: NewToken, user: Annotated[UserRow, Depends(current_user)]
) -> dict[str, Any]:
    """A new token for one of the caller's bots: its secret is in this answer only."""
    bot = await _my_bot(request, _owner(user), name)
    unknown = sorted(set(body.scopes) - set(SCOPES))
    if unknown or not body.scopes:
        raise ApiError(
            422,
            "invalid_scope",
            f"Scopes are one or more of {', '.join(SCOPES)}"
            + (f"; not {', '.join(unknown)}." if unknown else "."),
        )
    bots = bot_store(request.app.state.store)
    if await bots.token_count(bot.id) >= MAX_TOKENS:
        raise ApiError(409, "too_many_tokens", f"A bot may hold at most {MAX_TOKENS} tokens.")
    secret = new_bot_token()
    row = await bots.create_token(bot.id, token_hash(secret), body.name, tuple(body.scopes))
    return {"token": secret, "info": _token_info(row), "bot": public_bot(bot, user.name)}


@router.get("/bots/{name}/tokens")
async def list_tokens(
    request: Request, name: str, user: Annotated[UserRow, Depends(current_user)]
) -> dict[str, Any]:
    """The bot's tokens, without their secrets."""
    bot = await _my_bot(request, _owner(user), name)
    rows = await bot_store(request.app.state.store).tokens_of(bot.id)
    return {"tokens": [_token_info(t) for t in rows]}


@router.delete("/bots/{name}/tokens/{token_id}", status_code=204)
async def revoke_token(
    request: Request, name: str, token_id: str, user: Annotated[UserRow, Depends(current_user)]
) -> Response:
    """Revoke a token now: it no longer works, and its sockets and streams close."""
    bot = await _my_bot(request, _owner(user), name)
    key = await bot_store(request.app.state.store).revoke(bot.id, token_id[:64])
    if key is None:
        raise ApiError(404, "unknown_token", f"The bot has no token {token_id!r}.")
    request.app.state.connections.end_session(key)  # its sockets and streams close (4000)
    forget_user(bot.id)
    return Response(status_code=204)


@router.post("/bots/{name}/invite")
async def invite_bot(
    request: Request, name: str, body: InviteBody, user: Annotated[UserRow, Depends(current_user)]
) -> dict[str, Any]:
    """Invite a bot (anyone's) to a table the caller sits at: the bot's stream and
    sockets get an `invitation`, which it accepts by sitting (POST .../sit)."""
    store = request.app.state.store
    bot = await store.find_user(name) if len(name) <= 64 else None
    if bot is None or not bot.bot:
        raise ApiError(404, "unknown_bot", f"There is no bot called {name!r}.")
    manager = _tables(request)
    try:
        table = await manager.route(body.table)
        if not await manager.may_enter(table, user.id, body.invite):
            raise TableError("private_table", "this table is private: you need its invite link")
        info = await manager.summary_of(table)
    except TableError as exc:
        raise _table_error(exc) from None
    seats = info.get("seats") or []
    if not any(isinstance(s, dict) and s.get("user") == user.id for s in seats):
        raise ApiError(403, "not_seated", "Invite bots to a table you sit at.")
    if info.get("status") != "open":
        raise ApiError(409, "table_started", "The partita at this table has begun or ended.")
    frame = {
        "type": "invitation",
        "table": body.table,
        "invite": body.invite,
        "seat": body.seat,
        "from": {"id": user.id, "name": user.name},
        "summary": info,
        "time": int(time.time() * 1000),
    }
    delivered = manager.notify_user(bot.id, frame)
    return {"delivered": delivered}


# ---- a bot with its token --------------------------------------------------------------------
Play = Annotated[BotAuth, Depends(require_scope("play"))]


@router.get("/bot/account")
async def account(
    request: Request, auth: Annotated[BotAuth, Depends(require_scope("read"))]
) -> dict[str, Any]:
    """The bot's account, as /api/me is a person's, with its owner and the token's scopes."""
    store = request.app.state.store
    bot = auth.user
    owner_id = await bot_store(store).owner_of(bot.id)
    owner = await store.get_user(owner_id) if owner_id is not None else None
    chips, held = await store.ledger.balances(bot.id)
    out = {**public_user(bot), "chips": chips, "escrow": held}
    out["owner"] = None if owner is None else owner.name
    return {"user": out, "scopes": list(auth.token.scopes)}


@router.get("/bot/stream")
async def stream(
    request: Request,
    auth: Play,
    keepalive: Annotated[float, Query(ge=1.0, le=60.0)] = KEEPALIVE_SECONDS,
) -> StreamingResponse:
    """The bot's events, one JSON object a line (docs/bots.md)."""
    address = request.client.host if request.client is not None else "unknown"
    refusal = request.app.state.connections.refusal(auth.user.id, address)
    if refusal is not None:
        raise ApiError(429, "too_many_connections", refusal[:200])
    await bot_store(request.app.state.store).touch(auth.token.id)
    conn = BotStream(request.app, auth, address, keepalive)
    return StreamingResponse(
        conn.lines(),
        media_type="application/x-ndjson",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


def _bucket(request: Request, user_id: str) -> FloodBucket:
    """The bot's flood bucket for HTTP commands: the socket's limits, per account."""
    buckets: OrderedDict[str, FloodBucket] | None = getattr(request.app.state, "bot_buckets", None)
    if buckets is None:
        buckets = request.app.state.bot_buckets = OrderedDict()
    bucket = buckets.pop(user_id, None)
    if bucket is None:
        settings = _settings(request)
        bucket = FloodBucket(settings.flood_per_second, settings.flood_burst)
    buckets[user_id] = bucket
    while len(buckets) > _BUCKETS_KEPT:
        buckets.popitem(last=False)
    return bucket


async def _resync(manager: TableManager, table_id: str, conn: BotStream) -> None:
    try:
        await (await manager.route(table_id)).resync(conn)
    except TableError:
        pass  # gone meanwhile
    except INFRASTRUCTURE_ERRORS as exc:
        log_outage("a bot stream's resync", exc)


def _answer(frame: dict[str, Any]) -> JSONResponse:
    """A socket answer as an HTTP one: an ack is 200; an error has the API's error shape,
    with the action it answers, under the status its code calls for."""
    if frame.get("type") == "ack":
        return JSONResponse(frame)
    code = str(frame.get("code"))
    body = {**error_body(code, str(frame.get("message"))), "action": frame.get("action")}
    if frame.get("repeated"):
        body["repeated"] = True
    headers = {"Retry-After": "2"} if code == "unavailable" else None
    return JSONResponse(body, status_code=_STATUS.get(code, 409), headers=headers)


@router.post("/bot/tables/{table_id}/move")
async def move(request: Request, table_id: str, body: MoveBody, auth: Play) -> JSONResponse:
    """Play a card or declare: the socket's `play` command, answered as it answers it."""
    user = auth.user.id
    if not _bucket(request, user).take():
        raise ApiError(429, "rate_limited", "Too many commands: slow down.")
    memory = request.app.state.actions
    earlier = memory.get(user, body.action)
    if earlier is not None:  # a repeat: the same answer, nothing applied again
        return _answer({**earlier, "repeated": True})
    manager = _tables(request)
    try:
        actor = await manager.route(table_id)
        version = await actor.play(user, body.move, body.version)
        answer: dict[str, Any] = {"type": "ack", "action": body.action, "version": version}
    except TableError as exc:
        answer = {"type": "error", "action": body.action, "code": exc.code, "message": exc.message}
        if exc.code == "unavailable":  # not remembered: it may be sent again
            return _answer(answer)
        if exc.code == "stale":  # the bot's streams get the table afresh
            for conn in streams_of(request.app, user):
                if table_id in conn.watching:
                    await _resync(manager, table_id, conn)
    except INFRASTRUCTURE_ERRORS as exc:
        log_outage(f"a move of bot {auth.user.name}", exc)
        answer = {
            "type": "error",
            "action": body.action,
            "code": "unavailable",
            "message": UNAVAILABLE_MESSAGE,
        }
        return _answer(answer)
    memory.put(user, body.action, answer)
    return _answer(answer)


async def _table_command(
    request: Request, table_id: str, auth: BotAuth, kind: str, body: Any
) -> int:
    """sit, stand or abandon, as the socket gives them."""
    if not _bucket(request, auth.user.id).take():
        raise ApiError(429, "rate_limited", "Too many commands: slow down.")
    manager = _tables(request)
    user = auth.user
    try:
        actor = await manager.route(table_id)
        if kind == "sit":
            if not await manager.may_enter(actor, user.id, body.invite):
                raise TableError("private_table", "this table is private: you need its invite link")
            await manager.opening.check_sit(user.id, actor)
            auto = bool(user.options.get("auto_declare", True))
            version = await actor.sit(user.id, user.name, body.seat, auto, body.version, True)
            await follow_table(request.app, user.id, table_id)
            return version
        if kind == "stand":
            return await actor.stand(user.id, body.version)
        return await actor.abandon(user.id, body.version)
    except TableError as exc:
        raise _table_error(exc) from None


@router.post("/bot/tables", status_code=201)
async def create_table(request: Request, body: lobby.CreateTable, auth: Play) -> dict[str, Any]:
    """A new table with the bot seated, as POST /api/tables makes one for a person."""
    if not _bucket(request, auth.user.id).take():
        raise ApiError(429, "rate_limited", "Too many commands: slow down.")
    out = await lobby._create(request, auth.user, body)
    await follow_table(request.app, auth.user.id, out["table"]["id"])
    return out


@router.post("/bot/tables/{table_id}/sit")
async def sit(request: Request, table_id: str, body: SitBody, auth: Play) -> dict[str, Any]:
    """Take a seat (a private table's `invite` token lets the bot in, as a link does)."""
    return {"version": await _table_command(request, table_id, auth, "sit", body)}


@router.post("/bot/tables/{table_id}/stand")
async def stand(request: Request, table_id: str, body: VersionBody, auth: Play) -> dict[str, Any]:
    return {"version": await _table_command(request, table_id, auth, "stand", body)}


@router.post("/bot/tables/{table_id}/abandon")
async def abandon(request: Request, table_id: str, body: VersionBody, auth: Play) -> dict[str, Any]:
    """Leave a partita in play: it ends by E6, as for a person."""
    return {"version": await _table_command(request, table_id, auth, "abandon", body)}


def _service(request: Request) -> TournamentService:
    service: TournamentService = request.app.state.tournaments
    return service


def _tournament_error(exc: DirectorError) -> ApiError:
    status = {"unknown_tournament": 404, "private_tournament": 403, "bots_not_allowed": 403}
    return ApiError(status.get(exc.code, 409), exc.code, exc.message)


@router.post("/bot/tournaments/{tournament_id}/register")
async def register(
    request: Request,
    tournament_id: str,
    body: TournamentBody,
    auth: Annotated[BotAuth, Depends(require_scope("tournament"))],
) -> dict[str, Any]:
    """Enter a tournament that allows bots (its `allow_bots` setting)."""
    service = _service(request)
    bot = auth.user
    try:
        d = await service.get(tournament_id)
        if not await service.may_see(d, bot.id, body.invite):
            raise DirectorError(
                "private_tournament", "this tournament is private: you need its invite link"
            )
        if not d.state.allow_bots:
            raise DirectorError("bots_not_allowed", "this tournament is for people only")
        await service.register(d, {"id": bot.id, "name": bot.name, "bot_account": True}, None)
    except DirectorError as exc:
        raise _tournament_error(exc) from None
    return {"tournament": summary(d.state)}


@router.post("/bot/tournaments/{tournament_id}/unregister")
async def unregister(
    request: Request,
    tournament_id: str,
    auth: Annotated[BotAuth, Depends(require_scope("tournament"))],
) -> dict[str, Any]:
    service = _service(request)
    try:
        d = await service.get(tournament_id)
        await service.unregister(d, auth.user.id)
    except DirectorError as exc:
        raise _tournament_error(exc) from None
    return {"tournament": summary(d.state)}
