"""HTTP side of tournaments: list, create, register, start, follow (docs/protocol.md,
"Tournaments"). The tournaments themselves live in cirulla.competition (service.py
and director.py); this module only checks who asks and turns refusals into errors."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Final
from weakref import WeakKeyDictionary

from fastapi import APIRouter, Body, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..competition.director import Director
from ..competition.partita_scores import partita_score, unscored
from ..competition.service import TournamentService
from ..competition.tournament_log import DirectorError, rounds_view, standings_view, summary
from ..record import RecordError, replay_game
from ..store import Store, UserRow
from .errors import ApiError
from .security import current_user, optional_user

__all__ = ["router"]

router = APIRouter(prefix="/api")
log = logging.getLogger("cirulla.tournaments")

#: A finished partita's score never changes: kept per store (two apps in one process
#: never mix), so a page refreshed every few seconds replays each record once.
_SCORE_CACHE_SIZE: Final = 4096
_scores: WeakKeyDictionary[Store, OrderedDict[str, dict[str, Any]]] = WeakKeyDictionary()

_STATUS = {
    "bad_config": 422,
    "bad_request": 422,
    "unknown_tournament": 404,
    "unknown_player": 409,
    "private_tournament": 403,
    "bots_not_allowed": 403,
    "not_organiser": 403,
    "guests_cannot_organise": 403,
    "test_mode_only": 404,
    "unavailable": 503,
}


def _error(exc: DirectorError) -> ApiError:
    status = _STATUS.get(exc.code, 409)
    headers = {"Retry-After": "2"} if status == 503 else None
    return ApiError(status, exc.code, exc.message, headers=headers)


def _service(request: Request) -> TournamentService:
    service: TournamentService = request.app.state.tournaments
    return service


class Register(BaseModel):
    model_config = ConfigDict(extra="forbid")

    invite: str | None = Field(None, max_length=64)
    partner: str | None = Field(None, min_length=1, max_length=64)


class AddBots(BaseModel):
    model_config = ConfigDict(extra="forbid")

    level: str = Field("normale", max_length=32)
    count: int = Field(1, ge=1, le=256)


async def _visible(
    request: Request, tournament_id: str, user: str | None, invite: str | None
) -> Director:
    service = _service(request)
    d = await service.get(tournament_id)
    if not await service.may_see(d, user, invite):
        raise DirectorError(
            "private_tournament", "this tournament is private: you need its invite link"
        )
    return d


def _organiser(d: Director, user: UserRow) -> None:
    organiser = d.state.organiser
    if organiser is None or organiser["id"] != user.id:
        raise DirectorError("not_organiser", "only the tournament's organiser may do this")


async def _as_organiser(
    request: Request,
    tournament_id: str,
    user: UserRow,
    act: Callable[[TournamentService, Director], Awaitable[Any]],
) -> dict[str, Any]:
    """A command only the tournament's organiser may give; the summary after it."""
    service = _service(request)
    try:
        d = await service.get(tournament_id)
        _organiser(d, user)
        await act(service, d)
    except DirectorError as exc:
        raise _error(exc) from None
    return {"tournament": summary(d.state)}


@router.get("/tournaments")
async def list_tournaments(
    request: Request, user: Annotated[UserRow | None, Depends(optional_user)]
) -> dict[str, Any]:
    """Public tournaments registering, running, or finished in the last 7 days, and
    the private ones the caller made or is registered in."""
    try:
        return {"tournaments": await _service(request).listing(None if user is None else user.id)}
    except DirectorError as exc:
        raise _error(exc) from None


@router.post("/tournaments", status_code=201)
async def create_tournament(
    request: Request,
    user: Annotated[UserRow, Depends(current_user)],
    body: Annotated[dict[str, Any], Body()],
) -> dict[str, Any]:
    return await _create(request, user, body)


class StackedDeal(BaseModel):
    """What a test-mode tournament adds to its body: stacked decks (40 card codes each)
    for the first smazzate of round 1's tables, and their first dealer."""

    decks: list[list[str]] | None = Field(None, max_length=16)
    dealer: int | None = Field(None, ge=0, le=3)


@router.post("/test/tournaments", status_code=201, include_in_schema=False)
async def create_test_tournament(
    request: Request,
    user: Annotated[UserRow, Depends(current_user)],
    body: Annotated[dict[str, Any], Body()],
) -> dict[str, Any]:
    """A tournament with stacked decks: only on a server started in test mode."""
    if not request.app.state.settings.test_mode:
        raise ApiError(404, "not_found", "not found")
    try:
        test = {k: body.pop(k) for k in ("decks", "dealer") if k in body}
        deal = StackedDeal.model_validate(test)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ApiError(422, "bad_config", f"{where}: {first['msg']}") from None
    return await _create(request, user, body, decks=deal.decks, dealer=deal.dealer)


async def _create(
    request: Request, user: UserRow, body: dict[str, Any], **test: Any
) -> dict[str, Any]:
    if user.guest:
        raise ApiError(403, "guests_cannot_organise", "guests cannot organise tournaments")
    try:
        organiser = {"id": user.id, "name": user.name}
        d, invite = await _service(request).create(organiser, body, **test)
    except DirectorError as exc:
        raise _error(exc) from None
    out: dict[str, Any] = {"tournament": summary(d.state)}
    if invite is not None:
        out["invite"] = invite
        out["link"] = f"/tournament/{d.id}?invite={invite}"
    return out


