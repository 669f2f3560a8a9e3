"""The playouts' move policies: greedy's score with its ways of judging the sweep risk a
play leaves (the modes), the softmax of those scores that models the others' play, and
the lookahead that reads the next player's real cards. The search (playouts.py) asks
them for every move of a playout and of the others in the tree; compiled (setup.py)."""

from __future__ import annotations

import math
import random
from typing import Final

from ..captures import captures_by_value
from ..cards import Card
from ..deal import Deal
from ..moves import Move
from .draws import below
from .evaluate import CARD_WEIGHT, SCOPA, greedy_score, live_adjustment, set_holdings, touches_set

__all__ = [
    "LIVE",
    "LOOKAHEAD",
    "NEXT_HAND",
    "SAMPLED",
    "UNSEEN",
    "judged_threats",
    "lookahead_move",
    "policy_move",
    "softmax_move",
    "sweep_threats",
]


#: How the playouts' greedy policy judges sweep risks (`threats`).
NEXT_HAND: Final = 0  # the next player's cards in this determinization
UNSEEN: Final = 1  # every card in the others' hands and the deck, as the greedy bot judges
SAMPLED: Final = 2  # as many cards as the next player holds, drawn from those
LOOKAHEAD: Final = 3  # no risk term: the next player's best reply, from its real cards
#: Added to a mode: the greedy policy also weighs grande and piccola cards by whether
#: their set is still alive (`live_adjustment`; LOOKAHEAD and the softmax do not read it).
LIVE: Final = 8


def sweep_threats(deal: Deal, seat: int, mode: int, rng: random.Random) -> set[int]:
    """The values that might sweep what `seat` leaves (see NEXT_HAND, UNSEEN, SAMPLED)."""
    nxt = deal._hands[deal._next_seat[seat]]
    if mode == NEXT_HAND:
        return {c.value for c in nxt}
    if mode == UNSEEN:
        # the set alone, and the deck read only until every value is in it
        unseen: set[int] = set()
        for other, hand in enumerate(deal._hands):
            if other != seat:
                for c in hand:
                    unseen.add(c.value)
        for c in deal._deck:
            if len(unseen) == 10:
                break
            unseen.add(c.value)
        return unseen
    pool: list[int] = []
    for other, hand in enumerate(deal._hands):
        if other != seat:
            for c in hand:
                pool.append(c.value)
    for c in deal._deck:
        pool.append(c.value)
    threats: set[int] = set()
    n = len(pool)
    for i in range(min(len(nxt), n)):  # a partial shuffle: the first k of a random order
        j = i + below(rng, n - i)
        pool[i], pool[j] = pool[j], pool[i]
        threats.add(pool[i])
    return threats


def policy_move(
    deal: Deal, legal: list[Move], mode: int = NEXT_HAND, rng: random.Random | None = None
) -> Move:
    """The playouts' greedy choice (greedy's own score), declaring when it can; the sweep
    risk judged as `mode` says (`rng` draws the SAMPLED cards; with LIVE added, the sets
    read live)."""
    seat = deal.to_move
    assert seat is not None
    live = mode >= LIVE
    if live:
        mode -= LIVE
    if mode == LOOKAHEAD:
        return lookahead_move(deal, legal, seat)
    threats = judged_threats(deal, seat, mode, rng)
    values = deal._tkey
    table = deal._table
    last = deal.deck_left == 0 and deal._stage_plays + 1 == deal._stage_len
    best = legal[0]
    best_score = -1e9
    holdings: tuple[list[int], list[int]] | None = None
    side = deal._side[seat] if live else -1  # the mover's side, read by the live sets
    for move in legal:
        if move.kind != "play":
            if move.kind == "declare":
                return move
            continue
        score = greedy_score(move, values, table, threats, last)
        if live and touches_set(move):
            if holdings is None:  # the piles counted once a decision
                holdings = set_holdings(deal._piles, side)
            score += live_adjustment(move, deal._piles, side, holdings)
        if score > best_score:
            best, best_score = move, score
    return best


