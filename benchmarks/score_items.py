"""Where a bot's margin, and its gap to the cheater's, comes from, item by item (issue 16).

    python benchmarks/score_items.py [--bot campione] [--against normale] [--players 4]
        [--pairs 40] [--seed 16101] [--processes 1] [--json PATH]

The aims judge a bot by its points a smazzata against greedy players and by the share
of the cheater's margin it makes; this says which items of the score sheet (S1-S7:
scope, cards, diamonds, the sette bello, primiera, grande, piccola) the margins are
made of. Each deck (`arena.deck_seed`, so seed 16101 plays the decks of the arena's
16101 chunks) is played once per seating of the arena by the bot against `--against`,
and again by the cheater (1,500 iterations, the yardstick's) against the same players,
and each play's sheet is read item by item, the bot's side less the other's. It prints,
per item, the bot's margin, the cheater's, and the paired gap between them, with 95%
intervals over the decks.

Bots are levels (`bots.levels.LEVELS`), played at their iterations with no time cap so
that a run is the same on any machine.
"""

from __future__ import annotations

import argparse
import sys
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from _report import print_rows, write_json
from value_games import CHEATER_ITERATIONS

from cirulla import Deal, Rules
from cirulla.bots import get
from cirulla.bots.arena.config import deck_seed, seatings
from cirulla.bots.base import Bot, Budget, choose_move
from cirulla.bots.levels import LEVELS
from cirulla.bots.stats import mean_estimate
from cirulla.game import derived_seed
from cirulla.scoring import ITEMS


def player(name: str, seed: int) -> Bot:
    """A level at its iterations without a time cap, or the cheater."""
    if name == "cheater":
        return get("cheater", seed=seed, budget=Budget(iterations=CHEATER_ITERATIONS))
    level = LEVELS[name]
    budget = level.budget
    uncapped = None if budget is None else Budget(iterations=budget.iterations)
    return get(level.bot, seed=seed, budget=uncapped, **level.options)


def sheet_margins(a: str, b: str, players: int, seed: int, index: int) -> list[dict[str, int]]:
    """Deck `index` played once per seating, `a` against `b`: each play's score sheet,
    item by item, `a`'s side less the other's."""
    rules = Rules.preset("cirulla")
    out = []
    for play, a_seats in enumerate(seatings(players)):
        deal = Deal(rules, players, index % players, seed=deck_seed(seed, index))
        bots = [
            player(a if s in a_seats else b, derived_seed(seed, f"items:{a}:{play}:{s}", index))
            for s in range(players)
        ]
        while not deal.is_over:
            seat = deal.to_move
            assert seat is not None
            deal.play(choose_move(bots[seat], deal, seat))
        sides = deal.score().sides
        ours = deal.side_of(a_seats[0])
        out.append({k: sides[ours][k] - sides[1 - ours][k] for k in ITEMS})
    return out


def _deck(job: tuple[str, str, int, int, int]) -> dict[str, float]:
    """One deck's margin for each item, the mean over its seatings."""
    plays = sheet_margins(*job)
    return {k: sum(p[k] for p in plays) / len(plays) for k in ITEMS}


def _estimate(values: list[float]) -> dict[str, Any]:
    e = mean_estimate(values)
    return {
        "mean": round(e.mean or 0.0, 3),
        "ci95": [round(e.low or 0.0, 3), round(e.high or 0.0, 3)],
    }


def run(
    bot: str, against: str, players: int, pairs: int, seed: int, processes: int
) -> dict[str, Any]:
    jobs = [(who, against, players, seed, i) for who in (bot, "cheater") for i in range(pairs)]
    if processes > 1:
        with Pool(processes) as pool:
            decks = pool.map(_deck, jobs)
    else:
        decks = [_deck(j) for j in jobs]
    ours, cheater = decks[:pairs], decks[pairs:]
    items: dict[str, Any] = {}
    for k in ITEMS:
        mine = [d[k] for d in ours]
        best = [d[k] for d in cheater]
        items[k] = {
            bot: _estimate(mine),
            "cheater": _estimate(best),
            "gap": _estimate([c - m for m, c in zip(mine, best, strict=True)]),
        }
    return {
        "benchmark": "score_items",
        "bot": bot,
        "against": against,
        "players": players,
        "pairs": pairs,
        "seed": seed,
        "cheater_iterations": CHEATER_ITERATIONS,
        "items": items,
    }


def _fmt(e: dict[str, Any]) -> str:
    low, high = e["ci95"]
    return f"{e['mean']:+.2f} ({low:+.2f} .. {high:+.2f})"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bot", default="campione", choices=sorted(LEVELS))
    p.add_argument("--against", default="normale", choices=sorted(LEVELS))
    p.add_argument("--players", type=int, default=4, choices=(2, 4), help="two sides")
    p.add_argument("--pairs", type=int, default=40)
    p.add_argument("--seed", type=int, default=16101)
    p.add_argument("--processes", type=int, default=1)
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    if args.pairs < 2:
        p.error("--pairs must be at least 2 (an interval needs two decks)")
    if not 1 <= args.processes <= 64:
        p.error("--processes must be from 1 to 64")
    result = run(args.bot, args.against, args.players, args.pairs, args.seed, args.processes)
    rows = [
        (k, f"{_fmt(v[args.bot])}   {_fmt(v['cheater'])}   {_fmt(v['gap'])}")
        for k, v in result["items"].items()
    ]
    print_rows(f"item: {args.bot}   cheater   gap (cheater - {args.bot})", rows, 60)
    write_json(result, args.json, said=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
