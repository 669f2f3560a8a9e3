"""What a bot is and what it sees.

A bot gets a `SeatView` (a read-only wrapper of `deal.view(seat)`) and returns
one of its legal moves. It never holds a `Deal`: the only way to another seat's
hidden cards would be through the view, and the view has none. The one
exception is an `OmniscientBot` (the arena's "cheater" yardstick), which the
arena alone hands the real deal.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..cards import Card
from ..deal import Deal
from ..determinize import unseen_cards
from ..moves import Move, parse_move
from ..rules import Rules

__all__ = ["Bot", "Budget", "OmniscientBot", "SeatView", "choose_move"]

_RULES_CACHE: dict[tuple[tuple[str, Any], ...], Rules] = {}


def _rules_of(data: Mapping[str, Any]) -> Rules:
    key = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in sorted(data.items()))
    rules = _RULES_CACHE.get(key)
    if rules is None:
        rules = _RULES_CACHE[key] = Rules.from_dict(dict(data))
    return rules


class SeatView:
    """One seat's view of a smazzata, with the helpers bots need. Read-only."""

    def __init__(self, view: Mapping[str, Any]) -> None:
        if not isinstance(view, Mapping) or view.get("seat") is None:
            raise ValueError("a bot needs a seat's view (deal.view(seat)), not a spectator's")
        self._view = view

    @property
    def raw(self) -> Mapping[str, Any]:
        """The view itself (JSON-ready), for what the helpers below do not cover."""
        return self._view

    @property
    def seat(self) -> int:
        return int(self._view["seat"])

    @property
    def side(self) -> int:
        return int(self._view["side"])

    @property
    def players(self) -> int:
        return int(self._view["players"])

    @property
    def sides(self) -> int:
        return 2 if self.players == 4 else self.players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.players == 4 else seat

    @property
    def dealer(self) -> int:
        return int(self._view["dealer"])

    @property
    def to_move(self) -> int | None:
        return self._view["to_move"]  # type: ignore[no-any-return]

    @cached_property
    def rules(self) -> Rules:
        return _rules_of(self._view["rules"])

    @cached_property
    def hand(self) -> list[Card]:
        return [Card.parse(c) for c in self._view["hand"]]

    @cached_property
    def table(self) -> list[Card]:
        return [Card.parse(t["card"]) for t in self._view["table"]]

    @cached_property
    def table_values(self) -> list[int]:
        """Capture values of the table cards (the matta's declared value where it holds)."""
        return [int(t["value"]) for t in self._view["table"]]

    @cached_property
    def legal(self) -> list[Move]:
        """The legal moves, when this seat is to move (else empty)."""
        return [parse_move(m) for m in self._view.get("legal_moves", ())]

    @property
    def stage(self) -> int:
        return int(self._view["stage"])

    @property
    def stages(self) -> list[int]:
        return list(self._view["stages"])

    @property
    def mano(self) -> int:
        return int(self._view["mano"])

    @property
    def deck_left(self) -> int:
        return int(self._view["deck"])

    @property
    def is_last_play(self) -> bool:
        """Is this the very last play of the smazzata (no scopa possible, P7)?"""
        return self.deck_left == 0 and sum(h["count"] for h in self._view["hands"]) == 1

    def hand_count(self, seat: int) -> int:
        return int(self._view["hands"][seat]["count"])

    def declared(self, seat: int) -> list[Card]:
        """Cards `seat` declared and still holds (public, B7)."""
        return [Card.parse(c) for c in self._view["hands"][seat]["declared"]]

    def known_hand(self, seat: int) -> list[Card] | None:
        """`seat`'s whole hand when this seat may see it (own; partner's under O2)."""
        cards = self._view["hands"][seat].get("cards")
        return None if cards is None else [Card.parse(c) for c in cards]

    def points(self, side: int) -> tuple[int, int]:
        """(scope, accusi points) `side` has made so far in this smazzata."""
        pile = self._view["piles"][side]
        return int(pile["scope"]), int(pile["bonus"])

    @cached_property
    def history(self) -> list[Mapping[str, Any]]:
        return list(self._view["history"])

    @cached_property
    def captured(self) -> list[list[Card]]:
        """Each side's captured cards, as seen when they were taken (public, P9)."""
        piles: list[list[Card]] = [[] for _ in range(self.sides)]
        for event in self._view["history"]:
            kind = event["type"]
            if kind == "play" and event["captured"]:
                cards = [Card.parse(c) for c in event["captured"]] + [Card.parse(event["card"])]
                piles[self.side_of(event["seat"])].extend(cards)
            elif kind == "dealer_bonus" or kind == "last_cards":
                piles[event["side"]].extend(Card.parse(c) for c in event["cards"])
        return piles

    @cached_property
    def unseen(self) -> list[Card]:
        """Cards whose place this seat does not know: other hands (not declared) and deck."""
        return unseen_cards(self._view)

    @property
    def last_capture(self) -> int | None:
        return self._view["last_capture"]  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class Budget:
    """How much a search bot may think per move: iterations, seconds, or both (the
    first reached stops it). Iterations keep a bot deterministic for its seed."""

    iterations: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise ValueError("a budget needs iterations or seconds")
        if self.iterations is not None and (
            not isinstance(self.iterations, int) or self.iterations < 1
        ):
            raise ValueError(f"iterations must be a positive whole number, not {self.iterations!r}")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"seconds must be positive, not {self.seconds!r}")


class Bot:
    """A player. Subclasses implement `choose`; `seed` makes it reproducible."""

    name = "bot"

    def __init__(self, seed: int = 0, budget: Budget | None = None) -> None:
        self.seed = seed
        self.budget = budget
        self.rng = random.Random(seed)

    def choose(self, view: SeatView) -> Move:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} seed={self.seed} budget={self.budget}>"


class OmniscientBot(Bot):
    """A bot that sees every card: a yardstick for the arena, never offered to players."""

    def choose_omniscient(self, deal: Deal) -> Move:
        raise NotImplementedError

    def choose(self, view: SeatView) -> Move:
        raise TypeError(f"{self.name} sees every card: only the arena may use it")


def choose_move(bot: Bot, deal: Deal, seat: int | None = None) -> Move:
    """Ask `bot` for the move of the seat to move, handing it only that seat's view
    (or, for an `OmniscientBot`, a copy of the deal)."""
    seat = deal.to_move if seat is None else seat
    if seat is None or seat != deal.to_move:
        raise ValueError("it is not that seat's turn")
    if isinstance(bot, OmniscientBot):
        return bot.choose_omniscient(deal.copy())
    return bot.choose(SeatView(deal.view(seat)))
