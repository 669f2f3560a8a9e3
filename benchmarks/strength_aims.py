"""Issue 16's strength aims, read from every arena run stored in benchmarks/results.

Each aim is a figure and a line it must clear: campione's share of the cheater's margin
against greedy (at least half), campione head to head with the campione of 2026-11-21
(at least +0.5 a smazzata), both over at least 2,000 paired decks at 2 and at 4
players; and each level above the one below (interval above zero), maestro above
campione included. The runs are found
by what they played (their `config`), not by their file names, so a chunk added to any
dated folder counts, and runs of a campione that has since changed do not:

    python benchmarks/strength_aims.py [--results benchmarks/results] [--json out.json]

A seed stored twice (a 50-deck chunk and its 100-deck re-run, say) counts once: decks
depend only on the seed and their index (`arena.deck_seed`), so the longer run holds
the shorter. An aim is "met" when its interval clears the line, "not met" when it lies
below, "undecided" between; the decks it still lacks are said beside it.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from _report import write_json
from cheater_share import SEARCHERS

from cirulla.bots.ismcts_options import CUT_LEAVES
from cirulla.bots.levels import CAMPIONE_2026_11_21, LEVELS, Level
from cirulla.bots.stats import mean_estimate
from cirulla.rules import Rules

#: Paired decks the issue asks for the share and head-to-head aims.
DECKS_ASKED: Final = 2000


@dataclass(frozen=True)
class Side:
    """A bot as an arena run's config names it."""

    name: str
    options: Mapping[str, Any]
    iterations: int | None = None

    def matches(self, bot: Mapping[str, Any], players: int) -> bool:
        if bot.get("name") != self.name:
            return False
        played = as_played(self.name, self.options, players)
        if as_played(self.name, bot.get("options") or {}, players) != played:
            return False
        if self.name not in SEARCHERS:
            return True
        budget = bot.get("budget") or {}
        # uncapped only: a seconds cap lets the machine's load change the moves
        return budget.get("iterations") == self.iterations and budget.get("seconds") is None


def as_played(name: str, options: Mapping[str, Any], players: int) -> dict[str, Any]:
    """The options as the bot plays them at `players` (preset cirulla): ismcts's
    `cut_players` only says where the cut (`leaf="cut"`, `"cut_mean"`) applies, so a
    search that cuts elsewhere is the one without it; and a `cut_within` that leaves the
    value as many stages as the first cut does is the plain cut. `live_players` says the
    same of `live`, and `live` off is the search without it. `endgame` solves only at 2
    players, and at 4 with `endgame_hidden`: elsewhere, or "off", the search without it
    (and its `endgame_before`, a 2-player stage, and `endgame_hidden`, a 4-player one,
    with it; "off" is their default)."""
    out = dict(options)
    if name == "ismcts":
        counts = out.pop("live_players", None)
        if not out.get("live") or (counts is not None and players not in counts):
            out.pop("live", None)
        reach = {2: "endgame_before", 4: "endgame_hidden"}.get(players)
        for key in ("endgame_before", "endgame_hidden"):
            if key != reach or out.get(key) == "off":
                out.pop(key, None)
        # at 2 players the last stage is solved; at 4 only with endgame_hidden
        plays = players == 2 or (reach is not None and reach in out)
        if out.get("endgame", "off") == "off" or not plays:
            out.pop("endgame", None)
            if reach is not None:
                out.pop(reach, None)
    if name == "ismcts" and out.get("leaf") in CUT_LEAVES:
        counts = out.pop("cut_players", None)
        if counts is not None and players not in counts:
            del out["leaf"]
            out.pop("cut_within", None)
        within = out.get("cut_within")
        if within is not None and within >= len(Rules.preset("cirulla").stage_sizes(players)) - 1:
            del out["cut_within"]
    return out


def _side(level: Level) -> Side:
    iterations = level.budget.iterations if level.budget is not None else None
    return Side(level.bot, level.options, iterations)


MAESTRO: Final = _side(LEVELS["maestro"])
CAMPIONE: Final = _side(LEVELS["campione"])
DIFFICILE: Final = _side(LEVELS["difficile"])
NORMALE: Final = _side(LEVELS["normale"])
FACILE: Final = _side(LEVELS["facile"])
OLD_CAMPIONE: Final = _side(CAMPIONE_2026_11_21)
#: The yardstick: campione's search seeing every card, at its budget of 2026-11-21.
CHEATER: Final = Side("cheater", {}, 1500)


@dataclass(frozen=True)
class Aim:
    """`a` against `b` at `players`: its margin must clear `line`; with `share`, the
    margin minus `share` times the cheater's on the same decks must clear zero."""

    title: str
    a: Side
    b: Side
    players: int
    line: float = 0.0
    share: float | None = None
    decks: int = 0


