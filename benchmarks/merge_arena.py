"""Pool several `cirulla arena --json` runs of the same two bots into one figure.

Long matches are run as chunks (different seeds, so different decks) that each
finish and write their JSON; this script pools their paired margins (and their
paired partite, if any) as if they were one run, and refuses to pool runs of
different bots, budgets, players or rules.

    python benchmarks/merge_arena.py results/*.json [--json merged.json] [--ignore-seconds]

With --ignore-seconds, runs whose budgets name the same iterations pool even if
one also capped the seconds (the campione level is 1,500 iterations and at most
1 s a move; the cap binds only on a machine slow enough that 1,500 iterations
take longer, so a run without it plays the same moves wherever the cap did not bind).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from _report import write_json

Z95 = 1.959963984540054


def _interval(values: list[float]) -> dict[str, Any]:
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    se = sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "se": se, "ci95": [mean - Z95 * se, mean + Z95 * se]}


def _wilson(wins: float, n: int) -> list[float]:
    if n == 0:
        return [0.0, 1.0]
    p = wins / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return [centre - half, centre + half]


def _bot(bot: dict[str, Any], ignore_seconds: bool) -> str:
    budget = bot.get("budget")
    if ignore_seconds and budget and budget.get("iterations") is not None:
        bot = {**bot, "budget": {**budget, "seconds": None}}
    return json.dumps(bot, sort_keys=True)


def _same(config: dict[str, Any], ignore_seconds: bool = False) -> tuple[Any, ...]:
    return (
        _bot(config["a"], ignore_seconds),
        _bot(config["b"], ignore_seconds),
        config["players"],
        json.dumps(config["rules"], sort_keys=True),
    )


def merge(paths: list[Path], ignore_seconds: bool = False) -> dict[str, Any]:
    runs = [json.loads(p.read_text()) for p in paths]
    key = _same(runs[0]["config"], ignore_seconds)
    seeds = set()
    for path, run in zip(paths, runs, strict=True):
        if _same(run["config"], ignore_seconds) != key:
            raise SystemExit(f"{path}: another match (bots, budget, players or rules differ)")
        if run["config"]["seed"] in seeds:
            raise SystemExit(f"{path}: seed {run['config']['seed']} twice: the decks would repeat")
        seeds.add(run["config"]["seed"])
    margins = [m for run in runs for m in run["smazzate"]["pair_margins"]]
    out: dict[str, Any] = {
        "runs": [str(p) for p in paths],
        "seeds": sorted(seeds),
        "a": runs[0]["config"]["a"],
        "b": runs[0]["config"]["b"],
        "players": runs[0]["config"]["players"],
        "pairs": len(margins),
        "margin": _interval(margins),
    }
    plays = [w for run in runs for w in (run.get("partite") or {}).get("pair_a_wins", [])]
    if plays:
        per_play = len(runs[0]["config"]["seatings"])
        won = sum(plays)
        n = len(plays) * per_play
        out["partite"] = {"plays": n, "won_by_a": won, "rate": won / n, "wilson95": _wilson(won, n)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, help="write the pooled figures here")
    parser.add_argument(
        "--ignore-seconds",
        action="store_true",
        help="pool runs with the same iterations whether or not they capped the seconds",
    )
    args = parser.parse_args()
    out = merge(args.runs, args.ignore_seconds)
    m = out["margin"]
    lo, hi = m["ci95"]
    print(
        f"{out['a']['name']} vs {out['b']['name']}, {out['players']} players:"
        f" {out['pairs']} paired decks from {len(out['runs'])} runs,"
        f" margin {m['mean']:+.2f} per smazzata (95% {lo:+.2f} .. {hi:+.2f})"
    )
    if "partite" in out:
        p = out["partite"]
        a, b = p["wilson95"]
        print(
            f"paired partite won by A: {p['won_by_a']} / {p['plays']} (Wilson 95% {a:.0%}..{b:.0%})"
        )
    write_json(out, args.json)


if __name__ == "__main__":
    main()
