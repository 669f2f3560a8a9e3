"""Measure the bots' fixed ratings: every level against every other in the arena
(paired partite, 1 against 1, Cirulla), then a Glicko-2 fit of the results.

    python benchmarks/bot_ratings.py [--partite 100] [--campione-partite 12]
        [--campione-iterations N] [--processes 2] [--out src/cirulla/data/bot_ratings.json]
        [--record benchmarks/results/<today>/bot_ratings.json]

The fit uses the `glicko2` library only: each bot's results are one rating period,
updated from its current rating against the others' current ratings, again and again
until nothing moves. The step is zero only where sum g(RD_j)(s - E) = 0, so the fixed
point is the maximum-likelihood rating of the Glicko model. One virtual draw per
match-up (BayesElo's prior) keeps it finite when a bot wins or loses every partita.
Ratings are then shifted so that the anchor (`normale`, the plain greedy bot) is 1200.

campione plays at its level's budget (iterations and the 1 s cap, as in play) unless
`--campione-iterations` gives it fewer, so that a rough run finishes in minutes: then
its figure is a lower bound of the real level's. It plays fewer partite than the fast
bots (`--campione-partite`), since its moves cost a thousand times theirs.
"""

from __future__ import annotations

import argparse
import itertools
import time
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import glicko2  # type: ignore[import-untyped]
from _report import write_json

from cirulla.bots.arena import ArenaConfig, run_arena, spec_for
from cirulla.bots.base import Budget
from cirulla.bots.levels import LEVELS

BOTS = ("random", "facile", "normale", "difficile", "campione")
ANCHOR = ("normale", 1200.0)
ROOT = Path(__file__).resolve().parent.parent


def campione_budget(args: argparse.Namespace) -> Budget:
    """The level's budget, or `--campione-iterations` with its 1 s cap."""
    if args.campione_iterations is None:
        budget = LEVELS["campione"].budget
        assert budget is not None
        return budget
    return Budget(iterations=args.campione_iterations, seconds=1.0)


def play(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every pair of bots: `--partite` paired partite (each played twice, seats swapped)."""
    matchups = []
    for a, b in itertools.combinations(BOTS, 2):
        slow = "campione" in (a, b)
        budget = campione_budget(args) if slow else None
        spec_a = spec_for(a, budget if a == "campione" else None)
        spec_b = spec_for(b, budget if b == "campione" else None)
        pairs = args.campione_partite if slow else args.partite
        config = ArenaConfig(
            spec_a,
            spec_b,
            players=2,
            preset="cirulla",
            pairs=0,
            partite=pairs,
            seed=args.seed,
            processes=args.processes,
        )
        start = time.perf_counter()
        result = run_arena(config)
        plays = [p for pair in result.partite for p in pair.plays]
        won = sum(p.a_won for p in plays)
        seconds = time.perf_counter() - start
        matchups.append(
            {"a": a, "b": b, "partite": len(plays), "a_won": won, "seconds": round(seconds, 1)}
        )
        print(f"{a:>10} - {b:<10} {won:4d}/{len(plays):<4d} ({seconds:.0f} s)", flush=True)
    return matchups


def fit(matchups: list[dict[str, Any]], rounds: int = 2000) -> dict[str, dict[str, float]]:
    """Glicko-2 ratings from the results (see the module docstring), anchored."""
    results: dict[str, list[tuple[str, float]]] = {b: [] for b in BOTS}
    for m in matchups:
        a, b, n, won = m["a"], m["b"], m["partite"], m["a_won"]
        results[a] += [(b, 1.0)] * won + [(b, 0.0)] * (n - won) + [(b, 0.5)]
        results[b] += [(a, 0.0)] * won + [(a, 1.0)] * (n - won) + [(a, 0.5)]
    rating = dict.fromkeys(BOTS, 1500.0)
    deviation = dict.fromkeys(BOTS, 350.0)
    for _ in range(rounds):
        new_rating, new_deviation = {}, {}
        for bot in BOTS:
            player = glicko2.Player(rating[bot], 350.0, 0.06)
            player.update_player(
                [rating[o] for o, _ in results[bot]],
                [deviation[o] for o, _ in results[bot]],
                [s for _, s in results[bot]],
            )
            new_rating[bot], new_deviation[bot] = float(player.rating), float(player.rd)
        shift = ANCHOR[1] - new_rating[ANCHOR[0]]
        new_rating = {b: r + shift for b, r in new_rating.items()}
        moved = max(abs(new_rating[b] - rating[b]) for b in BOTS)
        rating, deviation = new_rating, new_deviation
        if moved < 0.001:
            break
    return {
        b: {
            "rating": round(rating[b], 1),
            "deviation": round(deviation[b], 1),
            "partite": sum(1 for _, s in results[b] if s != 0.5),
        }
        for b in BOTS
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--partite", type=int, default=100, help="paired partite a match-up")
    parser.add_argument("--campione-partite", type=int, default=12)
    parser.add_argument(
        "--campione-iterations", type=int, default=None, help="default: the level's budget"
    )
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, default=ROOT / "src/cirulla/data/bot_ratings.json")
    today = datetime.now(UTC).date().isoformat()
    parser.add_argument(
        "--record", type=Path, default=ROOT / f"benchmarks/results/{today}/bot_ratings.json"
    )
    args = parser.parse_args()
    start = time.perf_counter()
    matchups = play(args)
    levels = fit(matchups)
    seconds = round(time.perf_counter() - start, 1)
    print()
    for bot, fig in sorted(levels.items(), key=lambda x: x[1]["rating"]):
        print(f"{bot:>10}  {fig['rating']:7.1f}  ± {fig['deviation']:5.1f}  ({fig['partite']})")
    print(f"\n{seconds:.0f} s")
    shipped = {
        "game": "cirulla",
        "mode": "1v1",
        "anchor": {"level": ANCHOR[0], "rating": ANCHOR[1]},
        "levels": levels,
        "measured": datetime.now(UTC).date().isoformat(),
    }
    run = {
        **shipped,
        "matchups": matchups,
        "run": {
            "partite": args.partite,
            "campione_partite": args.campione_partite,
            "campione_budget": asdict(campione_budget(args)),
            "processes": args.processes,
            "seed": args.seed,
            "seconds": seconds,
        },
    }
    write_json(shipped, args.out)
    write_json(run, args.record)


if __name__ == "__main__":
    main()
