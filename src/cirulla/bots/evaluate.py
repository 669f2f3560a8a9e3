"""What cards and plays are worth: the knowledge the greedy bot plays by and the
search bots use in their playouts.

Weights are the expected share of a smazzata's points a card carries when
captured (cards, diamonds, sette bello, primiera, grande and piccola), so a
move's worth reads in points, like the score sheet.

The compiled build compiles this module with mypyc (setup.py): its results must be
the same to the last bit compiled or not, so floats are added up in plain loops.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from ..cards import Card, full_deck
from ..moves import Move

__all__ = ["CARD_WEIGHT", "SCOPA", "SWEEP_RISK", "greedy_score", "move_gain", "sweepable", "weight"]

SCOPA: Final = 1.0  # a sweep is a point
# Leaving a table the next player can sweep costs about a point and a half: the
# scopa, and the cards it takes.
SWEEP_RISK: Final = 1.5


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


def move_gain(move: Move) -> float:
    """The points a play takes (the card played and those it captures), sweeps aside."""
    card = move.card
    if not move.captured or card is None:
        return 0.0
    taken = 0.0  # one by one, left to right: sum() before Python 3.12, compiled or not
    for c in move.captured:
        taken += CARD_WEIGHT[c.id]
    return CARD_WEIGHT[card.id] + taken


def sweepable(values: Sequence[int], threats: Iterable[int]) -> bool:
    """Could a card of one of the `threats` values sweep a table of these capture values?"""
    return _sweepable(list(values), threats)


def _sweepable(values: list[int], threats: Iterable[int]) -> bool:
    if not values:
        return False
    total = 0
    has_ace = False
    for v in values:  # one pass over a list: cheap once compiled
        total += v
        if v == 1:
            has_ace = True
    for v in threats:
        if v == 1:
            if not has_ace or (len(values) == 1):  # an ace takes all, or the lone ace
                return True
        elif total == v or total + v == 15:
            return True
    return False


def greedy_score(
    move: Move, table: Sequence[int], table_cards: Sequence[object], threats: set[int], last: bool
) -> float:
    """What a play is worth now: what it takes, a sweep, minus the risk it leaves.

    `table` are the table's capture values (in the order of `table_cards`),
    `threats` the values the next players may hold, `last` the smazzata's last play.
    """
    card = move.card
    assert card is not None
    captured = move.captured
    if captured:
        if len(table) != len(table_cards):
            raise ValueError("table values and table cards differ in number")
        left = [v for i, v in enumerate(table) if table_cards[i] not in captured]
        score = move_gain(move)
        if not left and not last:
            return score + SCOPA
    else:
        left = [*table, card.value]
        score = -0.5 * CARD_WEIGHT[card.id]  # what it offers the others
    if not last and _sweepable(left, threats):
        score -= SWEEP_RISK
    return score
