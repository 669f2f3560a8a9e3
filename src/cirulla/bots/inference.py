"""What the play revealed about hidden hands: an opponent model for determinizations.

A uniform draw of the hidden cards ignores how the others played. Under P5/P6 a
player who laid a card on the table while holding one that could capture did
something unusual, and a player who did not sweep when a card in hand could have
made a scopa (P7) very likely could not. `PlayEvidence` replays the public moves
of the stage being played once per decision and notes, for every card that may
sit in a hidden hand, which of those past plays it would have made surprising;
`weight` then scores a determinization by the product of the surprises it implies,
and search bots keep a sample with that probability (rejection sampling), as
Cowling et al.'s ISMCTS and Di Palma and Lanzi's Scopone study weight or filter
determinizations by an opponent model.

Only public facts are used: the moves in the seat's view and the determinization's
public state; the hidden cards of the determinization only enter `weight`.
"""

from __future__ import annotations

from typing import Final

from ..cards import Card, full_deck
from ..deal import Deal
from ..moves import Move

__all__ = ["MISSED_CAPTURE", "MISSED_SCOPA", "PlayEvidence"]

#: How likely a player lays a card down while another of its cards could capture.
MISSED_CAPTURE: Final = 0.4
#: How likely a player makes no scopa while one of its cards could (P7).
MISSED_SCOPA: Final = 0.1


class PlayEvidence:
    """The plays of hidden seats in the current stage, and what each unseen card
    would have allowed at each of them. Built from a determinization (only its
    public part is read: the moves, the tables, who played what) of the view of a
    seat that cannot see `hidden_seats`."""

    __slots__ = ("_factors",)

    def __init__(self, base: Deal, hidden_seats: list[int]) -> None:
        # Per hidden seat: per past play of that seat in this stage, the unseen cards
        # that would have made it surprising, and the factor the surprise costs.
        self._factors: dict[int, list[tuple[frozenset[Card], float]]] = {}
        if not hidden_seats:
            return
        replay = Deal(base.rules, base.players, base.dealer, deck=list(base.initial_deck))
        stage = base.stage
        for move in base.moves:
            mover = replay.to_move
            if (
                move.kind == "play"
                and mover in hidden_seats
                and replay.stage == stage
                and replay.players == base.players
            ):
                self._note(replay, mover, move)
            replay.play(move)

    def _note(self, replay: Deal, mover: int, move: Move) -> None:
        table = replay.table
        if not table:
            return
        captured = len(move.captured)
        swept = captured > 0 and captured == len(table)
        in_hands = sum(len(replay.hand(s)) for s in range(replay.players))
        last = replay.deck_left == 0 and in_hands == 1  # no scopa on the last play (P7)
        capture_cards: set[Card] = set()
        scopa_cards: set[Card] = set()
        # Every card is looked at: `weight` only ever meets the hidden ones.
        for card in full_deck():
            for option in replay._plays_of([card]):
                if option.captured:
                    capture_cards.add(card)
                    if not last and len(option.captured) == len(table):
                        scopa_cards.add(card)
        notes = self._factors.setdefault(mover, [])
        if not swept and scopa_cards:
            notes.append((frozenset(scopa_cards), MISSED_SCOPA))
        if not captured and capture_cards - scopa_cards:
            notes.append((frozenset(capture_cards - scopa_cards), MISSED_CAPTURE))

    def weight(self, deal: Deal) -> float:
        """How plausible `deal`'s hidden hands are, 0 < w <= 1 (1: nothing surprising)."""
        w = 1.0
        for mover, notes in self._factors.items():
            declared = deal._pending[mover]  # public: the same in every sample
            hand = [c for c in deal._hands[mover] if c not in declared]
            for cards, factor in notes:
                for card in hand:
                    if card in cards:
                        w *= factor
                        break
        return w

    @property
    def informative(self) -> bool:
        """Is there anything to weigh (else every sample weighs 1)?"""
        return any(cards for notes in self._factors.values() for cards, _ in notes)
