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

__all__ = [
    "CARD_WEIGHT",
    "GRANDE_IDS",
    "PICCOLA_IDS",
    "SCOPA",
    "SWEEP_RISK",
    "greedy_score",
    "live_adjustment",
    "move_gain",
    "set_holdings",
    "sweepable",
    "touches_set",
    "weight",
]

SCOPA: Final = 1.0  # a sweep is a point
# Leaving a table the next player can sweep costs about a point and a half: the
# scopa, and the cards it takes.
SWEEP_RISK: Final = 1.5


# The grande (J Q K of diamonds, 5 points) and the piccola (A 2 3, 3 points before its
# run) go whole to one side or to none: once both sides hold one of a set, its other
# cards carry nothing of it; while only one side does, they are worth more to either
# side, to finish it or to kill it. _SET_OF: each set card's set (0 grande, 1 piccola).
GRANDE_IDS: Final = tuple(Card.parse(r + "D").id for r in "JQK")  # by card id
PICCOLA_IDS: Final = tuple(Card.parse(r + "D").id for r in "A23")
_SET_OF: Final = {**dict.fromkeys(GRANDE_IDS, 0), **dict.fromkeys(PICCOLA_IDS, 1)}
# The float tuples are not Final: mypyc (2.4) raises NameError ("value for final name
# was not set") where a function reads a Final tuple of float literals.
_SET_POINTS: tuple[float, float] = (5.0, 3.0)
_SET_WEIGHT: tuple[float, float] = (0.9, 0.55)  # each set card's share in `_weight`


def _weight(card: Card) -> float:
    w = 0.05  # the "cards" point is shared among ~21 cards
    w += {"7": 0.25, "6": 0.12, "A": 0.08}.get(card.rank, 0.0)  # primiera
    if card.suit == "D":
        w += 0.18  # the "diamonds" point, ~6 diamonds
        if card.rank == "7":
            w += 1.0  # sette bello
        if card.rank in "JQK":
            w += _SET_WEIGHT[0]  # grande: 5 points for all three
        if card.rank in "A23":
            w += _SET_WEIGHT[1]  # piccola: 3 points for the three
        elif card.rank in "456":
            w += 0.25  # its run
    return w


#: Points a card is worth to the side that captures it, by card id.
CARD_WEIGHT: Final = tuple(_weight(c) for c in full_deck())


#: The chance a side holding k of a set's three, the others none, ends with all three
#: (benchmarks/live_sets.py measured greedy players' smazzate).
FINISH_CHANCE: tuple[float, float, float, float] = (0.0, 0.25, 0.5, 1.0)


def _set_value(mine: int, theirs: int, points: float) -> float:
    """What taking one more card of a set is worth to a side holding `mine` of it while
    the others hold `theirs`: the chance of finishing it gained, or the others' lost."""
    if mine and theirs:
        return 0.0
    if theirs:
        return points * FINISH_CHANCE[theirs]
    return points * (FINISH_CHANCE[mine + 1] - FINISH_CHANCE[mine])


def touches_set(move: Move) -> bool:
    """Does a play take or offer a grande or piccola card (what `live_adjustment` reads)?"""
    card = move.card
    if card is None:
        return False
    if card.id in _SET_OF:
        return True
    return any(c.id in _SET_OF for c in move.captured)


def set_holdings(piles: Sequence[Sequence[Card]], side: int) -> tuple[list[int], list[int]]:
    """How many grande and piccola cards the side `side` holds, and the other sides (-1 when
    two other sides hold some: the set is dead); counted once a decision, read by every
    candidate play through `live_adjustment`."""
    mine = [0, 0]
    other = [0, 0]
    for s, pile in enumerate(piles):
        held = [0, 0]
        for c in pile:
            k = _SET_OF.get(c.id, -1)
            if k >= 0:
                held[k] += 1
        for k in range(2):
            if s == side:
                mine[k] = held[k]
            elif held[k]:
                other[k] = held[k] if other[k] == 0 else -1
    return mine, other


def live_adjustment(
    move: Move,
    piles: Sequence[Sequence[Card]],
    side: int,
    holdings: tuple[list[int], list[int]] | None = None,
) -> float:
    """What `greedy_score` misses about the grande and piccola cards a play takes or
    offers, given each side's pile (`side` the mover's; `holdings`, when given, is
    `set_holdings` of them, counted once for all of a decision's plays): each set card's
    live value in place of its fixed share. 0 for every other play."""
    card = move.card
    if card is None or not touches_set(move):
        return 0.0
    held = holdings if holdings is not None else set_holdings(piles, side)
    mine = [held[0][0], held[0][1]]  # a copy: a capture of two set cards counts up
    other = held[1]
    adjust = 0.0
    if move.captured:
        for c in (card, *move.captured):
            k = _SET_OF.get(c.id, -1)
            if k >= 0:
                if other[k] >= 0:
                    adjust += _set_value(mine[k], other[k], _SET_POINTS[k])
                adjust -= _SET_WEIGHT[k]
                mine[k] += 1
    else:
        k = _SET_OF.get(card.id, -1)
        if k >= 0:  # offered: half of what the others would make of it, as greedy reckons
            value = _set_value(other[k], mine[k], _SET_POINTS[k]) if other[k] >= 0 else 0.0
            adjust -= 0.5 * (value - _SET_WEIGHT[k])
    return adjust


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
