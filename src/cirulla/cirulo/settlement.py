"""Settling a hand (CI5): coins paid into the pot, the pot shared or carried.

Amounts are points; chips are points times the agreed `point_value`. With
`split="carry"` every amount is a whole number: an uneven share is rounded down
and the remainder stays in the pot for the next hand, just as the whole pot
does when everybody took coins. With `split="exact"` shares are exact
`Fraction`s. Either way nothing is created or lost: what the hand's players
pay in plus the pot carried in equals what is paid out plus what is carried on.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["Amount", "Settlement", "amount_json", "norm_amount", "parse_amount", "settle"]

Amount = int | Fraction


def amount_json(value: Amount) -> int | str:
    """An amount for JSON: a whole number as an int, a fraction as "85/3"."""
    if isinstance(value, Fraction):
        return (
            value.numerator if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
        )
    return value


def parse_amount(value: object) -> Amount:
    """The inverse of `amount_json` (records); ValueError for anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            fraction = Fraction(value)
        except (ValueError, ZeroDivisionError):
            pass
        else:
            return fraction.numerator if fraction.denominator == 1 else fraction
    raise ValueError(f"an amount is a whole number or a fraction like '85/3', not {value!r}")


def norm_amount(value: Amount) -> Amount:
    """A whole-number Fraction as an int, so equal amounts compare and print alike."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value


@dataclass(frozen=True, slots=True)
class Settlement:
    """One hand's settlement, per seat and for the pot (points unless named chips)."""

    coins: tuple[int, ...]  # coin points in each seat's encirculated tricks (CI4)
    paid: tuple[int, ...]  # points each seat paid into the pot: its coins
    pot_in: Amount  # the pot carried in from the hand before
    pot: Amount  # pot_in plus everything paid in this hand
    receivers: tuple[int, ...]  # the seats that won no coins, who share the pot
    share: Amount  # what each receiver got (0 when nobody shares)
    carried: Amount  # left in the pot for the next hand
    point_value: int = 1

    @property
    def shares(self) -> tuple[Amount, ...]:
        """What each seat got out of the pot: the share for receivers, 0 for the rest."""
        return tuple(self.share if s in self.receivers else 0 for s in range(len(self.paid)))

    @property
    def balances(self) -> tuple[Amount, ...]:
        """Each seat's result for the hand in points: its share less what it paid."""
        return tuple(
            norm_amount((self.share if s in self.receivers else 0) - paid)
            for s, paid in enumerate(self.paid)
        )

    @property
    def chips(self) -> tuple[Amount, ...]:
        return tuple(norm_amount(b * self.point_value) for b in self.balances)

    def to_dict(self) -> dict[str, Any]:
        return {
            "coins": list(self.coins),
            "paid": list(self.paid),
            "pot_in": amount_json(self.pot_in),
            "pot": amount_json(self.pot),
            "receivers": list(self.receivers),
            "share": amount_json(self.share),
            "shares": [amount_json(a) for a in self.shares],
            "carried": amount_json(self.carried),
            "balances": [amount_json(b) for b in self.balances],
            "point_value": self.point_value,
            "chips": [amount_json(c) for c in self.chips],
        }


def settle(
    coins: list[int], pot_in: Amount, split: str = "carry", point_value: int = 1
) -> Settlement:
    """CI5: the coin takers pay their coins in; the pot (with what was carried in) is
    shared equally by the seats that took no coins, or carried on when there are none."""
    pot = norm_amount(pot_in + sum(coins))
    receivers = tuple(s for s, c in enumerate(coins) if c == 0)
    share: Amount = 0
    carried: Amount = pot
    if receivers:
        if split == "exact":
            share = norm_amount(Fraction(pot) / len(receivers))
            carried = 0
        else:
            whole = int(pot)  # carry mode keeps every amount whole
            share = whole // len(receivers)
            carried = whole - share * len(receivers)
    return Settlement(
        coins=tuple(coins),
        paid=tuple(coins),
        pot_in=pot_in,
        pot=pot,
        receivers=receivers,
        share=share,
        carried=norm_amount(carried),
        point_value=point_value,
    )
