"""Bots, from random to search: `cirulla.bots.get(name, seed=..., budget=...)`.

Every bot gets only a seat's view (`SeatView`) and returns a legal move; see
`base.py`. Names: random, greedy, expert, pimc, ismcts, and cheater (sees every
card: an arena yardstick only). Player levels: see `LEVELS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..deal import Deal
from .base import Bot, Budget, OmniscientBot, SeatView, choose_move
from .expert import ExpertBot
from .levels import LEVELS, Level, level_bot
from .perfect_information import CheaterBot, PimcBot
from .search import IsmctsBot
from .simple import GreedyBot, RandomBot

__all__ = [
    "LEVELS",
    "Bot",
    "Budget",
    "Level",
    "OmniscientBot",
    "SeatView",
    "choose_move",
    "get",
    "level_bot",
    "names",
    "play_deal",
    "register",
]

_REGISTRY: dict[str, Callable[..., Bot]] = {}


def register(name: str, factory: Callable[..., Bot]) -> None:
    """Make a bot available to `get` (and so to the arena and the server)."""
    if not name or not isinstance(name, str):
        raise ValueError("a bot needs a name")
    _REGISTRY[name] = factory


def names() -> list[str]:
    return sorted(_REGISTRY)


def get(name: str, seed: int = 0, budget: Budget | None = None, **options: Any) -> Bot:
    """A new bot by name; ValueError for an unknown name or option."""
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ValueError(f"unknown bot {name!r} (bots: {', '.join(names())})")
    try:
        return factory(seed=seed, budget=budget, **options)
    except TypeError as exc:
        raise ValueError(f"bad option for bot {name!r}: {exc}") from None


def play_deal(deal: Deal, bots: list[Bot]) -> Deal:
    """Play the smazzata to its end, seat s moved by bots[s] (each sees only its view)."""
    if len(bots) != deal.players:
        raise ValueError(f"{deal.players} players need {deal.players} bots, not {len(bots)}")
    while not deal.is_over:
        seat = deal.to_move
        assert seat is not None
        deal.play(choose_move(bots[seat], deal, seat))
    return deal


register("random", RandomBot)
register("greedy", GreedyBot)
register("expert", ExpertBot)
register("pimc", PimcBot)
register("ismcts", IsmctsBot)
register("cheater", CheaterBot)
