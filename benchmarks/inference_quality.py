"""How close each determinization sampler comes to the hidden hands, and what it costs.

    python benchmarks/inference_quality.py [--deals 60] [--samples 200] [--players 4]
        [--opponents normale] [--missed F] [--seed 1] [--json PATH]

Plays `--deals` smazzate of `--opponents` bots (preset cirulla; `campione` for the
level's search) and, at every turn of seat 0 where the opponent model has evidence
(a hidden seat played earlier in the stage), draws `--samples` determinizations with
each sampler of `IsmctsBot(infer=True)`'s kind, with campione's model (missed_greedy
and missed_bonus 0.05; `--missed F` sets both):

- `uniform`: a redraw of every card seat 0 cannot see (`Deal.redeal_unseen`);
- `reject`: the rejection sampler campione uses (`sampler="reject"`);
- `chain`: the Metropolis chain (`sampler="chain"`, `bots/posterior.py`).

Figures per sampler: `real_share`, the share of the hidden hands' sampled cards (the
seats' undeclared cards) that are the cards those seats really hold (the closer to 1,
the more the sampler knows; uniform is the floor); `real_weight`, the model's weight of
the real hands, for scale (mean over positions); `ms_per_sample`, wall-clock
milliseconds a sample (one core, whichever build is installed). Prints JSON.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from _report import write_json

from cirulla import Deal, Rules
from cirulla.bots import level_bot
from cirulla.bots.base import SeatView
from cirulla.bots.inference import PlayEvidence
from cirulla.bots.levels import CAMPIONE_OPTIONS
from cirulla.bots.posterior import PosteriorSampler, RejectionSampler
from cirulla.bots.search import INFER_TRIES
from cirulla.determinize import determinize
from cirulla.views import visible_hands

MODEL = {k: CAMPIONE_OPTIONS[k] for k in ("missed_greedy", "missed_bonus")}


def positions(players: int, deals: int, opponents: str, seed: int) -> list[tuple[Deal, int]]:
    """(the real deal, seat 0 to move) at each turn of seat 0 with evidence."""
    rules = Rules.preset("cirulla")
    bots = [level_bot(opponents, seed=seed + s) for s in range(players)]
    found: list[tuple[Deal, int]] = []
    for d in range(deals):
        deal = Deal(rules, players=players, dealer=d % players, seed=seed * 1000 + d)
        while not deal.is_over:
            seat = deal.to_move
            assert seat is not None
            if seat == 0 and len(deal.legal_moves()) > 1:
                found.append((deal.copy(), seat))
            deal.play(bots[seat].choose(SeatView(deal.view(seat))))
    return found


def real_share(sample: Deal, real: Deal, hidden: list[int]) -> tuple[int, int]:
    hits = total = 0
    for s in hidden:
        declared = real.declared(s)
        truth = set(real.hand(s)) - set(declared)
        drawn = [c for c in sample.hand(s) if c not in declared]
        hits += sum(c in truth for c in drawn)
        total += len(drawn)
    return hits, total


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=60)
    p.add_argument("--samples", type=int, default=200)
    p.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--opponents", default="normale", help="a level: facile .. campione")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--missed",
        type=float,
        default=None,
        help="the model's missed_greedy and missed_bonus (default campione's)",
    )
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    if args.missed is not None:
        if not 0.0 < args.missed <= 1.0:
            p.error("--missed must be above 0 and at most 1")
        MODEL.update(missed_greedy=args.missed, missed_bonus=args.missed)
    rng = random.Random(args.seed)
    stats: dict[str, dict[str, Any]] = {
        k: {"hits": 0, "cards": 0, "seconds": 0.0, "samples": 0}
        for k in ("uniform", "reject", "chain")
    }
    weights: list[float] = []
    used = 0
    for real, seat in positions(args.players, args.deals, args.opponents, args.seed):
        view = real.view(seat)
        base = determinize(view, rng)
        seen = visible_hands(real, seat)
        hidden = [s for s in range(real.players) if s not in seen]
        evidence = PlayEvidence(
            base, hidden, missed_bonus=MODEL["missed_bonus"], missed_greedy=MODEL["missed_greedy"]
        )
        if not evidence.informative:
            continue
        used += 1
        weights.append(evidence.weight(real))

        def uniform(base: Deal = base, seat: int = seat) -> Deal:
            deal = base.copy()
            deal.redeal_unseen(seat, rng)
            return deal

        reject = RejectionSampler(base, seat, evidence, rng, INFER_TRIES)

        start = time.perf_counter()
        chain = PosteriorSampler(base, seat, evidence, rng)
        chain_setup = time.perf_counter() - start
        for name, draw in (("uniform", uniform), ("reject", reject), ("chain", chain)):
            entry = stats[name]
            start = time.perf_counter()
            drawn = [draw() for _ in range(args.samples)]
            entry["seconds"] += time.perf_counter() - start
            if name == "chain":  # its burn-in counts too
                entry["seconds"] += chain_setup
            entry["samples"] += args.samples
            for sample in drawn:
                h, t = real_share(sample, real, hidden)
                entry["hits"] += h
                entry["cards"] += t
    result = {
        "benchmark": "inference_quality",
        "players": args.players,
        "opponents": args.opponents,
        "deals": args.deals,
        "positions": used,
        "samples_per_position": args.samples,
        "model": MODEL,
        "real_weight": round(statistics.fmean(weights), 3) if weights else None,
        "samplers": {
            name: {
                "real_share": round(e["hits"] / e["cards"], 4) if e["cards"] else None,
                "ms_per_sample": (
                    round(1000 * e["seconds"] / e["samples"], 4) if e["samples"] else None
                ),
            }
            for name, e in stats.items()
        },
    }
    write_json(result, args.json, echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
