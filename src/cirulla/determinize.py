"""Determinization: a whole smazzata consistent with what one seat knows.

Search bots only ever hold a seat's view. To look ahead they need full deals
that agree with everything the seat knows and draw the rest at random: the
cards of every finished stage were all played in public, so only the hands
being played now and the undealt cards are hidden. `determinize` rebuilds
such a deal from a view; `Deal.redeal_unseen` then re-draws the hidden cards
of a copy cheaply, once per search iteration.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .cards import Card, full_deck
from .deal import Deal
from .rules import Rules

__all__ = ["determinize", "unseen_cards"]


def _cards(items: list[str]) -> list[Card]:
    return [Card.parse(c) for c in items]


class _Known:
    """What the view says about the accepted deal, stage by stage."""

    def __init__(self, view: Mapping[str, Any]) -> None:
        if view.get("seat") is None:
            raise ValueError("determinize needs a seat's view, not a spectator's")
        self.rules = Rules.from_dict(view["rules"])
        self.players: int = view["players"]
        self.dealer: int = view["dealer"]
        self.sizes: list[int] = list(view["stages"])
        n = self.players
        self.dealt: list[list[list[Card] | None]] = [[None] * n for _ in self.sizes]
        self.played: list[list[list[Card]]] = [[[] for _ in range(n)] for _ in self.sizes]
        self.table: list[Card] = []
        self.moves: list[str] = []
        stage = 0
        for event in view["history"]:
            kind = event["type"]
            if kind == "deal":
                stage = event["stage"]
                for seat, hand in enumerate(event["hands"]):
                    if hand is not None:
                        self.dealt[stage][seat] = _cards(hand)
                if "table" in event:
                    self.table = _cards(event["table"])
            elif kind == "play":
                self.played[stage][event["seat"]].append(Card.parse(event["card"]))
                self.moves.append(event["move"])
            elif kind == "declare":
                self.moves.append(event["move"])
            elif kind == "pass":
                self.moves.append("!pass")
        self.stage: int = view["stage"]
        self.current: list[list[Card] | None] = []  # each seat's hand now, where known
        self.declared: list[list[Card]] = []
        self.counts: list[int] = []
        for entry in view["hands"]:
            self.current.append(_cards(entry["cards"]) if "cards" in entry else None)
            self.declared.append(_cards(entry["declared"]))
            self.counts.append(entry["count"])
        self.deck_left: int = view["deck"]

    def seen(self) -> set[Card]:
        seen = set(self.table)
        for stage in range(len(self.sizes)):
            for seat in range(self.players):
                seen.update(self.dealt[stage][seat] or ())
                seen.update(self.played[stage][seat])
        for seat in range(self.players):
            seen.update(self.current[seat] or ())
            seen.update(self.declared[seat])
        return seen


def unseen_cards(view: Mapping[str, Any]) -> list[Card]:
    """The cards whose place the seat does not know (other hands and the undealt deck)."""
    seen = _Known(view).seen()
    return [c for c in full_deck() if c not in seen]


def determinize(view: Mapping[str, Any], rng: random.Random) -> Deal:
    """A Deal that agrees with everything the view's seat knows, hidden cards drawn at random.

    It holds the same public state (table, piles, scope, accusi, declared cards,
    whose turn) and the seat's own hand; the other hands (but their declared
    cards) and the undealt cards are a uniform draw of the cards the seat has not
    seen. Raises ValueError for a finished smazzata or a spectator's view.
    """
    if view.get("is_over"):
        raise ValueError("the smazzata is over: nothing is hidden")
    known = _Known(view)
    n = known.players
    pool = [c for c in full_deck() if c not in known.seen()]
    rng.shuffle(pool)
    now: list[list[Card]] = []
    for seat in range(n):
        hand = known.current[seat]
        if hand is None:
            need = known.counts[seat] - len(known.declared[seat])
            hand = known.declared[seat] + pool[:need]
            del pool[:need]
        now.append(hand)
    if len(pool) != known.deck_left:
        raise ValueError(
            "the view is inconsistent: its unseen cards do not fill the hands and deck"
        )
    first = (known.dealer + 1) % n
    deck: list[Card] = []
    for stage in range(known.stage + 1):
        size = known.sizes[stage]
        hands = []
        for seat in range(n):
            hand = known.dealt[stage][seat]
            if hand is None:
                hand = known.played[stage][seat] + (now[seat] if stage == known.stage else [])
            if len(hand) != size:
                raise ValueError(f"the view is inconsistent: seat {seat} has {len(hand)} cards")
            hands.append(hand)
        for i in range(size):
            for k in range(n):
                deck.append(hands[(first + k) % n][i])
        if stage == 0:
            deck += known.table
    deck += pool
    deal = Deal(known.rules, n, known.dealer, deck=deck)
    for move in known.moves:
        deal.play(move)
    return deal
