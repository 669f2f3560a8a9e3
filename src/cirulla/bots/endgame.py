"""The end of a 2-player smazzata solved exactly.

Once the deck is dealt out at 2 players, each player's hand is every card the other
has not seen: the game left is one of perfect information for both, and its value is
the minimax of the score sheet, not an estimate. The search's model of the other
player (greedy, with some noise) is right against greedy players and wrong against a
player who sees the same cards; the exact value is right against both at worst.

Works on a `Deal` (the determinization, which is the deal itself here) with the
engine's own moves and score, so every rule the engine plays is solved as it plays it.
Alpha-beta with captures tried first; a last mano of 3 cards each is a few hundred
positions.

The stage before the last (`endgame_before="sampled"`) hides the other hand and the deck's
last deal: there each move's worth is its exact worth averaged over determinizations
(perfect-information Monte Carlo), each solved as above, twelve plies at most. So is the
last stage at 4 players (`endgame_hidden="sampled"`), where the deck is dealt out but
three hands are hidden: two sides, so the same minimax of one side's points less the
other's.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Final

from ..deal import Deal
from ..determinize import determinize
from ..moves import Move
from .base import SeatView

__all__ = [
    "MAX_CARDS",
    "MAX_SAMPLED_CARDS",
    "MIN_SAMPLED_DEALS",
    "SAMPLED_DEALS",
    "hidden_stage",
    "known_deal",
    "sampled_stage",
    "sampled_worths",
    "solvable",
    "solve",
    "worth",
]

#: The most cards left in both hands the solver takes on (a last mano of 3 each, and
#: whatever declarations it opens with); more would be a search, not a solve.
MAX_CARDS: Final = 8


#: The most cards the stage before the last may hold and deal still (this stage's hands
#: and the last stage's deal, three each at 2 players): each determinization is solved
#: whole, twelve plies of alpha-beta, some milliseconds compiled.
MAX_SAMPLED_CARDS: Final = 12

#: The determinizations each move's worth is averaged over in the stage before the last,
#: and the fewest a time cap may stop it at (the mean of fewer says little).
SAMPLED_DEALS: Final = 32
MIN_SAMPLED_DEALS: Final = 4


def solvable(deal: Deal) -> bool:
    """Whether `deal`'s rest is perfect information for both players and small: two
    players, the deck dealt out, at most `MAX_CARDS` cards in the hands."""
    if deal.players != 2 or deal.is_over or deal.deck_left:
        return False
    return sum(len(deal.hand(s)) for s in range(2)) <= MAX_CARDS


def known_deal(view: SeatView) -> Deal | None:
    """The one deal that fits `view` where every card is known to both players and the
    rest is `solvable`; None elsewhere. Built from the view alone: no draw to make."""
    if view.players != 2 or view.deck_left:
        return None
    deal = determinize(view.raw, random.Random(0))
    return deal if solvable(deal) else None


def sampled_stage(view: SeatView) -> bool:
    """Whether `view` is in the stage before the last at 2 players, its hands and the
    deal still to come at most `MAX_SAMPLED_CARDS`: each determinization of it solvable
    whole."""
    if view.players != 2 or view.stage != len(view.stages) - 2:
        return False
    in_hands = view.hand_count(0) + view.hand_count(1)
    return in_hands + view.deck_left <= MAX_SAMPLED_CARDS


def hidden_stage(view: SeatView) -> bool:
    """Whether `view` is in the last stage at 4 players (two sides, the deck dealt out),
    at most `MAX_SAMPLED_CARDS` cards in the hands: each determinization solvable whole."""
    if view.players != 4 or view.sides != 2 or view.deck_left:
        return False
    if view.stage != len(view.stages) - 1:
        return False
    return sum(view.hand_count(s) for s in range(4)) <= MAX_SAMPLED_CARDS


def sampled_worths(
    sample: Callable[[], Deal],
    legal: list[Move],
    deals: int = SAMPLED_DEALS,
    seconds: float | None = None,
) -> list[float]:
    """Each of `legal`'s exact worth to the side to move, averaged over `deals`
    determinizations `sample` draws (at least `MIN_SAMPLED_DEALS` however short
    `seconds` is): both players are solved as if they saw every card, so a move's worth
    is what it makes against an opponent who plays the rest well."""
    deadline = None if seconds is None else time.perf_counter() + seconds
    sums = [0.0] * len(legal)
    done = 0
    while done < deals:
        if done >= MIN_SAMPLED_DEALS and deadline is not None and time.perf_counter() > deadline:
            break
        deal = sample()
        mover = deal.to_move
        assert mover is not None
        side = deal.side_of(mover)
        for i, totals in enumerate(_outcomes(deal, legal)):
            sums[i] += worth(totals, side)
        done += 1
    return [total / done for total in sums]


def _ordered(moves: list[Move]) -> list[Move]:
    """Captures first (they cut more often), the engine's order otherwise."""
    return sorted(moves, key=lambda m: not m.captured)


def _line(deal: Deal, side: int, alpha: float, beta: float) -> tuple[float, list[int]]:
    """`side`'s points less the other's under best play by both, within (alpha, beta),
    and both sides' points at the end of that line. Inside the window both are exact;
    outside it the value is a bound and no better move is taken for it."""
    if deal.is_over:
        totals = deal.score().totals
        return float(worth(totals, side)), totals
    mover = deal.to_move
    assert mover is not None
    maximizing = deal.side_of(mover) == side
    best = -1e9 if maximizing else 1e9
    best_totals: list[int] = []
    for move in _ordered(deal.legal_moves()):
        child = deal.copy()
        child.play(move)
        value, totals = _line(child, side, alpha, beta)
        if maximizing:
            if value > best:
                best, best_totals = value, totals
            if best > alpha:
                alpha = best
        else:
            if value < best:
                best, best_totals = value, totals
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    return best, best_totals


def solve(deal: Deal, legal: list[Move]) -> list[list[int]]:
    """Each of `legal`'s exact outcome: both sides' points at the smazzata's end, both
    playing their best after it (`solvable` must hold). Its worth to the side to move
    is its points less the other's."""
    assert solvable(deal)
    return _outcomes(deal, legal)


def _outcomes(deal: Deal, legal: list[Move]) -> list[list[int]]:
    """Each of `legal`'s outcome in `deal`, every card seen, both sides playing their best
    after it (the full window: exact)."""
    mover = deal.to_move
    assert mover is not None
    side = deal.side_of(mover)
    out = []
    for move in legal:
        child = deal.copy()
        child.play(move)
        out.append(_line(child, side, -1e9, 1e9)[1])
    return out


def worth(totals: list[int], side: int) -> int:
    """An outcome's worth to `side`: its points less the other side's."""
    return totals[side] - totals[1 - side]
