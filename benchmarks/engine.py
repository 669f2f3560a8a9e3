"""Engine speed: random smazzate through the public API on one core.

    python benchmarks/engine.py [--hands 20000] [--warmup 2000] [--preset cirulla]

Each hand is `Deal(rules, players, dealer, seed=i)`, then `legal_moves()` and
`play()` of a random legal move until `is_over`, then `score()`: what a bot
author's loop does. Prints hands per second and moves per second for 4 and 2
players, the interpreter and whether the engine is the compiled build, and the
peak memory (RSS) of the process.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import resource
import sys
import time

import cirulla
import cirulla.deal
from cirulla import Deal, Rules


def run(rules: Rules, players: int, hands: int, first_seed: int) -> tuple[float, float]:
    """(hands per second, moves per second) over `hands` smazzate."""
    rng = random.Random(first_seed)
    moves = 0
    start = time.perf_counter()
    for i in range(first_seed, first_seed + hands):
        deal = Deal(rules, players=players, dealer=i % players, seed=i)
        while not deal.is_over:
            legal = deal.legal_moves()
            deal.play(legal[int(rng.random() * len(legal))])
            moves += 1
        deal.score()
    elapsed = time.perf_counter() - start
    return hands / elapsed, moves / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20_000, help="measured hands per run")
    parser.add_argument("--warmup", type=int, default=2_000, help="hands played first, unmeasured")
    parser.add_argument("--preset", default="cirulla", choices=Rules.presets())
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    rules = Rules.preset(args.preset)
    compiled = not cirulla.deal.__file__.endswith(".py")
    print(
        f"cirulla {cirulla.__version__}, {'compiled (mypyc)' if compiled else 'pure Python'} build"
    )
    print(f"{platform.python_implementation()} {platform.python_version()} at {sys.executable}")
    print(f"preset {args.preset}, {args.hands} hands per run after {args.warmup} warm-up hands")
    for players in (4, 2):
        try:
            rules.check_players(players)
        except ValueError:
            continue
        run(rules, players, args.warmup, 10_000_000)
        hands_s, moves_s = run(rules, players, args.hands, 0)
        print(f"{players} players: {hands_s:,.0f} hands/s, {moves_s:,.0f} moves/s")
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak memory (RSS): {peak_kib / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
