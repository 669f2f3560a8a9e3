"""The fixed action vocabulary and observation tensor shared by every environment.

PettingZoo, Gymnasium and OpenSpiel all see the same 104 actions and the same
observation, so a policy trained in one runs in the others. A move of the engine
is entered as a short sequence of actions (docs/environments.md):

    play      [PLAY c] + [TAKE t for each captured t, ascending card id] + [DONE]
    declare   [DECLARE k,v] + [TAKE t for each declared card, ascending] + [DONE]
    pass      [PASS]

The legal moves form a trie of these sequences; a move is played as soon as one
legal move alone is consistent with the actions given (so most moves take one
action), and DONE is needed only where a shorter and a longer move share a prefix.
The observation is built from `deal.view(seat)` alone, never from the `Deal`, so it
cannot hold a card the seat may not see.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt

from ..cards import Card
from ..moves import BONUS_KINDS, Move
from ..rules import OPTIONS

__all__ = [
    "DECLARE",
    "DECLARE_COUNT",
    "DONE",
    "NUM_ACTIONS",
    "OBSERVATION_HIGH",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "PASS",
    "PLAY",
    "TAKE",
    "MoveBuilder",
    "Slice",
    "action_name",
    "move_actions",
    "observation",
]

NUM_ACTIONS: Final = 104
PLAY: Final = 0  # 0..39: play card c
TAKE: Final = 40  # 40..79: add card c to the move's set (captured, or declared)
DONE: Final = 80  # the set is complete
DECLARE: Final = 81  # 81..102: 81 + k * 11 + v (k: BONUS_KINDS index, v: 0 or matta value)
DECLARE_COUNT: Final = len(BONUS_KINDS) * 11
PASS: Final = 103  # "!pass" in the declaration round of declare_at_deal
assert DECLARE + DECLARE_COUNT == PASS and PASS + 1 == NUM_ACTIONS

_RANK_NAMES: Final = ("none", "A", "2", "3", "4", "5", "6", "7", "J", "Q", "K")


def action_name(action: int) -> str:
    """A readable name: "play 7H", "take 3C", "done", "declare cirulla=A", "pass"."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"an action is 0 to {NUM_ACTIONS - 1}, not {action!r}")
    if a < TAKE:
        return f"play {Card.from_id(a)}"
    if a < DONE:
        return f"take {Card.from_id(a - TAKE)}"
    if a == DONE:
        return "done"
    if a == PASS:
        return "pass"
    k, v = divmod(a - DECLARE, 11)
    return f"declare {BONUS_KINDS[k]}" + ("" if v == 0 else f"={_RANK_NAMES[v]}")


_SEQ: dict[str, tuple[int, ...]] = {}


def move_actions(move: Move) -> tuple[int, ...]:
    """The canonical action sequence of a move (ending in DONE, but for a pass)."""
    seq = _SEQ.get(move.text)
    if seq is None:
        if len(_SEQ) > 500_000:  # bounded, like the engine's own cache of moves
            _SEQ.clear()
        if move.kind == "play":
            assert move.card is not None
            head = move.card.id
            cards = move.captured
        elif move.kind == "declare":
            assert move.bonus is not None
            head = DECLARE + BONUS_KINDS.index(move.bonus) * 11 + (move.matta_value or 0)
            cards = move.cards
        else:
            seq = _SEQ[move.text] = (PASS,)
            return seq
        ids = sorted(c.id for c in cards)
        seq = _SEQ[move.text] = (head, *(TAKE + i for i in ids), DONE)
    return seq