def judged_threats(deal: Deal, seat: int, mode: int, rng: random.Random | None) -> set[int]:
    """The values greedy fears to leave a sweep to, as `mode` judges them (not LOOKAHEAD)."""
    if mode == NEXT_HAND:
        return {c.value for c in deal._hands[deal._next_seat[seat]]}
    assert rng is not None
    return sweep_threats(deal, seat, mode, rng)


def softmax_move(deal: Deal, legal: list[Move], beta: float, mode: int, rng: random.Random) -> Move:
    """A play drawn with probability proportional to exp(beta * greedy's score): the
    model fitted to the searchers' own plays (benchmarks/policy_fit.py), where the policy
    plays greedy's best; declaring when it can, as the policy does. LOOKAHEAD judges by
    the policy (the fit used greedy's own score); LIVE is not read (the fit did not)."""
    seat = deal.to_move
    assert seat is not None
    if mode >= LIVE:
        mode -= LIVE
    if mode == LOOKAHEAD:
        return lookahead_move(deal, legal, seat)
    threats = judged_threats(deal, seat, mode, rng)
    values = deal._tkey
    table = deal._table
    last = deal.deck_left == 0 and deal._stage_plays + 1 == deal._stage_len
    plays: list[Move] = []
    scores: list[float] = []
    for move in legal:
        if move.kind != "play":
            if move.kind == "declare":
                return move
            continue
        plays.append(move)
        scores.append(greedy_score(move, values, table, threats, last))
    if not plays:
        return legal[0]
    top = max(scores)
    weights = [math.exp(beta * (x - top)) for x in scores]
    pick = rng.random() * sum(weights)
    for move, w in zip(plays, weights, strict=True):
        pick -= w
        if pick < 0.0:
            return move
    return plays[-1]


def lookahead_move(deal: Deal, legal: list[Move], seat: int) -> Move:
    """Greedy's score without its sweep-risk guess, minus the best the next player can
    take from the table left (its cards in this determinization; a sweep a point)."""
    nxt = deal._hands[deal._next_seat[seat]]
    table = deal._table
    values = deal._tkey
    last = deal.deck_left == 0 and deal._stage_plays + 1 == deal._stage_len
    reply_last = deal.deck_left == 0 and deal._stage_plays + 2 == deal._stage_len
    none: set[int] = set()
    best = legal[0]
    best_score = -1e9
    for move in legal:
        if move.kind != "play":
            if move.kind == "declare":
                return move
            continue
        score = greedy_score(move, values, table, none, last)
        card = move.card
        assert card is not None
        if not last and nxt:
            captured = move.captured
            left_cards: list[Card] = []
            left_values: list[int] = []
            for i, c in enumerate(table):
                if c not in captured:
                    left_cards.append(c)
                    left_values.append(values[i])
            if not captured:
                left_cards.append(card)
                left_values.append(card.value)
            if left_cards:
                score -= _best_reply(deal, left_cards, tuple(left_values), nxt, reply_last)
        if score > best_score:
            best, best_score = move, score
    return best


def _best_reply(
    deal: Deal, cards: list[Card], values: tuple[int, ...], hand: list[Card], last: bool
) -> float:
    """What the best capture of one of `hand` on this table is worth (evaluate's weights)."""
    caps = captures_by_value(values, deal._scopa, deal._ace_choice)
    full = (1 << len(cards)) - 1
    best = 0.0
    for card in hand:
        for mask in caps[card.value]:
            gain = CARD_WEIGHT[card.id]
            m = mask
            while m:
                low = m & -m
                gain += CARD_WEIGHT[cards[low.bit_length() - 1].id]
                m ^= low
            if mask == full and not last:
                gain += SCOPA
            if gain > best:
                best = gain
    return best
