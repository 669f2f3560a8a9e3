"""How much of campione's tree would still be of use at its next move (tree reuse).

    python benchmarks/tree_reuse.py [--deals 20] [--samples 1000] [--players 4]
        [--seed 1] [--json PATH]

Reusing the search tree between moves (keeping the subtree below the moves really
played since) gives iterations for free only if the search's iterations went down
the path the table then took. Plays `--deals` smazzate of campione (seats of side 0)
against normale (preset cirulla) and, at every turn of seat 0 with a choice, draws
`--samples` determinizations from campione's own sampler and follows each down the
moves really played until seat 0's next turn, as campione's tree would: its own
side's moves are chosen by UCB there, so a sample follows them whenever the real move
is legal in it (an upper bound: UCB might go elsewhere); the other side's moves are
the playout policy's (campione's `others="policy"`, epsilon 0.1), so a sample follows
them only when the policy picks the real move.

Figures: `reach_next_turn`, the share of samples that reach seat 0's next turn (the
mean over positions); `reused_iterations`, that share times campione's 3,000
iterations (the upper bound of what reuse could add to its next search), and the
share after each of the moves in between (`reach_by_step`); `reach_after_round`, the
mean over the positions where every other seat moved in between (not only seat 0's
declaration before its play, which a sample always follows). Prints JSON.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

from _report import write_json

from cirulla import Deal, Move, Rules
from cirulla.bots import level_bot
from cirulla.bots.base import SeatView
from cirulla.bots.ismcts_options import THREATS
from cirulla.bots.levels import LEVELS
from cirulla.bots.policies import policy_move
from cirulla.bots.search import IsmctsBot
from cirulla.determinize import determinize

_BUDGET = LEVELS["campione"].budget
ITERATIONS = (_BUDGET.iterations if _BUDGET is not None else None) or 0


def play(players: int, seed: int, d: int) -> tuple[Deal, list[int], list[Deal], list[int]]:
    """A smazzata of campione (side 0) against normale: the finished deal, the move
    indices at which seat 0 chose among several moves, the deal at each of them, and the
    seat that made each move."""
    rules = Rules.preset("cirulla")
    deal = Deal(rules, players=players, dealer=d % players, seed=seed * 1000 + d)
    bots = [
        level_bot("campione" if deal.side_of(s) == 0 else "normale", seed=seed + s)
        for s in range(players)
    ]
    turns: list[int] = []
    at: list[Deal] = []
    seats: list[int] = []
    while not deal.is_over:
        seat = deal.to_move
        assert seat is not None
        if seat == 0 and len(deal.legal_moves()) > 1:
            turns.append(len(deal.moves))
            at.append(deal.copy())
        seats.append(seat)
        deal.play(bots[seat].choose(SeatView(deal.view(seat))))
    return deal, turns, at, seats


def follow(
    sample: Deal,
    path: list[Move],
    root_side: int,
    rng: random.Random,
    threats: int,
    epsilon: float = 0.1,
) -> int:
    """How many of `path`'s moves (the first is seat 0's own) the tree would follow, its
    other side playing the policy with the search's `epsilon`."""
    for step, real in enumerate(path):
        moves = sample.legal_moves()
        by_key = {m.key: m for m in moves}
        mover = sample.to_move
        assert mover is not None
        if step == 0 or sample.side_of(mover) == root_side:
            move = by_key.get(real.key)
            if move is None:
                return step
        else:
            if len(moves) == 1 or rng.random() >= epsilon:
                move = moves[0] if len(moves) == 1 else policy_move(sample, moves, threats, rng)
            else:
                move = moves[rng.randrange(len(moves))]
            if move.key != real.key:
                return step
        sample.play(move)
    return len(path)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=20)
    p.add_argument("--samples", type=int, default=1000)
    p.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    if args.deals < 1 or args.samples < 1:
        p.error("--deals and --samples must be at least 1")
    rng = random.Random(args.seed)
    spec = LEVELS["campione"]
    searcher = IsmctsBot(seed=args.seed, budget=spec.budget, **spec.options)
    threats = THREATS[searcher.threats]
    reach: list[float] = []
    round_reach: list[float] = []  # positions where every other seat moved in between
    by_step: dict[int, list[float]] = {}
    for d in range(args.deals):
        final, turns, at, seats = play(args.players, args.seed, d)
        for i, start in enumerate(turns):
            end = turns[i + 1] if i + 1 < len(turns) else None
            if end is None:
                continue  # no later turn of seat 0 with a choice in this smazzata
            real = at[i]
            view = SeatView(real.view(0))
            base = determinize(view.raw, rng)
            sample = searcher._sampler(base, view)
            path = final.moves[start:end]
            steps = [
                follow(sample(), path, 0, rng, threats, searcher.epsilon)
                for _ in range(args.samples)
            ]
            reach.append(sum(s == len(path) for s in steps) / len(steps))
            movers = set(seats[start:end])
            if len(movers) == final.players:
                round_reach.append(reach[-1])
            for k in range(1, len(path) + 1):
                by_step.setdefault(k, []).append(sum(s >= k for s in steps) / len(steps))
    if not reach:
        print("no position with a later turn", file=sys.stderr)
        return 1
    share = statistics.fmean(reach)
    result = {
        "benchmark": "tree_reuse",
        "players": args.players,
        "deals": args.deals,
        "samples": args.samples,
        "positions": len(reach),
        "reach_next_turn": round(share, 5),
        "reach_next_turn_max": round(max(reach), 5),
        "reused_iterations": round(share * ITERATIONS, 1),
        "round_positions": len(round_reach),
        "reach_after_round": round(statistics.fmean(round_reach), 5) if round_reach else None,
        "reach_by_step": {k: round(statistics.fmean(v), 5) for k, v in sorted(by_step.items())},
    }
    write_json(result, args.json, echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
