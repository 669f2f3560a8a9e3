"""The two Cirulo decks and their cards (RULES.md CI1).

Notation: rank then suit letter. Suits: O oros (coins, the "cirulo" suit),
C copas (cups), E espadas (swords), B bastos (clubs).

- `spanish48`, the 48-card Spanish deck: ranks 1..12, written as numbers:
  1-9, 10 sota, 11 caballo, 12 rey ("12O" is the rey de oros).
- `poker52`, the 52-card Spanish poker deck: A, 2..10, J, Q, K ("KO", "10E", "AB").

A card's `rank` is its strength in its suit, the same scale for both decks:
1 (the ace, lowest) up to 12 (rey) or 13 (K). A coin's `points` (CI4) are 10
for the ten and the face cards (10, 11, 12 / 10, J, Q, K), the pip value
otherwise; other suits are worth nothing. Cards are interned per deck: equality
is identity and hashing is cheap.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal

__all__ = ["DECKS", "SUITS", "Card", "DeckName", "deck_size", "full_deck", "parse_cards"]

DeckName = Literal["spanish48", "poker52"]
#: The decks and how many ranks each suit has.
DECKS: Final[dict[str, int]] = {"spanish48": 12, "poker52": 13}
#: Suit letters: oros (coins), copas (cups), espadas (swords), bastos (clubs).
SUITS: Final = ("O", "C", "E", "B")
SUIT_NAMES: Final = {"O": "oros", "C": "copas", "E": "espadas", "B": "bastos"}
COINS: Final = "O"
_POKER_RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_SPANISH_RANKS: Final = tuple(str(r) for r in range(1, 13))


def _rank_text(deck: str) -> tuple[str, ...]:
    return _SPANISH_RANKS if deck == "spanish48" else _POKER_RANKS


class Card:
    """One card of one deck; get it with `Card.parse("12O", "spanish48")`."""

    __slots__ = ("deck", "id", "points", "rank", "suit", "text")

    deck: str
    id: int
    points: int
    rank: int
    suit: str
    text: str

    def __new__(cls, rank: int, suit: str, deck: str = "spanish48") -> Card:
        cards = _INTERNED.get(deck)
        if cards is None:
            raise ValueError(f"unknown deck {deck!r} (decks: {', '.join(DECKS)})")
        card = cards.get((rank, suit))
        if card is None:
            raise ValueError(
                f"no card of rank {rank!r} and suit {suit!r} in the {deck} deck"
                f" (ranks 1-{DECKS[deck]}, suits {' '.join(SUITS)})"
            )
        return card

    @classmethod
    def _make(cls, rank: int, suit: str, deck: str) -> Card:
        card = object.__new__(cls)
        card.rank = rank
        card.suit = suit
        card.deck = deck
        card.id = SUITS.index(suit) * DECKS[deck] + rank - 1
        card.points = (10 if rank >= 10 else rank) if suit == COINS else 0
        card.text = _rank_text(deck)[rank - 1] + suit
        return card

    @classmethod
    def parse(cls, text: str | Card, deck: str = "spanish48") -> Card:
        """A card from its code in `deck`; ValueError naming what is wrong."""
        if isinstance(text, Card):
            if text.deck != deck:
                raise ValueError(f"{text} is a card of the {text.deck} deck, not of {deck}")
            return text
        if not isinstance(text, str):
            raise ValueError(f"a card is written like '12O' or 'KO', not {text!r}")
        if deck not in DECKS:
            raise ValueError(f"unknown deck {deck!r} (decks: {', '.join(DECKS)})")
        card = _BY_TEXT[deck].get(text.strip().upper())
        if card is None:
            raise ValueError(_parse_problem(text, deck))
        return card

    @property
    def is_coin(self) -> bool:
        return self.suit == COINS

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text!r})"

    def __reduce__(self) -> tuple[object, tuple[int, str, str]]:
        return (Card, (self.rank, self.suit, self.deck))


def _parse_problem(text: str, deck: str) -> str:
    t = text.strip().upper()
    ranks = _rank_text(deck)
    if len(t) < 2:
        return f"bad card {text!r}: write the rank then the suit, e.g. {ranks[-1]}O"
    rank, suit = t[:-1], t[-1]
    if suit not in SUITS:
        return (
            f"bad card {text!r}: the suit {suit!r} is not one of O C E B"
            " (oros, copas, espadas, bastos)"
        )
    other = "poker52" if deck == "spanish48" else "spanish48"
    if rank in _rank_text(other):
        return (
            f"bad card {text!r}: the {deck} deck has no rank {rank!r}"
            f" (ranks {' '.join(ranks)}); {rank!r} is a rank of the {other} deck"
        )
    return f"bad card {text!r}: {rank!r} is not a rank of the {deck} deck ({' '.join(ranks)})"


_INTERNED: Final[dict[str, dict[tuple[int, str], Card]]] = {}
_BY_TEXT: Final[dict[str, dict[str, Card]]] = {}
_DECK_ORDER: Final[dict[str, tuple[Card, ...]]] = {}
for _deck, _ranks in DECKS.items():
    _cards = [Card._make(r, s, _deck) for s in SUITS for r in range(1, _ranks + 1)]
    _INTERNED[_deck] = {(c.rank, c.suit): c for c in _cards}
    _BY_TEXT[_deck] = {c.text: c for c in _cards}
    _DECK_ORDER[_deck] = tuple(_cards)


def deck_size(deck: str) -> int:
    return 4 * DECKS[deck]


def full_deck(deck: str = "spanish48") -> list[Card]:
    """Every card of `deck` in a fixed order (by suit O C E B, then rank): a new list."""
    if deck not in _DECK_ORDER:
        raise ValueError(f"unknown deck {deck!r} (decks: {', '.join(DECKS)})")
    return list(_DECK_ORDER[deck])


def parse_cards(items: Iterable[str | Card], deck: str = "spanish48") -> list[Card]:
    """Cards from codes (or cards) of `deck`; ValueError naming the first bad one."""
    return [Card.parse(c, deck) for c in items]
