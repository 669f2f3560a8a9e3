"""A Cirulo game: the dealer drawn (CI2), a fixed number of hands with the deal
passing to the right, the pot carried between hands and each player's balance.

The balances are derived from the hands every time they are asked for, so they
can never drift from the hands they are made of. At every moment the balances
and the pot add up to zero: `sum(game.balances) + game.pot == 0`.
"""

from __future__ import annotations

from typing import Any

from ..game import derived_seed
from ..shuffle import SeededStream
from .cards import full_deck
from .deal import Deal
from .rules import CiruloRules
from .settlement import Amount, Settlement, amount_json, norm_amount

__all__ = ["Game", "draw_dealer"]


def draw_dealer(rules: CiruloRules, players: int, seed: int) -> tuple[int, dict[str, Any]]:
    """CI2: each player draws a card, the highest deals; players tied for the highest
    draw again from a fresh deck. Round k is shuffled from
    `derived_seed(seed, "cirulo-draw", k)`; seats draw in seat order."""
    n = rules.check_players(players)
    contenders = list(range(n))
    rounds: list[dict[str, Any]] = []
    k = 0
    while True:
        cards = full_deck(rules.deck)
        SeededStream(derived_seed(seed, "cirulo-draw", k)).shuffle(cards)
        drawn = cards[: len(contenders)]
        rounds.append({"seats": list(contenders), "cards": [str(c) for c in drawn]})
        top = max(c.rank for c in drawn)
        contenders = [s for s, c in zip(contenders, drawn, strict=True) if c.rank == top]
        if len(contenders) == 1:
            return contenders[0], {"type": "draw", "rounds": rounds, "dealer": contenders[0]}
        k += 1


class Game:
    """Hands of Cirulo until `rules.hands_for(players)` are played.

    The first dealer is drawn (`draw_dealer`) unless `dealer` is given; hand k
    (0, 1, ...) is shuffled from `derived_seed(seed, "cirulo-deal", k)` unless
    `next_deal` is given a deck or a seed. Each hand starts with the pot the one
    before left (CI5).
    """

    def __init__(
        self,
        rules: CiruloRules,
        players: int = 4,
        seed: int = 0,
        dealer: int | None = None,
        deck: list[Any] | None = None,
        deal_seed: int | None = None,
    ) -> None:
        if not isinstance(rules, CiruloRules):
            raise ValueError(f"rules must be a CiruloRules, not {type(rules).__name__}")
        self.rules = rules
        self.players = rules.check_players(players)
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, not {seed!r}")
        self.seed = seed
        self.draw: dict[str, Any] | None = None
        if dealer is None:
            dealer, self.draw = draw_dealer(rules, self.players, seed)
        elif not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat from 0 to {players - 1}, not {dealer!r}")
        self.first_dealer = dealer
        self.hands = rules.hands_for(self.players)
        self.deals: list[Deal] = []
        self._new_deal(dealer, deck, deal_seed, 0)

    @property
    def deal(self) -> Deal:
        """The hand being played (the last one once the game is over)."""
        return self.deals[-1]

    def _new_deal(self, dealer: int, deck: list[Any] | None, seed: int | None, pot: Amount) -> Deal:
        if seed is None:
            seed = derived_seed(self.seed, "cirulo-deal", len(self.deals))
        deal = Deal(self.rules, self.players, dealer, deck=deck, seed=seed, pot=pot)
        self.deals.append(deal)
        return deal

    def next_deal(self, deck: list[Any] | None = None, seed: int | None = None) -> Deal:
        """Start the next hand: the deal passes to the right (CI2), the pot carries (CI5)."""
        if not self.deal.is_over:
            raise ValueError("the current hand is not over")
        if self.is_over:
            raise ValueError("the game is over")
        carried = self.deal.settlement().carried
        return self._new_deal((self.deal.dealer + 1) % self.players, deck, seed, carried)

    @property
    def is_over(self) -> bool:
        return len(self.deals) >= self.hands and self.deal.is_over

    def settlements(self) -> list[Settlement]:
        """The settlement of every finished hand, in order."""
        return [d.settlement() for d in self.deals if d.is_over]

    @property
    def balances(self) -> list[Amount]:
        """Each player's running balance in points, over the finished hands."""
        totals: list[Amount] = [0] * self.players
        for s in self.settlements():
            for seat, b in enumerate(s.balances):
                totals[seat] += b
        return [norm_amount(t) for t in totals]

    @property
    def chips(self) -> list[Amount]:
        """The balances in chips: points times `rules.point_value`."""
        return [norm_amount(b * self.rules.point_value) for b in self.balances]

    @property
    def pot(self) -> Amount:
        """The pot now: what the last finished hand carried on (0 before any)."""
        deal = self.deal
        return deal.settlement().carried if deal.is_over else deal.pot_in

    @property
    def events(self) -> list[dict[str, Any]]:
        """The draw for the dealer, then every hand's events (hidden cards included)."""
        out: list[dict[str, Any]] = [] if self.draw is None else [dict(self.draw)]
        for number, deal in enumerate(self.deals, start=1):
            out.append({"type": "hand", "number": number, "dealer": deal.dealer})
            out.extend(deal.events)
        if self.is_over:
            out.append(self.summary())
        return out

    def summary(self) -> dict[str, Any]:
        """The game's standing, JSON-ready."""
        return {
            "type": "game_end" if self.is_over else "standing",
            "hands_played": len(self.settlements()),
            "hands": self.hands,
            "balances": [amount_json(b) for b in self.balances],
            "chips": [amount_json(c) for c in self.chips],
            "pot": amount_json(self.pot),
        }

    def __repr__(self) -> str:
        state = "over" if self.is_over else "in play"
        return (
            f"<cirulo.Game {self.players} players, hand {len(self.deals)} of {self.hands},"
            f" balances {[amount_json(b) for b in self.balances]},"
            f" pot {amount_json(self.pot)}, {state}>"
        )
