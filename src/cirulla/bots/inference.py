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

import math
from collections.abc import Iterable
from typing import Final

from ..bonuses import hand_bonus_options
from ..cards import Card, full_deck
from ..deal import Deal
from ..moves import Move
from .evaluate import greedy_score

__all__ = [
    "MISSED_BONUS",
    "MISSED_CAPTURE",
    "MISSED_GREEDY",
    "MISSED_SCOPA",
    "SEARCHER_FACTORS",
    "PlayEvidence",
    "capturing_cards",
    "last_play",
    "play_scores",
]

#: How likely a player lays a card down while another of its cards could capture.
MISSED_CAPTURE: Final = 0.4
#: How likely a player makes no scopa while one of its cards could (P7).
MISSED_SCOPA: Final = 0.1
#: How likely a player plays its first card of a stage without declaring a bonus its
#: three cards held (B7): 1.0, no evidence, unless a bot asks for it.
MISSED_BONUS: Final = 1.0
#: How likely a player makes a play while holding a card whose best play greedy's score
#: (`evaluate.greedy_score`) rates higher: 1.0, no evidence, unless a bot asks for it.
MISSED_GREEDY: Final = 1.0

#: The factors (capture, scopa, bonus, greedy) that fit a searcher's plays better than a
#: greedy player's (`benchmarks/model_fit.py`, 4 players: on the campione of 2026-11-21's
#: hands they score +0.12 nats a hand over the uniform draw, campione's greedy ones -0.23).
SEARCHER_FACTORS: Final = (0.2, 0.4, 0.05, 0.3)
#: A softmax note (`PlayEvidence._soft_note`): per card, its plays' summed weight and
#: their number; the card played; once `_soften` has run, the known cards' two sums
#: and the largest probability of the play made over the hands the seat may hold.
SoftNote = tuple[dict[Card, float], dict[Card, float], Card, float, float, float]

#: What one play of a past stage says, in log-likelihood, for "a searcher" over "a
#: greedy player": greedy's better play skipped, log(0.27 / 0.02); greedy's play,
#: log(0.98 / 0.73) the other way (`benchmarks/play_rates.py`: searchers skip
#: greedy's play in 27% of plays, normale in 1.6%).
SEARCHER_SURPRISE: Final = 2.60
SEARCHER_CLEAN: Final = 0.295


