"""Accusi: the dealer's bonus (B1, B9, B10) and hand bonuses (B2-B5, B10, CR3).

Pure functions of cards and rules, so the deal, the bots and the UI all agree on
what a hand is worth.
"""

from __future__ import annotations

from itertools import combinations
from typing import Final, NamedTuple

from .cards import Card
from .rules import Rules

__all__ = ["BonusOption", "DealerBonus", "bonus_points", "dealer_bonus", "hand_bonus_options"]

_VALUES: Final = range(1, 11)


class BonusOption(NamedTuple):
    """One way to declare three cards: the bonus, the matta's value (if it is among them)."""

    kind: str  # "cirulla" or "decino"
    cards: tuple[Card, Card, Card]
    matta_value: int | None
    points: int


class DealerBonus(NamedTuple):
    kind: str  # "quindici" (15), "trenta" (30) or "nove" (9 or less)
    points: int
    matta_value: int | None


def bonus_points(kind: str, values: tuple[int, int, int], rules: Rules) -> int:
    """Points of a hand bonus given the three capture values it is declared with."""
    low = sum(values) <= 9
    if kind == "cirulla":
        return 1 if rules.dossena else 3
    if rules.dossena:
        return 3 if low else 2
    return 13 if low and rules.bonuses_stack else 10


def _qualifies(values: tuple[int, int, int], rules: Rules) -> str | None:
    """The bonus three values make (B4: a hand that is both is a decino)."""
    a, b, c = values
    if a == b == c and not rules.no_decino:
        return "decino"
    if a + b + c <= 9:
        return "cirulla"
    return None


def _options_for(
    cards: tuple[Card, Card, Card], matta: Card | None, rules: Rules
) -> list[BonusOption]:
    if matta is None or matta not in cards:
        values = (cards[0].value, cards[1].value, cards[2].value)
        kind = _qualifies(values, rules)
        return [BonusOption(kind, cards, None, bonus_points(kind, values, rules))] if kind else []
    a, b = (c.value for c in cards if c is not matta)
    out: list[BonusOption] = []
    # Decino: the one value that makes three equal (B5).
    if a == b and not rules.no_decino:
        out.append(BonusOption("decino", cards, a, bonus_points("decino", (a, a, a), rules)))
    # Cirulla: always an ace by default, any value that makes <= 9 with matta_choice (B5).
    for x in _VALUES if rules.matta_choice else (1,):
        values = (a, b, x)
        if a + b + x <= 9 and _qualifies(values, rules) == "cirulla":
            out.append(BonusOption("cirulla", cards, x, bonus_points("cirulla", values, rules)))
    return out


def hand_bonus_options(
    hand: list[Card] | tuple[Card, ...],
    rules: Rules,
    exclude: frozenset[Card] | list[Card] = frozenset(),
    matta: Card | bool | None = True,
) -> list[BonusOption]:
    """Every declaration the cards allow: any three of them (CR3), none from `exclude`.

    `matta` may pass the rules' wild card in, to spare looking it up (hot path).
    """
    if rules.is_scopa:
        return []
    if matta is True:
        matta = rules.matta()
    assert matta is None or isinstance(matta, Card)
    cards = [c for c in hand if c not in exclude] if exclude else list(hand)
    if len(cards) == 3 and (matta is None or matta not in cards):  # the common case, fast
        a, b, c = cards[0].value, cards[1].value, cards[2].value
        if a + b + c > 9 and not (a == b == c):
            return []
    out: list[BonusOption] = []
    for trio in combinations(cards, 3):
        out.extend(_options_for(trio, matta, rules))
    return out


def dealer_bonus(
    table: list[Card] | tuple[Card, ...], rules: Rules, matta: Card | bool | None = True
) -> DealerBonus | None:
    """The dealer's bonus for the first four table cards, the best one when several fit."""
    if rules.is_scopa:
        return None
    if matta is True:
        matta = rules.matta()
    assert matta is None or isinstance(matta, Card)
    has_matta = matta is not None and matta in table
    if not has_matta:  # fast path: no wild card, one total
        total = sum(c.value for c in table)
        if total > 9 and total not in (15, 30):
            return None
    others = sum(c.value for c in table if not (has_matta and c is matta))
    best: DealerBonus | None = None
    for x in _VALUES if has_matta else (None,):
        total = others + (x or 0)
        found: DealerBonus | None = None
        if rules.dossena:
            if total <= 9:
                found = DealerBonus("nove", 1, x)
            elif total == 30:
                found = DealerBonus("trenta", 2, x)
        elif total == 15:
            found = DealerBonus("quindici", 1, x)
        elif total == 30:
            found = DealerBonus("trenta", 2, x)
        elif total <= 9 and rules.dealer_nine:
            found = DealerBonus("nove", 3, x)
        if found is not None and (best is None or found.points > best.points):
            best = found
    return best
