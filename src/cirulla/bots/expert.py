"""The expert bot: greedy's one-move look, played with a Cirulla player's know-how.

Greedy asks "could anyone sweep what I leave?"; expert asks how likely the next
player is to hold each value, from the cards not yet seen and the size of that
hand, and so what the reply is expected to cost. On top of that it keeps aces
(the strongest card: onto a table with no ace an ace takes everything), never
wastes the last ace on an empty table, plays the 15s, counts the partner's
chances as a gain rather than a risk, declares its bonuses and names the matta
where it pays, and plays the end of the smazzata (P7, P8) by looking ahead.

Everything here is knowledge, not search: a move costs well under a millisecond.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations
from math import comb
from typing import Final

from ..bonuses import bonus_points
from ..captures import captures_by_value
from ..cards import Card
from ..moves import Move
from .base import Bot, SeatView
from .evaluate import CARD_WEIGHT, SCOPA

__all__ = [
    "ExpertBot",
    "TableKnowledge",
    "chance_of_none",
    "declaration_cost",
    "expected_best",
]

# How much each idea weighs, in points (the unit of evaluate.py's card weights).
OPPONENT_SHARE: Final = {2: 1.0, 3: 0.75, 4: 1.0}  # an opponent's point, to us (3: shared)
PARTNER_SHARE: Final = 0.35  # the partner's expected take, once the opponent has played
SECOND_OPPONENT: Final = 0.45  # 3 players: the opponent after next, likewise
HOLD: Final = {2: 0.3, 3: 0.15, 4: 0.12}  # what the cards kept could take next time round
LAY_COST: Final = 0.15  # a card laid down is a card offered: a share of its weight
ACE_KEEP: Final = 0.6  # an ace kept against a table with no ace: a likely sweep later
LAST_ACE: Final = 0.8  # the last ace held: nobody else can ever take the table with an ace
INFO_PER_ACE: Final = 0.35  # what showing an ace in a declaration gives away
INFO_PER_CARD: Final = 0.1  # what showing any other card gives away

_MAX_CACHE: Final = 100_000


def chance_of_none(marked: int, drawn: int, pool: int) -> float:
    """The chance that a hand of `drawn` cards from `pool` holds none of `marked` cards."""
    if drawn <= 0 or marked <= 0:
        return 1.0
    if marked + drawn > pool:
        return 0.0
    return comb(pool - marked, drawn) / comb(pool, drawn)


def expected_best(
    gains: Sequence[float], counts: Sequence[int], drawn: int, pool: int, sure: float = 0.0
) -> tuple[float, float]:
    """The expected best of `gains[v]` over a hand of `drawn` cards from `pool`.

    `counts[v]` cards of value v are in the pool; `sure` is the best the hand
    surely offers (its public cards). Returns (expected best, chance the hand
    offers nothing better than `sure`). Exact for a uniform hand (hypergeometric).
    """
    order = sorted((g, n) for g, n in zip(gains, counts, strict=True) if g > sure and n > 0)
    order.reverse()
    expected = 0.0
    marked = 0
    before = 1.0
    for gain, n in order:
        marked += n
        after = chance_of_none(marked, drawn, pool)
        expected += gain * (before - after)
        before = after
    return expected + sure * before, before


class TableKnowledge:
    """What a table offers a card of each value: its best capture, and whether it sweeps.

    Computed once per table (cards and their capture values) and cached: the
    same tables come back move after move.
    """

    __slots__ = ("best", "sweeps", "total")

    def __init__(self, weights: Sequence[float], values: tuple[int, ...], scopa: bool, ace: bool):
        caps = captures_by_value(values, scopa, ace) if values else ((),) * 11
        full = (1 << len(values)) - 1
        self.total = sum(weights)
        best = [0.0] * 11
        sweeps = [False] * 11
        for v in range(1, 11):
            top = -1.0
            for mask in caps[v]:
                if mask == full:
                    sweeps[v] = True
                    top = self.total
                    break
                w = 0.0
                m = mask
                while m:
                    low = m & -m
                    w += weights[low.bit_length() - 1]
                    m ^= low
                if w > top:
                    top = w
            best[v] = top  # -1: no capture
        self.best = best
        self.sweeps = sweeps

    @classmethod
    def of(
        cls, cards: Sequence[Card], values: tuple[int, ...], scopa: bool, ace: bool
    ) -> TableKnowledge:
        key = (tuple(c.id for c in cards), values, scopa, ace)
        known = _KNOWLEDGE.get(key)
        if known is None:
            if len(_KNOWLEDGE) > _MAX_CACHE:
                _KNOWLEDGE.clear()
            known = _KNOWLEDGE[key] = cls([CARD_WEIGHT[c.id] for c in cards], values, scopa, ace)
        return known


_KNOWLEDGE: dict[tuple[object, ...], TableKnowledge] = {}


def declaration_cost(cards: Sequence[Card]) -> float:
    """What showing these cards gives away: aces most (the others then know where they are)."""
    return sum(INFO_PER_ACE if c.rank == "A" else INFO_PER_CARD for c in cards)


class _Position:
    """One decision: the seat's view digested into what the evaluation needs."""

    def __init__(self, view: SeatView) -> None:
        rules = view.rules
        self.view = view
        self.scopa_game = rules.is_scopa
        self.ace_choice = rules.ace_choice
        self.matta = rules.matta()
        matta_value = (view.raw.get("matta") or {}).get("value")
        self.matta_value: int | None = int(matta_value) if matta_value is not None else None
        self.players = view.players
        self.seat = view.seat
        self.side = view.side
        self.table = view.table
        self.values = view.table_values
        self.hand = view.hand
        self.final = view.is_last_play
        self.deck_left = view.deck_left
        self.opp_share = OPPONENT_SHARE[self.players]
        unseen = view.unseen
        self.pool = len(unseen)
        counts = [0] * 11
        weights = [0.0] * 11
        for c in unseen:
            v = c.value  # a hidden matta has no declared value: it is a 7
            counts[v] += 1
            weights[v] += CARD_WEIGHT[c.id]
        self.counts = counts
        self.card_weight = [w / n if n else 0.0 for w, n in zip(weights, counts, strict=True)]
        self.aces_unseen = counts[1]
        sizes = view.stages
        stage = view.stage
        self.next_size = sizes[stage + 1] if stage + 1 < len(sizes) else 0
        self.lookahead = self.ahead(len(self.hand) - 1)

    # ---- values --------------------------------------------------------------------
    def value_of(self, card: Card) -> int:
        if card is self.matta and self.matta_value is not None:
            return self.matta_value
        return card.value

    def knowledge(self, cards: Sequence[Card], values: tuple[int, ...]) -> TableKnowledge:
        return TableKnowledge.of(cards, values, self.scopa_game, self.ace_choice)

    # ---- the players after us -----------------------------------------------------------
    def hand_of(self, seat: int) -> tuple[list[Card], int, list[int], int]:
        """`seat`'s cards we know (declared, or a partner's shown hand), how many more it
        will hold at its next turn, and the unseen cards they are drawn from (counts by
        value, and in all)."""
        view = self.view
        known = view.known_hand(seat)
        count = view.hand_count(seat)
        if count == 0 and self.deck_left > 0:  # a new stage is dealt before it plays
            return [], self.next_size, self.counts, self.pool
        if known is not None:
            return known, 0, self.counts, self.pool
        public = view.declared(seat)
        drawn = max(0, count - len(public))
        return public, drawn, self.counts, self.pool

    def reply(self, seat: int, kn: TableKnowledge, sweep_counts: bool) -> tuple[float, float]:
        """`seat`'s expected best take on a table (cards and sweep), and the chance it takes
        nothing."""
        known, drawn, counts, pool = self.hand_of(seat)
        gains = [
            (kn.best[v] + self.card_weight[v] + (SCOPA if sweep_counts and kn.sweeps[v] else 0.0))
            if kn.best[v] >= 0
            else 0.0
            for v in range(11)
        ]
        sure = 0.0
        for c in known:
            v = self.value_of(c)
            if kn.best[v] >= 0:
                g = kn.best[v] + CARD_WEIGHT[c.id] + (SCOPA if sweep_counts and kn.sweeps[v] else 0)
                sure = max(sure, g)
        return expected_best(gains, counts, drawn, pool, sure)

    # ---- a play's worth ---------------------------------------------------------------
    def score(self, card: Card, captured: Sequence[Card]) -> float:
        """What playing `card` taking `captured` is worth to our side, in points."""
        table, values = self.table, self.values
        if captured:
            left = [(c, v) for c, v in zip(table, values, strict=True) if c not in captured]
            gain = CARD_WEIGHT[card.id] + sum(CARD_WEIGHT[c.id] for c in captured)
            if not left and not self.final:
                gain += SCOPA
        else:
            left = [*zip(table, values, strict=True), (card, self.value_of(card))]
            gain = -LAY_COST * CARD_WEIGHT[card.id]
        cards = [c for c, _ in left]
        kn = self.knowledge(cards, tuple(v for _, v in left))
        rest = [c for c in self.hand if c is not card]
        ahead = self.lookahead
        if ahead is not None:
            return gain + ahead(card, bool(captured), cards)
        return gain + self.risk(kn) + self.keep(rest, kn, cards)

    def risk(self, kn: TableKnowledge) -> float:
        """The next players' expected take on the table we leave (partner's as a gain)."""
        n = self.players
        if not kn.total:
            return 0.0
        first = (self.seat + 1) % n
        take, quiet = self.reply(first, kn, True)
        out = -self.opp_share * take
        if n == 4:
            mate, _ = self.reply((self.seat + 2) % n, kn, True)
            out += PARTNER_SHARE * quiet * mate
        elif n == 3:
            other, _ = self.reply((self.seat + 2) % n, kn, True)
            out -= SECOND_OPPONENT * quiet * self.opp_share * other
        return out

    def keep(self, rest: Sequence[Card], kn: TableKnowledge, cards: Sequence[Card]) -> float:
        """What the cards we keep are worth: their best take on this table, and the aces."""
        if not rest:
            return 0.0
        best = 0.0
        aces = 0
        for c in rest:
            v = self.value_of(c)
            if v == 1 and not self.scopa_game:
                aces += 1
            if kn.best[v] >= 0:
                best = max(best, kn.best[v] + (SCOPA if kn.sweeps[v] else 0.0))
        out = HOLD[self.players] * best
        if aces and not self.scopa_game:
            # An ace in hand sweeps any table with no ace on it: the fewer aces
            # the others may hold, the surer that sweep.
            table_has_ace = any(self.value_of(c) == 1 for c in cards)
            if not table_has_ace:
                out += ACE_KEEP * chance_of_none(self.aces_unseen, 3, max(self.pool, 3))
            if self.aces_unseen == 0 and not (table_has_ace and aces == 1):
                out += LAST_ACE
        return out

    # ---- the end of the smazzata -----------------------------------------------------------
    def ahead(self, rest: int) -> _Lookahead | None:
        """At the very end, the rest of the smazzata is small enough to play out."""
        if self.deck_left:
            return None
        others = [s for s in range(self.players) if s != self.seat and self.view.hand_count(s)]
        if self.players == 2:
            opp = 1 - self.seat
            hidden = self.view.hand_count(opp)
            shown = len(self.view.declared(opp))
            if len(self.view.unseen) + shown == hidden and rest + hidden <= 5:
                return _Lookahead(self, exact=True)
            return None
        if rest == 0 and all(self.view.hand_count(s) <= 1 for s in others):
            return _Lookahead(self, exact=False)
        return None


