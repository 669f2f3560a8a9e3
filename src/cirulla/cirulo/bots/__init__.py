"""Cirulo bots: `cirulla.cirulo.bots.get(name, seed=..., budget=...)`.

Every bot gets only a seat's view (`CiruloView`) and returns a legal card.
Names: `random`, `heuristic` (rules of thumb), `search` (determinized search;
its budget counts playouts). `register` adds more, for the arena and the server.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..deal import Deal
from .base import Budget, CiruloBot, CiruloView, choose_card
from .heuristic import HeuristicBot, RandomBot
from .search import SearchBot

__all__ = [
    "Budget",
    "CiruloBot",
    "CiruloView",
    "HeuristicBot",
    "RandomBot",
    "SearchBot",
    "choose_card",
    "get",
    "names",
    "play_deal",
    "register",
]

_REGISTRY: dict[str, Callable[..., CiruloBot]] = {}


def register(name: str, factory: Callable[..., CiruloBot]) -> None:
    """Make a Cirulo bot available to `get` (and so to the arena)."""
    if not name or not isinstance(name, str):
        raise ValueError("a bot needs a name")
    _REGISTRY[name] = factory


def names() -> list[str]:
    return sorted(_REGISTRY)


def get(name: str, seed: int = 0, budget: Budget | None = None, **options: Any) -> CiruloBot:
    """A new Cirulo bot by name; ValueError for an unknown name or option."""
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ValueError(f"unknown Cirulo bot {name!r} (bots: {', '.join(names())})")
    try:
        return factory(seed=seed, budget=budget, **options)
    except TypeError as exc:
        raise ValueError(f"bad option for Cirulo bot {name!r}: {exc}") from None


def play_deal(deal: Deal, bots: list[CiruloBot]) -> Deal:
    """Play the hand to its end, seat s moved by bots[s] (each sees only its view)."""
    if len(bots) != deal.players:
        raise ValueError(f"{deal.players} players need {deal.players} bots, not {len(bots)}")
    while not deal.is_over:
        seat = deal.to_move
        assert seat is not None
        deal.play(choose_card(bots[seat], deal, seat), seat)
    return deal


register("random", RandomBot)
register("heuristic", HeuristicBot)
register("search", SearchBot)
