"""`cirulla arena` with bot options: the runs of docs/strength.md that compare a search
option (inference, exploration, workers) against today's campione.

    python benchmarks/strength_arena.py ismcts ismcts --options-a '{"infer": true}' \\
        --budget-a 1500 --budget-b 1500 --pairs 20 --seed 252001 --json out.json

The same paired decks, seeds and JSON as `cirulla arena` (see cirulla.bots.arena).
Budgets are in iterations, so that load cannot change the moves; `--seconds-a` and
`--seconds-b` add a level's wall-clock cap, to measure what the cap costs (such runs
depend on the machine and its load: run them one process a core).

`handseer` (as A or B) is a yardstick of the 2026-11-27 session: the cheater's search
seeing every hand as it is now but not the undealt cards (each iteration shuffles
them), to tell how much of the cheater's edge is knowing the hands.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from cirulla.bots import Budget
from cirulla.bots.arena import ArenaConfig, BotSpec, plot_running, run_arena
from cirulla.bots.perfect_information import CheaterBot
from cirulla.deal import Deal


class HandSeer(CheaterBot):
    """The cheater's search on deals that keep every hand and shuffle the undealt cards."""

    name = "handseer"

    def _samples(self, deal: Deal) -> Callable[[], Deal]:
        def sample() -> Deal:
            copy = deal.copy()
            self.rng.shuffle(copy._deck)
            return copy

        return sample


def _spec(name: str, iterations: int, seconds: float | None, options: dict[str, object]) -> BotSpec:
    factory = HandSeer if name == "handseer" else None
    return BotSpec(name, Budget(iterations=iterations, seconds=seconds), options, factory)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--options-a", type=json.loads, default={})
    p.add_argument("--options-b", type=json.loads, default={})
    p.add_argument("--budget-a", type=int, required=True, help="iterations a move")
    p.add_argument("--budget-b", type=int, required=True, help="iterations a move")
    p.add_argument("--seconds-a", type=float, help="and at most these seconds a move")
    p.add_argument("--seconds-b", type=float, help="and at most these seconds a move")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--preset", default="cirulla")
    p.add_argument("--pairs", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--processes", type=int, default=1)
    p.add_argument("--json", type=Path)
    p.add_argument("--plot", type=Path)
    args = p.parse_args()
    config = ArenaConfig(
        a=_spec(args.a, args.budget_a, args.seconds_a, args.options_a),
        b=_spec(args.b, args.budget_b, args.seconds_b, args.options_b),
        players=args.players,
        preset=args.preset,
        pairs=args.pairs,
        seed=args.seed,
        processes=args.processes,
    )
    try:
        config.check()
    except ValueError as e:  # a bad option or budget: say which, without a traceback
        p.error(str(e))
    result = run_arena(config)
    if args.json is not None:
        args.json.write_text(json.dumps(result.to_dict(), indent=1) + "\n")
    if args.plot is not None:
        plot_running(result, args.plot)
    m = result.margin()
    print(f"A-B per smazzata {m.mean:+.2f} (95% {m.low} .. {m.high})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
