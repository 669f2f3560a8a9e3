"""How much each way of ending a playout scatters from one determinization to the next.

    python benchmarks/leaf_noise.py [--players 4] [--positions 30] [--samples 300]
        [--json PATH]

Each search iteration scores one determinization by one leaf: a greedy playout to the
smazzata's end (`whole`), the playout cut at its stage's end and the learned value
(`cut`, `ismcts` option `leaf="cut"`), or the same cut with the value averaged over the
hands it finds just dealt (`cut_mean`, `leaf="cut_mean"`). At each of `--positions`
positions (random play from a seeded deal, up to two rounds into the smazzata) it draws
`--samples` determinizations of the mover's view as the search's plain sampler does,
scores each by each leaf (the mover's side's points minus the other's), and prints the
mean over positions of each leaf's standard deviation: the noise the tree has to average
away, not how right the leaf is (the arena says that; docs/strength.md, 2026-12-06, a
third).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path
from typing import Any

from _report import write_json

from cirulla import Deal, Rules
from cirulla.bots.leafvalue import leaf_model
from cirulla.bots.playouts import cut_playout, playout
from cirulla.bots.policies import UNSEEN
from cirulla.determinize import determinize

LEAVES = ("whole", "cut", "cut_mean")


def measure(players: int, positions: int, samples: int) -> dict[str, Any]:
    rules = Rules.preset("cirulla")
    leaf = leaf_model(rules, players)
    if leaf is None:
        raise SystemExit(f"no leaf value is fitted for {players} players")
    averaged = leaf.averaged()
    spread: dict[str, list[float]] = {k: [] for k in LEAVES}
    for seed in range(positions):
        deal = Deal(rules, players, seed % players, seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 2 * players * 2)):
            deal.play(rng.choice(deal.legal_moves()))
        seat = deal.to_move
        assert seat is not None
        side = deal.side_of(seat)
        view = deal.view(seat)
        for name in LEAVES:
            draw = random.Random(seed * 7 + 1)  # the same determinizations for each leaf
            values = []
            for _ in range(samples):
                det = determinize(view, draw)
                if name == "whole":
                    totals = playout(det, draw, 0.1, UNSEEN, side)
                    values.append(float(totals[side] - totals[1 - side]))
                else:
                    value = leaf if name == "cut" else averaged
                    values.append(cut_playout(det, draw, value, 0.1, UNSEEN, side))
            spread[name].append(statistics.pstdev(values))
    return {
        "benchmark": "leaf_noise",
        "players": players,
        "positions": positions,
        "samples": samples,
        "mean_sd": {k: round(statistics.mean(v), 3) for k, v in spread.items()},
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=4, choices=(2, 4), help="two sides")
    p.add_argument("--positions", type=int, default=30)
    p.add_argument("--samples", type=int, default=300)
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    if args.positions < 1 or args.samples < 2:
        p.error("--positions must be at least 1 and --samples at least 2")
    result = measure(args.players, args.positions, args.samples)
    for name, sd in result["mean_sd"].items():
        print(f"{args.players} players, {name}: a leaf's standard deviation {sd:.2f} points")
    write_json(result, args.json, said=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