class PlayEvidence:
    """The plays of hidden seats in the current stage, and what each unseen card
    would have allowed at each of them. Built from a determinization (only its
    public part is read: the moves, the tables, who played what) of the view of a
    seat that cannot see `hidden_seats`."""

    __slots__ = (
        "_alt",
        "_beta",
        "_bonus",
        "_by_card",
        "_eps",
        "_evidence",
        "_factors",
        "_missed",
        "_per_seat",
        "_rules",
        "_searcher",
        "_share",
        "_soft",
    )

    def __init__(
        self,
        base: Deal,
        hidden_seats: list[int],
        missed_capture: float = MISSED_CAPTURE,
        missed_scopa: float = MISSED_SCOPA,
        missed_bonus: float = MISSED_BONUS,
        missed_greedy: float = MISSED_GREEDY,
        searcher: tuple[float, float, float, float] | None = None,
        mixture: bool = False,
        beta: float | None = None,
        eps: float = 0.0,
    ) -> None:
        # Per hidden seat: per past play of that seat in this stage, the unseen cards
        # that would have made it surprising, and the factor the surprise costs.
        self._factors: dict[int, list[tuple[frozenset[Card], float]]] = {}
        # Per hidden seat that played this stage's first card without declaring: the
        # cards it has played since (its hand then was those and its hand now).
        self._bonus: dict[int, list[Card]] = {}
        self._by_card: dict[int, tuple[dict[Card, int], list[float]]] | None = None
        self._missed = (missed_capture, missed_scopa, missed_bonus, missed_greedy)
        # Hidden seats whose past stages were played as a searcher plays (`searcher`).
        self._per_seat: dict[int, tuple[float, float, float, float]] = {}
        # Per judged seat, the log-odds its finished stages give for "a searcher".
        self._evidence: dict[int, float] = {}
        # `mixture`: each note's factor for a searcher too (in `_factors`' order), and
        # per hidden seat the chance, from its finished stages, that it is one.
        if mixture and searcher is None:
            raise ValueError("a mixture needs the searcher's factors")
        self._searcher = searcher if mixture else None
        self._alt: dict[int, list[float]] = {}
        self._share: dict[int, float] = {}
        self._rules = base.rules
        # `beta`: the softmax model of a play (`_soft_note`) in place of the factors of
        # capture, scopa and greedy; with `searcher` (not `mixture`), for the seats
        # `_judge` finds searchers only. Per hidden seat its notes (`_soften`).
        if beta is not None and mixture:
            raise ValueError("the softmax model is a reading of its own: not in a mixture")
        if beta is not None and not (0.0 <= beta <= 20.0):
            raise ValueError(f"beta must be between 0 and 20, not {beta!r}")
        if not (0.0 <= eps < 1.0):
            raise ValueError(f"eps must be at least 0 and below 1, not {eps!r}")
        self._beta = beta
        self._eps = eps
        self._soft: dict[int, list[SoftNote]] = {}
        if not hidden_seats:
            return
        replay = Deal(base.rules, base.players, base.dealer, deck=list(base.initial_deck))
        stage = base.stage
        declared: set[int] = set()
        # Per hidden seat, its plays of the stages already over, for `searcher`.
        past: dict[int, list[tuple[int, Card, frozenset[Card] | None]]] = {}
        judged = searcher is None
        for move in base.moves:
            mover = replay.to_move
            if (
                not judged
                and mover in hidden_seats
                and replay.stage != stage
                and move.kind == "play"
            ):
                better: frozenset[Card] | None = None  # None: nothing to judge (no table)
                if replay._table:
                    better = _greedy_better(replay, move, last_play(replay))
                past.setdefault(mover, []).append((replay.stage, move.card, better))  # type: ignore[arg-type]
            if replay.stage == stage and mover in hidden_seats:
                if not judged:
                    assert searcher is not None
                    self._judge(past, searcher)
                    judged = True
                if move.kind == "declare":
                    declared.add(mover)
                    self._bonus.pop(mover, None)
                elif move.kind == "play":
                    if beta is None or (searcher is not None and mover not in self._per_seat):
                        self._note(replay, mover, move)
                    else:  # with `searcher`, only a seat judged a searcher's
                        self._soft_note(replay, mover, move, beta)
                    bonus = self._factors_of(mover)[2]
                    if self._searcher is not None:
                        bonus = min(bonus, self._searcher[2])
                    if bonus < 1.0 and mover not in declared:
                        self._bonus.setdefault(mover, []).append(move.card)  # type: ignore[arg-type]
            replay.play(move)
        if not judged:
            assert searcher is not None
            self._judge(past, searcher)
        if base.rules.is_scopa:
            self._bonus.clear()
        if self._soft:
            self._soften(base, hidden_seats)

    def _soft_note(self, replay: Deal, mover: int, move: Move, beta: float) -> None:
        """Note, for every card `mover` may have held, the weight its plays add to the
        softmax's sum, relative to the play made (which weighs 1): exp(beta * (greedy
        score of the play - that of the play made)) summed over the card's plays, and
        how many plays it has (for the uniform part)."""
        # the declared cards stay candidates: their seat holds them
        public = _public(replay, declared=False)
        cards = [c for c in full_deck() if c not in public]
        scores = play_scores(replay, cards, last_play(replay))
        made = [score for option, score in scores if option == move]
        if len(made) != 1:  # a play the table's options do not list: nothing to read
            return
        weights: dict[Card, float] = {}
        counts: dict[Card, float] = {}
        for option, score in scores:
            card = option.card
            assert card is not None
            weights[card] = weights.get(card, 0.0) + math.exp(beta * (score - made[0]))
            counts[card] = counts.get(card, 0.0) + 1.0
        assert move.card is not None
        self._soft.setdefault(mover, []).append((weights, counts, move.card, 0.0, 0.0, 1.0))

    def _soften(self, base: Deal, hidden_seats: list[int]) -> None:
        """Give each softmax note the sums of the cards its seat is known to have held
        then (the card played, the seat's later plays of the stage, its declared cards)
        and the largest probability any hand it may hold now gives the play made, so
        that `hand_weight` is a probability ratio, at most 1."""
        pool: list[Card] = list(base._deck)
        for s in hidden_seats:
            pool += [c for c in base._hands[s] if c not in base._pending[s]]
        eps = self._eps
        for seat, notes in self._soft.items():
            free = len(base._hands[seat]) - len(base._pending[seat])
            done: list[SoftNote] = []
            for i, (weights, counts, card, _, _, _) in enumerate(notes):
                known = [n[2] for n in notes[i:]] + base._pending[seat]
                const = sum(weights.get(c, 0.0) for c in known)
                nconst = sum(counts.get(c, 0.0) for c in known)
                low = sum(sorted(weights.get(c, 0.0) for c in pool)[:free])
                nlow = sum(sorted(counts.get(c, 0.0) for c in pool)[:free])
                top = _soft_p(const + low, nconst + nlow, eps)
                done.append((weights, counts, card, const, nconst, top))
            self._soft[seat] = done

    def _soft_weight(self, seat: int, hand: list[Card], declared: list[Card]) -> float:
        """The softmax notes' probability ratio for `seat` holding `hand`."""
        w = 1.0
        eps = self._eps
        for weights, counts, _, const, nconst, top in self._soft.get(seat, ()):
            total = const
            ntotal = nconst
            for c in hand:
                if c not in declared:
                    total += weights.get(c, 0.0)
                    ntotal += counts.get(c, 0.0)
            w *= _soft_p(total, ntotal, eps) / top
        return w

    def _note(self, replay: Deal, mover: int, move: Move) -> None:
        table = replay.table
        if not table:
            return
        captured = len(move.captured)
        swept = captured > 0 and captured == len(table)
        last = last_play(replay)
        # Every card is looked at: `weight` only ever meets the hidden ones.
        capture_cards, scopa_cards = capturing_cards(replay, full_deck(), last)
        notes = self._factors.setdefault(mover, [])
        missed_capture, missed_scopa, _, missed_greedy = self._factors_of(mover)
        alt = self._searcher
        if alt is None:
            if missed_greedy < 1.0:
                better = _greedy_better(replay, move, last)
                if better:
                    notes.append((better, missed_greedy))
            if not swept and scopa_cards:
                notes.append((frozenset(scopa_cards), missed_scopa))
            if not captured and capture_cards - scopa_cards:
                notes.append((frozenset(capture_cards - scopa_cards), missed_capture))
            return
        alts = self._alt.setdefault(mover, [])
        if missed_greedy < 1.0 or alt[3] < 1.0:
            better = _greedy_better(replay, move, last)
            if better:
                notes.append((better, missed_greedy))
                alts.append(alt[3])
        if not swept and scopa_cards:
            notes.append((frozenset(scopa_cards), missed_scopa))
            alts.append(alt[1])
        if not captured and capture_cards - scopa_cards:
            notes.append((frozenset(capture_cards - scopa_cards), missed_capture))
            alts.append(alt[0])

    def _factors_of(self, seat: int) -> tuple[float, float, float, float]:
        return self._per_seat.get(seat, self._missed)

    def _judge(
        self,
        past: dict[int, list[tuple[int, Card, frozenset[Card] | None]]],
        searcher: tuple[float, float, float, float],
    ) -> None:
        """Give `searcher`'s factors to each seat whose plays in the stages already over
        look more like a searcher's than a greedy player's. Those hands are known now
        (a seat plays every card of a stage within it), so each play is judged with
        the cards its seat really held: was one of them greedy's better play?"""
        for seat, plays in past.items():
            clean = surprised = 0
            for i, (stage, _, better) in enumerate(plays):
                if better is None:
                    continue
                rest = [c for st, c, _ in plays[i + 1 :] if st == stage]
                if not rest:
                    continue
                if any(c in better for c in rest):
                    surprised += 1
                else:
                    clean += 1
            evidence = surprised * SEARCHER_SURPRISE - clean * SEARCHER_CLEAN
            self._evidence[seat] = evidence
            if self._searcher is not None:  # even odds before any play, then Bayes
                self._share[seat] = 1.0 / (1.0 + math.exp(-evidence))
            elif evidence > 0.0:
                self._per_seat[seat] = searcher

    def weight(self, deal: Deal) -> float:
        """How plausible `deal`'s hidden hands are, 0 < w <= 1 (1: nothing surprising)."""
        return self.weight_of(deal._hands, deal._pending)

    def weight_of(self, hands: list[list[Card]], declared: list[list[Card]]) -> float:
        """`weight` of a deal whose seats hold `hands` (declared cards among them), so
        that a sampler can weigh hands before it builds a deal of them."""
        if self._searcher is not None:
            w = 1.0
            for seat in self._mixed_seats():
                w *= self.hand_weight(seat, hands[seat], declared[seat])
            return w
        w = 1.0
        for mover, (masks, factors) in self._index().items():
            # the declared cards are public: the same in every sample
            w = _surprised(w, masks, factors, hands[mover], declared[mover])
        for seat in self._soft:
            w *= self._soft_weight(seat, hands[seat], declared[seat])
        for seat, played in self._bonus.items():
            if hand_bonus_options(played + hands[seat], self._rules, frozenset(), True):
                w *= self._factors_of(seat)[2]
        return w

    def hand_weight(self, seat: int, hand: list[Card], declared: list[Card]) -> float:
        """How plausible it is that `seat` holds `hand` (its `declared` cards among them,
        which tell nothing): `weight`'s factor for that seat alone, so that a sampler
        moving one card need not weigh every hand again."""
        w = 1.0
        entry = self._index().get(seat)
        alt = self._searcher
        if alt is not None:
            # a greedy player with the chance it is one, a searcher with the rest
            g = s = 1.0
            if entry is not None:
                g = _surprised(1.0, entry[0], entry[1], hand, declared)
                s = _surprised(1.0, entry[0], self._alt.get(seat, []), hand, declared)
            played = self._bonus.get(seat)
            if played is not None and hand_bonus_options(
                played + hand, self._rules, frozenset(), True
            ):
                g *= self._missed[2]
                s *= alt[2]
            share = self._share.get(seat, 0.5)
            return (1.0 - share) * g + share * s
        if entry is not None:
            w = _surprised(w, entry[0], entry[1], hand, declared)
        if seat in self._soft:
            w *= self._soft_weight(seat, hand, declared)
        played = self._bonus.get(seat)
        if played is not None and hand_bonus_options(played + hand, self._rules, frozenset(), True):
            w *= self._factors_of(seat)[2]
        return w

    def _mixed_seats(self) -> list[int]:
        """The seats a mixture weighs: those with notes or an undeclared first play."""
        seats = list(self._factors)
        for seat in self._bonus:
            if seat not in self._factors:
                seats.append(seat)
        return seats

    def _index(self) -> dict[int, tuple[dict[Card, int], list[float]]]:
        """Per hidden seat: each card's notes it would make surprising (a bit per note),
        and the notes' factors; built once, on the first `weight`."""
        index = self._by_card
        if index is None:
            index = self._by_card = {}
            for mover, notes in self._factors.items():
                masks: dict[Card, int] = {}
                for bit, (cards, _) in enumerate(notes):
                    for card in cards:
                        masks[card] = masks.get(card, 0) | (1 << bit)
                index[mover] = (masks, [factor for _, factor in notes])
        return index

    def searcher_odds(self, seat: int) -> float:
        """The log-odds `seat`'s plays in the finished stages give for "a searcher" over
        "a greedy player" (`_judge`; made with `searcher`); 0 where nothing was judged."""
        return self._evidence.get(seat, 0.0)

    @property
    def informative(self) -> bool:
        """Is there anything to weigh (else every sample weighs 1)?"""
        return (
            bool(self._bonus)
            or bool(self._soft)
            or any(cards for notes in self._factors.values() for cards, _ in notes)
        )


