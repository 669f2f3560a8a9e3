"""Why a move is illegal, in words a player understands (only on the error path).

The message goes back to whoever sent the move, who may not be the seat to
move: it never names a card of a hand that is not public (declared cards are).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .bonuses import hand_bonus_options
from .moves import Move

if TYPE_CHECKING:
    from .deal import Deal

__all__ = ["why_illegal"]


def _cards(cards: Sequence[object]) -> str:
    return " ".join(str(c) for c in cards)


def why_illegal(deal: Deal, move: Move, legal: list[Move]) -> str:
    seat = deal.to_move
    who = f"seat {seat}"
    hand = deal._hands[seat] if seat is not None else []
    if move.kind == "pass":
        return f"{move}: passing is only for the declaration round right after the deal"
    if move.kind == "declare":
        declarations = [m for m in legal if m.kind == "declare"]
        missing = [c for c in move.cards if c not in hand]
        if missing:
            return f"{move}: {who} (to move) does not hold {_cards(missing)}"
        if not hand_bonus_options(list(move.cards), deal.rules):
            return f"{move}: these three cards make no bonus (B2, B3)"
        if not declarations:
            return (
                f"{move}: {who} may not declare now (a bonus is declared at the first turn"
                " of the stage, before playing, once)"
            )
        same_cards = [m for m in declarations if set(m.cards) == set(move.cards)]
        if not same_cards:
            return f"{move}: these three cards make no bonus here; possible: {_cards(declarations)}"
        return f"{move}: not a valid declaration of these cards; possible: {_cards(same_cards)}"
    card = move.card
    assert card is not None
    plays = [m for m in legal if m.kind == "play"]
    if not plays:
        return f"{move}: {who} must declare or pass first ({_cards(legal)})"
    if card not in hand:
        return f"{move}: {card} is not in the hand of {who}, the seat to move"
    if not any(m.card is card for m in plays):
        pending = deal._pending[seat] if seat is not None else []
        return f"{move}: the declared cards {_cards(pending)} must be played first"
    off_table = [c for c in move.captured if c not in deal._table]
    if off_table:
        return f"{move}: {_cards(off_table)} not on the table ({_cards(deal._table) or 'empty'})"
    options = [m for m in plays if m.card is card]
    if not move.captured:
        return f"{move}: {card} can capture, so it must (P6); its captures: {_cards(options)}"
    return f"{move}: {card} cannot take {_cards(move.captured)}; its legal plays: {_cards(options)}"
