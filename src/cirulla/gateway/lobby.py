"""HTTP side of the lobby: list and create tables, what can be chosen, health."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..bots.levels import LEVELS
from ..cards import STYLES
from ..rules import OPTIONS, PRESETS, Rules
from ..store import UserRow
from ..tables.config import TableConfig
from ..tables.manager import TableManager
from ..tables.state import TableError
from .errors import ApiError
from .health import health_report
from .security import current_user

__all__ = ["router"]

router = APIRouter(prefix="/api")


class CreateTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    config: dict[str, Any] = Field(default_factory=dict)
    seat: int | None = Field(None, ge=0, le=5)


class CreateTestTable(CreateTable):
    decks: list[list[str]] | None = None
    dealer: int | None = Field(None, ge=0, le=5)


def _tables(request: Request) -> TableManager:
    manager: TableManager = request.app.state.tables
    return manager


def _table_error(exc: TableError) -> ApiError:
    status = {
        "unknown_table": 404,
        "private_table": 403,
        "test_mode_only": 404,
        "unavailable": 503,
        "too_many_tables": 409,  # until one of the account's tables starts, ends or closes
        "too_many_bots": 409,
    }.get(exc.code, 400)
    return ApiError(status, exc.code, exc.message)


def _config(raw: dict[str, Any]) -> TableConfig:
    try:
        return TableConfig.for_new_table(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = str(first.get("ctx", {}).get("error", first["msg"]))
        raise ApiError(422, "bad_config", f"{where + ': ' if where else ''}{message}") from None


async def _create(
    request: Request, user: UserRow, body: CreateTable, **extra: Any
) -> dict[str, Any]:
    manager = _tables(request)
    config = _config(body.config)
    try:
        actor, invite = await manager.opening.create(
            user.id,
            user.name,
            config,
            seat=body.seat,
            auto_declare=bool(user.options.get("auto_declare", True)),
            bot_account=user.bot,
            **extra,
        )
    except TableError as exc:
        raise _table_error(exc) from None
    out: dict[str, Any] = {"table": manager.summary(actor)}
    if invite is not None:
        out["invite"] = invite
        out["link"] = f"/table/{actor.id}?invite={invite}"
    return out


@router.get(
    "/health",
    responses={503: {"description": "the database or (in a cluster) Redis is down"}},
)
async def health(request: Request) -> JSONResponse:
    """200 when this node can serve, 503 naming what is down (see gateway/health.py)."""
    status, body = await health_report(request.app)
    return JSONResponse(body, status_code=status)


@router.get("/tables")
async def list_tables(request: Request) -> dict[str, Any]:
    manager = _tables(request)
    return {"version": manager.lobby_version, "tables": manager.lobby()}


@router.post("/tables", status_code=201)
async def create_table(
    request: Request, body: CreateTable, user: Annotated[UserRow, Depends(current_user)]
) -> dict[str, Any]:
    return await _create(request, user, body)


@router.post("/test/tables", status_code=201, include_in_schema=False)
async def create_test_table(
    request: Request, body: CreateTestTable, user: Annotated[UserRow, Depends(current_user)]
) -> dict[str, Any]:
    """A table with stacked decks: only on a server started in test mode."""
    if not request.app.state.settings.test_mode:
        raise ApiError(404, "not_found", "not found")
    base = CreateTable(config=body.config, seat=body.seat)
    return await _create(request, user, base, decks=body.decks, dealer=body.dealer)


@router.get("/tables/{table_id}")
async def get_table(
    request: Request,
    table_id: str,
    user: Annotated[UserRow, Depends(current_user)],
    invite: Annotated[str | None, Query(max_length=64)] = None,
) -> dict[str, Any]:
    manager = _tables(request)
    try:
        table = await manager.route(table_id)
        if not await manager.may_enter(table, user.id, invite):
            raise ApiError(403, "private_table", "this table is private: you need its invite link")
        return {"table": await manager.summary_of(table)}
    except TableError as exc:
        raise _table_error(exc) from None


@router.get("/choices")
async def choices() -> dict[str, Any]:
    """Everything a create-table form offers, with one-line explanations."""
    return {
        "presets": {name: rules.to_dict() for name, rules in PRESETS.items()},
        "players": {
            name: [p for p in (2, 3, 4) if _fits(rules, p)] for name, rules in PRESETS.items()
        },
        "options": [
            {
                "name": o.name,
                "rule": o.rule,
                "meaning": o.meaning,
                "default": getattr(Rules(), o.name),
            }
            for o in OPTIONS
        ],
        "levels": {name: level.description for name, level in LEVELS.items()},
        "deck_styles": list(STYLES),
        "languages": ["it", "en"],
    }


def _fits(rules: Rules, players: int) -> bool:
    try:
        rules.check_players(players)
    except ValueError:
        return False
    return True