def _surprised(
    w: float, masks: dict[Card, int], factors: list[float], hand: list[Card], declared: list[Card]
) -> float:
    """`w` times the factor of every note that a card of `hand` (not one of `declared`)
    makes surprising, each note once, in the notes' order (the order keeps the float
    products, hence the samples kept, exactly as they were)."""
    hit = 0
    for card in hand:
        if card not in declared:
            hit |= masks.get(card, 0)
    i = 0
    while hit:
        if hit & 1:
            w *= factors[i]
        hit >>= 1
        i += 1
    return w


def _soft_p(total: float, count: float, eps: float) -> float:
    """The softmax model's probability of the play made (which weighs 1 in `total`)."""
    p = (1.0 - eps) / total
    if eps > 0.0:
        p += eps / count
    return p


def play_scores(deal: Deal, cards: Iterable[Card], last: bool) -> list[tuple[Move, float]]:
    """Every play of `cards` on `deal`'s table with greedy's score of it, sweep threats
    judged from every card not public (an observer's judgement: the softmax model)."""
    public = _public(deal)
    threats = {c.value for c in full_deck() if c not in public}
    values = deal._tkey
    table = deal._table
    out: list[tuple[Move, float]] = []
    for card in cards:
        for option in deal._plays_of([card]):
            out.append((option, greedy_score(option, values, table, threats, last)))
    return out


