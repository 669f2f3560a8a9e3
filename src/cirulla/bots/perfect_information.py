"""Searches that play as if the hidden cards were known: the cheater, for whom they are
(the arena's yardstick of what hidden information costs), and perfect-information Monte
Carlo, which samples them and plays each legal move out on every sample."""

from __future__ import annotations

from collections.abc import Callable

from ..deal import Deal
from ..determinize import determinize
from ..moves import Move
from .base import Bot, Budget, OmniscientBot, SeatView
from .playouts import DEFAULT_EPSILON, Clock, pimc_search
from .search import IsmctsBot

__all__ = ["CheaterBot", "PimcBot"]


class CheaterBot(OmniscientBot, IsmctsBot):
    """The same tree search on the real deal: every card visible. An arena yardstick."""

    name = "cheater"

    def choose_omniscient(self, deal: Deal) -> Move:
        legal = deal.legal_moves()
        if len(legal) == 1:
            return legal[0]
        seat = deal.to_move
        assert seat is not None
        return self._search(deal, seat, self._samples(deal), legal)

    def _samples(self, deal: Deal) -> Callable[[], Deal]:
        """Where each iteration's deal comes from: the real one, every card visible."""
        return deal.copy

    def choose(self, view: SeatView) -> Move:
        return OmniscientBot.choose(self, view)


class PimcBot(Bot):
    """Perfect-information Monte Carlo: sample the hidden cards many times, play each
    legal move out on every sample, pick the move with the best average."""

    name = "pimc"

    def __init__(
        self, seed: int = 0, budget: Budget | None = None, epsilon: float = DEFAULT_EPSILON
    ) -> None:
        super().__init__(seed, budget or Budget(iterations=600))
        self.epsilon = epsilon

    def choose(self, view: SeatView) -> Move:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        assert self.budget is not None
        base = determinize(view.raw, self.rng)
        clock = Clock(self.budget)
        return pimc_search(base, view.seat, view.side, legal, self.rng, clock, self.epsilon)
