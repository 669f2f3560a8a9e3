"""The score keeper's pure half: pile notation and where a partita stands.

A partita played with real cards is kept by entering each side's captured cards,
scope and accusi after every smazzata; `score_piles` makes each sheet and `standing`
says who leads and when the partita is over (E1, E2, E4, S8). Apart from the command
(score_cli.py) because the web score keeper (gateway/scorekeeper.py) answers with the
same functions, and so with exactly the same sheet.

Pile notation (docs/score-keeper.md): cards as "7D" (rank A 2-7 J Q K, suit
D H C S, any case); "D" a whole suit; "7" the four sevens; "A-5D" a run in a
suit; "-7D" takes a card out again; "rest" (or "*") every card no other pile
holds. Tokens may be separated by spaces or commas.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from .cards import RANKS, SUITS, Card, full_deck
from .rules import Rules
from .scoring import Score, score_piles

__all__ = [
    "MAX_SMAZZATE",
    "Smazzata",
    "Standing",
    "complete_rest",
    "instant_winner",
    "keeper_rules",
    "parse_count",
    "parse_pile",
    "parse_smazzata",
    "side_label",
    "sides_for",
    "smazzata_from_json",
    "standing",
]

#: The whole deck in the grid's order (C1): piles are shown and completed in it.
DECK: Final = tuple(full_deck())
#: Smazzate a kept partita may have: far more than any partita needs.
MAX_SMAZZATE: Final = 200
_REST: Final = ("rest", "*", "resto")


# ---- rules and sides -------------------------------------------------------------------


def keeper_rules(preset: str, options: dict[str, Any] | None, players: int) -> Rules:
    """The house rules of a kept partita; ValueError for what cannot be kept."""
    rules = Rules.preset(preset)
    if options:
        if not isinstance(options, dict):
            raise ValueError("options must be an object of rules options")
        try:
            rules = rules.replace(**options)
        except TypeError as exc:  # a value of the wrong kind deep in the options
            raise ValueError(f"bad rules options: {exc}") from None
    rules.check_players(players)
    if rules.knockout:
        raise ValueError(
            "the score keeper does not keep knockout spareggi (E3): the last capture of the"
            " third one decides, and it is not entered"
        )
    return rules


def sides_for(players: int) -> int:
    """Sides of a partita: 4 players are 2 pairs."""
    return 3 if players == 3 else 2


def side_label(side: int) -> str:
    return "ABC"[side]


# ---- partita standing ------------------------------------------------------------------


@dataclass(frozen=True)
class Standing:
    """The partita after some smazzate: totals per side and, once over, the winner."""

    totals: list[int]
    over: bool
    winner: int | None
    reason: str | None  # "target", "hands" or "cappotto"
    smazzate: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "totals": list(self.totals),
            "over": self.over,
            "winner": self.winner,
            "reason": self.reason,
            "smazzate": self.smazzate,
        }


def instant_winner(rules: Rules, score: Score) -> int | None:
    """The side whose cappotto wins the partita at once (S8), if any."""
    if rules.is_scopa or rules.cappotto_scores_only:
        return None
    return score.cappotto


def standing(
    rules: Rules, points: Sequence[Sequence[int]], instant: Sequence[int | None] | None = None
) -> Standing:
    """The partita after smazzate that scored `points` (per side), `instant[k]` the
    cappotto winner of smazzata k. Like Game: E1 target, E2 fixed smazzate, E4 a tie at
    the top plays on, S8 cappotto. A smazzata after the end is a ValueError."""
    sides = len(points[0]) if points else 0
    totals = [0] * sides
    instant = list(instant) if instant is not None else [None] * len(points)
    over: Standing | None = None
    for number, row in enumerate(points, start=1):
        if over is not None:
            raise ValueError(f"the partita was already over after smazzata {over.smazzate}")
        if len(row) != sides:
            raise ValueError(f"smazzata {number} gives {len(row)} sides' points, not {sides}")
        totals = [t + p for t, p in zip(totals, row, strict=True)]
        won = instant[number - 1]
        if won is not None:
            over = Standing(list(totals), True, won, "cappotto", number)
            continue
        if rules.hands is not None:
            decided = number >= rules.hands
        else:
            decided = max(totals) >= (rules.target or 0)
        top = max(totals)
        leaders = [s for s in range(sides) if totals[s] == top]
        if decided and len(leaders) == 1:
            over = Standing(
                list(totals), True, leaders[0], "hands" if rules.hands else "target", number
            )
    return over or Standing(totals, False, None, None, len(points))


# ---- pile notation ---------------------------------------------------------------------


def _token_cards(token: str) -> list[Card]:
    t = token.upper()
    if t in SUITS:
        return [c for c in DECK if c.suit == t]
    if t in RANKS:
        return [c for c in DECK if c.rank == t]
    if len(t) == 4 and t[1] == "-" and t[3] in SUITS and t[0] in RANKS and t[2] in RANKS:
        lo, hi = RANKS.index(t[0]), RANKS.index(t[2])
        if lo > hi:
            raise ValueError(f"bad run {token!r}: from the lower rank up (A 2 ... 7 J Q K)")
        return [Card.parse(r + t[3]) for r in RANKS[lo : hi + 1]]
    try:
        return [Card.parse(t)]
    except ValueError:
        raise ValueError(
            f"bad card {token!r}: write 7D, a suit (D), a rank (7), a run (A-5D), -7D or rest"
        ) from None


def parse_pile(text: str) -> tuple[list[Card], bool]:
    """(cards, takes the rest) of a pile in the notation above."""
    cards: list[Card] = []
    rest = False
    for token in text.replace(",", " ").split():
        if token.lower() in _REST:
            rest = True
        elif token.startswith("-") and len(token) > 1:
            for card in _token_cards(token[1:]):
                if card not in cards:
                    raise ValueError(f"cannot take {card} out of a pile that does not hold it")
                cards.remove(card)
        else:
            # "D 7": shorthands may overlap; a card is in the pile once all the same
            cards.extend(c for c in _token_cards(token) if c not in cards)
    return cards, rest


def complete_rest(piles: list[list[Card]], rest: list[bool]) -> list[list[Card]]:
    """Give the pile marked "rest" every card no other pile holds."""
    takers = [i for i, r in enumerate(rest) if r]
    if len(takers) > 1:
        raise ValueError("only one pile can take the rest")
    if takers:
        held = {c for p in piles for c in p}
        piles[takers[0]] = piles[takers[0]] + [c for c in DECK if c not in held]
    return piles


@dataclass
class Smazzata:
    """One smazzata as entered: piles, scope and accusi (bonus) per side."""

    piles: list[list[Card]]
    scope: list[int]
    bonus: list[int]

    def score(self, rules: Rules) -> Score:
        return score_piles(rules, self.piles, scope=self.scope, bonus=self.bonus)


def parse_count(text: str, what: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"{what} must be a whole number, not {text!r}") from None
    if n < 0:
        raise ValueError(f"{what} must not be negative, not {n}")
    return n


def parse_smazzata(text: str, names: Sequence[str]) -> Smazzata:
    """ "A: D 7 s=2 a=3 | B: rest s=1": per side (in order, or by label / name) its
    cards, `s=` (scope) and `a=` (accusi); the side written last, left without cards,
    takes the rest."""
    n = len(names)
    parts = [p.strip() for p in text.split("|")]
    if len(parts) != n:
        raise ValueError(f"a smazzata needs {n} sides separated by '|', not {len(parts)}")
    by_side: dict[int, str] = {}
    for position, part in enumerate(parts):
        side = position
        head, sep, body = part.partition(":")
        if sep:
            side = _side_of(head.strip(), names)
            part = body
        if side in by_side:
            raise ValueError(f"side {names[side]} is given twice")
        by_side[side] = part
    last = list(by_side)[-1]
    piles: list[list[Card]] = []
    rest: list[bool] = []
    scope = [0] * n
    bonus = [0] * n
    for side in range(n):
        words = []
        for token in by_side[side].replace(",", " ").split():
            key, eq, value = token.partition("=")
            if eq and key.lower() in ("s", "scope"):
                scope[side] = parse_count(value, "scope")
            elif eq and key.lower() in ("a", "accusi", "bonus"):
                bonus[side] = parse_count(value, "accusi")
            else:
                words.append(token)
        cards, takes_rest = parse_pile(" ".join(words))
        if side == last and not cards and not takes_rest:
            takes_rest = True  # the side written last: the cards the others did not take
        piles.append(cards)
        rest.append(takes_rest)
    return Smazzata(complete_rest(piles, rest), scope, bonus)


def _side_of(label: str, names: Sequence[str]) -> int:
    for i, name in enumerate(names):
        if label.lower() in (name.lower(), side_label(i).lower()):
            return i
    raise ValueError(f"unknown side {label!r} (sides: {', '.join(names)})")


def smazzata_from_json(data: object, n: int) -> Smazzata:
    """{"piles": [[...] or "notation", ...], "scope": [...], "bonus": [...]}."""
    if not isinstance(data, dict):
        raise ValueError("each smazzata must be an object with piles, scope and bonus")
    raw = data.get("piles")
    if not isinstance(raw, list) or len(raw) != n:
        raise ValueError(f"piles must be a list of {n} piles")
    piles: list[list[Card]] = []
    rest: list[bool] = []
    for pile in raw:
        cards, takes = parse_pile(pile if isinstance(pile, str) else " ".join(map(str, pile)))
        piles.append(cards)
        rest.append(takes)
    scope = data.get("scope", [0] * n)
    bonus = data.get("bonus", [0] * n)
    return Smazzata(complete_rest(piles, rest), scope, bonus)