class MoveBuilder:
    """The actions given so far for the decision at hand (the pending prefix).

    `mask` tells which actions may come next, `step` takes one and returns the move
    once it is determined. The prefix is part of the state: the same seat acts again
    until its move is complete. Call `reset` whenever the position changes.
    """

    __slots__ = ("_prefix",)

    def __init__(self, prefix: Sequence[int] = ()) -> None:
        self._prefix: tuple[int, ...] = tuple(int(a) for a in prefix)

    def copy(self) -> MoveBuilder:
        """An independent builder with the same prefix (for search and tree walks)."""
        return MoveBuilder(self._prefix)

    @property
    def prefix(self) -> tuple[int, ...]:
        return self._prefix

    def reset(self) -> None:
        self._prefix = ()

    def _candidates(self, legal_moves: Sequence[Move]) -> list[tuple[tuple[int, ...], Move]]:
        p = self._prefix
        n = len(p)
        out = []
        for m in legal_moves:
            seq = move_actions(m)
            if seq[:n] == p:
                out.append((seq, m))
        return out

    def legal_actions(self, legal_moves: Sequence[Move]) -> list[int]:
        """The actions that may come next, ascending."""
        n = len(self._prefix)
        return sorted({seq[n] for seq, _ in self._candidates(legal_moves) if len(seq) > n})

    def mask(self, legal_moves: Sequence[Move]) -> npt.NDArray[np.bool_]:
        """A boolean vector of NUM_ACTIONS: True where the action may come next."""
        out = np.zeros(NUM_ACTIONS, dtype=np.bool_)
        out[self.legal_actions(legal_moves)] = True
        return out

    def step(self, legal_moves: Sequence[Move], action: int) -> Move | None:
        """Add `action` to the prefix; the move, once only one legal move fits, else None.

        A masked-out action raises ValueError and leaves the prefix as it was. The
        builder resets itself when it returns a move.
        """
        try:
            a = operator.index(action)  # ints and numpy integers, not 2.5 or "3"
        except TypeError:
            raise ValueError(
                f"an action is an integer 0 to {NUM_ACTIONS - 1}, not {action!r}"
            ) from None
        n = len(self._prefix)
        fits = [(s, m) for s, m in self._candidates(legal_moves) if len(s) > n and s[n] == a]
        if not fits:
            allowed = ", ".join(action_name(x) for x in self.legal_actions(legal_moves))
            shown = action_name(a) if 0 <= a < NUM_ACTIONS else repr(action)
            raise ValueError(f"action {a} ({shown}) is not legal here; legal: {allowed or 'none'}")
        if len(fits) == 1:
            self._prefix = ()
            return fits[0][1]
        self._prefix = (*self._prefix, a)
        return None


# ---- observation ------------------------------------------------------------------


class Slice(NamedTuple):
    """One named part of the observation vector."""

    name: str
    offset: int
    length: int
    high: float  # the largest value it takes (its Box bound)
    meaning: str


# Boolean rule options in the observation, in this order (game="scopa" comes first).
_FLAGS: Final = tuple(
    o.name for o in OPTIONS if o.name not in ("game", "target", "hands", "stages", "wild_card")
)

_PARTS: Final[tuple[tuple[str, int, float, str], ...]] = (
    ("hand", 40, 1, "own hand (1 per card id)"),
    ("table", 40, 1, "cards on the table"),
    (
        "known_hands",
        120,
        1,
        "cards known in the hands of seats +1, +2, +3 after the observer "
        "(a hand the view shows: partner under O2, all in O1's last mano; declared cards)",
    ),
    ("declared", 160, 1, "declared cards still held by seats +0..+3 (B7, public)"),
    ("played", 160, 1, "cards played in this smazzata by seats +0..+3"),
    ("captured", 120, 1, "cards in the piles of sides +0, +1, +2 (own side first)"),
    ("unseen", 40, 1, "cards whose place the observer does not know (others' hands, deck)"),
    ("matta", 40, 1, "the matta (wild card) of these rules, if any"),
    ("matta_value", 11, 1, "value named for the matta now: index 0 none, 1..10"),
    ("scope", 3, 40, "scope made by sides +0, +1, +2 (raw count)"),
    ("bonus", 3, 200, "bonus points (accusi) of sides +0, +1, +2 (raw points)"),
    ("hand_counts", 4, 40, "cards held by seats +0..+3 (raw count)"),
    ("to_move", 4, 1, "seat to move, relative to the observer (one-hot)"),
    ("dealer", 4, 1, "dealer, relative to the observer (one-hot)"),
    ("last_capture", 3, 1, "side that captured last, relative (one-hot; zeros: none)"),
    ("players", 3, 1, "2, 3 or 4 players (one-hot)"),
    ("deck", 1, 40, "cards left to deal (raw count)"),
    ("stage", 1, 40, "index of the dealing stage (raw)"),
    ("stages_left", 1, 40, "stages still to deal (raw)"),
    ("mano", 1, 40, "index of the mano within the stage (raw)"),
    ("rules", len(_FLAGS) + 1, 1, "game is scopa, then the boolean options: " + ", ".join(_FLAGS)),
    ("prefix_play", 40, 1, "pending prefix: the card being played"),
    ("prefix_declare", DECLARE_COUNT, 1, "pending prefix: the declaration (k * 11 + v)"),
    ("prefix_take", 40, 1, "pending prefix: cards added with TAKE so far"),
)


def _layout() -> tuple[tuple[Slice, ...], int]:
    out = []
    offset = 0
    for name, length, high, meaning in _PARTS:
        out.append(Slice(name, offset, length, float(high), meaning))
        offset += length
    return tuple(out), offset


OBSERVATION_LAYOUT, OBSERVATION_SIZE = _layout()
_AT: Final = {s.name: s.offset for s in OBSERVATION_LAYOUT}
#: Upper bound of every element (the lower bound is 0), for a gymnasium Box.
OBSERVATION_HIGH: Final = np.concatenate(
    [np.full(s.length, s.high, dtype=np.float32) for s in OBSERVATION_LAYOUT]
)

