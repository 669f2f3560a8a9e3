"""Difficulty levels for players: each a bot and a budget per move."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Final

from .base import Bot, Budget

__all__ = [
    "CAMPIONE_2026_11_21",
    "CAMPIONE_2026_11_27",
    "CAMPIONE_2026_11_28",
    "CAMPIONE_2026_12_06",
    "CAMPIONE_OPTIONS",
    "LEVELS",
    "Level",
    "level_bot",
]


@dataclass(frozen=True, slots=True)
class Level:
    """A level offered to players: which bot, with which options and budget."""

    name: str
    bot: str
    description: str
    options: dict[str, Any] = field(default_factory=dict)
    budget: Budget | None = None


#: campione's search of 2026-11-27 (docs/strength.md): determinizations kept by a greedy
#: opponent model (what the others' plays and undeclared bonuses reveal), the other
#: side's moves in the tree by the greedy policy, which judges sweep risks on the cards
#: the mover cannot see, and fewer random moves in the playouts.
_SEARCH_2026_11_27: Final[dict[str, Any]] = {
    "infer": True,
    "missed_greedy": 0.05,
    "missed_bonus": 0.05,
    "others": "policy",
    "threats": "unseen",
    "epsilon": 0.1,
}

#: campione's search from 2026-12-06 to its fourth section that day: that of 2026-11-27
#: with each playout cut where its stage ends and a value learned from the cheater's
#: games scoring the rest (`leaf="cut"`, bots/leafvalue.py), at 4 players only: +0.23 a
#: smazzata head to head there at 40% less time a move, and no gain at 2.
_SEARCH_2026_12_06: Final[dict[str, Any]] = {
    **_SEARCH_2026_11_27,
    "leaf": "cut",
    "cut_players": [4],
}

#: campione's search from 2026-12-06, a fourth, to 2026-12-07, a fifth (docs/strength.md):
#: the cut's value averaged over the hands it finds just dealt (`leaf="cut_mean"`), at 2
#: players too, where the playout runs on until the value has at most two stages left
#: to score (`cut_within=2`; at 4 players, three stages, the first cut does that
#: already): +0.15 (-0.00 .. +0.30) a smazzata head to head at 2 players over 2,000
#: decks (+0.36 on the first 1,000 it played), and level with the cut at 4
#: (docs/strength.md, 2026-12-06, a fourth and a fifth).
_SEARCH_2026_12_06_AVERAGED: Final[dict[str, Any]] = {
    **_SEARCH_2026_11_27,
    "leaf": "cut_mean",
    "cut_within": 2,
}

#: campione's search since 2026-12-07, a fifth: that one, and at 2 players, once the
#: deck is dealt out and every card is known to both, only moves of best exact worth
#: against an opponent whose finished stages were played as a searcher plays
#: (`endgame="searchers"`, bots/endgame.py): +0.115 (+0.045 .. +0.185) a smazzata
#: against campione on the same 200 last stages, the same moves against greedy players
#: (docs/strength.md, 2026-12-07, a fifth). Nothing changes at 4 players.
CAMPIONE_OPTIONS: Final[dict[str, Any]] = {
    **_SEARCH_2026_12_06_AVERAGED,
    "endgame": "searchers",
}

LEVELS: Final[dict[str, Level]] = {
    "facile": Level(
        "facile",
        "greedy",
        "takes what it sees, but one move in three is a whim",
        {"epsilon": 0.35},
    ),
    "normale": Level("normale", "greedy", "the best capture in sight, no easy sweeps left"),
    "difficile": Level("difficile", "expert", "counts cards, guards its aces, plays the 15s"),
    "campione": Level(
        "campione",
        "ismcts",
        "searches the smazzata ahead: at most a second a move",
        CAMPIONE_OPTIONS,
        # 3,000 iterations since 2026-11-28 (1,500 before): a third of a point more a
        # smazzata at 4 players; the cap stops about one early move in a hundred sooner
        # (one in seven before the cheaper sampler of 2026-11-29).
        budget=Budget(iterations=3000, seconds=1.0),
    ),
    # For analysis and strong players: the same search, four independent searches of
    # 10,000 iterations in worker processes (root parallelism), at most 5 s a move.
    "maestro": Level(
        "maestro",
        "ismcts",
        "searches far deeper, on several cores: up to five seconds a move",
        {**CAMPIONE_OPTIONS, "workers": 4},
        budget=Budget(iterations=10_000, seconds=5.0),
    ),
}

#: campione until 2026-11-27 (ismcts with its default options), not offered to players:
#: the yardstick of head-to-head runs (`cirulla arena ismcts ...`, 1,500 iterations).
CAMPIONE_2026_11_21: Final = Level(
    "campione",
    "ismcts",
    "searches the smazzata ahead: at most a second a move",
    budget=Budget(iterations=1500, seconds=1.0),
)

#: campione from 2026-11-27 to 2026-11-28: the search of 2026-11-27 with 1,500
#: iterations, not offered to players: the yardstick of docs/strength.md's runs since.
CAMPIONE_2026_11_27: Final = Level(
    "campione",
    "ismcts",
    "searches the smazzata ahead: at most a second a move",
    _SEARCH_2026_11_27,
    budget=Budget(iterations=1500, seconds=1.0),
)

#: campione from 2026-11-28 to 2026-12-06: the search of 2026-11-27 with 3,000
#: iterations and whole playouts (as campione played at 2 players until 2026-12-06, a
#: fourth), not offered to players: what the cuts were measured against
#: (docs/strength.md, 2026-12-06).
CAMPIONE_2026_11_28: Final = replace(CAMPIONE_2026_11_27, budget=Budget(3000, 1.0))

#: campione on 2026-12-06 until the averaged cut: the cut at 4 players (whole playouts at
#: 2), not offered to players: what the averaged cut was measured against.
CAMPIONE_2026_12_06: Final = replace(CAMPIONE_2026_11_28, options=_SEARCH_2026_12_06)

#: campione from 2026-12-06, a fourth, to 2026-12-07, a fifth: the averaged cut without
#: the solved last stage, not offered to players: what the solve was measured against.
CAMPIONE_2026_12_06_AVERAGED: Final = replace(
    CAMPIONE_2026_11_28, options=_SEARCH_2026_12_06_AVERAGED
)


def level_bot(level: str, seed: int = 0) -> Bot:
    """A new bot playing at `level`; ValueError for an unknown level."""
    from . import get

    spec = LEVELS.get(level)
    if spec is None:
        raise ValueError(f"unknown level {level!r} (levels: {', '.join(LEVELS)})")
    return get(spec.bot, seed=seed, budget=spec.budget, **spec.options)