def _public(deal: Deal, declared: bool = True) -> set[Card]:
    """The cards everyone has seen: the table, the captured piles, and (`declared`) the
    declared cards still in hand."""
    public: set[Card] = set(deal._table)
    for pile in deal._piles:
        public.update(pile)
    if declared:
        for pending in deal._pending:
            public.update(pending)
    return public


def last_play(deal: Deal) -> bool:
    """Is the next play the smazzata's last (no scopa on it, P7)?"""
    return deal.deck_left == 0 and sum(len(h) for h in deal._hands) == 1


def capturing_cards(deal: Deal, cards: Iterable[Card], last: bool) -> tuple[set[Card], set[Card]]:
    """Of `cards`, those that would capture on `deal`'s table, and those of them that
    would sweep it (never on the `last` play); the table is not empty."""
    table = len(deal._table)
    capture: set[Card] = set()
    scopa: set[Card] = set()
    for card in cards:
        for option in deal._plays_of([card]):
            if option.captured:
                capture.add(card)
                if not last and len(option.captured) == table:
                    scopa.add(card)
    return capture, scopa


def _greedy_better(replay: Deal, move: Move, last: bool) -> frozenset[Card]:
    """The cards whose best play greedy would have preferred to `move` (the greedy bot's
    key: its score, then the lower card), judged as greedy judges: sweep threats from
    every card not yet public. Greedy's choice is the best over the cards held, so each
    such card held is, alone, a surprise."""
    public = _public(replay)
    card = move.card
    assert card is not None
    threats = {c.value for c in full_deck() if c not in public and c is not card}
    values = replay._tkey
    table = replay._table
    played = (greedy_score(move, values, table, threats, last), -card.value)
    better: set[Card] = set()
    for other in full_deck():
        if other in public or other is card:
            continue
        for option in replay._plays_of([other]):
            if (greedy_score(option, values, table, threats, last), -other.value) > played:
                better.add(other)
                break
    return frozenset(better)
