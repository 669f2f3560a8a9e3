"""The simple Cirulo bots: `random`, and `heuristic`, a card player's rules of thumb.

Cirulo is a game of losing: a trick with coins costs its winner their points
and shuts them out of the pot. The heuristic bot estimates, for each card it
may play, the coin points it expects to take with it, and plays the card with
the lowest; among equally safe cards it sheds the one most likely to win a
trick later (high cards, above all in short suits). In practice that means:
duck under the winning card, dump coins on the others' tricks when void, lead
low in suits where higher cards are still out, and get rid of high cards early,
while nobody is void yet and a won trick is still clean.
"""

from __future__ import annotations

from ..cards import COINS, Card
from .base import CiruloBot, CiruloView

__all__ = ["HeuristicBot", "RandomBot"]


class RandomBot(CiruloBot):
    """Uniform among the legal cards."""

    name = "random"

    def choose(self, view: CiruloView) -> Card:
        legal = view.legal
        return legal[self.rng.randrange(len(legal))]


def _void_chance(unseen: int, of_suit: int, held: int) -> float:
    """The chance that a hand of `held` unseen cards has none of `of_suit` given ones
    (drawn without replacement from `unseen`)."""
    if of_suit == 0:
        return 1.0
    p = 1.0
    for i in range(held):
        if unseen - i <= 0:
            break
        p *= max(0.0, (unseen - of_suit - i) / (unseen - i))
    return p


class _Reading:
    """What the view says about the others, worked out once per decision."""

    def __init__(self, view: CiruloView) -> None:
        self.view = view
        self.seat = view.seat
        self.n = view.players
        self.hand = view.hand
        self.voids = view.voids
        self.unseen = view.unseen
        self.by_suit = view.unseen_by_suit
        coins = self.by_suit[COINS]
        self.avg_coin = sum(c.points for c in coins) / len(coins) if coins else 0.0

    def void_chance(self, seat: int, suit: str) -> float:
        """How likely `seat` holds no card of `suit` now."""
        if suit in self.voids[seat]:
            return 1.0
        holders = [s for s in range(self.n) if s != self.seat and suit not in self.voids[s]]
        held = self.view.count(seat)
        # The suit's unseen cards lie with the seats not known void in it.
        pool = sum(self.view.count(s) for s in holders)
        return _void_chance(pool, len(self.by_suit[suit]), held)

    def dump_cost(self, seats: list[int], suit: str) -> float:
        """Coin points the players in `seats` are expected to dump on a trick of `suit`
        that they cannot follow."""
        if not self.by_suit[COINS] or suit == COINS:
            return 0.0
        return sum(self.void_chance(s, suit) * self.coin_chance(s) * self.avg_coin for s in seats)

    def coin_chance(self, seat: int) -> float:
        if COINS in self.voids[seat]:
            return 0.0
        return 1.0 - self.void_chance(seat, COINS)

    def danger(self, card: Card) -> float:
        """How likely the card is to win a trick later: the share of the suit's unseen
        cards below it, more so when it has few companions in the hand to duck with."""
        out = self.by_suit[card.suit]
        below = sum(1 for c in out if c.rank < card.rank)
        above = len(out) - below
        mine = sum(1 for c in self.hand if c.suit == card.suit)
        top = 1.0 if above == 0 else below / (below + above + 1)
        return top + card.rank / 20 - 0.1 * mine + (0.5 if card.suit == COINS else 0.0)


class HeuristicBot(CiruloBot):
    """Duck under coin tricks, dump coins when void, lead low where higher cards are
    out, shed high cards of short suits early (see the module docstring)."""

    name = "heuristic"

    def choose(self, view: CiruloView) -> Card:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        reading = _Reading(view)
        if not view.trick:
            return self._lead(reading, legal)
        if legal[0].suit != view.led:
            return self._discard(reading, legal)
        return self._follow(reading, legal)

    def _discard(self, r: _Reading, legal: list[Card]) -> Card:
        """Void in the suit led: this trick is someone else's, so dump on it."""
        coins = [c for c in legal if c.suit == COINS]
        if coins:
            return max(coins, key=lambda c: (c.points, c.rank))
        return max(legal, key=r.danger)

    def _follow(self, r: _Reading, legal: list[Card]) -> Card:
        view = r.view
        trick = [c for _, c in view.trick]
        led = trick[0].suit
        top = max(c.rank for c in trick if c.suit == led)
        dirty = led == COINS or any(c.suit == COINS for c in trick)
        later = view.later
        under = [c for c in legal if c.rank < top]
        over = [c for c in legal if c.rank > top]
        if not later and not dirty:  # last to a clean trick: winning it costs nothing
            return max(legal, key=lambda c: c.rank)
        if under:  # duck, shedding the highest card that still ducks
            return max(under, key=lambda c: c.rank)
        low = min(over, key=lambda c: c.rank)
        if later:
            out = [c for c in r.by_suit[led] if c.rank > low.rank]
            can_beat = [s for s in later if led not in r.voids[s]]
            if out and can_beat:  # someone after may still overtake: leave room
                return low
        return max(over, key=lambda c: c.rank)  # the trick is ours anyway: shed the top

    def _lead(self, r: _Reading, legal: list[Card]) -> Card:
        best: Card = legal[0]
        best_cost = float("inf")
        others = [(r.seat + k) % r.n for k in range(1, r.n)]
        for card in legal:
            cost = self._lead_cost(r, card, others) - 0.8 * r.danger(card)
            if cost < best_cost:
                best, best_cost = card, cost
        return best

    def _lead_cost(self, r: _Reading, card: Card, others: list[int]) -> float:
        """Expected coin points taken by leading `card`, less the coins it passes on."""
        suit = card.suit
        out = r.by_suit[suit]
        higher = sum(1 for c in out if c.rank > card.rank)
        lower = len(out) - higher
        holders = [s for s in others if suit not in r.voids[s]]
        if not out or not holders or higher == 0:
            win = 1.0
        elif lower == 0:
            win = 0.0  # whoever follows must go over
        else:
            per = max(1.0, len(out) / len(holders))
            p_over = higher / len(out)
            win = 1.0
            for _ in holders:  # each follower ducks unless every card they hold is higher
                win *= 1.0 - p_over**per
        dumped = r.dump_cost(others, suit)
        if suit == COINS:
            # Everyone who follows adds coins; the winner takes them all.
            followed = sum(1 - r.void_chance(s, COINS) for s in others) * r.avg_coin
            return win * (card.points + followed + dumped) - (1 - win) * card.points
        return win * dumped