_ID: Final = {str(c): c.id for c in (Card.from_id(i) for i in range(40))}


def observation(view: Mapping[str, Any], prefix: Sequence[int] = ()) -> npt.NDArray[np.float32]:
    """The observation vector (OBSERVATION_LAYOUT) of a seat's view, `deal.view(seat)`.

    `prefix` is the pending prefix of the seat's own decision; pass () for a seat that
    is not to move. Only the view is read, so no hidden card can leak in.
    """
    seat_or_none = view.get("seat")
    if seat_or_none is None:
        raise ValueError("an observation needs a seat's view (deal.view(seat)), not a spectator's")
    seat: int = seat_or_none
    n: int = view["players"]
    nsides = 2 if n == 4 else n
    side: int = view["side"]
    rel = [(s - seat) % n for s in range(n)]  # seat -> seat relative to the observer
    rel_side = [(s - side) % nsides for s in range(nsides)]
    side_of = [s % 2 if n == 4 else s for s in range(n)]
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    at = _AT
    ids = _ID
    ones: list[int] = []  # indices set to 1, written at once (numpy item writes are slow)
    seen: set[int] = set()

    hand = at["hand"]
    for c in view["hand"]:
        ones.append(hand + ids[c])
        seen.add(ids[c])
    table = at["table"]
    for t in view["table"]:
        ones.append(table + ids[t["card"]])
        seen.add(ids[t["card"]])
    counts, declared, known = at["hand_counts"], at["declared"], at["known_hands"] - 40
    for s, entry in enumerate(view["hands"]):
        r = rel[s]
        obs[counts + r] = entry["count"]
        for c in entry["declared"]:
            i = ids[c]
            ones.append(declared + 40 * r + i)
            seen.add(i)
            if r:
                ones.append(known + 40 * r + i)
        if r and "cards" in entry:
            for c in entry["cards"]:
                ones.append(known + 40 * r + ids[c])
                seen.add(ids[c])
    played, captured = at["played"], at["captured"]
    for event in view["history"]:
        kind = event["type"]
        if kind == "play":
            i = ids[event["card"]]
            who = event["seat"]
            ones.append(played + 40 * rel[who] + i)
            seen.add(i)
            if event["captured"]:
                base = captured + 40 * rel_side[side_of[who]]
                ones.append(base + i)
                for c in event["captured"]:
                    ones.append(base + ids[c])
                    seen.add(ids[c])
        elif kind == "dealer_bonus" or kind == "last_cards":
            base = captured + 40 * rel_side[event["side"]]
            for c in event["cards"]:
                ones.append(base + ids[c])
                seen.add(ids[c])
        elif kind == "deal":  # hands the observer was shown when dealt (own; O2 partner's)
            for dealt in event["hands"]:
                for c in dealt or ():
                    seen.add(ids[c])
            for c in event.get("table", ()):
                seen.add(ids[c])
    unseen = at["unseen"]
    ones.extend(unseen + i for i in range(40) if i not in seen)
    rules = view["rules"]
    wild = rules.get("wild_card")
    if wild is not None and rules.get("game") != "scopa":
        ones.append(at["matta"] + ids[wild])
    matta = view.get("matta")
    value = matta.get("value") if matta else None
    ones.append(at["matta_value"] + (value or 0))
    for i, pile in enumerate(view["piles"]):
        obs[at["scope"] + rel_side[i]] = pile["scope"]
        obs[at["bonus"] + rel_side[i]] = pile["bonus"]
    if view["to_move"] is not None:
        ones.append(at["to_move"] + rel[view["to_move"]])
    ones.append(at["dealer"] + rel[view["dealer"]])
    if view["last_capture"] is not None:
        ones.append(at["last_capture"] + rel_side[view["last_capture"]])
    ones.append(at["players"] + n - 2)
    obs[at["deck"]] = view["deck"]
    obs[at["stage"]] = view["stage"]
    obs[at["stages_left"]] = len(view["stages"]) - 1 - view["stage"]
    obs[at["mano"]] = view["mano"]
    base = at["rules"]
    if rules.get("game") == "scopa":
        ones.append(base)
    ones.extend(base + k for k, name in enumerate(_FLAGS, start=1) if rules.get(name))
    if prefix:
        head = prefix[0]
        if head < TAKE:
            ones.append(at["prefix_play"] + head)
        elif DECLARE <= head < PASS:
            ones.append(at["prefix_declare"] + head - DECLARE)
        ones.extend(at["prefix_take"] + a - TAKE for a in prefix[1:] if TAKE <= a < DONE)
    obs[ones] = 1
    return obs
