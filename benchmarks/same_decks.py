"""Two bots against the same opponent on the same decks: which one makes more.

A head-to-head run answers "is A stronger than B" for one opponent only, A's; and it
costs the search twice a move. Runs of `cirulla arena` with the same seed deal the same
decks (`arena.deck_seed`), so two bots' chunks against, say, greedy with the same seeds
pair deck by deck, and the luck of each deck, which both feel, cancels from their
difference:

    python benchmarks/same_decks.py --a nopartner_vs_normale_4p_s161*.json \
        --b new_vs_normale_4p_s161*.json [--json out.json]

It prints both margins and their paired difference (A minus B) with its 95% interval.
Only the seeds that both have run are used; runs against different opponents are
refused, an opponent's budget counting only where it reads it (a searcher's).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from _report import write_json
from cheater_share import by_seed, paired

from cirulla.bots.stats import mean_estimate


def compare(a_runs: list[Path], b_runs: list[Path]) -> dict[str, Any]:
    a, b = by_seed(a_runs), by_seed(b_runs)
    seeds, x, y = paired(a, b)
    first = a[seeds[0]]["config"]
    return {
        "seeds": seeds,
        "players": first["players"],
        "a": first["a"],
        "b": b[seeds[0]]["config"]["a"],
        "against": first["b"]["name"],
        "pairs": len(x),
        "a_margin": mean_estimate(x).to_dict(),
        "b_margin": mean_estimate(y).to_dict(),
        "a_minus_b": mean_estimate(p - q for p, q in zip(x, y, strict=True)).to_dict(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", nargs="+", type=Path, required=True)
    parser.add_argument("--b", nargs="+", type=Path, required=True)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    out = compare(args.a, args.b)
    d = out["a_minus_b"]
    print(
        f"{out['players']} players, {out['pairs']} paired decks (seeds {out['seeds'][0]}"
        f"..{out['seeds'][-1]}) against {out['against']}: A {out['a_margin']['mean']:+.2f},"
        f" B {out['b_margin']['mean']:+.2f}"
    )
    print(f"A - B: {d['mean']:+.2f} (95% {d['ci95'][0]:+.2f} .. {d['ci95'][1]:+.2f})")
    write_json(out, args.json)


if __name__ == "__main__":
    main()
