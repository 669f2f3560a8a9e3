"""Re-drawing, in place, the cards one seat cannot see: how search turns a copy of a
deal into one determinization, once per iteration (`cirulla.determinize` builds the
first such deal from a view).

Kept apart from the deal's rules because no rule needs it; compiled with deal.py
(setup.py) because the search calls it thousands of times a move. The event log of
a re-drawn deal keeps the hands as first dealt, so replay its moves, not its events.
"""

from __future__ import annotations

import random

from .cards import Card
from .deal import Deal
from .views import visible_hands

__all__ = ["assign_unseen", "redeal_unseen"]


def redeal_unseen(deal: Deal, seat: int, rng: random.Random) -> None:
    """Re-draw every card `seat` cannot see: the other hands (but their declared
    cards) and the undealt deck, keeping how many each holds."""
    seen = visible_hands(deal, deal._check_seat(seat))
    hands = deal._hands
    pendings = deal._pending
    pool: list[Card] = list(deal._deck)
    for other, hand in enumerate(hands):
        if other not in seen:
            pending = pendings[other]
            pool += [c for c in hand if c not in pending]
    rng.shuffle(pool)
    for other, hand in enumerate(hands):
        if other not in seen:
            pending = pendings[other]
            need = len(hand) - len(pending)
            hands[other] = pending + pool[:need]
            del pool[:need]
    deal._deck = pool
    deal._hands_changed([other for other in range(deal.players) if other not in seen])


def assign_unseen(deal: Deal, seat: int, hands: dict[int, list[Card]], deck: list[Card]) -> None:
    """Put the cards `seat` cannot see where a sampler chose: `hands[s]` after each
    hidden hand's declared cards, `deck` as the undealt deck (in that order). The same
    cards and counts as now, or ValueError: a sampler may move the hidden cards, never
    make or lose one."""
    seen = visible_hands(deal, deal._check_seat(seat))
    hidden = [s for s in range(deal.players) if s not in seen]
    if sorted(hands) != hidden:
        raise ValueError(f"hands must be given for exactly the seats {hidden}")
    old: list[Card] = list(deal._deck)
    new: list[Card] = list(deck)
    for other in hidden:
        pending = deal._pending[other]
        free = [c for c in deal._hands[other] if c not in pending]
        if len(hands[other]) != len(free):
            raise ValueError(f"seat {other} holds {len(free)} hidden cards")
        old += free
        new += hands[other]
    if len(new) != len(old) or set(new) != set(old):
        raise ValueError("the cards given are not the cards this seat cannot see")
    for other in hidden:
        deal._hands[other] = deal._pending[other] + list(hands[other])
    deal._deck = list(deck)
    deal._hands_changed(hidden)
