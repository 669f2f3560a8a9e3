"""Leaderboards and each player's ratings with their history (public, read only)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Query, Request

from ..competition.ratings import (
    GAMES,
    PROVISIONAL_DEVIATION,
    PROVISIONAL_PARTITE,
    RatingService,
    bot_level_ratings,
    is_provisional,
)
from ..store import Store
from ..store.ratings import RatingRow
from .errors import ApiError

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["ratings"])

#: The weekly leaderboard's period.
WEEK: Final = timedelta(days=7)

Game = Literal["cirulla", "scopa", "cirullone"]
Mode = Literal["1v1", "pairs"]
Period = Literal["all", "week"]
assert set(GAMES) == {"cirulla", "scopa", "cirullone"}


def _service(request: Request) -> RatingService:
    service: RatingService = request.app.state.ratings
    return service


def _rating(row: RatingRow) -> dict[str, Any]:
    return {
        "rating": round(row.rating, 1),
        "deviation": round(row.deviation, 1),
        "provisional": is_provisional(row.mode, row.partite, row.deviation),
        "partite": row.partite,
    }


@router.get("/leaderboard")
async def leaderboard(
    request: Request,
    game: Game = "cirulla",
    mode: Mode = "1v1",
    period: Period = "all",
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    """Registered players by rating: established ratings first, provisional ones after.
    `week`: only those who played a rated partita in the last 7 days, with the change."""
    since = datetime.now(UTC) - WEEK if period == "week" else None
    rows = await _service(request).store.leaderboard(
        game,
        mode,
        since=since,
        limit=limit,
        provisional=(PROVISIONAL_PARTITE, PROVISIONAL_DEVIATION[mode]),
    )
    entries = []
    for rank, line in enumerate(rows, start=1):
        change = None
        if line.rating_before is not None:
            change = round(line.row.rating - line.rating_before, 1)
        entries.append(
            {
                "rank": rank,
                "name": line.name,
                "bot": line.bot,
                **_rating(line.row),
                "change": change,
            }
        )
    return {"game": game, "mode": mode, "period": period, "entries": entries}


@router.get("/players/{name}/ratings")
async def player_ratings(request: Request, name: str, game: Game = "cirulla") -> dict[str, Any]:
    """A player's ratings in `game` (1 against 1 and pairs), their history, and the
    bots' fixed ratings to compare with."""
    store: Store = request.app.state.store
    user = await store.find_user(name)
    if user is None:
        raise ApiError(404, "unknown_player", f"No player named '{name[:64]}'.")
    ratings = _service(request).store
    current = await ratings.of_user(user.id, game)
    history: dict[str, list[dict[str, Any]]] = {"1v1": [], "pairs": []}
    for point in await ratings.history(user.id, game):
        history[point.mode].append(
            {
                "at": point.at.isoformat(),
                "rating": round(point.rating, 1),
                "deviation": round(point.deviation, 1),
                "table": point.table_id,
            }
        )
    return {
        "name": user.name,
        "bot": user.bot,
        "game": game,
        "ratings": {
            mode: _rating(current[mode]) if mode in current else None for mode in ("1v1", "pairs")
        },
        "history": history,
        "bots": bot_level_ratings(),
    }
