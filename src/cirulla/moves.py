"""Moves and their notation (API.md "Move notation").

    "5C"                  play the 5 of clubs, capturing nothing
    "5Cx7H3C"             play the 5 of clubs, capturing the 7 of hearts and the 3 of clubs
    "!cirulla:7H3C4D=A"   declare a hand bonus; "=X" names the matta's value
    "!decino:QSQD7H=Q"
    "!pass"               decline to declare (only in the declaration round of declare_at_deal)

Moves are interned: the engine hands out the same `Move` object for the same
play, so checking a move against the legal list is an identity test.
"""

from typing import Any, Final, NamedTuple

from .cards import RANKS, Card

__all__ = ["BONUS_KINDS", "IllegalMove", "Move", "parse_move"]

BONUS_KINDS: Final = ("cirulla", "decino")


class IllegalMove(ValueError):
    """A move the rules do not allow here; the state is unchanged."""


def _id(card: Card) -> int:
    return card.id


def _mask(cards: tuple[Card, ...]) -> int:
    m = 0
    for c in cards:
        m |= c.bit
    return m


class Move(NamedTuple):
    """A play (card and captured cards), a declaration, or a pass.

    Compare moves with `==`; `str(move)` is the notation. Build them with
    `parse_move`, or take them from `Deal.legal_moves()`.
    """

    key: Any  # identifies the move within its kind
    kind: str  # "play", "declare" or "pass"
    card: Card | None  # the card played
    captured: tuple[Card, ...]  # the table cards it takes
    bonus: str | None  # "cirulla" or "decino" for declarations
    cards: tuple[Card, ...]  # the declared cards
    matta_value: int | None  # the value named for the matta (1..10)
    text: str  # the notation

    @classmethod
    def play(cls, card: Card, captured: tuple[Card, ...] = ()) -> "Move":
        key = card.id | (_mask(captured) << 6)
        move = _PLAYS.get(key)
        if move is None:
            if len(_PLAYS) > 500_000:  # bounded: distinct captures are many
                _PLAYS.clear()
            captured = tuple(sorted(captured, key=_id))
            text = str(card) + ("x" + "".join(str(c) for c in captured) if captured else "")
            move = cls(key, "play", card, captured, None, (), None, text)
            _PLAYS[key] = move
        return move

    @classmethod
    def declare(cls, bonus: str, cards: tuple[Card, ...], matta_value: int | None) -> "Move":
        key = (bonus, _mask(cards), matta_value)
        move = _DECLS.get(key)
        if move is None:
            cards = tuple(sorted(cards, key=_id))
            text = f"!{bonus}:" + "".join(str(c) for c in cards)
            if matta_value is not None:
                text += "=" + RANKS[matta_value - 1]
            move = cls(key, "declare", None, (), bonus, cards, matta_value, text)
            _DECLS[key] = move
        return move

    @classmethod
    def pass_(cls) -> "Move":
        return _PASS

    @property
    def is_play(self) -> bool:
        return self.kind == "play"

    @property
    def is_declaration(self) -> bool:
        return self.kind == "declare"

    @property
    def is_pass(self) -> bool:
        return self.kind == "pass"

    @property
    def captures(self) -> bool:
        return bool(self.captured)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Move('{self.text}')"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (parse_move, (self.text,))


_PLAYS: dict[int, Move] = {}
_DECLS: dict[tuple[str, int, int | None], Move] = {}
_PASS: Final = Move(None, "pass", None, (), None, (), None, "!pass")


def _cards(text: str, whole: str) -> tuple[Card, ...]:
    if len(text) % 2 or not text:
        raise IllegalMove(f"bad move {whole!r}: cards are written as two characters each, e.g. 7H")
    try:
        cards = tuple(Card.parse(text[i : i + 2]) for i in range(0, len(text), 2))
    except ValueError as exc:
        raise IllegalMove(f"bad move {whole!r}: {exc}") from None
    if len(set(cards)) != len(cards):
        raise IllegalMove(f"bad move {whole!r}: a card is named twice")
    return cards


def parse_move(text: str) -> "Move":
    """Parse the notation into a `Move` (legal or not: `Deal.play` decides that)."""
    if not isinstance(text, str):
        raise IllegalMove(f"a move is a Move or a string like '5Cx7H3C', not {type(text).__name__}")
    t = text.strip()
    if t.lower() == "!pass":
        return _PASS
    if t.startswith("!"):
        head, sep, body = t[1:].partition(":")
        bonus = head.lower()
        if not sep or bonus not in BONUS_KINDS:
            raise IllegalMove(
                f"bad declaration {text!r}: write '!cirulla:7H3C4D=A' or '!decino:QSQD7H=Q'"
            )
        value: int | None = None
        cards_text, eq, value_text = body.partition("=")
        if eq:
            v = value_text.strip().upper()
            if v not in RANKS:
                raise IllegalMove(
                    f"bad declaration {text!r}: the matta's value is a rank letter (A 2-7 J Q K)"
                )
            value = RANKS.index(v) + 1
        cards = _cards(cards_text.strip(), text)
        if len(cards) != 3:
            raise IllegalMove(f"bad declaration {text!r}: a bonus is three cards")
        return Move.declare(bonus, cards, value)
    card_text, x, captured_text = t.partition("x") if "x" in t else t.partition("X")
    card = _cards(card_text, text)
    if len(card) != 1:
        raise IllegalMove(f"bad move {text!r}: play one card, e.g. '5C' or '5Cx7H3C'")
    captured = _cards(captured_text, text) if x else ()
    if card[0] in captured:
        raise IllegalMove(f"bad move {text!r}: a card cannot capture itself")
    return Move.play(card[0], captured)
