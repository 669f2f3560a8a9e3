"""What a Cirulo bot is and what it sees.

A bot gets a `CiruloView` (a read-only wrapper of `deal.view(seat)`) and returns
one of its legal cards. It never holds a `Deal`, so it cannot see hidden cards:
what it knows of the others (cards played, voids shown by not following suit)
it works out from the view's history, as a player at the table would.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import cached_property
from typing import Any

from ...bots.base import Budget
from ..cards import SUITS, Card, full_deck
from ..deal import Deal
from ..rules import CiruloRules

__all__ = ["Budget", "CiruloBot", "CiruloView", "choose_card"]


class CiruloView:
    """One seat's view of a hand, with the helpers bots need. Read-only."""

    def __init__(self, view: Mapping[str, Any]) -> None:
        if not isinstance(view, Mapping) or view.get("game") != "cirulo":
            raise ValueError("a Cirulo bot needs a Cirulo view (deal.view(seat))")
        if view.get("seat") is None:
            raise ValueError("a bot needs a seat's view (deal.view(seat)), not a spectator's")
        self._view = view

    @property
    def raw(self) -> Mapping[str, Any]:
        return self._view

    @property
    def seat(self) -> int:
        return int(self._view["seat"])

    @property
    def players(self) -> int:
        return int(self._view["players"])

    @property
    def dealer(self) -> int:
        return int(self._view["dealer"])

    @property
    def to_move(self) -> int | None:
        return self._view["to_move"]  # type: ignore[no-any-return]

    @cached_property
    def rules(self) -> CiruloRules:
        return CiruloRules.from_dict(dict(self._view["rules"]))

    @property
    def deck(self) -> str:
        return str(self._view["rules"]["deck"])

    def _cards(self, items: Any) -> list[Card]:
        deck = self.deck
        return [Card.parse(c, deck) for c in items]

    @cached_property
    def hand(self) -> list[Card]:
        return self._cards(self._view["hand"])

    @cached_property
    def legal(self) -> list[Card]:
        """The legal cards, when this seat is to move (else empty)."""
        return self._cards(self._view.get("legal_moves", ()))

    @cached_property
    def trick(self) -> list[tuple[int, Card]]:
        """The trick being played: (seat, card) in order."""
        return [(int(t["seat"]), Card.parse(t["card"], self.deck)) for t in self._view["trick"]]

    @property
    def led(self) -> str | None:
        return self._view["led"]  # type: ignore[no-any-return]

    def count(self, seat: int) -> int:
        """How many cards `seat` holds now."""
        return int(self._view["hands"][seat]["count"])

    @property
    def coins(self) -> list[int]:
        """Coin points each seat has taken so far (CI4)."""
        return list(self._view["coins"])

    @cached_property
    def removed(self) -> list[Card]:
        return self._cards(self._view["removed"])

    @cached_property
    def history(self) -> list[Mapping[str, Any]]:
        return list(self._view["history"])

    @cached_property
    def played(self) -> list[tuple[int, Card]]:
        """Every card played this hand, in order: (seat, card)."""
        deck = self.deck
        return [
            (int(e["seat"]), Card.parse(e["card"], deck))
            for e in self._view["history"]
            if e["type"] == "play"
        ]

    @cached_property
    def voids(self) -> list[frozenset[str]]:
        """The suits each seat has shown it lacks by not following them (CI3)."""
        out: list[set[str]] = [set() for _ in range(self.players)]
        led: str | None = None
        trick = 0
        for event in self._view["history"]:
            if event["type"] != "play":
                continue
            suit = event["card"][-1]
            if event["trick"] != trick:
                trick, led = event["trick"], suit
            elif suit != led and led is not None:
                out[event["seat"]].add(led)
        return [frozenset(v) for v in out]

    @cached_property
    def unseen(self) -> list[Card]:
        """The cards in the other hands: neither mine, nor played, nor removed."""
        known = set(self.hand) | set(self.removed) | {c for _, c in self.played}
        return [c for c in full_deck(self.deck) if c not in known]

    @cached_property
    def unseen_by_suit(self) -> dict[str, list[Card]]:
        out: dict[str, list[Card]] = {s: [] for s in SUITS}
        for c in self.unseen:
            out[c.suit].append(c)
        return out

    @cached_property
    def later(self) -> list[int]:
        """The seats still to play to this trick after this one, in order."""
        n = self.players
        return [(self.seat + k) % n for k in range(1, n - len(self.trick))]


class CiruloBot:
    """A Cirulo player. Subclasses implement `choose`; `seed` makes it reproducible."""

    name = "bot"

    def __init__(self, seed: int = 0, budget: Budget | None = None) -> None:
        self.seed = seed
        self.budget = budget
        self.rng = random.Random(seed)

    def choose(self, view: CiruloView) -> Card:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} seed={self.seed} budget={self.budget}>"


def choose_card(bot: CiruloBot, deal: Deal, seat: int | None = None) -> Card:
    """Ask `bot` for the card of the seat to move, handing it only that seat's view."""
    seat = deal.to_move if seat is None else seat
    if seat is None or seat != deal.to_move:
        raise ValueError("it is not that seat's turn")
    return bot.choose(CiruloView(deal.view(seat)))
