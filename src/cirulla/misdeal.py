"""What the four table cards of a fresh deal decide before anyone plays: a misdeal to
deal again (D6, D7(b), SC2) or, under Luzzati, the dealer's instant win (D7(a)).

Rules of the table alone, apart from the deal's state machine (`Deal._start`
asks them each time it lays a table).
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import Card
from .rules import Rules

__all__ = ["luzzati_win", "misdeal_reason"]


def luzzati_win(table: Sequence[Card], rules: Rules, matta: Card | None) -> str | None:
    """D7(a): four of a rank, or three of a rank and the matta, wins for the dealer."""
    if not rules.luzzati:
        return None
    ranks = [c.rank for c in table if c is not matta]
    for rank in set(ranks):
        k = ranks.count(rank)
        if k == 4 or (k == 3 and len(ranks) == 3):
            return "luzzati_table"
    return None


def misdeal_reason(table: Sequence[Card], rules: Rules) -> str | None:
    """Why this table is dealt again, or None when play can start on it."""
    if rules.is_scopa:  # SC2: three or four kings
        return "three_kings" if sum(c.rank == "K" for c in table) >= 3 else None
    if sum(c.rank == "A" for c in table) >= 2:  # D6: the matta is never wild here
        return "two_aces"
    if rules.luzzati:  # D7(b): three of a rank, the fourth not the matta
        for rank in {c.rank for c in table}:
            if sum(c.rank == rank for c in table) == 3:
                return "three_of_a_rank"
    return None
