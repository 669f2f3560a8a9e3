"""Search bots: `pimc` (determinized rollouts), `ismcts` (information-set Monte Carlo
tree search, single observer) and `cheater` (the same tree search seeing every card).

All three look ahead on deals of their own: `determinize` builds one consistent
with the bot's view, `Deal.redeal_unseen` re-draws its hidden cards for each
iteration. Playouts to the end of the smazzata follow a cheap greedy policy with
some randomness (epsilon), and a result is the score difference of the bot's
side for the smazzata, as the issue asks.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Final

from ..deal import Deal
from ..determinize import determinize
from ..moves import Move
from .base import Bot, Budget, OmniscientBot, SeatView
from .simple import greedy_score

__all__ = ["CheaterBot", "IsmctsBot", "PimcBot", "playout", "reward"]

DEFAULT_EPSILON: Final = 0.3
REWARD_SCALE: Final = 10.0  # points per smazzata that count as one unit for UCB


def _policy_move(deal: Deal, legal: list[Move]) -> Move:
    """The playouts' greedy choice (greedy's own score), declaring when it can; the sweep
    risk is judged on the next player's cards in this determinization."""
    seat = deal.to_move
    assert seat is not None
    threats = {c.value for c in deal._hands[deal._next_seat[seat]]}
    values = deal._tkey
    table = deal._table
    last = deal.deck_left == 0 and deal._stage_plays + 1 == deal._stage_len
    best = legal[0]
    best_score = -1e9
    for move in legal:
        if move.kind != "play":
            if move.kind == "declare":
                return move
            continue
        score = greedy_score(move, values, table, threats, last)
        if score > best_score:
            best, best_score = move, score
    return best


def playout(deal: Deal, rng: random.Random, epsilon: float = DEFAULT_EPSILON) -> list[int]:
    """Play the smazzata to its end (epsilon-greedy); return each side's points."""
    while not deal.is_over:
        legal = deal.legal_moves()
        if len(legal) == 1:
            move = legal[0]
        elif rng.random() < epsilon:
            move = legal[rng.randrange(len(legal))]
        else:
            move = _policy_move(deal, legal)
        deal.play(move)
    return deal.score().totals


def reward(totals: list[int], side: int) -> float:
    """The side's score difference against the others, scaled for UCB."""
    others = [t for s, t in enumerate(totals) if s != side]
    return (totals[side] - sum(others) / len(others)) / REWARD_SCALE


class _Clock:
    """Stops a search at its budget: iterations, seconds, whichever comes first."""

    def __init__(self, budget: Budget) -> None:
        self.iterations = budget.iterations
        self.deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
        self.done = 0

    def more(self) -> bool:
        if self.iterations is not None and self.done >= self.iterations:
            return False
        return not (
            self.deadline is not None and self.done % 8 == 0 and time.perf_counter() > self.deadline
        )


class _Node:
    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[object, tuple[Move, _Node]] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0


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
        """UCB search; `bias` (root moves' prior, <= 0) steers the root's early visits:
        its moves are tried best first and its term fades as visits grow."""
        assert self.budget is not None
        rng = self.rng
        root = _Node()
        clock = _Clock(self.budget)
        c = self.exploration
        side_of = base.side_of
        while clock.more():
            deal = sample()
            node = root
            path: list[tuple[_Node, int]] = []
            while not deal.is_over:
                moves = deal.legal_moves()
                mover = deal.to_move
                assert mover is not None
                children = node.children
                untried = []
                for m in moves:
                    entry = children.get(m.key)
                    if entry is None:
                        untried.append(m)
                    else:
                        entry[1].avail += 1
                if untried:
                    if bias is not None and node is root:
                        move = max(untried, key=lambda m: bias.get(m.key, -1.0))
                    else:
                        move = untried[rng.randrange(len(untried))]
                    child = _Node()
                    child.avail = 1
                    children[move.key] = (move, child)
                    deal.play(move)
                    path.append((child, side_of(mover)))
                    break
                best_value = -1e18
                move = moves[0]
                child = children[move.key][1]
                for m in moves:
                    ch = children[m.key][1]
                    value = ch.total / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                    if bias is not None and node is root:
                        value += bias.get(m.key, -1.0) * 10.0 / (ch.visits + 1) ** 0.5
                    if value > best_value:
                        best_value, move, child = value, m, ch
                deal.play(move)
                path.append((child, side_of(mover)))
                node = child
            totals = playout(deal, rng, self.epsilon) if not deal.is_over else deal.score().totals
            for child, side in path:
                child.visits += 1
                child.total += reward(totals, side)
            clock.done += 1
        self.last_iterations = clock.done
        best = max(
            legal,
            key=lambda m: root.children[m.key][1].visits if m.key in root.children else -1,
        )
        return best


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
        rng = self.rng
        seat = view.seat
        side = view.side
        base = determinize(view.raw, rng)
        totals = [0.0] * len(legal)
        clock = _Clock(self.budget)
        sample = base
        while clock.more():
            i = clock.done % len(legal)
            if i == 0:  # a new sample; every move is played out on the same one
                sample = base.copy()
                sample.redeal_unseen(seat, rng)
            deal = sample.copy()
            deal.play(legal[i])
            totals[i] += reward(playout(deal, rng, self.epsilon), side)
            clock.done += 1
        rounds = [
            clock.done // len(legal) + (1 if i < clock.done % len(legal) else 0)
            for i in range(len(legal))
        ]
        return legal[max(range(len(legal)), key=lambda i: totals[i] / max(1, rounds[i]))]
