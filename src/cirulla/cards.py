"""The 40-card pack (RULES.md C1-C5) and the names of its cards in each deck style.

Cards are interned: there are exactly 40 `Card` objects, so equality is identity,
hashing is cheap and stable across runs, and the engine never allocates a card.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = [
    "PRIMIERA",
    "RANKS",
    "STYLES",
    "SUITS",
    "Card",
    "full_deck",
    "parse_cards",
]

#: Rank letters in ascending capture value (C1).
RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K")
#: Suit letters: denari/diamonds, coppe/hearts, bastoni/clubs, spade/spades (C2).
SUITS: Final = ("D", "H", "C", "S")
#: Primiera values by rank letter (C3).
PRIMIERA: Final = {
    "7": 21,
    "6": 18,
    "A": 16,
    "5": 15,
    "4": 14,
    "3": 13,
    "2": 12,
    "J": 10,
    "Q": 10,
    "K": 10,
}

Style = Literal["french", "napoletane", "piacentine"]
Lang = Literal["it", "en"]
#: Deck styles a player may choose; they change names and faces, never play (C2).
STYLES: Final[tuple[Style, ...]] = ("french", "napoletane", "piacentine")

_SUIT_NAMES: Final[dict[tuple[str, str], tuple[str, str, str, str]]] = {
    # (family, lang) -> names of D, H, C, S
    ("french", "it"): ("quadri", "cuori", "fiori", "picche"),
    ("french", "en"): ("diamonds", "hearts", "clubs", "spades"),
    ("latin", "it"): ("denari", "coppe", "bastoni", "spade"),
    ("latin", "en"): ("coins", "cups", "batons", "swords"),
}
_RANK_NAMES: Final[dict[tuple[str, str], dict[str, str]]] = {
    ("french", "it"): {"A": "Asso", "J": "Fante", "Q": "Donna", "K": "Re"},
    ("french", "en"): {"A": "Ace", "J": "Jack", "Q": "Queen", "K": "King"},
    ("latin", "it"): {"A": "Asso", "J": "Fante", "Q": "Cavallo", "K": "Re"},
    ("latin", "en"): {"A": "Ace", "J": "Knave", "Q": "Knight", "K": "King"},
}


class Card:
    """A card of the 40-card pack; get one with `Card.parse("7H")` (or `Card("7", "H")`)."""

    id: int
    rank: str
    suit: str
    value: int
    primiera: int
    bit: int

    def __init__(self, rank: str, suit: str) -> None:
        if rank not in RANKS or suit not in SUITS or len(rank) != 1:
            raise ValueError(f"no such card: rank {rank!r}, suit {suit!r}")
        self.rank = rank
        self.suit = suit
        self.value = RANKS.index(rank) + 1
        self.primiera = PRIMIERA[rank]
        self.id = SUITS.index(suit) * 10 + RANKS.index(rank)
        self.bit = 1 << self.id

    @staticmethod
    def parse(text: object) -> Card:
        """Parse "7H", "qs", "AD"; raise ValueError saying what is wrong."""
        if isinstance(text, Card):
            return _ALL[text.id]
        if not isinstance(text, str):
            raise ValueError(f"a card is a string like '7H', not {type(text).__name__}")
        card = _BY_TEXT.get(text.strip().upper())
        if card is not None:
            return card
        t = text.strip().upper()
        if len(t) != 2:
            raise ValueError(
                f"bad card {text!r}: a card is a rank (A 2-7 J Q K) and a suit (D H C S), e.g. '7H'"
            )
        if t[0] not in RANKS:
            raise ValueError(
                f"bad card {text!r}: unknown rank {t[0]!r} (ranks: A 2 3 4 5 6 7 J Q K)"
            )
        raise ValueError(f"bad card {text!r}: unknown suit {t[1]!r} (suits: D H C S)")

    @staticmethod
    def from_id(card_id: int) -> Card:
        return _ALL[card_id]

    def name(self, style: str = "french", lang: str = "en") -> str:
        """The card's name for players: "7 di coppe", "King of hearts"."""
        if style not in STYLES:
            raise ValueError(f"unknown deck style {style!r} (styles: {', '.join(STYLES)})")
        if lang not in ("it", "en"):
            raise ValueError(f"unknown language {lang!r} (languages: it, en)")
        family = "french" if style == "french" else "latin"
        suit = _SUIT_NAMES[family, lang][SUITS.index(self.suit)]
        rank = _RANK_NAMES[family, lang].get(self.rank, self.rank)
        return f"{rank} di {suit}" if lang == "it" else f"{rank} of {suit}"

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card('{self.rank}{self.suit}')"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and other.id == self.id

    def __hash__(self) -> int:
        return self.id

    def __lt__(self, other: Card) -> bool:
        return self.id < other.id

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (str(self),))


_ALL: Final[list[Card]] = []
_BY_TEXT: Final[dict[str, Card]] = {}
for _suit in SUITS:
    for _rank in RANKS:
        _card = Card(_rank, _suit)
        _ALL.append(_card)
        _BY_TEXT[_rank + _suit] = _card
        _BY_TEXT[(_rank + _suit).lower()] = _card
del _suit, _rank, _card


def full_deck() -> list[Card]:
    """The 40 cards in a fixed order (suits D H C S, ranks A..K)."""
    return list(_ALL)


def parse_cards(items: object, what: str = "cards") -> list[Card]:
    """Parse a list of cards given as `Card` or strings, or a string like "7H 3C 4D"."""
    if isinstance(items, str):
        texts = items.replace(",", " ").split()
        if len(texts) == 1 and len(texts[0]) > 2:  # "7H3C4D"
            s = texts[0]
            if len(s) % 2:
                raise ValueError(f"bad {what} {items!r}: cards are two characters each")
            texts = [s[i : i + 2] for i in range(0, len(s), 2)]
        parts: list[object] = list(texts)
    elif isinstance(items, list | tuple):
        parts = list(items)
    else:
        raise ValueError(f"{what} must be a list of cards, not {type(items).__name__}")
    return [Card.parse(p) if isinstance(p, str | Card) else _bad(p, what) for p in parts]


def _bad(item: object, what: str) -> Card:
    raise ValueError(f"bad entry in {what}: {item!r} is not a card")
