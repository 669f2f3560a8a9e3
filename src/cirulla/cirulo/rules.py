"""Cirulo's rule options (RULES.md section 13, seed 004).

Every reading of something the seed leaves open is a named option; the
defaults are the readings documented in docs/cirulo.md.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Final

from ..rules import shown_value
from .cards import DECKS, SUITS

__all__ = ["MAX_HANDS", "MAX_POINT_VALUE", "OPTIONS", "PLAYERS", "CiruloRules"]

#: How many may play (CI1).
PLAYERS: Final = (4, 5, 6)
#: Bounds that keep a game a game: one round is 4 to 6 hands, and a hand moves at most
#: 85 points (every coin of the 52-card deck), so 100 hands and 1000 chips a point
#: (85,000 chips a hand) are far past any table, yet no number is absurd.
MAX_HANDS: Final = 100
MAX_POINT_VALUE: Final = 1000

#: Option name -> what it means (for docs and error messages).
OPTIONS: Final[dict[str, str]] = {
    "deck": '"spanish48" (1-12 in four suits) or "poker52" (A-K in four suits) (CI1)',
    "point_value": "chips per point, agreed before the game, the same for every hand (CI5);"
    " 1 to 1000",
    "hands": "hands in a game, 1 to 100; None: one round, every player deals once",
    "discard_order": "the order in which equally low non-coin cards are removed when the"
    " deck does not divide (CI2): a permutation of C E B",
    "split": '"carry": whole points, the remainder of an uneven share stays in the pot for'
    ' the next hand; "exact": exact fractions of a point (CI5)',
}


@dataclass(frozen=True, slots=True)
class CiruloRules:
    """A complete Cirulo rule set; change it with `rules.replace(...)`."""

    deck: str = "spanish48"
    point_value: int = 1
    hands: int | None = None
    discard_order: str = "CEB"
    split: str = "carry"

    def __post_init__(self) -> None:
        if self.deck not in DECKS:
            raise ValueError(f"deck must be one of {', '.join(DECKS)}, not {self.deck!r}")
        for name, most in (("point_value", MAX_POINT_VALUE), ("hands", MAX_HANDS)):
            value = getattr(self, name)
            if name == "hands" and value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= most:
                raise ValueError(
                    f"{name} must be a whole number from 1 to {most}, not {shown_value(value)}"
                )
        if not isinstance(self.discard_order, str) or sorted(self.discard_order) != sorted(
            SUITS[1:]
        ):
            raise ValueError(
                f"discard_order must order the non-coin suits C E B (e.g. 'CEB'),"
                f" not {self.discard_order!r}"
            )
        if self.split not in ("carry", "exact"):
            raise ValueError(f"split must be 'carry' or 'exact', not {self.split!r}")

    def replace(self, **options: Any) -> CiruloRules:
        """A changed copy; ValueError naming an unknown option or a bad value."""
        for name in options:
            if name not in OPTIONS:
                raise ValueError(
                    f"unknown Cirulo option {name!r} (options: {', '.join(sorted(OPTIONS))})"
                )
        return dataclasses.replace(self, **options)

    def to_dict(self) -> dict[str, Any]:
        """Every option by name, JSON-ready."""
        return {name: getattr(self, name) for name in OPTIONS}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CiruloRules:
        if not isinstance(data, dict):
            raise ValueError("Cirulo rules must be an object of options")
        return cls().replace(**data)

    def check_players(self, players: object) -> int:
        """The number of players, or ValueError: Cirulo is for 4, 5 or 6 (CI1)."""
        if not isinstance(players, int) or isinstance(players, bool) or players not in PLAYERS:
            raise ValueError(f"Cirulo is for 4, 5 or 6 players (CI1), not {players!r}")
        return players

    @property
    def deck_size(self) -> int:
        return 4 * DECKS[self.deck]

    def hands_for(self, players: int) -> int:
        """Hands in a game of `players`: `hands`, or one round (each deals once)."""
        return self.hands if self.hands is not None else self.check_players(players)
