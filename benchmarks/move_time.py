"""CPU seconds a move of campione and its parts, from positions with evidence.

    python benchmarks/move_time.py [--positions 12] [--iterations 3000]
        [--variants new,new_without_infer] [--json F]

Issue 16 caps campione at 1 s a move on one core. Each position is a 4-player
smazzata (preset cirulla) some moves in, played by greedy bots, so the opponent model
has plays to weigh. Each variant searches every position with the same seed and
iteration budget (position by position, the variants in turn, so that a drift of the
machine's speed weighs on all alike); the figure is `process_time` (CPU, not wall: a
loaded machine does not inflate it much), mean, 90th percentile and max over the
positions, and how many positions took over campione's 1 s cap (where the level's
search would stop early):

- `old`: the campione of 2026-11-21 (ismcts, default options);
- `new`: today's campione (`levels.CAMPIONE_OPTIONS`), whose rejection sampler redraws
  up to 20 times a sample, more the more evidence there is;
- `new_without_infer`: the same without the opponent model, so the difference is what
  sampling by the model costs;
- `new_chain`: today's campione drawing the model's posterior by its Metropolis chain
  (`sampler="chain"`), at a cost a sample that does not grow with the evidence;
- `new_mixture`: today's campione weighing each hidden seat as a greedy player or a
  searcher (`mixture=True`, docs/strength.md);
- `new_softmax`: today's campione reading the others' plays by the softmax model fitted
  to the searchers (`softmax=[3.0, 0.3]`, docs/strength.md, 2026-12-05);
- `new_others_beta`: today's campione drawing the other sides' moves in the tree by
  that softmax (`others_beta=3.0`, docs/strength.md, 2026-12-05, a third);
- `new_others_lookahead`: today's campione whose other sides' tree moves reply to the
  next player's cards (`others_threats="lookahead"`, docs/strength.md, 2026-12-05, a
  fourth);
- `new_both`: the softmax reading and the lookahead together (docs/strength.md,
  2026-12-05, a fifth).

Campione's own budget is `--iterations 3000` (1,500 until 2026-11-28).
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path
from typing import Any

from _report import write_json

import cirulla.deal
from cirulla import Deal, Rules, bots
from cirulla.bots import Budget
from cirulla.bots.base import choose_move
from cirulla.bots.levels import CAMPIONE_OPTIONS

MODEL = ("infer", "missed_greedy", "missed_bonus")


def positions(count: int) -> list[Deal]:
    rules = Rules.preset("cirulla")
    found = []
    for seed in range(count):
        deal = Deal(rules, 4, seed % 4, seed=700 + seed)
        greedy = bots.get("greedy", seed=seed)
        for _ in range(5 + seed % 4):  # into the first or second stage
            deal.play(choose_move(greedy, deal))
        found.append(deal)
    return found


VARIANTS: dict[str, dict[str, Any]] = {
    "old": {},
    "new": dict(CAMPIONE_OPTIONS),
    "new_without_infer": {k: v for k, v in CAMPIONE_OPTIONS.items() if k not in MODEL},
    "new_chain": {**CAMPIONE_OPTIONS, "sampler": "chain"},
    "new_mixture": {**CAMPIONE_OPTIONS, "mixture": True},
    "new_softmax": {**CAMPIONE_OPTIONS, "softmax": [3.0, 0.3]},
    "new_others_beta": {**CAMPIONE_OPTIONS, "others_beta": 3.0},
    "new_others_lookahead": {**CAMPIONE_OPTIONS, "others_threats": "lookahead"},
    "new_both": {**CAMPIONE_OPTIONS, "softmax": [3.0, 0.3], "others_threats": "lookahead"},
}


def measure(deals: list[Deal], iterations: int, names: list[str]) -> dict[str, Any]:
    # position by position, every variant in turn: a drift of the machine's speed
    # during the run weighs on every variant alike
    times: dict[str, list[float]] = {name: [] for name in names}
    for k, deal in enumerate(deals):
        for name in names:
            budget = Budget(iterations=iterations)
            bot = bots.get("ismcts", seed=k, budget=budget, **VARIANTS[name])
            start = time.process_time()
            choose_move(bot, deal.copy())
            times[name].append(time.process_time() - start)
    out: dict[str, Any] = {}
    for name in names:
        ranked = sorted(times[name])
        out[name] = {
            "mean": sum(ranked) / len(ranked),
            "p90": ranked[min(len(ranked) - 1, (9 * len(ranked)) // 10)],
            "max": ranked[-1],
            "over_1s": sum(t > 1.0 for t in ranked),
            "options": VARIANTS[name],
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help=f"comma-separated, of {', '.join(VARIANTS)} (default: all)",
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    names = [name.strip() for name in args.variants.split(",") if name.strip()]
    unknown = [name for name in names if name not in VARIANTS]
    if unknown or not names:
        bad = f" (unknown: {', '.join(unknown)})" if unknown else ""
        parser.error(f"--variants: name one or more of {', '.join(VARIANTS)}{bad}")
    if not 1 <= args.positions <= 1000 or not 1 <= args.iterations <= 1_000_000:
        parser.error("--positions must be 1..1000 and --iterations 1..1,000,000")
    compiled = not cirulla.deal.__file__.endswith(".py")
    build = "compiled (mypyc)" if compiled else "pure Python"
    print(f"{build}, {platform.python_implementation()} {platform.python_version()}")
    figures = measure(positions(args.positions), args.iterations, names)
    for name, f in figures.items():
        print(
            f"{name:>18}: {f['mean']:.3f} s CPU a move (90% within {f['p90']:.3f} s, at most"
            f" {f['max']:.3f} s; {f['over_1s']} of {args.positions} over 1 s)"
        )
    if args.json:
        report = {"build": build, "positions": args.positions, "iterations": args.iterations}
        write_json({**report, "variants": figures}, args.json)


if __name__ == "__main__":
    main()
