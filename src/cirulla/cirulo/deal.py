"""One hand of Cirulo: deal, tricks, settlement (RULES.md CI1-CI5).

Seats are numbered in the order of play: the next seat is the one on the right
(anticlockwise, as in the Cirulla engine). The leader is the seat after the
dealer; cards are dealt one at a time from the leader on, anticlockwise.

The state is plain lists of interned cards and ints, and the log keeps tuples
turned into dicts only when asked for, so the search bot's playouts stay cheap.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Final

from ..moves import IllegalMove
from ..shuffle import SeededStream
from .cards import COINS, SUIT_NAMES, SUITS, Card, full_deck
from .rules import CiruloRules
from .settlement import Amount, Settlement, amount_json, norm_amount, settle

__all__ = ["Deal", "IllegalMove", "removed_cards"]

_EV_DEAL: Final = 0
_EV_PLAY: Final = 1
_EV_TRICK: Final = 2
_EV_END: Final = 3
_SUIT_ORDER: Final = {s: i for i, s in enumerate(SUITS)}


def _hand_key(card: Card) -> tuple[int, int]:
    return (_SUIT_ORDER[card.suit], card.rank)


def removed_cards(rules: CiruloRules, players: int) -> list[Card]:
    """CI2: the fewest low non-coin cards that make the deck divide by `players`:
    lowest rank first, equal ranks in the suit order `rules.discard_order`."""
    n = rules.check_players(players)
    extra = rules.deck_size % n
    order = rules.discard_order
    low = sorted(
        (c for c in full_deck(rules.deck) if c.suit != COINS),
        key=lambda c: (c.rank, order.index(c.suit)),
    )
    return low[:extra]


class Deal:
    """One hand, from a seed or a stacked deck; `play` cards until `is_over`.

    `deck`, when given, is the whole deck (48 or 52 cards, each once) in dealing
    order: the removed cards (CI2) are taken out wherever they lie, and the rest
    go one at a time to the leader, the seat after it, and so on. `pot` is the
    pot carried in from the hand before (CI5).
    """

    def __init__(
        self,
        rules: CiruloRules | object,
        players: int | object = 4,
        dealer: int | object = 0,
        deck: Sequence[Card | str] | object | None = None,
        seed: int | object = 0,
        pot: Amount | object = 0,
    ) -> None:
        if not isinstance(rules, CiruloRules):
            raise ValueError(f"rules must be a CiruloRules, not {type(rules).__name__}")
        n = rules.check_players(players)
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat from 0 to {n - 1}, not {dealer!r}")
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, not {seed!r}")
        if rules.split == "carry":
            ok = isinstance(pot, int) and not isinstance(pot, bool) and pot >= 0
        else:
            ok = isinstance(pot, int | Fraction) and not isinstance(pot, bool) and pot >= 0
        if not ok:
            kind = "whole number" if rules.split == "carry" else "number (int or Fraction)"
            raise ValueError(f"pot must be a non-negative {kind}, not {pot!r}")
        size = rules.deck_size
        if deck is None:
            cards = full_deck(rules.deck)
            SeededStream(seed).shuffle(cards)
        else:
            if isinstance(deck, str) or not isinstance(deck, Sequence):
                raise ValueError(f"deck must be a list of the {size} cards")
            try:
                cards = [Card.parse(c, rules.deck) for c in deck]
            except ValueError as exc:
                raise ValueError(f"deck: {exc}") from None
            if len(cards) != size or len(set(cards)) != size:
                raise ValueError(f"a stacked deck must hold each of the {size} cards exactly once")
        self.rules: Final = rules
        self.players: Final = n
        self.dealer: Final = dealer
        self.seed: Final = seed
        self.stacked: Final = deck is not None
        self.initial_deck: Final = tuple(cards)
        self.pot_in: Final[Amount] = norm_amount(pot)  # type: ignore[arg-type]
        self.removed: Final = tuple(removed_cards(rules, n))
        self.leader_first: Final = (dealer + 1) % n  # CI3: the seat right of the dealer
        out = set(self.removed)
        dealt = [c for c in cards if c not in out]
        hands: list[list[Card]] = [[] for _ in range(n)]
        for i, card in enumerate(dealt):  # CI2: one at a time, anticlockwise
            hands[(self.leader_first + i) % n].append(card)
        for hand in hands:
            hand.sort(key=_hand_key)
        self._hands = hands
        self._trick: list[Card] = []
        self._trick_seats: list[int] = []
        self._leader = self.leader_first
        self._tricks = 0  # tricks finished
        self._won = [0] * n  # tricks won per seat
        self._encirculated = [0] * n  # of which with coins (CI4)
        self._coins = [0] * n  # coin points won per seat
        self._taken: list[list[Card]] = [[] for _ in range(n)]  # cards of coin tricks
        self._center: list[Card] = []  # cards of the tricks without coins
        self._log: list[tuple[Any, ...]] = [(_EV_DEAL, tuple(tuple(h) for h in hands))]
        self._legal: list[Card] | None = None
        self._settlement: Settlement | None = None
        #: The seat to move, None once the hand is over (read-only).
        self.to_move: int | None = self.leader_first
        #: True once every card is played and the hand is settled (read-only).
        self.is_over = False

    # ---- public state -------------------------------------------------------------
    def hand(self, seat: int | object) -> list[Card]:
        return list(self._hands[self._check_seat(seat)])

    @property
    def trick(self) -> list[tuple[int, Card]]:
        """The trick being played: (seat, card) in order of play."""
        return list(zip(self._trick_seats, self._trick, strict=True))

    @property
    def led_suit(self) -> str | None:
        return self._trick[0].suit if self._trick else None

    @property
    def leader(self) -> int | None:
        """The seat that leads (or led) the trick being played; None once over."""
        return None if self.is_over else self._leader

    @property
    def trick_number(self) -> int:
        """The trick being played, from 1 (the last one's number once over)."""
        return self._tricks + (0 if self.is_over else 1)

    @property
    def tricks_per_hand(self) -> int:
        return (self.rules.deck_size - len(self.removed)) // self.players

    def tricks_won(self) -> list[int]:
        return list(self._won)

    def encirculated(self) -> list[int]:
        """Tricks with coins won per seat (CI4: each stays with its winner)."""
        return list(self._encirculated)

    def coins(self) -> list[int]:
        """Coin points in each seat's encirculated tricks so far (CI4)."""
        return list(self._coins)

    def taken(self, seat: int | object) -> list[Card]:
        """Every card of the seat's encirculated tricks."""
        return list(self._taken[self._check_seat(seat)])

    @property
    def center(self) -> list[Card]:
        """The cards of the tricks without coins, face down in the centre."""
        return list(self._center)

    @property
    def moves(self) -> list[Card]:
        """Every card played so far, in order (with `initial_deck` or `seed`, a replay)."""
        return [e[2] for e in self._log if e[0] == _EV_PLAY]

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every event, JSON-ready, in order (hidden cards included: use `events_for`)."""
        return [self._event_dict(e) for e in self._log]

    @property
    def event_count(self) -> int:
        return len(self._log)

    def events_from(self, start: int) -> list[dict[str, Any]]:
        return [self._event_dict(e) for e in self._log[start:]]

    def events_for(self, seat: int | object | None) -> list[dict[str, Any]]:
        """The events as `seat` may see them (None: a spectator)."""
        from .views import filter_event

        viewer = None if seat is None else self._check_seat(seat)
        return [filter_event(self._event_dict(e), viewer) for e in self._log]

    def view(self, seat: int | object | None) -> dict[str, Any]:
        """Everything `seat` may know and nothing else; None for a spectator."""
        from .views import deal_view

        return deal_view(self, None if seat is None else self._check_seat(seat))

    def settlement(self) -> Settlement:
        """CI5, once the hand is over: coins, payments, shares and the pot carried."""
        if self._settlement is None:
            raise ValueError("the hand is not over: no settlement yet")
        return self._settlement

    def _check_seat(self, seat: object) -> int:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
            raise ValueError(f"seat must be 0 to {self.players - 1}, not {seat!r}")
        return seat

    # ---- moves --------------------------------------------------------------------
    def legal_moves(self) -> list[Card]:
        """The cards the seat to move may play (CI3: follow suit when it can)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal[:]

    def _compute_legal(self) -> list[Card]:
        seat = self.to_move
        if seat is None:
            return []
        hand = self._hands[seat]
        if not self._trick:
            return list(hand)
        led = self._trick[0].suit
        follow = [c for c in hand if c.suit == led]
        return follow or list(hand)

    def play(self, move: Card | str | object, seat: int | None = None) -> None:
        """Play a card (a `Card` or its code) for the seat to move; `seat`, when given,
        must be that seat. IllegalMove says why not, and nothing changes."""
        if self.is_over:
            raise IllegalMove(f"the hand is over: {move} cannot be played")
        mover = self.to_move
        assert mover is not None
        if seat is not None and seat != mover:
            raise IllegalMove(f"not your turn: seat {mover} is to move, not seat {seat}")
        if move.__class__ is not Card:
            if isinstance(move, str):
                try:
                    move = Card.parse(move, self.rules.deck)
                except ValueError as exc:
                    raise IllegalMove(str(exc)) from None
            else:
                raise IllegalMove(f"a move is a card or its code, not {type(move).__name__}")
        card: Card = move
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        if card not in legal:
            raise IllegalMove(self._why_illegal(card, mover))
        self._hands[mover].remove(card)
        self._trick.append(card)
        self._trick_seats.append(mover)
        self._log.append((_EV_PLAY, mover, card, self._tricks + 1))
        self._legal = None
        if len(self._trick) < self.players:
            self.to_move = (mover + 1) % self.players
        else:
            self._close_trick()

    def _why_illegal(self, card: Card, seat: int) -> str:
        if card.deck != self.rules.deck:
            return f"{card} is a card of the {card.deck} deck; this hand uses {self.rules.deck}"
        if card not in self._hands[seat]:
            return f"{card} is not in seat {seat}'s hand"
        led = self._trick[0].suit
        return (
            f"must follow suit: {SUIT_NAMES[led]} ({led}) was led and seat {seat}"
            f" holds {SUIT_NAMES[led]}, so {card} cannot be played"
        )

    def _close_trick(self) -> None:
        """CI3, CI4: the highest card of the suit led wins; a trick with coins stays
        with its winner, the others go to the centre."""
        trick = self._trick
        led = trick[0].suit
        best = 0
        for i in range(1, len(trick)):
            c = trick[i]
            if c.suit == led and c.rank > trick[best].rank:
                best = i
        winner = self._trick_seats[best]
        coins = 0
        for c in trick:
            coins += c.points
        has_coins = any(c.suit == COINS for c in trick)
        self._won[winner] += 1
        if has_coins:
            self._encirculated[winner] += 1
            self._coins[winner] += coins
            self._taken[winner].extend(trick)
        else:
            self._center.extend(trick)
        self._tricks += 1
        self._log.append(
            (
                _EV_TRICK,
                self._tricks,
                self._leader,
                tuple(trick),
                tuple(self._trick_seats),
                winner,
                coins,
                has_coins,
            )
        )
        self._trick = []
        self._trick_seats = []
        self._leader = winner
        if self._hands[winner]:
            self.to_move = winner
        else:
            self._finish()

    def _finish(self) -> None:
        rules = self.rules
        self._settlement = settle(self._coins, self.pot_in, rules.split, rules.point_value)
        self._log.append((_EV_END,))
        self.to_move = None
        self.is_over = True
        self._legal = []

    # ---- events -------------------------------------------------------------------
    def _event_dict(self, entry: tuple[Any, ...]) -> dict[str, Any]:
        kind = entry[0]
        if kind == _EV_PLAY:
            return {"type": "play", "seat": entry[1], "card": str(entry[2]), "trick": entry[3]}
        if kind == _EV_TRICK:
            _, number, leader, cards, seats, winner, coins, has_coins = entry
            return {
                "type": "trick",
                "number": number,
                "leader": leader,
                "cards": [str(c) for c in cards],
                "seats": list(seats),
                "winner": winner,
                "coins": coins,
                "encirculated": has_coins,
            }
        if kind == _EV_DEAL:
            return {
                "type": "deal",
                "dealer": self.dealer,
                "leader": self.leader_first,
                "players": self.players,
                "deck": self.rules.deck,
                "removed": [str(c) for c in self.removed],
                "hands": [[str(c) for c in h] for h in entry[1]],
                "pot": amount_json(self.pot_in),
            }
        return {"type": "hand_end", "settlement": self.settlement().to_dict()}

    # ---- search support -----------------------------------------------------------
    def copy(self) -> Deal:
        """An independent copy for search (shares nothing mutable with this deal)."""
        new = object.__new__(Deal)
        new.__dict__.update(self.__dict__)
        new._hands = [list(h) for h in self._hands]
        new._trick = list(self._trick)
        new._trick_seats = list(self._trick_seats)
        new._won = list(self._won)
        new._encirculated = list(self._encirculated)
        new._coins = list(self._coins)
        new._taken = [list(t) for t in self._taken]
        new._center = list(self._center)
        new._log = list(self._log)
        return new

    def with_hands(self, hands: Sequence[Sequence[Card]]) -> Deal:
        """A copy whose current hands are `hands` (for a determinized search): the same
        cards overall, as many per seat. The copy's deal event keeps the first hands,
        so replay this deal's moves, not its events."""
        if len(hands) != self.players or [len(h) for h in hands] != [len(h) for h in self._hands]:
            raise ValueError("with_hands needs as many cards per seat as the hands hold now")
        if sorted(c.id for h in hands for c in h) != sorted(c.id for h in self._hands for c in h):
            raise ValueError("with_hands must deal the same cards the hands hold now")
        new = self.copy()
        new._hands = [sorted(h, key=_hand_key) for h in hands]
        new._legal = None
        return new

    def __repr__(self) -> str:
        state = "over" if self.is_over else f"seat {self.to_move} to move"
        return (
            f"<cirulo.Deal {self.players} players, {self.rules.deck}, dealer {self.dealer},"
            f" trick {self.trick_number}, {state}>"
        )
