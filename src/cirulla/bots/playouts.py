"""The search bots' hot loop: playouts, the UCB tree search and the PIMC sampling loop
(the bot classes in search.py only set them up; the playouts' move policies are in
policies.py).

Kept apart from the bot classes so that the compiled build compiles it with mypyc
(setup.py): a compiled class cannot inherit from `Bot`, which stays plain Python.
A bot must decide the same for the same seed in both builds (arena runs and
tests/test_bots_search_pinned.py rely on it): the same draws from the generator in
the same order, the same float arithmetic in the same order, the same tie-breaks.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Final

from ..deal import Deal
from ..moves import Move
from .base import Budget
from .draws import below
from .leafvalue import LeafValue
from .policies import NEXT_HAND, policy_move, softmax_move

__all__ = [
    "DEFAULT_EPSILON",
    "REWARD_SCALE",
    "Clock",
    "cut_playout",
    "most_visited",
    "pimc_search",
    "playout",
    "reward",
    "ucb_search",
    "ucb_visits",
]

DEFAULT_EPSILON: Final = 0.3
REWARD_SCALE: Final = 10.0  # points per smazzata that count as one unit for UCB


def playout(
    deal: Deal,
    rng: random.Random,
    epsilon: float = DEFAULT_EPSILON,
    threats: int = NEXT_HAND,
    side: int = -1,
    others_epsilon: float = -1.0,
    policy: Callable[[Deal], Move] | None = None,
) -> list[int]:
    """Play the smazzata to its end (epsilon-greedy); return each side's points.
    `threats`: how the greedy policy judges sweep risks (NEXT_HAND, UNSEEN, SAMPLED).
    `others_epsilon` (if >= 0): the epsilon of the sides other than `side`. `policy`,
    if given, plays in place of the greedy policy (its move must be legal)."""
    while not deal.is_over:
        deal.play(_playout_move(deal, rng, epsilon, threats, side, others_epsilon, policy))
    return deal.score().totals


def _playout_move(
    deal: Deal,
    rng: random.Random,
    epsilon: float,
    threats: int,
    side: int,
    others_epsilon: float,
    policy: Callable[[Deal], Move] | None,
) -> Move:
    """One move of a playout (`playout`'s arguments)."""
    legal = deal.legal_moves()
    if len(legal) == 1:
        return legal[0]
    if rng.random() < (
        epsilon if others_epsilon < 0.0 or deal.side_of(deal.to_move) == side else others_epsilon
    ):
        return legal[below(rng, len(legal))]
    if policy is not None:
        return policy(deal)
    return policy_move(deal, legal, threats, rng)


def cut_playout(
    deal: Deal,
    rng: random.Random,
    leaf: LeafValue,
    epsilon: float = DEFAULT_EPSILON,
    threats: int = NEXT_HAND,
    side: int = 0,
    others_epsilon: float = -1.0,
    policy: Callable[[Deal], Move] | None = None,
    within: int = 0,
) -> float:
    """`playout` to the end of the stage being played, then `leaf`'s value: `side`'s
    points minus the other side's (two sides), at the smazzata's end as the value
    expects them (exactly, if the smazzata ended). `within` (if > 0): on past stage
    ends until at most `within` stages are left, the one just dealt included."""
    stage = deal._stage
    last = deal._last_stage
    while not deal.is_over and (deal._stage == stage or last - deal._stage >= within > 0):
        deal.play(_playout_move(deal, rng, epsilon, threats, side, others_epsilon, policy))
    if deal.is_over:
        totals = deal.score().totals
        return float(totals[side] - totals[1 - side])
    mover = deal.to_move
    assert mover is not None
    value = leaf.value(deal)
    return value if deal.side_of(mover) == side else -value


def reward(totals: list[int], side: int) -> float:
    """The side's score difference against the others, scaled for UCB."""
    others = [t for s, t in enumerate(totals) if s != side]
    return (totals[side] - sum(others) / len(others)) / REWARD_SCALE


class Clock:
    """Stops a search at its budget: iterations, seconds, whichever comes first."""

    def __init__(self, budget: Budget) -> None:
        self.iterations = budget.iterations
        self.deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
        self.done = 0

    def more(self) -> bool:
        if self.iterations is not None and self.done >= self.iterations:
            return False
        return not (
            self.deadline is not None and self.done % 8 == 0 and time.perf_counter() > self.deadline
        )


class _Node:
    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[object, tuple[Move, _Node]] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0


def ucb_search(
    base: Deal,
    sample: Callable[[], Deal],
    legal: list[Move],
    rng: random.Random,
    clock: Clock,
    exploration: float,
    epsilon: float,
    bias: dict[object, float] | None = None,
) -> Move:
    """Information-set UCB search from `base` (its seat to move), a deal from `sample`
    at each iteration; the most visited of the `legal` root moves.

    `bias` (root moves' prior, <= 0) steers the root's early visits: its moves are
    tried best first and its term fades as visits grow. `clock.done` counts the
    iterations."""
    visits = ucb_visits(base, sample, legal, rng, clock, exploration, epsilon, bias)
    return most_visited(legal, visits)


def most_visited(legal: list[Move], visits: list[int]) -> Move:
    """The legal move with the most visits, the first of them on a tie."""
    best = legal[0]
    most = visits[0]
    for move, count in zip(legal, visits, strict=True):
        if count > most:
            best, most = move, count
    return best


def ucb_visits(
    base: Deal,
    sample: Callable[[], Deal],
    legal: list[Move],
    rng: random.Random,
    clock: Clock,
    exploration: float,
    epsilon: float,
    bias: dict[object, float] | None = None,
    expand_policy: bool = False,
    threats: int = NEXT_HAND,
    others_policy: bool = False,
    others_epsilon: float = -1.0,
    policy: Callable[[Deal], Move] | None = None,
    others_beta: float = 0.0,
    others_threats: int = -1,
    leaf: LeafValue | None = None,
    cut_within: int = 0,
) -> list[int]:
    """The search of `ucb_search`; each `legal` root move's visits (-1: never tried),
    which root parallelism adds up over independent searches.

    `expand_policy`: a node grows the untried move the playout policy would play
    (epsilon-greedy) rather than a random one. `threats`: how the policy judges sweep
    risks (NEXT_HAND, UNSEEN, SAMPLED; LIVE added: the sets read live). `others_policy`:
    the other sides' moves in the tree are the policy's too, not chosen by UCB (an
    opponent model). `others_epsilon` (if >= 0): the other sides' epsilon, in the tree
    and the playouts. `policy`: the playouts' policy in place of the greedy one
    (`playout`). `others_beta` (if > 0,
    with `others_policy`): the other sides' moves in the tree drawn by a softmax of
    greedy's scores at that beta (`softmax_move`), not greedy's best. `others_threats`
    (if >= 0, with `others_policy`): how the other sides' tree moves judge sweep risks,
    in place of `threats` (LOOKAHEAD: their best reply to the next player's cards).
    `leaf` (two sides only): each playout stops at the end of its stage and `leaf`
    values the rest (`cut_playout`; `cut_within` its `within`)."""
    root = _Node()
    c = exploration
    side_of = base.side_of
    root_side = side_of(base.to_move)
    other_eps = epsilon if others_epsilon < 0.0 else others_epsilon
    other_mode = threats if others_threats < 0 else others_threats
    while clock.more():
        deal = sample()
        node = root
        path: list[tuple[_Node, int]] = []
        while not deal.is_over:
            moves = deal.legal_moves()
            mover = deal.to_move
            assert mover is not None
            children = node.children
            if others_policy and node is not root and side_of(mover) != root_side:
                if len(moves) == 1:
                    move = moves[0]
                elif rng.random() >= other_eps:
                    move = (
                        softmax_move(deal, moves, others_beta, other_mode, rng)
                        if others_beta > 0.0
                        else policy_move(deal, moves, other_mode, rng)
                    )
                else:
                    move = moves[below(rng, len(moves))]
                entry = children.get(move.key)
                deal.play(move)
                if entry is None:
                    child = _Node()
                    children[move.key] = (move, child)
                    path.append((child, side_of(mover)))
                    break
                child = entry[1]
                path.append((child, side_of(mover)))
                node = child
                continue
            untried = []
            for m in moves:
                entry = children.get(m.key)
                if entry is None:
                    untried.append(m)
                else:
                    entry[1].avail += 1
            if untried:
                if bias is not None and node is root:
                    move = max(untried, key=lambda m: bias.get(m.key, -1.0))
                elif expand_policy and len(untried) > 1 and rng.random() >= epsilon:
                    move = policy_move(deal, untried, threats, rng)
                else:
                    move = untried[below(rng, len(untried))]
                child = _Node()
                child.avail = 1
                children[move.key] = (move, child)
                deal.play(move)
                path.append((child, side_of(mover)))
                break
            best_value = -1e18
            move = moves[0]
            child = children[move.key][1]
            for m in moves:
                ch = children[m.key][1]
                value = ch.total / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                if bias is not None and node is root:
                    value += bias.get(m.key, -1.0) * 10.0 / (ch.visits + 1) ** 0.5
                if value > best_value:
                    best_value, move, child = value, m, ch
            deal.play(move)
            path.append((child, side_of(mover)))
            node = child
        if leaf is not None:
            # two sides: a side's reward is its points minus the other's, scaled
            ours = cut_playout(
                deal, rng, leaf, epsilon, threats, root_side, others_epsilon, policy, cut_within
            )
            for child, side in path:
                child.visits += 1
                child.total += (ours if side == root_side else -ours) / REWARD_SCALE
            clock.done += 1
            continue
        totals = (
            playout(deal, rng, epsilon, threats, root_side, others_epsilon, policy)
            if not deal.is_over
            else deal.score().totals
        )
        for child, side in path:
            child.visits += 1
            child.total += reward(totals, side)
        clock.done += 1
    children = root.children
    return [children[m.key][1].visits if m.key in children else -1 for m in legal]


def pimc_search(
    base: Deal,
    seat: int,
    side: int,
    legal: list[Move],
    rng: random.Random,
    clock: Clock,
    epsilon: float,
) -> Move:
    """Perfect-information Monte Carlo from `base` (determinized for `seat`): every
    `legal` move played out on the same fresh sample of the hidden cards, round after
    round; the move with the best average reward for `side`."""
    totals = [0.0] * len(legal)
    sample = base
    while clock.more():
        i = clock.done % len(legal)
        if i == 0:  # a new sample; every move is played out on the same one
            sample = base.copy()
            sample.redeal_unseen(seat, rng)
        deal = sample.copy()
        deal.play(legal[i])
        totals[i] += reward(playout(deal, rng, epsilon), side)
        clock.done += 1
    rounds = [
        clock.done // len(legal) + (1 if i < clock.done % len(legal) else 0)
        for i in range(len(legal))
    ]
    return legal[max(range(len(legal)), key=lambda i: totals[i] / max(1, rounds[i]))]