class _Lookahead:
    """Plays the rest of the smazzata out: with 2 players and the deck gone every card is
    known (minimax); in the last mano of 3 or 4, over every way the unseen cards may lie,
    each player taking its best (the last cards go to the last capture, P8; no scopa on
    the last play, P7)."""

    def __init__(self, pos: _Position, exact: bool) -> None:
        self.pos = pos
        self.exact = exact

    def __call__(self, card: Card, captured: bool, cards: Sequence[Card]) -> float:
        """The rest of the smazzata's worth to us once `card` is played, leaving `cards`."""
        pos = self.pos
        view = pos.view
        n = pos.players
        last = view.side if captured else view.last_capture
        order: list[int] = []
        seat = (pos.seat + 1) % n
        for _ in range(n):
            if view.hand_count(seat) and seat != pos.seat:
                order.append(seat)
            seat = (seat + 1) % n
        rest = [c for c in pos.hand if c is not card]
        table = list(cards)
        if self.exact:
            opp = 1 - pos.seat
            hands = {pos.seat: rest, opp: view.declared(opp) + list(view.unseen)}
            return self._minimax(table, hands, opp, last)
        # Last mano: each other seat holds at most one card.
        known: dict[int, Card] = {}
        for s in order:
            shown = view.known_hand(s) or view.declared(s)
            if shown:
                known[s] = shown[0]
        pool = [c for c in view.unseen if c not in known.values()]
        blind = [s for s in order if s not in known]
        total = 0.0
        count = 0
        for deal in permutations(pool, len(blind)):
            held = dict(known)
            held.update(zip(blind, deal, strict=True))
            total += self._greedy_line(table, order, held, last)
            count += 1
        return total / count if count else self._close(table, last)

    def _sign(self, seat: int) -> float:
        pos = self.pos
        side = pos.view.side_of(seat)
        return 1.0 if side == pos.side else -pos.opp_share

    def _side_sign(self, side: int | None) -> float:
        if side is None:
            return 0.0
        return 1.0 if side == self.pos.side else -self.pos.opp_share

    def _close(self, table: Sequence[Card], last: int | None) -> float:
        return self._side_sign(last) * sum(CARD_WEIGHT[c.id] for c in table)

    def _plays(
        self, table: Sequence[Card], card: Card, final: bool
    ) -> list[tuple[float, list[Card], bool]]:
        """Each play of `card`: (its take, the table it leaves, whether it captured)."""
        pos = self.pos
        values = tuple(pos.value_of(c) for c in table)
        caps = captures_by_value(values, pos.scopa_game, pos.ace_choice) if table else ((),) * 11
        masks = caps[pos.value_of(card)]
        if not masks:
            return [(0.0, [*table, card], False)]
        out = []
        for mask in masks:
            taken = [c for i, c in enumerate(table) if mask >> i & 1]
            left = [c for i, c in enumerate(table) if not mask >> i & 1]
            gain = CARD_WEIGHT[card.id] + sum(CARD_WEIGHT[c.id] for c in taken)
            if not left and not final:
                gain += SCOPA
            out.append((gain, left, True))
        return out

    def _greedy_line(
        self, table: list[Card], order: Sequence[int], held: dict[int, Card], last: int | None
    ) -> float:
        view = self.pos.view
        total = 0.0
        for i, seat in enumerate(order):
            final = i == len(order) - 1
            gain, table, took = max(self._plays(table, held[seat], final), key=lambda p: p[0])
            if took:
                last = view.side_of(seat)
            total += self._sign(seat) * gain
        return total + self._close(table, last)

    def _minimax(
        self, table: list[Card], hands: dict[int, list[Card]], seat: int, last: int | None
    ) -> float:
        view = self.pos.view
        hand = hands[seat]
        if not hand:
            return self._close(table, last)
        other = 1 - seat
        final = len(hand) == 1 and not hands[other]
        mine = view.side_of(seat) == self.pos.side
        best: float | None = None
        for card in hand:
            hands[seat] = [c for c in hand if c is not card]
            for gain, left, took in self._plays(table, card, final):
                nxt = other if hands[other] else seat
                value = self._sign(seat) * gain + self._minimax(
                    left, hands, nxt, view.side_of(seat) if took else last
                )
                if best is None or (value > best if mine else value < best):
                    best = value
        hands[seat] = hand
        assert best is not None
        return best


