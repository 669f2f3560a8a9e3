"""Public player profiles: partite, statistics, luck index, tournaments, playban.

Every account has one, guests included (their names are shown at the tables
anyway; `guest` says which). Bots have no account and no profile: their fixed
ratings are in GET /api/players/{name}/ratings.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from ..competition.profiles import aggregate, current_playban, tournaments_of
from ..store import Store
from ..store.players import PlayerStore
from .errors import ApiError

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["players"])

#: How many recent partite a profile lists.
RECENT = 20


@router.get("/players/{name}")
async def player_profile(request: Request, name: str) -> dict[str, Any]:
    """A player's public profile (docs/profiles.md)."""
    store: Store = request.app.state.store
    user = await store.find_user(name)
    if user is None:
        raise ApiError(404, "unknown_player", f"no player named '{name[:64]}'")
    rows = await PlayerStore(store).of_user(user.id)
    summary = aggregate(rows)
    ban = await current_playban(store, user.id)
    return {
        "name": user.name,
        "bot": user.bot,
        "guest": user.guest,
        "created": user.created_at.isoformat(),
        "partite": summary["partite"],
        "stats": summary["stats"],
        "luck": summary["luck"],
        "tournaments": await tournaments_of(store, user.id),
        "recent": [
            {
                "table": r.table_id,
                "game": r.game,
                "preset": r.preset,
                "players": r.players,
                "ended": r.ended.isoformat(),
                "result": r.result,
                "score": r.score,
                "forfeit": r.forfeit,
                "replay": f"/replay/{r.table_id}",
            }
            for r in [r for r in rows if not r.private][:RECENT]
        ],
        "playban": None if ban is None else {"until": ban.until.isoformat(), "reason": ban.reason},
    }
