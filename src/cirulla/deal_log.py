"""A smazzata's log: each event kept as a tuple, made a JSON-ready dict only when read.

`Deal.play` is the bots' hot path (their search plays millions of moves), so it
appends a tuple and never builds a dict nobody reads; this module says what each
tuple holds and how it reads as an event. The kinds are `Final` ints, so the compiled
deal.py (setup.py) inlines them: its hot path never looks them up here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from .moves import Move

if TYPE_CHECKING:
    from .deal import Deal

__all__ = [
    "EV_DEAL",
    "EV_DECLARE",
    "EV_END",
    "EV_OTHER",
    "EV_PASS",
    "EV_PLAY",
    "event_dict",
    "logged_moves",
]

EV_PLAY: Final = 0  # (EV_PLAY, seat, move, scopa)
EV_DEAL: Final = 1  # (EV_DEAL, stage, dealer, hands, table or None after stage 0, deck left)
EV_END: Final = 2  # (EV_END,): the score sheet is read from the deal when asked
EV_DECLARE: Final = 3  # (EV_DECLARE, record, move)
EV_PASS: Final = 4  # (EV_PASS, seat)
EV_OTHER: Final = 5  # (EV_OTHER, event): misdeals, the dealer's bonus, last cards, instant wins
_PASS: Final = Move.pass_()


def event_dict(entry: tuple[Any, ...], deal: Deal) -> dict[str, Any]:
    """The event `entry` records, as the log's readers see it (hidden cards included)."""
    kind = entry[0]
    if kind == EV_PLAY:
        _, seat, move, scopa = entry
        return {
            "type": "play",
            "seat": seat,
            "move": str(move),
            "card": str(move.card),
            "captured": [str(c) for c in move.captured],
            "scopa": scopa,
        }
    if kind == EV_DEAL:
        _, stage, dealer, hands, table, deck = entry
        event: dict[str, Any] = {
            "type": "deal",
            "stage": stage,
            "dealer": dealer,
            "hands": [[str(c) for c in h] for h in hands],
            "deck": deck,
        }
        if table is not None:
            event["table"] = [str(c) for c in table]
        return event
    if kind == EV_END:
        return {
            "type": "end",
            "score": deal.score().to_dict(),
            "instant_winner": deal.instant_winner,
            "instant_reason": deal.instant_reason,
        }
    if kind == EV_PASS:
        return {"type": "pass", "seat": entry[1]}
    return dict(entry[1])


def logged_moves(log: Sequence[tuple[Any, ...]]) -> list[Move]:
    """The moves a log holds, in order: with the deck and the seed, a replay."""
    out = []
    for e in log:
        if e[0] == EV_PLAY or e[0] == EV_DECLARE:
            out.append(e[2])
        elif e[0] == EV_PASS:
            out.append(_PASS)
    return out
