"""What solving the last mano exactly is worth at 2 players (issue 16, `endgame`).

    python benchmarks/endgame.py [--bot campione] [--against campione] [--positions 200]
        [--endgame always] [--seed 17501] [--processes 1] [--json PATH]

Once the deck is dealt out at 2 players every card is known to both, and the
`endgame` option of `ismcts` plays only the moves of best exact worth there
(`bots.endgame.solve`), its search breaking ties ("always"; "searchers": only against
an opponent whose finished stages look like a searcher's). A whole-smazzata arena
carries the noise of the five stages before it; this plays those stages once per deck
and seat (`--bot` at the seat, `--against` at the other, `arena.deck_seed`'s decks,
the dealer alternating deck by deck) and, from where the last stage is dealt, the rest
twice: `--bot` with `--endgame` and without it (the same seed), `--against` as it is.
It prints the paired gain a smazzata with its 95% interval, how often the bot without
it played a move of less than the best exact worth, and what the solving took.

Levels play at their iterations with no time cap, so a run is the same on any machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from _report import print_rows, write_json

from cirulla import Deal, Rules
from cirulla.bots import get
from cirulla.bots.arena.config import deck_seed
from cirulla.bots.base import Bot, Budget, SeatView, choose_move
from cirulla.bots.endgame import solvable
from cirulla.bots.ismcts_options import ENDGAMES
from cirulla.bots.levels import LEVELS
from cirulla.bots.search import SEARCHER_ODDS, IsmctsBot
from cirulla.bots.stats import mean_estimate
from cirulla.game import derived_seed


def player(name: str, seed: int, endgame: str | None = None) -> Bot:
    """A level at its iterations without a time cap; `endgame`, if given, set."""
    level = LEVELS[name]
    budget = level.budget
    uncapped = None if budget is None else Budget(iterations=budget.iterations)
    options = dict(level.options)
    if endgame is not None:
        options["endgame"] = endgame
    return get(level.bot, seed=seed, budget=uncapped, **options)


def last_stage(bot: str, against: str, seed: int, index: int, seat: int) -> Deal:
    """Deck `index` played by `bot` at `seat` and `against` at the other to where the
    last stage is dealt and every card is known: the stages the `endgame` option's
    "searchers" reads were played by the players who play the rest."""
    deal = Deal(Rules.preset("cirulla"), 2, index % 2, seed=deck_seed(seed, index))
    names = (bot, against) if seat == 0 else (against, bot)
    bots = [player(names[s], derived_seed(seed, f"endgame:{names[s]}:{s}", index)) for s in (0, 1)]
    while not solvable(deal):
        mover = deal.to_move
        assert mover is not None, "a 2-player smazzata always reaches its last stage"
        deal.play(choose_move(bots[mover], deal, mover))
    return deal


def finish(
    start: Deal, bot: str, against: str, seat: int, endgame: str, seed: int
) -> tuple[int, int, int, float]:
    """The rest of `start` with `bot` at `seat` (`endgame` as given) and `against` at
    the other: `seat`'s side's margin, its decisions, how many of them were of less
    than the best exact worth, and the seconds its solving took."""
    deal = start.copy()
    ours = player(bot, derived_seed(seed, "endgame:ours", seat), endgame)
    theirs = player(against, derived_seed(seed, "endgame:theirs", seat))
    judge = player(bot, 0, "always")
    assert isinstance(judge, IsmctsBot)
    decisions = worse = 0
    solving = 0.0
    while not deal.is_over:
        mover = deal.to_move
        assert mover is not None
        if mover != seat:
            deal.play(choose_move(theirs, deal, mover))
            continue
        view = SeatView(deal.view(mover))
        tick = time.perf_counter()
        best = judge.solved(view) if len(view.legal) > 1 else None
        solving += time.perf_counter() - tick
        move = ours.choose(view)
        if best is not None:
            decisions += 1
            worse += move.key not in {m.key for m in best}
        deal.play(move)
    totals = deal.score().totals
    side = deal.side_of(seat)
    return totals[side] - totals[1 - side], decisions, worse, solving


def _position(job: tuple[str, str, str, int, int]) -> dict[str, Any]:
    bot, against, endgame, seed, index = job
    out: dict[str, Any] = {"index": index, "gain": 0.0, "decisions": 0, "worse": 0}
    solving = []
    for seat in (0, 1):
        start = last_stage(bot, against, seed, index, seat)
        play_seed = derived_seed(seed, "endgame:finish", index * 2 + seat)
        on, _, _, spent = finish(start, bot, against, seat, endgame, play_seed)
        off, decisions, worse, _ = finish(start, bot, against, seat, "off", play_seed)
        out["gain"] += (on - off) / 2
        out["decisions"] += decisions
        out["worse"] += worse
        solving.append(spent / max(1, decisions))
    out["solve_seconds"] = sum(solving) / 2
    return out


def run(
    bot: str, against: str, endgame: str, positions: int, seed: int, processes: int
) -> dict[str, Any]:
    jobs = [(bot, against, endgame, seed, i) for i in range(positions)]
    if processes > 1:
        with Pool(processes) as pool:
            rows = pool.map(_position, jobs)
    else:
        rows = [_position(j) for j in jobs]
    gain = mean_estimate(r["gain"] for r in rows)
    decisions = sum(r["decisions"] for r in rows)
    worse = sum(r["worse"] for r in rows)
    return {
        "benchmark": "endgame",
        "bot": bot,
        "against": against,
        "endgame": endgame,
        "searcher_odds": SEARCHER_ODDS if endgame == "searchers" else None,
        "players": 2,
        "positions": positions,
        "seed": seed,
        "gain": {
            "mean": round(gain.mean or 0.0, 3),
            "ci95": [round(gain.low or 0.0, 3), round(gain.high or 0.0, 3)],
        },
        "decisions": decisions,
        "worse_without": worse,
        "solve_ms": round(1000 * sum(r["solve_seconds"] for r in rows) / len(rows), 2),
        "gains": [r["gain"] for r in rows],
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bot", default="campione", choices=sorted(LEVELS))
    p.add_argument("--against", default="campione", choices=sorted(LEVELS))
    p.add_argument("--positions", type=int, default=200)
    p.add_argument("--endgame", default="always", choices=ENDGAMES[1:])
    p.add_argument("--seed", type=int, default=17501)
    p.add_argument("--processes", type=int, default=1)
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    if LEVELS[args.bot].bot != "ismcts":
        p.error("--bot must be a search level (endgame is an option of ismcts)")
    if args.positions < 2:
        p.error("--positions must be at least 2 (an interval needs two)")
    if not 1 <= args.processes <= 64:
        p.error("--processes must be from 1 to 64")
    result = run(args.bot, args.against, args.endgame, args.positions, args.seed, args.processes)
    g = result["gain"]
    share = result["worse_without"] / max(1, result["decisions"])
    rows = [
        ("gain a smazzata", f"{g['mean']:+.3f} ({g['ci95'][0]:+.3f} .. {g['ci95'][1]:+.3f})"),
        (
            "moves below the best worth",
            f"{result['worse_without']} of {result['decisions']} ({share:.1%})",
        ),
        ("solve time a decision", f"{result['solve_ms']:.2f} ms"),
    ]
    title = f"{args.bot} with endgame={args.endgame}, against {args.against}, 2 players"
    print_rows(title, rows, 40)
    write_json(result, args.json, said=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