AIMS: Final = tuple(
    aim
    for players in (4, 2)
    for aim in (
        Aim(
            f"campione closes half of greedy-to-cheater, {players} players",
            CAMPIONE,
            NORMALE,
            players,
            share=0.5,
            decks=DECKS_ASKED,
        ),
        Aim(
            f"campione +0.5 on the campione of 2026-11-21, {players} players",
            CAMPIONE,
            OLD_CAMPIONE,
            players,
            line=0.5,
            decks=DECKS_ASKED,
        ),
        # maestro is a level too: the ladder's top rung (its runs cost minutes a deck)
        Aim(f"maestro beats campione, {players} players", MAESTRO, CAMPIONE, players),
        Aim(f"campione beats difficile, {players} players", CAMPIONE, DIFFICILE, players),
        Aim(f"difficile beats normale, {players} players", DIFFICILE, NORMALE, players),
        Aim(f"normale beats facile, {players} players", NORMALE, FACILE, players),
    )
)


def arena_runs(root: Path) -> list[dict[str, Any]]:
    """Every `cirulla arena --json` run under `root` with its paired margins, preset
    cirulla (pooled and derived files are skipped)."""
    runs = []
    for path in sorted(root.rglob("*.json")):
        try:
            run = json.loads(path.read_text())
            config = run["config"]
            margins = run["smazzate"]["pair_margins"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if str(run.get("format", "")).split("/")[0] != "cirulla.arena":
            continue
        if config.get("game", "cirulla") != "cirulla" or config.get("preset") != "cirulla":
            continue
        if isinstance(margins, list) and margins:
            runs.append(run)
    return runs


def decks_of(
    runs: Iterable[dict[str, Any]], a: Side, b: Side, players: int
) -> dict[tuple[int, int], float]:
    """Paired margins of `a` against `b` by (seed, deck index); a seed's longest run."""
    longest: dict[int, list[float]] = {}
    for run in runs:
        config = run["config"]
        if config["players"] != players or not (
            a.matches(config["a"], players) and b.matches(config["b"], players)
        ):
            continue
        margins = run["smazzate"]["pair_margins"]
        if len(margins) > len(longest.get(config["seed"], [])):
            longest[config["seed"]] = margins
    return {(seed, i): m for seed, ms in longest.items() for i, m in enumerate(ms)}


def judge(aim: Aim, runs: list[dict[str, Any]]) -> dict[str, Any]:
    own = decks_of(runs, aim.a, aim.b, aim.players)
    out: dict[str, Any] = {"aim": aim.title, "players": aim.players, "decks_asked": aim.decks}
    if aim.share is not None:
        cheater = decks_of(runs, CHEATER, aim.b, aim.players)
        keys = sorted(own.keys() & cheater.keys())
        x = [own[k] for k in keys]
        y = [cheater[k] for k in keys]
        difference = [p - aim.share * q for p, q in zip(x, y, strict=True)]
        if keys:
            out["margin"] = mean_estimate(x).to_dict()
            out["cheater_margin"] = mean_estimate(y).to_dict()
            out["share_of_cheater"] = sum(x) / sum(y) if sum(y) > 0 else None
        line = 0.0
    else:
        keys = sorted(own)
        difference = [own[k] for k in keys]
        line = aim.line
        if keys:
            out["margin"] = mean_estimate(difference).to_dict()
    out["decks"] = len(keys)
    out["seeds"] = sorted({seed for seed, _ in keys})
    tested = mean_estimate(difference)
    out["tested"] = {
        "what": "margin - share x cheater" if aim.share else "margin",
        "line": line,
        **tested.to_dict(),
    }
    if tested.low is None or tested.high is None:
        out["status"] = "not run" if not keys else "undecided"
    elif tested.low > line:
        out["status"] = "met"
    elif tested.high < line:
        out["status"] = "not met"
    else:
        out["status"] = "undecided"
    out["decks_short"] = max(0, aim.decks - len(keys))
    return out


def scorecard(root: Path) -> list[dict[str, Any]]:
    runs = arena_runs(root)
    return [judge(aim, runs) for aim in AIMS]


def _figure(row: dict[str, Any]) -> str:
    t = row["tested"]
    if row["decks"] == 0:
        return "no runs"
    if t["ci95"] is None:
        return f"{t['mean']:+.2f}"
    lo, hi = t["ci95"]
    text = f"{t['mean']:+.2f} ({lo:+.2f} .. {hi:+.2f})"
    if "share_of_cheater" in row and row["share_of_cheater"] is not None:
        text = f"{row['share_of_cheater']:.1%} of the cheater; minus half: " + text
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = Path(__file__).resolve().parent
    parser.add_argument("--results", type=Path, default=here / "results")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not args.results.is_dir():
        raise SystemExit(f"{args.results}: no such folder")
    rows = scorecard(args.results)
    width = max(len(r["aim"]) for r in rows)
    for r in rows:
        short = f", {r['decks_short']:,} decks short" if r["decks_short"] else ""
        print(f"{r['aim']:<{width}}  {r['status']:<9}  {r['decks']:>5,} decks  {_figure(r)}{short}")
    met = sum(r["status"] == "met" and not r["decks_short"] for r in rows)
    print(f"\n{met} of {len(rows)} aims met over the decks asked")
    write_json({"results": str(args.results), "aims": rows}, args.json, said=True)


if __name__ == "__main__":
    main()