def expert_opinion(view: SeatView) -> tuple[Move | None, dict[object, float]]:
    """What the expert makes of a position: the declaration it would make (or None),
    and its score in points for each play, by move key (for search bots' priors)."""
    legal = view.legal
    pos = _Position(view)
    declarations = [m for m in legal if m.kind == "declare"]
    declared = ExpertBot()._declaration(declarations, pos, view) if declarations else None
    scores: dict[object, float] = {}
    for move in legal:
        if move.kind == "play":
            assert move.card is not None
            scores[move.key] = pos.score(move.card, move.captured)
    return declared, scores


class ExpertBot(Bot):
    """Greedy plus Cirulla know-how: counting cards, aces, 15s, partner, bonuses, the end."""

    name = "expert"

    def choose(self, view: SeatView) -> Move:
        legal = view.legal
        plays = [m for m in legal if m.kind == "play"]
        declarations = [m for m in legal if m.kind == "declare"]
        pos = _Position(view)
        if declarations:
            chosen = self._declaration(declarations, pos, view)
            if chosen is not None:
                return chosen
            if not plays:  # the declaration round (declare_at_deal): pass
                return next(m for m in legal if m.kind == "pass")
        if not plays:
            return legal[0]
        return max(plays, key=lambda m: self._rank(pos, m))

    @staticmethod
    def _rank(pos: _Position, move: Move) -> tuple[float, int, str]:
        """Best score first; among equals the lowest card (keep the strong ones), then
        the notation, so that the choice never depends on the order of the moves."""
        card = move.card
        assert card is not None
        return (pos.score(card, move.captured), -card.value, move.text)

    def _declaration(self, moves: Sequence[Move], pos: _Position, view: SeatView) -> Move | None:
        """The declaration worth most, if it is worth showing the cards: a decino always
        (10 points), a cirulla almost always; the matta named for its best capture."""
        matta = view.rules.matta()
        best: Move | None = None
        best_key = (0.0, 0.0)
        for move in moves:
            assert move.bonus is not None
            values = tuple(
                move.matta_value if c is matta and move.matta_value else c.value for c in move.cards
            )
            points = bonus_points(move.bonus, (values[0], values[1], values[2]), view.rules)
            worth = points - declaration_cost(move.cards)
            if worth <= 0:
                continue
            key = (worth, self._matta_worth(move, pos) if move.matta_value else 0.0)
            if best is None or key > best_key:
                best, best_key = move, key
        return best

    @staticmethod
    def _matta_worth(move: Move, pos: _Position) -> float:
        """How well the matta plays as the value this declaration names: its best take on
        the table now (as an ace it sweeps a table with no ace), else what it keeps."""
        value = move.matta_value
        assert value is not None
        if not pos.table:
            return 0.1 if value == 1 else 0.0  # an ace is the card to hold
        kn = pos.knowledge(pos.table, tuple(pos.values))
        if kn.best[value] < 0:
            return 0.1 if value == 1 else 0.0
        return kn.best[value] + (SCOPA if kn.sweeps[value] else 0.0) + 0.1 * (value == 1)
