"""Search bots: `pimc` (determinized rollouts), `ismcts` (information-set Monte Carlo
tree search, single observer) and `cheater` (the same tree search seeing every card).

All three look ahead on deals of their own: `determinize` builds one consistent
with the bot's view, `Deal.redeal_unseen` re-draws its hidden cards for each
iteration. Playouts to the end of the smazzata follow a cheap greedy policy with
some randomness (epsilon), and a result is the score difference of the bot's
side for the smazzata, as the issue asks. The loops themselves are in playouts.py
(compiled with mypyc in the compiled build); the bots here set them up.
"""

from __future__ import annotations

from collections.abc import Callable

from ..deal import Deal
from ..determinize import determinize
from ..moves import Move
from .base import Bot, Budget, OmniscientBot, SeatView
from .playouts import DEFAULT_EPSILON, REWARD_SCALE, Clock, pimc_search, playout, reward, ucb_search

__all__ = ["CheaterBot", "IsmctsBot", "PimcBot", "playout", "reward"]


class IsmctsBot(Bot):
    """Single-observer information-set MCTS: one tree over the bot's information set,
    a fresh determinization of the hidden cards at every iteration."""

    name = "ismcts"

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        epsilon: float = DEFAULT_EPSILON,
        exploration: float = 0.7,
        prior: str | None = None,
        prior_weight: float = 1.0,
    ) -> None:
        super().__init__(seed, budget or Budget(iterations=1000))
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be between 0 and 1, not {epsilon!r}")
        if prior not in (None, "expert"):
            raise ValueError(f"prior must be None or 'expert', not {prior!r}")
        self.epsilon = epsilon
        self.exploration = exploration
        self.prior = prior
        self.prior_weight = prior_weight
        self.last_iterations = 0

    def choose(self, view: SeatView) -> Move:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        bias: dict[object, float] | None = None
        if self.prior == "expert":
            from .expert import expert_opinion

            declared, scores = expert_opinion(view)
            if declared is not None:  # the expert weighs points against cards shown
                return declared
            legal = [m for m in legal if m.kind == "play"] or legal
            if len(legal) == 1:
                return legal[0]
            top = max(scores.values())
            bias = {k: self.prior_weight * (v - top) / REWARD_SCALE for k, v in scores.items()}
        base = determinize(view.raw, self.rng)
        return self._search(base, view.seat, lambda: self._sample(base, view.seat), legal, bias)

    def _sample(self, base: Deal, seat: int) -> Deal:
        deal = base.copy()
        deal.redeal_unseen(seat, self.rng)
        return deal

    def _search(
        self,
        base: Deal,
        seat: int,
        sample: Callable[[], Deal],
        legal: list[Move],
        bias: dict[object, float] | None = None,
    ) -> Move:
        """UCB search (`playouts.ucb_search`, compiled in the compiled build); `bias` (root
        moves' prior, <= 0) steers the root's early visits: its moves are tried best first
        and its term fades as visits grow."""
        assert self.budget is not None
        clock = Clock(self.budget)
        move = ucb_search(
            base, sample, legal, self.rng, clock, self.exploration, self.epsilon, bias
        )
        self.last_iterations = clock.done
        return move


class CheaterBot(OmniscientBot, IsmctsBot):
    """The same tree search on the real deal: every card visible. An arena yardstick."""

    name = "cheater"

    def choose_omniscient(self, deal: Deal) -> Move:
        legal = deal.legal_moves()
        if len(legal) == 1:
            return legal[0]
        seat = deal.to_move
        assert seat is not None
        return self._search(deal, seat, deal.copy, legal)

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
