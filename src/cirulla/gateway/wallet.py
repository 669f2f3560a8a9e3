"""Chips over HTTP: the wallet and its history, the daily top-up, a player's cash results.

The ledger itself is store/ledger.py; the chips a table moves are written with its
records (competition/cash.py), so nothing here ever moves chips except the top-up.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from ..settings import Settings
from ..store import Store, UserRow
from ..store.ledger import NoTopup
from .errors import ApiError
from .security import current_user

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["chips"])


def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


@router.get("/wallet")
async def get_wallet(
    request: Request,
    user: Annotated[UserRow, Depends(current_user)],
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    before: Annotated[int | None, Query(ge=1, le=2**62)] = None,
) -> dict[str, Any]:
    """The wallet's free chips, the chips in escrow, and its entries newest first;
    `next` is the `before` of the page after this one (None on the last)."""
    ledger = _store(request).ledger
    chips, held = await ledger.balances(user.id)
    entries = await ledger.entries(user.id, limit=limit + 1, before=before)
    more = len(entries) > limit
    entries = entries[:limit]
    return {
        "chips": chips,
        "escrow": held,
        "entries": [e.to_json() for e in entries],
        "next": entries[-1].id if more else None,
    }


@router.post("/wallet/topup", responses={409: {"description": "no top-up possible now"}})
async def topup(
    request: Request, user: Annotated[UserRow, Depends(current_user)]
) -> dict[str, Any]:
    """The daily top-up, for a player with fewer chips than the floor (once a UTC day)."""
    settings = _settings(request)
    try:
        chips = await _store(request).ledger.topup(
            user.id, settings.topup_chips, settings.topup_floor
        )
    except NoTopup as exc:
        tomorrow = (datetime.now(UTC) + timedelta(days=1)).date().isoformat()
        raise ApiError(
            409, "no_topup", f"{exc}; the next one is possible from {tomorrow} 00:00 UTC"
        ) from None
    return {"chips": chips, "granted": settings.topup_chips}


@router.get("/players/{name}/chips")
async def player_chips(request: Request, name: str) -> dict[str, Any]:
    """Chips won and lost at cash tables (public)."""
    store = _store(request)
    user = await store.find_user(name) if len(name) <= 64 else None
    if user is None:
        raise ApiError(404, "no_player", f"no player named {name!r}")
    return await store.ledger.cash_results(user.id)
