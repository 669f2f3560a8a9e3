"""What cards and plays are worth: the knowledge the greedy bot plays by and the
search bots use in their playouts.

Weights are the expected share of a smazzata's points a card carries when
captured (cards, diamonds, sette bello, primiera, grande and piccola), so a
move's worth reads in points, like the score sheet.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from ..cards import Card, full_deck
from ..moves import Move

__all__ = ["CARD_WEIGHT", "SCOPA", "move_gain", "sweepable", "weight"]

SCOPA: Final = 1.0  # a sweep is a point


def _weight(card: Card) -> float:
    w = 0.05  # the "cards" point is shared among ~21 cards
    w += {"7": 0.25, "6": 0.12, "A": 0.08}.get(card.rank, 0.0)  # primiera
    if card.suit == "D":
        w += 0.18  # the "diamonds" point, ~6 diamonds
        if card.rank == "7":
            w += 1.0  # sette bello
        if card.rank in "JQK":
            w += 0.9  # grande: 5 points for all three
        if card.rank in "A23":
            w += 0.55  # piccola: 3 points for the three
        elif card.rank in "456":
            w += 0.25  # its run
    return w


#: Points a card is worth to the side that captures it, by card id.
CARD_WEIGHT: Final = tuple(_weight(c) for c in full_deck())


def weight(cards: Iterable[Card]) -> float:
    return sum(CARD_WEIGHT[c.id] for c in cards)


_GAIN_CACHE: dict[Move, float] = {}


def move_gain(move: Move) -> float:
    """The points a play takes (the card played and those it captures), sweeps aside."""
    gain = _GAIN_CACHE.get(move)
    if gain is None:
        if move.captured and move.card is not None:
            gain = CARD_WEIGHT[move.card.id] + sum(CARD_WEIGHT[c.id] for c in move.captured)
        else:
            gain = 0.0
        if len(_GAIN_CACHE) < 200_000:
            _GAIN_CACHE[move] = gain
    return gain


def sweepable(values: Sequence[int], threats: Iterable[int]) -> bool:
    """Could a card of one of the `threats` values sweep a table of these capture values?"""
    if not values:
        return False
    total = sum(values)
    has_ace = 1 in values
    for v in threats:
        if v == 1:
            if not has_ace or (len(values) == 1):  # an ace takes all, or the lone ace
                return True
        elif total == v or total + v == 15:
            return True
    return False
