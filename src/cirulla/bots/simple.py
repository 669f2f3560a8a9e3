"""The simple bots: `random` and `greedy`."""

from __future__ import annotations

from collections.abc import Sequence

from ..bonuses import bonus_points
from ..moves import Move
from .base import Bot, Budget, SeatView
from .evaluate import greedy_score

__all__ = ["GreedyBot", "RandomBot", "best_declaration", "greedy_score"]


class RandomBot(Bot):
    """Uniform among the legal moves."""

    name = "random"

    def choose(self, view: SeatView) -> Move:
        legal = view.legal
        return legal[self.rng.randrange(len(legal))]


def best_declaration(moves: Sequence[Move], view: SeatView) -> Move | None:
    """The declaration worth most points, if any is legal (a decino before a cirulla)."""
    best: Move | None = None
    best_points = -1
    for move in moves:
        if move.kind == "declare" and move.bonus is not None:
            values = tuple(
                move.matta_value if c == view.rules.matta() and move.matta_value else c.value
                for c in move.cards
            )
            points = bonus_points(move.bonus, (values[0], values[1], values[2]), view.rules)
            if points > best_points:
                best, best_points = move, points
    return best


class GreedyBot(Bot):
    """The best immediate play by points taken, never leaving an easy sweep when it can
    be avoided; declares every bonus it may. With `epsilon`, that share of its moves
    is random instead (a gentler opponent)."""

    name = "greedy"

    def __init__(self, seed: int = 0, budget: Budget | None = None, epsilon: float = 0.0) -> None:
        super().__init__(seed, budget)
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be between 0 and 1, not {epsilon!r}")
        self.epsilon = epsilon

    def choose(self, view: SeatView) -> Move:
        legal = view.legal
        if self.epsilon and self.rng.random() < self.epsilon:
            return legal[self.rng.randrange(len(legal))]
        declaration = best_declaration(legal, view)
        if declaration is not None:
            return declaration
        plays = [m for m in legal if m.kind == "play"]
        if not plays:  # a declaration round (declare_at_deal) with nothing to declare
            return legal[0]
        threats = {c.value for c in view.unseen}
        table = view.table_values
        cards = view.table
        last = view.is_last_play
        best = max(
            plays,
            key=lambda m: (greedy_score(m, table, cards, threats, last), -m.card.value),  # type: ignore[union-attr]
        )
        return best
