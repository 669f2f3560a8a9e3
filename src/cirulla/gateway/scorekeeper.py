"""POST /api/score: the score sheet of a smazzata played with real cards (the /score page).

Stateless and open to everyone (a tool, no login): the page keeps the partita and
sends each smazzata's piles with the points of the smazzate before it; the answer
is the engine's sheet (`score_piles`, the JSON the table's score sheet uses) and
the partita's standing. Bad input is a 422 with the engine's message.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from ..score_keeping import MAX_SMAZZATE, instant_winner, keeper_rules, sides_for, standing
from ..scoring import score_piles
from .errors import ApiError

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["score keeper"])

CardText = Annotated[str, StringConstraints(max_length=4)]


class ScoreRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    preset: Annotated[str, StringConstraints(max_length=40)] = "cirulla"
    options: dict[str, Any] = Field(default_factory=dict, max_length=30)
    players: int = 2
    piles: list[Annotated[list[CardText], Field(max_length=40)]] = Field(max_length=3)
    scope: list[int] | None = Field(None, max_length=3)
    bonus: list[int] | None = Field(None, max_length=3)
    #: the points per side of each smazzata already played, in order
    before: list[Annotated[list[int], Field(max_length=3)]] = Field(
        default_factory=list, max_length=MAX_SMAZZATE
    )


def _score(body: ScoreRequest) -> dict[str, Any]:
    rules = keeper_rules(body.preset, body.options, body.players)
    sides = sides_for(body.players)
    if len(body.piles) != sides:
        raise ValueError(f"{body.players} players make {sides} sides: give {sides} piles")
    for number, row in enumerate(body.before, start=1):
        if len(row) != sides or any(p < 0 for p in row):
            raise ValueError(
                f"before: smazzata {number} must give {sides} non-negative points, one per side"
            )
    sheet = score_piles(rules, body.piles, scope=body.scope, bonus=body.bonus)
    before = standing(rules, body.before)
    if before.over:
        raise ValueError(f"the partita was already over after smazzata {before.smazzate}")
    after = standing(
        rules,
        [*body.before, sheet.totals],
        [None] * len(body.before) + [instant_winner(rules, sheet)],
    )
    return {
        "sheet": sheet.to_dict(),
        "rules": rules.to_dict(),
        "players": body.players,
        **after.to_dict(),
    }


@router.post("/score")
async def score(body: ScoreRequest) -> dict[str, Any]:
    """The sheet of one smazzata's piles, scope and accusi (bonus), and the partita's
    totals, whether it is over and who won, counting the smazzate `before` it."""
    try:
        return _score(body)
    except ValueError as exc:
        raise ApiError(422, "bad_score", str(exc)) from None
