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
"""

from __future__ import annotations

from typing import Final

from ..deal import Deal
from ..moves import Move

__all__ = ["MAX_CARDS", "solvable", "solve"]

#: The most cards left in both hands the solver takes on (a last mano of 3 each, and
#: whatever declarations it opens with); more would be a search, not a solve.
MAX_CARDS: Final = 8


def solvable(deal: Deal) -> bool:
    """Whether `deal`'s rest is perfect information for both players and small: two
    players, the deck dealt out, at most `MAX_CARDS` cards in the hands."""
    if deal.players != 2 or deal.is_over or deal.deck_left:
        return False
    return sum(len(deal.hand(s)) for s in range(2)) <= MAX_CARDS


def _margin(deal: Deal, side: int) -> float:
    totals = deal.score().totals
    return float(totals[side] - totals[1 - side])


def _ordered(moves: list[Move]) -> list[Move]:
    """Captures first (they cut more often), the engine's order otherwise."""
    return sorted(moves, key=lambda m: not m.captured)


def _value(deal: Deal, side: int, alpha: float, beta: float) -> float:
    """`side`'s points less the other's under best play by both, within (alpha, beta)."""
    if deal.is_over:
        return _margin(deal, side)
    mover = deal.to_move
    assert mover is not None
    maximizing = deal.side_of(mover) == side
    best = -1e9 if maximizing else 1e9
    for move in _ordered(deal.legal_moves()):
        child = deal.copy()
        child.play(move)
        value = _value(child, side, alpha, beta)
        if maximizing:
            if value > best:
                best = value
            if best > alpha:
                alpha = best
        else:
            if value < best:
                best = value
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    return best


def solve(deal: Deal, legal: list[Move]) -> list[float]:
    """Each of `legal`'s exact worth to the side to move: its points less the other's
    at the smazzata's end, both playing their best after it (`solvable` must hold)."""
    mover = deal.to_move
    assert mover is not None and solvable(deal)
    side = deal.side_of(mover)
    out = []
    for move in legal:
        child = deal.copy()
        child.play(move)
        out.append(_value(child, side, -1e9, 1e9))
    return out