@router.get("/tournaments/{tournament_id}")
async def get_tournament(
    request: Request,
    tournament_id: str,
    user: Annotated[UserRow | None, Depends(optional_user)],
    invite: Annotated[str | None, Query(max_length=64)] = None,
) -> dict[str, Any]:
    uid = None if user is None else user.id
    try:
        d = await _visible(request, tournament_id, uid, invite)
    except DirectorError as exc:
        raise _error(exc) from None
    st = d.state
    me = st.entrant_of(uid)
    rounds = rounds_view(st)
    await _add_scores(request, d, rounds)
    return {
        "tournament": summary(st),
        "rounds": rounds,
        "standings": standings_view(st),
        "winner": st.winner,
        "me": {
            "entrant": None if me is None else me.id,
            "table": None if me is None else st.current_table(me.id),
        },
    }


async def _add_scores(request: Request, d: Director, rounds: list[dict[str, Any]]) -> None:
    """Each match's `scores`: one per partita, its points and spareggi once it is over.

    A partita is over when a later one of its match was made or the match has its
    result (the log says so); one still being played shows its table only."""
    store: Store = request.app.state.store
    cache = _scores.setdefault(store, OrderedDict())
    finished: set[str] = set()
    for rnd in rounds:
        for m in rnd["matches"]:
            tables: list[str] = m["tables"]
            done = tables if m["status"] == "finished" else tables[:-1]
            finished.update(done)
    made: dict[str, dict[str, Any]] = {}
    records: dict[str, dict[str, Any]] = {}
    for table in finished - cache.keys():
        actor = d.tables.tables.get(table)
        if actor is not None and actor.state.status == "finished":
            made[table] = partita_score(table, actor.state.game)
            continue
        record = await store.get_record(table)
        if record is not None:  # else not saved yet: a later look finds it
            records[table] = record
    if records:
        made.update(await asyncio.to_thread(_score_records, records))
    for table in finished & cache.keys():
        cache.move_to_end(table)
    cache.update(made)
    while len(cache) > _SCORE_CACHE_SIZE:
        cache.popitem(last=False)
    for rnd in rounds:
        for m in rnd["matches"]:
            m["scores"] = [
                made.get(t) or cache.get(t) or unscored(t, t in finished) for t in m["tables"]
            ]


def _score_records(records: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The scores of finished partite from their game records (a worker thread's job:
    each is replayed move by move). A record that does not replay shows no points,
    and is not read again."""
    out: dict[str, dict[str, Any]] = {}
    for table, record in records.items():
        try:
            out[table] = partita_score(table, replay_game(record["game"]))
        except (RecordError, KeyError, TypeError) as exc:
            log.warning("table %s: its record gives no score: %s", table, exc)
            out[table] = unscored(table, True)
    return out


@router.get("/tournaments/{tournament_id}/record")
async def tournament_record(
    request: Request,
    tournament_id: str,
    user: Annotated[UserRow | None, Depends(optional_user)],
    invite: Annotated[str | None, Query(max_length=64)] = None,
) -> dict[str, Any]:
    """The tournament record of API.md, which `cirulla verify` checks."""
    try:
        d = await _visible(request, tournament_id, None if user is None else user.id, invite)
        return await d.full_record()
    except DirectorError as exc:
        raise _error(exc) from None


@router.post("/tournaments/{tournament_id}/register")
async def register(
    request: Request,
    tournament_id: str,
    body: Register,
    user: Annotated[UserRow, Depends(current_user)],
) -> dict[str, Any]:
    service = _service(request)
    try:
        d = await _visible(request, tournament_id, user.id, body.invite)
        partner = None
        if body.partner is not None:
            row = await request.app.state.store.find_user(body.partner)
            if row is None:
                raise DirectorError("unknown_player", f"there is no player {body.partner!r}")
            if row.bot and not d.state.allow_bots:
                raise DirectorError("bots_not_allowed", "this tournament is for people only")
            partner = {"id": row.id, "name": row.name, "bot_account": row.bot}
        await service.register(d, {"id": user.id, "name": user.name}, partner)
    except DirectorError as exc:
        raise _error(exc) from None
    return {"tournament": summary(d.state)}


@router.post("/tournaments/{tournament_id}/unregister")
async def unregister(
    request: Request, tournament_id: str, user: Annotated[UserRow, Depends(current_user)]
) -> dict[str, Any]:
    try:
        d = await _service(request).get(tournament_id)
        await _service(request).unregister(d, user.id)
    except DirectorError as exc:
        raise _error(exc) from None
    return {"tournament": summary(d.state)}


@router.post("/tournaments/{tournament_id}/bots")
async def add_bots(
    request: Request,
    tournament_id: str,
    body: AddBots,
    user: Annotated[UserRow, Depends(current_user)],
) -> dict[str, Any]:
    return await _as_organiser(
        request, tournament_id, user, lambda s, d: s.add_bots(d, body.level, body.count)
    )


@router.post("/tournaments/{tournament_id}/start")
async def start(
    request: Request, tournament_id: str, user: Annotated[UserRow, Depends(current_user)]
) -> dict[str, Any]:
    return await _as_organiser(request, tournament_id, user, lambda s, d: s.start(d))


@router.post("/tournaments/{tournament_id}/cancel")
async def cancel(
    request: Request, tournament_id: str, user: Annotated[UserRow, Depends(current_user)]
) -> dict[str, Any]:
    return await _as_organiser(request, tournament_id, user, lambda s, d: s.cancel(d))
