"""Search speed: ISMCTS iterations per second, and arena moves per second with cheap bots.

    python benchmarks/search.py [--iterations 3000] [--positions 10] [--options JSON]

ISMCTS is timed from the first move of 4-player smazzate (preset cirulla) on one
core: the determinization, then the iterations (`--options`: the ismcts options, e.g.
campione's with `"leaf": "cut"`; default none). The arena figure is whole
smazzate played by random, greedy and expert bots through views, as the arena does.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import cirulla.deal
from cirulla import Deal, Rules, bots
from cirulla.bots import Budget, SeatView


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--deals", type=int, default=200, help="smazzate per cheap-bot run")
    parser.add_argument("--options", type=json.loads, default={}, help="ismcts options (JSON)")
    args = parser.parse_args()
    if not isinstance(args.options, dict):
        parser.error("--options must be a JSON object of ismcts options")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    compiled = not cirulla.deal.__file__.endswith(".py")
    print(
        f"{'compiled (mypyc)' if compiled else 'pure Python'} engine, "
        f"{platform.python_implementation()} {platform.python_version()}"
    )
    rules = Rules.preset("cirulla")
    total_it = 0
    total_s = 0.0
    for k in range(args.positions):
        deal = Deal(rules, 4, k % 4, seed=500 + k)
        bot = bots.get("ismcts", seed=k, budget=Budget(iterations=args.iterations), **args.options)
        view = SeatView(deal.view(deal.to_move))
        if len(view.legal) == 1:
            continue
        start = time.perf_counter()
        bot.choose(view)
        total_s += time.perf_counter() - start
        total_it += bot.last_iterations  # type: ignore[attr-defined]
    print(
        f"ismcts: {total_it / total_s:,.0f} iterations/s from the first move "
        f"({args.positions} positions, {args.iterations} iterations each, "
        f"options {json.dumps(args.options)})"
    )
    for name in ("random", "greedy", "expert"):
        moves = 0
        start = time.perf_counter()
        for k in range(args.deals):
            deal = Deal(rules, 4, k % 4, seed=k)
            bots.play_deal(deal, [bots.get(name, seed=k * 4 + s) for s in range(4)])
            moves += len(deal.moves)
        elapsed = time.perf_counter() - start
        print(
            f"arena, 4 x {name}: {moves / elapsed:,.0f} moves/s, "
            f"{args.deals / elapsed:,.1f} smazzate/s"
        )


if __name__ == "__main__":
    main()
