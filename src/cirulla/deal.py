"""One smazzata: from the shuffle to the score sheet (RULES.md sections 2-5, 11, 12).

The state is plain lists of interned cards and ints so that `legal_moves` and
`play` stay cheap: the bots' search calls them millions of times.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

from .bonuses import BonusOption, dealer_bonus, hand_bonus_options
from .captures import _by_value, captures_by_value
from .cards import Card, full_deck, parse_cards
from .deal_log import EV_DEAL as _EV_DEAL
from .deal_log import EV_DECLARE as _EV_DECLARE
from .deal_log import EV_END as _EV_END
from .deal_log import EV_OTHER as _EV_OTHER
from .deal_log import EV_PASS as _EV_PASS
from .deal_log import EV_PLAY as _EV_PLAY
from .deal_log import event_dict, logged_moves
from .misdeal import luzzati_win, misdeal_reason
from .moves import _PLAYS, IllegalMove, Move, parse_move
from .rules import Rules
from .scoring import Score, score_cards
from .shuffle import SeededStream

__all__ = ["Deal"]

_PLAY: Final = 0
_DECLARE: Final = 1  # the declaration round of declare_at_deal
_OVER: Final = 2
_HALTED: Final = 3  # stopped before its end: the partita ended by timeout or abandon (E6)
_PASS: Final = Move.pass_()
_BARE: Final = tuple(Move.play(c) for c in full_deck())  # by card id: plays that take nothing


@mypyc_attr(native_class=False)  # copy() copies __dict__; see setup.py
class Deal:
    """One smazzata. Build it from a seed or a stacked deck, then `play` legal moves.

    `deck` is dealt in canonical order from the front: each stage one card at a
    time to each seat in play order from the seat after the dealer; in the
    first stage the 4 table cards come next. After a misdeal the cards are
    reshuffled from `seed`.
    """

    # Parameters checked at run time are typed `object`: compiled (setup.py), a wrong
    # type must still get the same clear ValueError, not mypyc's TypeError.
    def __init__(
        self,
        rules: Rules | object,
        players: int | object = 4,
        dealer: int | object = 0,
        deck: Sequence[Card | str] | object | None = None,
        seed: int | object = 0,
    ) -> None:
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a cirulla.Rules, not {type(rules).__name__}")
        n = rules.check_players(players)
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat from 0 to {n - 1}, not {dealer!r}")
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, not {seed!r}")
        self._stream = SeededStream(seed)
        if deck is None:
            cards = full_deck()
            self._stream.shuffle(cards)
        else:
            if isinstance(deck, str) or not isinstance(deck, Sequence):
                raise ValueError("deck must be a list of the 40 cards")
            cards = parse_cards(list(deck), "deck")
            if len(cards) != 40 or len(set(cards)) != 40:
                raise ValueError("a stacked deck must hold each of the 40 cards exactly once")
        self.rules: Final = rules
        self.players: Final = n
        self.dealer: Final = dealer
        self.seed: Final = seed
        self.stacked: Final = deck is not None
        self.initial_deck: Final = tuple(cards)
        self._first = (dealer + 1) % n
        self._next_seat = tuple((s + 1) % n for s in range(n))
        self._side = (0, 1, 0, 1) if n == 4 else tuple(range(n))
        self._nsides = 2 if n == 4 else n
        self._sizes = rules.stage_sizes(n)
        self._last_stage = len(self._sizes) - 1
        self._stage_len = n * self._sizes[0]
        self._in_last_stage = self._last_stage == 0
        self._big = max(self._sizes) > 3  # CR3: several bonus sets in one hand
        self._matta = rules.matta()
        self._scopa = rules.is_scopa
        self._ace_choice = rules.ace_choice
        self._caps = _by_value.setdefault((self._scopa, self._ace_choice), {})
        self._may_decline = rules.may_decline_capture
        self._keeps_value = rules.matta_keeps_value
        self._declared_first = rules.declared_first
        self._all_at_once = rules.declare_all_at_once
        self._at_deal = rules.declare_at_deal and not rules.is_scopa
        self._hands: list[list[Card]] = [[] for _ in range(n)]
        self._table: list[Card] = []
        self._tkey: tuple[int, ...] = ()  # the table's capture values, the captures' cache key
        self._piles: list[list[Card]] = [[] for _ in range(self._nsides)]
        self._scope = [0] * self._nsides
        self._bonus = [0] * self._nsides
        self._last_capture: int | None = None
        self._log: list[tuple[Any, ...]] = []
        self._deck: list[Card] = []
        self._stage = 0
        self._stage_plays = 0
        #: The seat to move, None when over (read-only; a plain attribute for speed).
        self.to_move: int | None = None
        #: True once the smazzata is over (read-only; a plain attribute for speed).
        self.is_over = False
        self._phase = _PLAY
        self._round = 0
        self._matta_value: int | None = None
        self._matta_expiry: int | None = None
        self._pending: list[list[Card]] = [[] for _ in range(n)]
        # Per seat: its turn needs the slow path (it may declare, or holds declared cards).
        self._special = [False] * n
        self._declared_turn = False
        self._declarations: list[dict[str, Any]] = []
        self._misdeals = 0
        self._instant_winner: int | None = None
        self._instant_reason: str | None = None
        self._score: Score | None = None
        self._legal: list[Move] | None = None
        self._decl_opts: dict[Move, BonusOption] = {}
        self._halted: str | None = None
        self._start(cards)

    # ---- public state -------------------------------------------------------------
    @property
    def table(self) -> list[Card]:
        return list(self._table)

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every event of the smazzata, JSON-ready, in order (hidden cards included:
        use `view(seat)` or `events_for(seat)` to show them to someone)."""
        return [event_dict(e, self) for e in self._log]

    @property
    def event_count(self) -> int:
        """How many events the smazzata has had: `events_from(n)` gives those after."""
        return len(self._log)

    def events_from(self, start: int) -> list[dict[str, Any]]:
        """The events from index `start` on (what one move or deal added)."""
        return [event_dict(e, self) for e in self._log[start:]]

    def events_for(self, seat: int | object | None) -> list[dict[str, Any]]:
        """The events as `seat` may see them (`None`: a spectator)."""
        from .views import filter_event

        viewer = None if seat is None else self._check_seat(seat)
        return [filter_event(event_dict(e, self), self, viewer) for e in self._log]

    @property
    def moves(self) -> list[Move]:
        """Every move played so far, in order (with `initial_deck` and `seed`, a replay)."""
        return logged_moves(self._log)

    @property
    def stage(self) -> int:
        return self._stage

    @property
    def stages(self) -> tuple[int, ...]:
        return self._sizes

    @property
    def mano(self) -> int:
        """The round within the stage (every player plays one card per mano)."""
        return self._stage_plays // self.players

    @property
    def deck_left(self) -> int:
        return len(self._deck)

    @property
    def misdeals(self) -> int:
        return self._misdeals

    @property
    def last_capture(self) -> int | None:
        """The side that made the last capture (P8, E3), or None."""
        return self._last_capture

    @property
    def instant_winner(self) -> int | None:
        """The side that wins the partita at once (cappotto, Luzzati deal), or None."""
        return self._instant_winner

    @property
    def instant_reason(self) -> str | None:
        return self._instant_reason

    @property
    def halted(self) -> str | None:
        """Why the smazzata stopped before its end ("timeout" or "abandon", E6), or None."""
        return self._halted

    def halt(self, reason: str | object) -> None:
        """Stop the smazzata where it stands: its partita is over (E6, `Game.forfeit`).

        Nobody is to move any more and every move is refused, so a forfeited partita
        cannot go on through its deal. `is_over` stays False: the smazzata never reached
        its end and has no score sheet (E6 settles its points). A smazzata already over
        stays as it is.
        """
        if not isinstance(reason, str) or not reason:
            raise ValueError(f"reason must be a non-empty string, not {reason!r}")
        if self._phase == _OVER or self._phase == _HALTED:
            return
        self._phase = _HALTED
        self._halted = reason
        self.to_move = None
        self._legal = []

    @property
    def matta_value(self) -> int | None:
        """The matta's declared capture value while it holds one (B5, B6)."""
        return self._matta_value

    @property
    def sides(self) -> int:
        return self._nsides

    def side_of(self, seat: int | object) -> int:
        return self._side[self._check_seat(seat)]

    def hand(self, seat: int | object) -> list[Card]:
        return list(self._hands[self._check_seat(seat)])

    def declared(self, seat: int | object) -> list[Card]:
        """Declared cards still in that seat's hand (shown to all, B7)."""
        return list(self._pending[self._check_seat(seat)])

    def captured(self, side: int | object) -> list[Card]:
        if not isinstance(side, int) or isinstance(side, bool) or not 0 <= side < self._nsides:
            raise ValueError(f"side must be 0 to {self._nsides - 1}, not {side!r}")
        return list(self._piles[side])

    def scope(self) -> list[int]:
        return list(self._scope)

    def bonus(self) -> list[int]:
        return list(self._bonus)

    def value_of(self, card: Card) -> int:
        """The card's capture value now (the matta's declared value while it holds)."""
        if card is self._matta and self._matta_value is not None:
            return self._matta_value
        return card.value

    def score(self) -> Score:
        """The score sheet (S9), once the smazzata is over."""
        if self._phase != _OVER:
            if self._phase == _HALTED:
                raise ValueError(
                    f"the smazzata stopped before its end ({self._halted}): it has no score"
                    " sheet; the partita's forfeit settles its points (E6)"
                )
            raise ValueError("the smazzata is not over: no score sheet yet")
        if self._score is None:
            self._score = score_cards(self.rules, self._piles, self._scope, self._bonus)
        return self._score

    def view(self, seat: int | object | None) -> dict[str, Any]:
        """Everything `seat` may know and nothing else; `None` for a spectator."""
        from .views import deal_view

        return deal_view(self, None if seat is None else self._check_seat(seat))

    def _check_seat(self, seat: object) -> int:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
            raise ValueError(f"seat must be 0 to {self.players - 1}, not {seat!r}")
        return seat

    # ---- dealing ------------------------------------------------------------------
    def _deal_stage(self, deck: list[Card], stage: int) -> int:
        """Deal one stage from the front of `deck`, one card at a time to each seat in
        play order; return how many cards it took."""
        n = self.players
        size = self._sizes[stage]
        hands = self._hands
        for k in range(n):  # the k-th seat in play order gets cards k, k + n, k + 2n, ...
            hands[(self._first + k) % n].extend(deck[k : n * size : n])
        return n * size

    def _start(self, deck: list[Card]) -> None:
        rules = self.rules
        while True:
            self._hands = [[] for _ in range(self.players)]
            pos = self._deal_stage(deck, 0)
            table = deck[pos : pos + 4]
            pos += 4
            win = luzzati_win(table, rules, self._matta)
            if win:
                self._table = table
                self._deck = deck[pos:]  # every card stays accounted for
                self._finish_instant(self._side[self.dealer], win)
                return
            reason = misdeal_reason(table, rules)
            if reason is None:
                break
            self._misdeals += 1
            self._log.append(
                (
                    _EV_OTHER,
                    {
                        "type": "misdeal",
                        "dealer": self.dealer,
                        "table": [str(c) for c in table],
                        "reason": reason,
                        "count": self._misdeals,
                    },
                )
            )
            if rules.luzzati and self._misdeals == 3:  # D7(c)
                self._table = table
                self._deck = deck[pos:]
                self._finish_instant(1 - self._side[self.dealer], "luzzati_three_misdeals")
                return
            self._stream.shuffle(deck)
        self._deck = deck[pos:]
        self._table = table
        self._tkey = tuple(c.value for c in table)
        self._log.append(self._deal_entry())
        bonus = None if self._scopa else dealer_bonus(table, rules, self._matta)
        if bonus is not None:  # B1, B9, B10: the dealer takes the four cards
            side = self._side[self.dealer]
            self._piles[side].extend(table)
            self._bonus[side] += bonus.points
            self._last_capture = side
            self._log.append(
                (
                    _EV_OTHER,
                    {
                        "type": "dealer_bonus",
                        "seat": self.dealer,
                        "side": side,
                        "kind": bonus.kind,
                        "points": bonus.points,
                        "cards": [str(c) for c in table],
                        "matta_value": bonus.matta_value,
                    },
                )
            )
            self._table = []
            self._tkey = ()
        self._begin_stage()

    def _deal_entry(self) -> tuple[Any, ...]:
        table = tuple(self._table) if self._stage == 0 else None
        hands = tuple(tuple(h) for h in self._hands)
        return (_EV_DEAL, self._stage, self.dealer, hands, table, len(self._deck))

    def _begin_stage(self) -> None:
        self._stage_plays = 0
        self._in_last_stage = self._stage == self._last_stage
        self._stage_len = self.players * self._sizes[self._stage]
        self._declared_turn = False
        self._legal = None
        if self._at_deal:
            self._phase = _DECLARE
            self._round = 0
        self.to_move = self._first
        if not self._scopa:
            matta = self._matta
            for seat, hand in enumerate(self._hands):
                if len(hand) == 3:  # the common case: three natural cards that make no bonus
                    a, b, c = hand
                    if a is not matta and b is not matta and c is not matta:
                        va, vb, vc = a.value, b.value, c.value
                        if va + vb + vc > 9 and not va == vb == vc:
                            self._special[seat] = False
                            continue
                self._update_special(seat)

    def _finish_instant(self, side: int, reason: str) -> None:
        self._instant_winner = side
        self._instant_reason = reason
        self._log.append(
            (
                _EV_OTHER,
                {
                    "type": "instant_win",
                    "side": side,
                    "reason": reason,
                    "table": [str(c) for c in self._table],
                },
            )
        )
        self._finish()

    def _finish(self) -> None:
        if self._table and self._last_capture is not None:  # P8
            side = self._last_capture
            self._log.append(
                (
                    _EV_OTHER,
                    {"type": "last_cards", "side": side, "cards": [str(c) for c in self._table]},
                )
            )
            self._piles[side].extend(self._table)
            self._table = []
            self._tkey = ()
        if self._instant_winner is None and not self._scopa and not self.rules.cappotto_scores_only:
            for side, pile in enumerate(self._piles):  # S8: all ten diamonds
                if len(pile) >= 10 and [c.suit for c in pile].count("D") == 10:
                    self._instant_winner = side
                    self._instant_reason = "cappotto"
        self._log.append((_EV_END,))
        self._phase = _OVER
        self.is_over = True
        self.to_move = None
        self._legal = []

    # ---- legal moves --------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """The moves the seat to move may make: declarations first, then plays."""
        legal = self._legal
        if legal is None:
            seat = self.to_move
            if seat is not None and self._phase == _PLAY and not self._special[seat]:
                legal = self._legal = self._plays_of(self._hands[seat])  # the common turn
            else:
                legal = self._legal = self._compute_legal()
        return legal[:]

    def _update_special(self, seat: int) -> None:
        # With hands of more than three cards a bonus set may turn up at any turn (CR3);
        # with fewer than three cards in a three-card stage none can.
        if not self._big and len(self._hands[seat]) < 3:
            self._special[seat] = bool(self._pending[seat])
            return
        self._special[seat] = self._big or bool(self._pending[seat]) or self._may_declare(seat)

    def _may_declare(self, seat: int) -> bool:
        """May `seat` declare a bonus at its turn now (B7, CR3)? Not in the deal round."""
        if self._scopa:
            return False
        hand = self._hands[seat]
        if len(hand) == 3:  # the common case: three natural cards with no bonus
            a, b, c = hand
            matta = self._matta
            if a is not matta and b is not matta and c is not matta:
                va, vb, vc = a.value, b.value, c.value
                if va + vb + vc > 9 and not (va == vb == vc):
                    return False
        first_turn = len(hand) == self._sizes[self._stage]
        if self._all_at_once:
            allowed = first_turn and not self._at_deal
        else:
            allowed = (
                not (self._declared_turn and seat == self.to_move)
                and not (self._declared_first and self._pending[seat])
                and len(hand) >= 3
                and not (self._at_deal and first_turn)
            )
        return allowed and bool(
            hand_bonus_options(hand, self.rules, self._pending[seat], self._matta)
        )

    def _declaration_moves(self, seat: int) -> list[Move]:
        options = hand_bonus_options(
            self._hands[seat], self.rules, self._pending[seat], self._matta
        )
        out = []
        for opt in options:
            move = Move.declare(opt.kind, opt.cards, opt.matta_value)
            if move not in self._decl_opts:
                self._decl_opts[move] = opt
            out.append(move)
        return out

    def _compute_legal(self) -> list[Move]:
        seat = self.to_move
        if seat is None:
            return []
        if self._phase == _PLAY and not self._special[seat]:  # the common turn
            return self._plays_of(self._hands[seat])
        if self._phase == _DECLARE:
            return [*self._declaration_moves(seat), _PASS]
        legal = self._declaration_moves(seat) if self._may_declare(seat) else []
        pending = self._pending[seat]
        legal += self._plays_of(pending if pending and self._declared_first else self._hands[seat])
        return legal

    def _plays_of(self, cards: list[Card]) -> list[Move]:
        """The legal plays of these hand cards (P1-P6, SC3)."""
        table = self._table
        if not table:
            return [_BARE[c.id] for c in cards]
        tkey = self._tkey
        caps = self._caps.get(tkey)
        if caps is None:
            caps = captures_by_value(tkey, self._scopa, self._ace_choice)
        matta = self._matta
        plays = _PLAYS
        legal = []
        for card in cards:
            if card is matta and self._matta_value is not None:
                masks = caps[self._matta_value]
            else:
                masks = caps[card.value]
            if masks:
                cid = card.id
                for m in masks:
                    if m & (m - 1) == 0:  # one card: the most common capture
                        cmask = table[m.bit_length() - 1].bit
                    else:
                        cmask = 0
                        while m:
                            low = m & -m
                            cmask |= table[low.bit_length() - 1].bit
                            m ^= low
                    move = plays.get(cid | (cmask << 6))
                    if move is None:
                        move = Move.play(card, tuple(c for c in table if c.bit & cmask))
                    legal.append(move)
                if not self._may_decline:
                    continue
            legal.append(_BARE[card.id])
        return legal

    # ---- playing ------------------------------------------------------------------
    def play(self, move: Move | str | object) -> None:
        """Play a legal move (a `Move` or its notation); IllegalMove says why not."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        if move.__class__ is not Move:
            if isinstance(move, str):
                move = parse_move(move)
            elif not isinstance(move, Move):
                raise IllegalMove(f"a move is a Move or its notation, not {type(move).__name__}")
        if move not in legal:
            if self._phase == _OVER:
                raise IllegalMove(f"the smazzata is over: {move} cannot be played")
            if self._phase == _HALTED:
                raise IllegalMove(
                    f"the partita is over ({self._halted}, E6): {move} cannot be played"
                )
            from .explain import why_illegal

            raise IllegalMove(why_illegal(self, move, legal))
        if move.kind != "play":
            if move.kind == "declare":
                self._apply_declaration(move)
            else:
                self._log.append((_EV_PASS, self.to_move))
                self._next_in_round()
            return
        # A card is played (inlined here: this is the engine's hottest path).
        seat: int = self.to_move  # type: ignore[assignment]
        card: Card = move.card  # type: ignore[assignment]
        self._hands[seat].remove(card)
        captured = move.captured
        table = self._table
        if captured:
            for c in captured:
                table.remove(c)
            self._tkey = (
                tuple([c.value for c in table])
                if self._matta_value is None
                else tuple([self.value_of(c) for c in table])
            )
            side = self._side[seat]
            pile = self._piles[side]
            pile += captured
            pile.append(card)
            self._last_capture = side
            # P7: a sweep, but not on the very last play of the smazzata
            scopa = not table and not (
                self._in_last_stage and self._stage_plays + 1 == self._stage_len
            )
            if scopa:
                self._scope[side] += 1
            if self._matta_value is not None and (card is self._matta or self._matta in captured):
                self._matta_value = None
                self._matta_expiry = None
        else:
            scopa = False
            table.append(card)
            if card is self._matta and self._matta_value is not None:
                self._tkey += (self._matta_value,)
                if not self._keeps_value:  # B6: 7 again from the next mano on
                    n = self.players
                    self._matta_expiry = (self._stage_plays // n + 1) * n
            else:
                self._tkey += (card.value,)
        self._log.append((_EV_PLAY, seat, move, scopa))
        self._legal = None
        if self._special[seat]:
            self._after_special_play(seat, card)
        plays = self._stage_plays = self._stage_plays + 1
        if self._matta_expiry is not None and plays >= self._matta_expiry:
            self._expire_matta()
        if plays == self._stage_len:
            self._next_stage()
        else:
            self.to_move = self._next_seat[seat]

    def _apply_declaration(self, move: Move) -> None:
        seat = self.to_move
        assert seat is not None
        opt = self._decl_opts[move]
        side = self._side[seat]
        self._bonus[side] += opt.points
        self._pending[seat].extend(opt.cards)
        if opt.matta_value is not None:
            self._matta_value = opt.matta_value
        record = {
            "type": "declare",
            "seat": seat,
            "side": side,
            "kind": opt.kind,
            "cards": [str(c) for c in move.cards],
            "matta_value": opt.matta_value,
            "points": opt.points,
            "stage": self._stage,
            "move": str(move),
        }
        self._declarations.append(record)
        self._log.append((_EV_DECLARE, record, move))
        self._declared_turn = True
        self._legal = None
        self._update_special(seat)
        if self._phase == _DECLARE and not (
            self._all_at_once
            and hand_bonus_options(self._hands[seat], self.rules, self._pending[seat], self._matta)
        ):
            self._next_in_round()

    def _next_in_round(self) -> None:
        self._round += 1
        self._declared_turn = False
        self._legal = None
        if self._round == self.players:
            self._phase = _PLAY
            self.to_move = self._first
        else:
            self.to_move = (self._first + self._round) % self.players

    def _after_special_play(self, seat: int, card: Card) -> None:
        pending = self._pending[seat]
        if card in pending:
            pending.remove(card)
        self._declared_turn = False
        self._update_special(seat)

    def _next_stage(self) -> None:
        if self._stage == self._last_stage:
            self._finish()
            return
        self._stage += 1
        dealt = self._deal_stage(self._deck, self._stage)
        self._deck = self._deck[dealt:]
        self._log.append(self._deal_entry())
        if self._matta_expiry is not None:
            self._expire_matta()
        self._begin_stage()

    def _expire_matta(self) -> None:
        self._matta_expiry = None
        self._matta_value = None
        matta = self._matta
        if matta is not None and matta in self._table:
            self._tkey = tuple(c.value for c in self._table)

    # ---- search support -----------------------------------------------------------
    def copy(self) -> Deal:
        """An independent copy for search (shares nothing mutable with this deal)."""
        new = object.__new__(Deal)
        new.__dict__.update(self.__dict__)
        new._hands = [list(h) for h in self._hands]
        new._table = list(self._table)
        new._piles = [list(p) for p in self._piles]
        new._scope = list(self._scope)
        new._bonus = list(self._bonus)
        new._log = list(self._log)
        new._deck = list(self._deck)
        new._pending = [list(p) for p in self._pending]
        new._special = list(self._special)
        new._declarations = list(self._declarations)
        new._decl_opts = dict(self._decl_opts)
        new._stream = self._stream.copy()
        new._legal = self._legal
        return new

    def redeal_unseen(self, seat: int, rng: random.Random) -> None:
        """Re-draw, in place, every card `seat` cannot see: the other hands (but their
        declared cards) and the undealt deck, keeping how many each holds.

        For search on a determinized copy (see `cirulla.determinize`); the event log
        keeps the hands as first dealt, so replay this deal's moves, not its events.
        """
        from .unseen import redeal_unseen

        redeal_unseen(self, seat, rng)

    def assign_unseen(self, seat: int, hands: dict[int, list[Card]], deck: list[Card]) -> None:
        """Put, in place, the cards `seat` cannot see where a sampler chose: `hands[s]`
        after each hidden hand's declared cards, `deck` as the undealt deck (in that
        order). The same cards and counts as now, or ValueError: a sampler may move the
        hidden cards, never make or lose one.

        For search on a determinized copy, as `redeal_unseen`, when the draw is not
        uniform (`bots.posterior`).
        """
        from .unseen import assign_unseen

        assign_unseen(self, seat, hands, deck)

    def _hands_changed(self, seats: list[int]) -> None:
        """After a sampler put other cards in `seats`' hands: what depends on them."""
        self._legal = None
        if not self._scopa and self._phase != _OVER and self._phase != _HALTED:
            for other in seats:
                self._update_special(other)

    def __repr__(self) -> str:
        if self.is_over:
            state = "over"
        elif self._halted is not None:
            state = f"halted ({self._halted})"
        else:
            state = f"seat {self.to_move} to move"
        return (
            f"<Deal {self.players} players, dealer {self.dealer}, stage {self._stage},"
            f" table {' '.join(map(str, self._table)) or '-'}, {state}>"
        )
