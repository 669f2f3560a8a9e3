"""The score sheet of a smazzata (S1-S9, Scopa SC5), from captured piles.

One function serves the engine and a score-keeper at a real table alike, so the
two can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .cards import SUITS, Card, full_deck, parse_cards
from .rules import Rules

__all__ = ["ITEMS", "Score", "score_cards", "score_piles"]

#: The items of a score sheet, in the order a player reads them.
ITEMS: Final = (
    "scope",
    "bonus",
    "cards",
    "diamonds",
    "settebello",
    "primiera",
    "grande",
    "piccola",
    "total",
)
_DIAMONDS: Final = tuple(
    Card.parse(r + "D") for r in ("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K")
)
_SETTEBELLO: Final = Card.parse("7D")


@dataclass(frozen=True)
class Score:
    """A score sheet: `sides[i][item]` are the points side i won for each item (S9).

    `details[i]` says why: cards and diamonds counted, the primiera's cards and
    total (None without all four suits), the grande / piccola runs.
    """

    sides: list[dict[str, int]]
    cappotto: int | None
    details: list[dict[str, Any]]

    @property
    def totals(self) -> list[int]:
        return [s["total"] for s in self.sides]

    def to_dict(self) -> dict[str, Any]:
        return {
            "sides": [dict(s) for s in self.sides],
            "cappotto": self.cappotto,
            "details": [dict(d) for d in self.details],
        }


def _strict_max(counts: list[int | None]) -> int | None:
    """The side with strictly the most (S2, S3, S5); a tie at the top gives nobody."""
    present = [c for c in counts if c is not None]
    if not present:
        return None
    top = max(present)
    winners = [i for i, c in enumerate(counts) if c == top]
    return winners[0] if len(winners) == 1 else None


# Each suit's cards from the best primiera card down (C3), as (card, bit).
_BY_PRIMIERA: Final = tuple(
    tuple(sorted((Card.parse(r + s) for r in "A234567JQK"), key=lambda c: -c.primiera))
    for s in SUITS
)
_DIAMOND_MASK: Final = sum(c.bit for c in _DIAMONDS)


def _primiera(mask: int) -> tuple[int | None, list[str]]:
    best: list[Card] = []
    for suit_cards in _BY_PRIMIERA:
        for card in suit_cards:
            if mask & card.bit:
                best.append(card)
                break
    if len(best) < 4:
        return None, [str(c) for c in best]
    return sum(c.primiera for c in best), [str(c) for c in best]


def _run(mask: int, run: tuple[Card, ...]) -> int:
    """How many of the diamonds in `run` the side holds in a row from the first."""
    n = 0
    for card in run:
        if not mask & card.bit:
            break
        n += 1
    return n


_KQJ76: Final = tuple(Card.parse(r + "D") for r in "KQJ76")
_A2345: Final = tuple(Card.parse(r + "D") for r in "A2345")
_A234567: Final = tuple(Card.parse(r + "D") for r in "A234567")


def _grande_piccola(mask: int, rules: Rules) -> tuple[int, int, int, int]:
    """(grande points, piccola points, grande run, piccola run)."""
    if rules.dossena:  # scaletta alta KQJ(76), scaletta bassa A23(45)
        high = _run(mask, _KQJ76)
        low = _run(mask, _A2345)
        return (high + 2 if high >= 3 else 0), (low if low >= 3 else 0), high, low
    grande_run = _run(mask, _KQJ76[:3])
    low = _run(mask, _A234567 if rules.piccola_to_seven else _A234567[:6])
    return (5 if grande_run == 3 else 0), (low if low >= 3 else 0), grande_run, low


def score_piles(
    rules: Rules,
    piles: list[list[Card]] | list[list[str]] | list[list[Card | str]] | object,
    scope: list[int] | object | None = None,
    bonus: list[int] | object | None = None,
) -> Score:
    """The score sheet for captured piles, one list of cards per side.

    `scope` and `bonus` give each side's sweeps and bonus points (default 0).
    The piles must hold the whole 40-card deck between them (P8: the last table
    cards go to the last capture), or be all empty when nobody captured.
    """
    if not isinstance(piles, list | tuple) or len(piles) not in (2, 3):
        raise ValueError("piles must be a list of 2 or 3 piles, one per side")
    if len(piles) == 3:  # three sides means three players: do these rules allow them?
        try:
            rules.check_players(3)
        except ValueError as exc:
            raise ValueError(f"3 piles need 3 players: {exc}") from None
    parsed = [parse_cards(p, f"pile {i}") for i, p in enumerate(piles)]
    seen: set[Card] = set()
    for pile in parsed:
        for card in pile:
            if card in seen:
                raise ValueError(f"card {card} is in more than one pile (or twice in one)")
            seen.add(card)
    n = len(parsed)
    scope_list = _per_side(scope, n, "scope")
    bonus_list = _per_side(bonus, n, "bonus")
    if rules.is_scopa and any(bonus_list):
        raise ValueError("Scopa has no bonus points (SC5)")
    _check_whole_deck(seen)
    return score_cards(rules, parsed, scope_list, bonus_list)


#: Every preset plays the 40-card pack (C1, CR2, SC1): the piles must share it out.
_DECK: Final = tuple(full_deck())


def _check_whole_deck(seen: set[Card]) -> None:
    """All 40 cards end in some pile (P8), unless nobody captured at all (P8, D7)."""
    if not seen or len(seen) == len(_DECK):
        return
    missing = [c for c in _DECK if c not in seen]
    shown = " ".join(str(c) for c in missing[:8]) + (" ..." if len(missing) > 8 else "")
    raise ValueError(
        f"the piles hold {len(seen)} of the {len(_DECK)} cards, {len(missing)} missing"
        f" ({shown}): every card ends in some side's pile (P8)"
    )


def score_cards(
    rules: Rules, parsed: list[list[Card]], scope_list: list[int], bonus_list: list[int]
) -> Score:
    """`score_piles` without checking its input: the engine's piles are known good."""
    n = len(parsed)
    scopa = rules.is_scopa
    masks = []
    for pile in parsed:
        m = 0
        for card in pile:
            m |= card.bit
        masks.append(m)
    prim = [_primiera(m) for m in masks]
    cards_w = _strict_max([len(p) for p in parsed])
    diamonds_n = [(m & _DIAMOND_MASK).bit_count() for m in masks]
    diamonds_w = _strict_max(list(diamonds_n))
    prim_w = _strict_max([p[0] for p in prim])
    sides: list[dict[str, int]] = []
    details: list[dict[str, Any]] = []
    cappotto: int | None = None
    for i in range(n):
        gp = (0, 0, 0, 0) if scopa else _grande_piccola(masks[i], rules)
        row = {
            "scope": scope_list[i],
            "bonus": bonus_list[i],
            "cards": int(cards_w == i),
            "diamonds": int(diamonds_w == i),
            "settebello": int(bool(masks[i] & _SETTEBELLO.bit)),
            "primiera": int(prim_w == i),
            "grande": gp[0],
            "piccola": gp[1],
        }
        row["total"] = sum(row.values())
        sides.append(row)
        details.append(
            {
                "cards": len(parsed[i]),
                "diamonds": diamonds_n[i],
                "primiera": prim[i][0],
                "primiera_cards": prim[i][1],
                "grande_run": gp[2],
                "piccola_run": gp[3],
            }
        )
        if not scopa and diamonds_n[i] == len(_DIAMONDS):
            cappotto = i
    return Score(sides=sides, cappotto=cappotto, details=details)


def _per_side(values: object, n: int, name: str) -> list[int]:
    if values is None:
        return [0] * n
    if not isinstance(values, list | tuple) or len(values) != n:
        raise ValueError(f"{name} must give one number per side ({n})")
    for v in values:
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError(f"{name} must be non-negative whole numbers, not {v!r}")
    return list(values)
