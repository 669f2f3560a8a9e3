"""The share of the cheater's margin a bot makes, on the same decks (issue 16's aim).

The aim reads "closes at least half of the greedy-to-cheater margin": the bot's margin
against greedy, divided by the cheater's against greedy. Runs of `cirulla arena` with
the same seed play the same decks (`arena.deck_seed`), so chunks of the bot and of the
cheater with the same seeds pair deck by deck, and the luck of each deck, which both
feel, cancels from the difference:

    python benchmarks/cheater_share.py --bot new_vs_normale_2p_s163*.json \
        --cheater cheater_vs_normale_2p_s163*.json [--fraction 0.5] [--json out.json]

It prints the share (and its interval, by the delta method over the paired decks) and
the paired margin of `bot - fraction x cheater`, whose interval above zero says the aim
is met. Only the seeds that both sides have run are used.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from _report import write_json

from cirulla.bots.stats import mean_estimate, z_value

#: Bots whose budget is their strength; the others ignore it.
SEARCHERS: Final = ("ismcts", "cheater", "pimc")


def by_seed(paths: list[Path]) -> dict[int, dict[str, Any]]:
    runs: dict[int, dict[str, Any]] = {}
    for path in paths:
        try:
            run = json.loads(path.read_text())
            seed = run["config"]["seed"]
            run["smazzate"]["pair_margins"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SystemExit(f"{path}: not a `cirulla arena --json` run ({exc!r})") from None
        if seed in runs:
            raise SystemExit(f"{path}: seed {seed} twice")
        runs[seed] = run
    return runs


def as_opponent(bot: dict[str, Any]) -> dict[str, Any]:
    """A side as it plays: the budget only of bots that read it (greedy plays the same
    whatever budget a run wrote beside it)."""
    if bot.get("name") in SEARCHERS:
        return bot
    return {k: v for k, v in bot.items() if k != "budget"}


def same_match(one: dict[str, Any], other: dict[str, Any], seed: int) -> None:
    """Refuse chunks that would not have played the same decks against the same side."""
    b, c = ({**x["config"], "b": as_opponent(x["config"]["b"])} for x in (one, other))
    for key in ("players", "pairs", "rules", "b"):
        if json.dumps(b[key], sort_keys=True) != json.dumps(c[key], sort_keys=True):
            raise SystemExit(f"seed {seed}: the runs differ in {key!r}: not the same match")


def _match(bot: dict[str, Any], cheater: dict[str, Any], seed: int) -> None:
    same_match(bot, cheater, seed)
    c = cheater["config"]
    if c["a"]["name"] != "cheater":
        raise SystemExit(f"seed {seed}: the --cheater run's side A is {c['a']['name']!r}")


def paired(
    mine: dict[int, dict[str, Any]],
    theirs: dict[int, dict[str, Any]],
    match: Callable[[dict[str, Any], dict[str, Any], int], None] = same_match,
) -> tuple[list[int], list[float], list[float]]:
    """The seeds both sides ran, and each side's paired margins on them, deck by deck."""
    seeds = sorted(set(mine) & set(theirs))
    if not seeds:
        raise SystemExit("no seed was run by both sides")
    x: list[float] = []
    y: list[float] = []
    for seed in seeds:
        match(mine[seed], theirs[seed], seed)
        x += mine[seed]["smazzate"]["pair_margins"]
        y += theirs[seed]["smazzate"]["pair_margins"]
    return seeds, x, y


def share(bots: list[Path], cheaters: list[Path], fraction: float = 0.5) -> dict[str, Any]:
    if not 0 < fraction <= 1:
        raise SystemExit(f"--fraction must be in (0, 1], not {fraction}")
    mine, theirs = by_seed(bots), by_seed(cheaters)
    seeds, x, y = paired(mine, theirs, _match)  # x the bot's margins, y the cheater's
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    if my <= 0:
        raise SystemExit(f"the cheater's margin is {my:+.2f}: there is no gap to share")
    ratio = mx / my
    # delta method: var(mx/my) ~ (var x - 2 r cov + r^2 var y) / (n my^2)
    vx = sum((a - mx) ** 2 for a in x) / (n - 1)
    vy = sum((b - my) ** 2 for b in y) / (n - 1)
    cov = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True)) / (n - 1)
    se = math.sqrt(max(0.0, vx - 2 * ratio * cov + ratio**2 * vy) / n) / abs(my)
    z = z_value()
    return {
        "seeds": seeds,
        "players": mine[seeds[0]]["config"]["players"],
        "bot": mine[seeds[0]]["config"]["a"],
        "against": mine[seeds[0]]["config"]["b"]["name"],
        "pairs": n,
        "bot_margin": mean_estimate(x).to_dict(),
        "cheater_margin": mean_estimate(y).to_dict(),
        "share": {"mean": ratio, "se": se, "ci95": [ratio - z * se, ratio + z * se]},
        "fraction": fraction,
        "bot_minus_fraction_of_cheater": mean_estimate(
            a - fraction * b for a, b in zip(x, y, strict=True)
        ).to_dict(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", nargs="+", type=Path, required=True)
    parser.add_argument("--cheater", nargs="+", type=Path, required=True)
    parser.add_argument("--fraction", type=float, default=0.5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    out = share(args.bot, args.cheater, args.fraction)
    s, d = out["share"], out["bot_minus_fraction_of_cheater"]
    print(
        f"{out['players']} players, {out['pairs']} paired decks (seeds {out['seeds'][0]}"
        f"..{out['seeds'][-1]}): bot {out['bot_margin']['mean']:+.2f},"
        f" cheater {out['cheater_margin']['mean']:+.2f} against {out['against']}"
    )
    lo, hi = s["ci95"]
    print(f"share of the cheater's margin {s['mean']:.1%} (95% {lo:.1%} .. {hi:.1%})")
    print(
        f"bot - {out['fraction']:g} x cheater: {d['mean']:+.2f}"
        f" (95% {d['ci95'][0]:+.2f} .. {d['ci95'][1]:+.2f})"
    )
    write_json(out, args.json)


if __name__ == "__main__":
    main()
