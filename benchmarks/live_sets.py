"""The grande and the piccola read live: how often a set is finished, and what reading
it live is worth to the greedy policy (issue 16; `evaluate.live_adjustment`).

    python benchmarks/live_sets.py [--players 4] [--decks 5000] [--seed 17301]
        [--chances 0,0.25,0.5,1] [--json PATH]

Two figures on the arena's decks (`arena.deck_seed`), with the playouts' greedy policy
judging sweep risks by every unseen card (`threats="unseen"`, campione's):

- finish chances: among smazzate played by the live policy at every seat, when a side
  first holds k of a set's three cards (k = 1, 2) while no other side holds any, the
  share that ends with that side holding all three. `evaluate.FINISH_CHANCE` takes them.
- the live policy against the plain one, paired: each deck played once per seating of
  the arena, the live policy at one side's seats; its margin a smazzata, with a 95%
  interval over the decks. `--chances` plays the live policy with other chances.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
from pathlib import Path
from typing import Any

from _report import print_rows, write_json

from cirulla import Deal, Rules
from cirulla.bots import evaluate
from cirulla.bots.arena.config import deck_seed, seatings
from cirulla.bots.policies import LIVE, UNSEEN, policy_move
from cirulla.bots.stats import mean_estimate

SETS = {"grande": evaluate.GRANDE_IDS, "piccola": evaluate.PICCOLA_IDS}


def _deal(players: int, seed: int, index: int) -> Deal:
    return Deal(Rules.preset("cirulla"), players, index % players, seed=deck_seed(seed, index))


def _play(deal: Deal, live_seats: set[int], rng: random.Random) -> None:
    """One move of the policy, live at `live_seats`."""
    seat = deal.to_move
    assert seat is not None
    legal = deal.legal_moves()
    mode = UNSEEN + (LIVE if seat in live_seats else 0)
    deal.play(legal[0] if len(legal) == 1 else policy_move(deal, legal, mode, rng))


def finish_counts(players: int, seed: int, index: int) -> dict[str, list[list[int]]]:
    """Deck `index` played by the live policy at every seat: per set, for k = 1 and 2,
    [times a side first held k with the others none, times that side finished it]."""
    deal = _deal(players, seed, index)
    rng = random.Random(index)
    everyone = set(range(players))
    reached: set[tuple[str, int, int]] = set()
    while not deal.is_over:
        _play(deal, everyone, rng)
        for name, ids in SETS.items():
            held = [sum(1 for c in deal.captured(s) if c.id in ids) for s in range(deal.sides)]
            holders = [s for s, h in enumerate(held) if h]
            if len(holders) == 1 and held[holders[0]] < 3:
                reached.add((name, held[holders[0]], holders[0]))
    out = {name: [[0, 0], [0, 0]] for name in SETS}
    for name, k, side in reached:
        done = sum(1 for c in deal.captured(side) if c.id in SETS[name]) == 3
        out[name][k - 1][0] += 1
        out[name][k - 1][1] += int(done)
    return out


def live_margin(players: int, seed: int, index: int) -> float:
    """Deck `index` once per seating, the live policy at one side's seats, the plain one
    at the others': the live side's points less the other's, the mean over the seatings."""
    total = 0
    plays = seatings(players)
    for play, a_seats in enumerate(plays):
        deal = _deal(players, seed, index)
        rng = random.Random(index * 16 + play)
        while not deal.is_over:
            _play(deal, set(a_seats), rng)
        totals = deal.score().totals
        ours = deal.side_of(a_seats[0])
        total += totals[ours] - totals[1 - ours]
    return total / len(plays)


def run(players: int, decks: int, seed: int, chances: tuple[float, ...]) -> dict[str, Any]:
    saved = evaluate.FINISH_CHANCE
    evaluate.FINISH_CHANCE = (chances[0], chances[1], chances[2], chances[3])
    try:
        counts = {name: [[0, 0], [0, 0]] for name in SETS}
        for i in range(decks):
            for name, rows in finish_counts(players, seed, i).items():
                for k in range(2):
                    counts[name][k][0] += rows[k][0]
                    counts[name][k][1] += rows[k][1]
        margins = [live_margin(players, seed, i) for i in range(decks)]
    finally:
        evaluate.FINISH_CHANCE = saved
    e = mean_estimate(margins)
    return {
        "benchmark": "live_sets",
        "players": players,
        "decks": decks,
        "seed": seed,
        "chances": list(chances),
        "finish": {
            name: {
                f"held_{k + 1}": {
                    "times": rows[k][0],
                    "finished": rows[k][1],
                    "share": round(rows[k][1] / rows[k][0], 3) if rows[k][0] else None,
                }
                for k in range(2)
            }
            for name, rows in counts.items()
        },
        "live_vs_plain": {
            "mean": round(e.mean or 0.0, 3),
            "ci95": [round(e.low or 0.0, 3), round(e.high or 0.0, 3)],
        },
    }


def _chances(text: str) -> tuple[float, ...]:
    try:
        values = tuple(float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not four numbers: {text!r}") from None
    if len(values) != 4 or values[0] != 0.0 or values[3] != 1.0:
        raise argparse.ArgumentTypeError("four chances, the first 0 and the last 1")
    if not all(0.0 <= a <= b <= 1.0 for a, b in itertools.pairwise(values)):
        raise argparse.ArgumentTypeError("chances rise from 0 to 1")
    return values


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=4, choices=(2, 4), help="two sides")
    p.add_argument("--decks", type=int, default=5000)
    p.add_argument("--seed", type=int, default=17301)
    p.add_argument("--chances", type=_chances, default=evaluate.FINISH_CHANCE)
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    if not 2 <= args.decks <= 1_000_000:
        p.error("--decks must be from 2 to 1,000,000")
    result = run(args.players, args.decks, args.seed, args.chances)
    rows = [
        (f"{name} held {k}", f"{v['finished']}/{v['times']} finished ({v['share']})")
        for name, sets in result["finish"].items()
        for k, v in ((1, sets["held_1"]), (2, sets["held_2"]))
    ]
    live = result["live_vs_plain"]
    low, high = live["ci95"]
    rows.append(("live vs plain", f"{live['mean']:+.3f} ({low:+.3f} .. {high:+.3f}) a smazzata"))
    title = f"live sets, {args.players} players, {args.decks} decks, chances {args.chances}"
    print_rows(title, rows, 60)
    write_json(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
