"""The exact odds of the accusi, by enumeration, and the luck index built on them.

Every 3-card hand (C(40,3) = 9,880) and every 4-card opening table (C(40,4) =
91,390) is scored with the engine's own bonus functions (`cirulla.bonuses`), so
the odds follow any rule set (the matta, `no_decino`, `dossena`, `bonuses_stack`,
`dealer_nine`, Luzzati's misdeals) without a formula to keep in step. Pure and
cached per rule set: a profile asks for the same few rule sets again and again.

Under the default rules this gives the issue's figures exactly: a hand
qualifies 1036/9880 = 10.49% of the time, decino 94/9880 = 0.95%, and a dealt
table (two aces are a misdeal, D6, and are dealt again) scores 10277/87465 =
11.75%.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations

from ..bonuses import dealer_bonus, hand_bonus_options
from ..cards import Card, full_deck
from ..rules import Rules

__all__ = ["DealerOdds", "HandOdds", "Luck", "dealer_odds", "hand_odds", "luck"]


@dataclass(frozen=True, slots=True)
class HandOdds:
    """What a 3-card hand is dealt, over every hand: counts, and the points it offers
    (the best declaration it allows, declared or not)."""

    hands: int
    qualifying: int
    by_kind: Mapping[str, int]  # "cirulla", "decino": the best option's kind
    points_mean: Fraction
    points_var: Fraction

    @property
    def p_qualifying(self) -> Fraction:
        return Fraction(self.qualifying, self.hands)

    def p(self, kind: str) -> Fraction:
        return Fraction(self.by_kind.get(kind, 0), self.hands)


@dataclass(frozen=True, slots=True)
class DealerOdds:
    """What the dealer's opening table gives, over every table that is really dealt
    (misdeals are dealt again, so they are left out)."""

    tables: int
    scoring: int
    by_kind: Mapping[str, int]  # "quindici", "trenta", "nove"
    points_mean: Fraction
    points_var: Fraction

    @property
    def p_scoring(self) -> Fraction:
        return Fraction(self.scoring, self.tables)

    def p(self, kind: str) -> Fraction:
        return Fraction(self.by_kind.get(kind, 0), self.tables)


def _moments(points: Mapping[int, int], total: int) -> tuple[Fraction, Fraction]:
    mean = Fraction(sum(p * n for p, n in points.items()), total)
    square = Fraction(sum(p * p * n for p, n in points.items()), total)
    return mean, square - mean * mean


@lru_cache(maxsize=32)
def hand_odds(rules: Rules) -> HandOdds:
    """The odds of a 3-card hand under `rules` (Scopa: no accusi, all zero)."""
    deck = full_deck()
    matta = rules.matta()
    by_kind: dict[str, int] = {}
    points: dict[int, int] = {}
    hands = qualifying = 0
    for trio in combinations(deck, 3):
        hands += 1
        options = hand_bonus_options(trio, rules, matta=matta)
        if not options:
            continue
        best = max(options, key=lambda o: (o.points, o.kind == "decino"))
        qualifying += 1
        by_kind[best.kind] = by_kind.get(best.kind, 0) + 1
        points[best.points] = points.get(best.points, 0) + 1
    mean, var = _moments(points, hands)
    return HandOdds(hands, qualifying, by_kind, mean, var)


def _dealt(table: tuple[Card, ...], rules: Rules, matta: Card | None) -> bool | None:
    """True: the table is dealt and checked for the dealer's bonus; False: dealt but
    won at once (Luzzati D7a, no bonus); None: a misdeal (D6, D7b), dealt again."""
    if rules.luzzati:
        ranks = [c.rank for c in table if c != matta]
        for rank in set(ranks):
            k = ranks.count(rank)
            if k == 4 or (k == 3 and len(ranks) == 3):
                return False
    if rules.is_scopa:
        return None if sum(c.rank == "K" for c in table) >= 3 else True
    if sum(c.rank == "A" for c in table) >= 2:
        return None
    if rules.luzzati and any(sum(c.rank == r for c in table) == 3 for r in {c.rank for c in table}):
        return None
    return True


@lru_cache(maxsize=32)
def dealer_odds(rules: Rules) -> DealerOdds:
    """The odds of the dealer's bonus (B1, B9, B10) under `rules`."""
    deck = full_deck()
    matta = rules.matta()
    by_kind: dict[str, int] = {}
    points: dict[int, int] = {}
    tables = scoring = 0
    for table in combinations(deck, 4):
        dealt = _dealt(table, rules, matta)
        if dealt is None:
            continue
        tables += 1
        bonus = dealer_bonus(table, rules, matta) if dealt else None
        if bonus is None:
            continue
        scoring += 1
        by_kind[bonus.kind] = by_kind.get(bonus.kind, 0) + 1
        points[bonus.points] = points.get(bonus.points, 0) + 1
    mean, var = _moments(points, tables)
    return DealerOdds(tables, scoring, by_kind, mean, var)


@dataclass(frozen=True, slots=True)
class Luck:
    """Received against expected, and the luck index: the bonus points received
    minus those expected, in standard deviations (a z-score)."""

    received_points: float
    expected_points: float
    index: float | None  # None until there is anything to compare (no variance)

    def to_dict(self) -> dict[str, float | None]:
        return {
            "received_points": round(self.received_points, 3),
            "expected_points": round(self.expected_points, 3),
            "difference": round(self.received_points - self.expected_points, 3),
            "index": None if self.index is None else round(self.index, 3),
        }


def luck(received: float, expected: float, variance: float) -> Luck:
    """The z-score of `received` bonus points given their expectation and variance
    (sums over independent hands and tables, so the variances add)."""
    index = (received - expected) / math.sqrt(variance) if variance > 0 else None
    return Luck(received, expected, index)
