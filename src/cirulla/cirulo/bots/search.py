"""`search`: determinized Monte Carlo search for Cirulo.

The bot only holds its view. To look ahead it rebuilds the hand as far as it is
public (`determinize`: the cards played, in order, and its own hand) and, for
each sample, deals the unseen cards to the other seats consistently with the
view: as many as each holds, and none of a suit a seat has shown it lacks
(`sample_hands`). Every legal card is then played out to the end of the hand
on the same sample by a cheap policy (with some randomness), and the bot plays
the card with the best average result for its seat: its balance for the hand
(its share of the pot less what it pays in, CI5).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from itertools import combinations
from typing import Final

from ..cards import COINS, SUITS, Card
from ..deal import Deal
from .base import Budget, CiruloBot, CiruloView

__all__ = ["SearchBot", "determinize", "playout", "policy_card", "sample_hands"]

DEFAULT_EPSILON: Final = 0.0
_SUBSETS: Final = [frozenset(c) for k in range(1, 5) for c in combinations(SUITS, k)]


def sample_hands(view: CiruloView, rng: random.Random) -> list[list[Card]]:
    """The current hands, the viewer's as it is and the others' drawn from the unseen
    cards: as many as each holds, never a suit a seat has shown it lacks.

    Cards are placed one at a time in random order, each with a seat drawn in
    proportion to the room it has left, skipping any choice after which the rest
    could not be placed (Hall's condition over the sets of suits, checked exactly:
    the real deal always satisfies it, so a placement always exists).
    """
    n = view.players
    me = view.seat
    room = [0 if s == me else view.count(s) for s in range(n)]
    voids = view.voids
    cards = list(view.unseen)
    rng.shuffle(cards)
    left = {s: 0 for s in SUITS}
    for c in cards:
        left[c.suit] += 1
    can = {suit: [s for s in range(n) if s != me and suit not in voids[s]] for suit in SUITS}
    hands: list[list[Card]] = [[] for _ in range(n)]
    hands[me] = list(view.hand)

    def feasible() -> bool:
        for subset in _SUBSETS:
            need = sum(left[s] for s in subset)
            if need and need > sum(room[p] for p in {p for s in subset for p in can[s]}):
                return False
        return True

    for card in cards:
        left[card.suit] -= 1
        seats = [p for p in can[card.suit] if room[p] > 0]
        while seats:
            pick = rng.choices(seats, weights=[room[p] for p in seats])[0]
            room[pick] -= 1
            if feasible():
                hands[pick].append(card)
                break
            room[pick] += 1
            seats.remove(pick)
        else:  # only an inconsistent view gets here
            raise ValueError("the view is inconsistent: the unseen cards do not fit the hands")
    return hands


def determinize(view: CiruloView, hands: Sequence[Sequence[Card]]) -> Deal:
    """A Deal at the view's position whose current hands are `hands`: rebuilt from a
    stacked deck (each seat's played cards plus its hand, in dealing order) and the
    cards played, in order."""
    raw = view.raw
    n = view.players
    dealer = view.dealer
    first = (dealer + 1) % n
    dealt: list[list[Card]] = [[] for _ in range(n)]
    for seat, card in view.played:
        dealt[seat].append(card)
    for seat in range(n):
        dealt[seat].extend(hands[seat])
    per = len(dealt[0])
    deck: list[Card] = []
    for j in range(per):
        for k in range(n):
            deck.append(dealt[(first + k) % n][j])
    deck += view.removed
    rules = view.rules
    pot = raw["pot"]
    from ..settlement import parse_amount

    deal = Deal(rules, n, dealer, deck=deck, pot=parse_amount(pot))
    for _, card in view.played:
        deal.play(card)
    return deal


def distinct_cards(view: CiruloView, legal: list[Card]) -> list[Card]:
    """The legal cards less those equivalent to another: cards of one suit and equal
    points with no unseen card between them win and lose the same tricks."""
    out_ranks: dict[str, set[int]] = {}
    for c in view.unseen:
        out_ranks.setdefault(c.suit, set()).add(c.rank)
    keep: list[Card] = []
    last: Card | None = None
    for card in sorted(legal, key=lambda c: (c.suit, c.rank)):
        if (
            last is not None
            and last.suit == card.suit
            and last.points == card.points
            and not any(last.rank < r < card.rank for r in out_ranks.get(card.suit, ()))
        ):
            continue  # the same as `last`
        keep.append(card)
        last = card
    return keep


def _follow_card(deal: Deal, legal: list[Card], trick: list[Card]) -> Card:
    """Follow (or discard on) a trick: duck, dump coins when void, shed when safe."""
    led = trick[0].suit
    if legal[0].suit != led:  # void: dump the worst on someone else's trick
        best = legal[0]
        for c in legal:
            if (c.points, c.rank) > (best.points, best.rank):
                best = c
        return best
    top = 0
    dirty = led == COINS
    for c in trick:
        if c.suit == led and c.rank > top:
            top = c.rank
        if c.suit == COINS:
            dirty = True
    last = len(trick) == deal.players - 1
    if last and not dirty:  # winning a clean last trick costs nothing: shed the top
        return max(legal, key=lambda c: c.rank)
    best_under: Card | None = None
    for c in legal:
        if c.rank < top and (best_under is None or c.rank > best_under.rank):
            best_under = c
    if best_under is not None:
        return best_under
    if last:
        return max(legal, key=lambda c: c.rank)
    return min(legal, key=lambda c: c.rank)


def _trick_outcome(deal: Deal, lead: Card) -> tuple[bool, int]:
    """Would the mover win the trick it leads with `lead`, if the others followed
    `_follow_card` (seeing this sample's hands), and for how many coin points?"""
    n = deal.players
    seat = deal.to_move
    assert seat is not None
    trick = [lead]
    best = lead
    winner = seat
    for k in range(1, n):
        other = (seat + k) % n
        hand = deal._hands[other]
        legal = [c for c in hand if c.suit == lead.suit] or hand
        card = _follow_card(deal, legal, trick)
        trick.append(card)
        if card.suit == lead.suit and card.rank > best.rank:
            best, winner = card, other
    return winner == seat, sum(c.points for c in trick)


def policy_card(deal: Deal, legal: list[Card]) -> Card:
    """The playouts' policy, seeing the sample's hands: lead the card whose trick
    costs least (trying the lowest and highest of each suit), otherwise
    `_follow_card`."""
    trick = deal._trick
    if trick:
        return _follow_card(deal, legal, trick)
    options: dict[str, list[Card]] = {}
    for c in legal:
        options.setdefault(c.suit, []).append(c)
    best = legal[0]
    best_cost = 1e9
    for cards in options.values():
        low = min(cards, key=lambda c: c.rank)
        high = max(cards, key=lambda c: c.rank)
        for card in (low, high) if high is not low else (low,):
            won, coins = _trick_outcome(deal, card)
            # Losing the trick is free; among safe leads, shed the highest card.
            cost = (coins + 0.2 if won else 0.0) - card.rank / 100
            if cost < best_cost:
                best, best_cost = card, cost
    return best


def playout(deal: Deal, rng: random.Random, epsilon: float = DEFAULT_EPSILON) -> None:
    """Play the hand to its end with `policy_card` (a random card with chance epsilon)."""
    while not deal.is_over:
        legal = deal.legal_moves()
        if len(legal) == 1:
            card = legal[0]
        elif rng.random() < epsilon:
            card = legal[rng.randrange(len(legal))]
        else:
            card = policy_card(deal, legal)
        deal.play(card)


class SearchBot(CiruloBot):
    """Determinized search: samples of the hidden hands, every legal card played out
    on each, the best average balance for the seat. `budget` counts playouts."""

    name = "search"

    def __init__(
        self, seed: int = 0, budget: Budget | None = None, epsilon: float = DEFAULT_EPSILON
    ) -> None:
        super().__init__(seed, budget or Budget(iterations=200))
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be between 0 and 1, not {epsilon!r}")
        self.epsilon = epsilon
        self.last_iterations = 0

    def choose(self, view: CiruloView) -> Card:
        legal = distinct_cards(view, view.legal)
        if len(legal) == 1:
            return legal[0]
        assert self.budget is not None
        rng = self.rng
        seat = view.seat
        iterations = self.budget.iterations
        deadline = (
            None if self.budget.seconds is None else time.perf_counter() + self.budget.seconds
        )
        base = determinize(view, sample_hands(view, rng))
        totals = [0.0] * len(legal)
        rounds = [0] * len(legal)
        done = 0
        sample = base
        while True:
            if iterations is not None and done >= iterations:
                break
            # every card is played out once however late it is: a choice from nothing
            # would be the first card's, whatever it is
            if (
                deadline is not None
                and done
                and done % len(legal) == 0
                and time.perf_counter() > deadline
            ):
                break
            i = done % len(legal)
            if i == 0 and done:  # a new sample; every card is played out on the same one
                sample = base.with_hands(sample_hands(view, rng))
            deal = sample.copy()
            deal.play(legal[i])
            playout(deal, rng, self.epsilon)
            totals[i] += float(deal.settlement().balances[seat])
            rounds[i] += 1
            done += 1
        self.last_iterations = done
        return legal[max(range(len(legal)), key=lambda i: totals[i] / max(1, rounds[i]))]
