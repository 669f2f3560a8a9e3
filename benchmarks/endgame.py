"""What solving the last stages is worth (issue 16, `endgame`).

    python benchmarks/endgame.py [--bot campione] [--against campione] [--positions 200]
        [--endgame always] [--before sampled | --hidden sampled] [--seed 17501]
        [--processes 1] [--json PATH]

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
`--pool A.json B.json ...` pools stored runs of one measure on different seeds.

`--before` measures `endgame_before` the same way from where the stage before the last
is dealt: the bot with it against the bot with `--endgame` alone (the last stage
solved in both), and the time its moves of that stage took with and without.
`--hidden` measures `endgame_hidden` at 4 players from where the deck is dealt out:
`--bot` at one side's two seats, `--against` at the other's, the bot with it against the
bot without it; its moves of that stage are timed the same way.

Levels play at their iterations with no time cap, so a run is the same on any machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from _report import print_rows, write_json

from cirulla import Deal, Rules
from cirulla.bots import get
from cirulla.bots.arena.config import deck_seed
from cirulla.bots.base import Bot, Budget, SeatView, choose_move
from cirulla.bots.endgame import solvable
from cirulla.bots.ismcts_options import ENDGAME_BEFORE, ENDGAME_HIDDEN, ENDGAMES
from cirulla.bots.levels import LEVELS
from cirulla.bots.search import SEARCHER_ODDS, IsmctsBot
from cirulla.bots.stats import mean_estimate
from cirulla.game import derived_seed


def player(name: str, seed: int, options: Mapping[str, Any] | None = None) -> Bot:
    """A level at its iterations without a time cap; `options`, if given, set."""
    level = LEVELS[name]
    budget = level.budget
    uncapped = None if budget is None else Budget(iterations=budget.iterations)
    return get(level.bot, seed=seed, budget=uncapped, **{**level.options, **(options or {})})


def arms(
    endgame: str, before: str = "off", hidden: str = "off"
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The bot's options with what is measured and without it: the last stage solved or
    not; or (`before`, `hidden`) that stage played so or not, `endgame` set in both."""
    if hidden != "off":
        return {"endgame": endgame, "endgame_hidden": hidden}, {"endgame": endgame}
    if before == "off":
        return {"endgame": endgame}, {"endgame": "off"}
    return {"endgame": endgame, "endgame_before": before}, {"endgame": endgame}


def reached(deal: Deal, before: str = "off") -> bool:
    """Whether `deal` is where the measured stages begin: at 2 players the last stage
    dealt and every card known, or (`before`) the stage before it dealt; at 4, the deck
    dealt out."""
    if deal.players == 4:
        return not deal.deck_left and deal.stage == len(deal.stages) - 1
    if before == "off":
        return solvable(deal)
    return deal.stage >= len(deal.stages) - 2


def last_stage(
    bot: str,
    against: str,
    seed: int,
    index: int,
    seat: int,
    before: str = "off",
    players: int = 2,
) -> Deal:
    """Deck `index` played by `bot` at `seat`'s side and `against` at the other to where
    the measured stages begin (`reached`): the stages the `endgame` option's "searchers"
    reads were played by the players who play the rest."""
    deal = Deal(Rules.preset("cirulla"), players, index % players, seed=deck_seed(seed, index))
    names = [bot if s % 2 == seat else against for s in range(players)]
    bots = [
        player(names[s], derived_seed(seed, f"endgame:{names[s]}:{s}", index))
        for s in range(players)
    ]
    while not reached(deal, before):
        mover = deal.to_move
        assert mover is not None, "a smazzata always reaches its last stage"
        deal.play(choose_move(bots[mover], deal, mover))
    return deal


def finish(
    start: Deal, bot: str, against: str, seat: int, options: Mapping[str, Any], seed: int
) -> tuple[int, int, int, float, list[float]]:
    """The rest of `start` with `bot` at `seat`'s side (`options` set) and `against` at
    the other: `seat`'s side's margin, its last-stage decisions, how many of them were
    of less than the best exact worth, the seconds its solving took, and the seconds of
    each of its decisions in the stage measured (at 2 players the stage before the last,
    at 4 the last)."""
    deal = start.copy()
    side = deal.side_of(seat)
    # seat + 2 * (s // 2): at 2 players `seat` for both, as the stored runs were seeded
    bots = [
        player(bot, derived_seed(seed, "endgame:ours", seat + 2 * (s // 2)), options)
        if deal.side_of(s) == side
        else player(against, derived_seed(seed, "endgame:theirs", seat + 2 * (s // 2)))
        for s in range(deal.players)
    ]
    judge = player(bot, 0, {"endgame": "always"})
    assert isinstance(judge, IsmctsBot)
    timed = len(deal.stages) - (1 if deal.players == 4 else 2)
    decisions = worse = 0
    solving = 0.0
    before_last: list[float] = []
    while not deal.is_over:
        mover = deal.to_move
        assert mover is not None
        if deal.side_of(mover) != side:
            deal.play(choose_move(bots[mover], deal, mover))
            continue
        view = SeatView(deal.view(mover))
        tick = time.perf_counter()
        best = judge.solved(view) if len(view.legal) > 1 else None
        solving += time.perf_counter() - tick
        tick = time.perf_counter()
        move = bots[mover].choose(view)
        if view.stage == timed and len(view.legal) > 1:
            before_last.append(time.perf_counter() - tick)
        if best is not None:
            decisions += 1
            worse += move.key not in {m.key for m in best}
        deal.play(move)
    totals = deal.score().totals
    return totals[side] - totals[1 - side], decisions, worse, solving, before_last


def _position(job: tuple[str, str, str, str, str, int, int]) -> dict[str, Any]:
    bot, against, endgame, before, hidden, seed, index = job
    out: dict[str, Any] = {"index": index, "gain": 0.0, "decisions": 0, "worse": 0}
    with_it, without = arms(endgame, before, hidden)
    players = 4 if hidden != "off" else 2
    solving = []
    times: dict[str, list[float]] = {"on": [], "off": []}
    starts: dict[tuple[str, ...], Deal] = {}
    for seat in (0, 1):
        # the bot against itself: both seats' stages are the same deal, played once
        names = tuple(bot if s % 2 == seat else against for s in range(players))
        if names not in starts:
            starts[names] = last_stage(bot, against, seed, index, seat, before, players)
        start = starts[names]
        play_seed = derived_seed(seed, "endgame:finish", index * 2 + seat)
        on, _, _, spent, times_on = finish(start, bot, against, seat, with_it, play_seed)
        off, decisions, worse, _, times_off = finish(start, bot, against, seat, without, play_seed)
        out["gain"] += (on - off) / 2
        out["decisions"] += decisions
        out["worse"] += worse
        solving.append(spent / max(1, decisions))
        times["on"] += times_on
        times["off"] += times_off
    out["solve_seconds"] = sum(solving) / 2
    out["before_last"] = times
    return out


def _ms(seconds: list[float]) -> float | None:
    return round(1000 * sum(seconds) / len(seconds), 1) if seconds else None


def run(
    bot: str,
    against: str,
    endgame: str,
    positions: int,
    seed: int,
    processes: int,
    before: str = "off",
    hidden: str = "off",
) -> dict[str, Any]:
    jobs = [(bot, against, endgame, before, hidden, seed, i) for i in range(positions)]
    if processes > 1:
        with Pool(processes) as pool:
            rows = pool.map(_position, jobs)
    else:
        rows = [_position(j) for j in jobs]
    on = [t for r in rows for t in r["before_last"]["on"]]
    off = [t for r in rows for t in r["before_last"]["off"]]
    return _result(
        (bot, against, endgame, before, hidden),
        [r["gain"] for r in rows],
        sum(r["decisions"] for r in rows),
        sum(r["worse"] for r in rows),
        round(1000 * sum(r["solve_seconds"] for r in rows) / len(rows), 2),
        {"with": _ms(on), "without": _ms(off), "decisions": len(on)},
        seed=seed,
    )


def _result(
    measure: tuple[str, str, str, str, str],
    gains: list[float],
    decisions: int,
    worse: int,
    solve_ms: float,
    before_last_ms: Mapping[str, Any],
    **where: Any,
) -> dict[str, Any]:
    """A run's record (a new one, or stored ones pooled): what was measured, where
    (`seed` or `seeds`), and the paired gain over `gains`."""
    bot, against, endgame, before, hidden = measure
    gain = mean_estimate(gains)
    return {
        "benchmark": "endgame",
        "bot": bot,
        "against": against,
        "endgame": endgame,
        "before": before,
        "hidden": hidden,
        "searcher_odds": SEARCHER_ODDS if endgame == "searchers" else None,
        "players": 4 if hidden != "off" else 2,
        "positions": len(gains),
        **where,
        "gain": {
            "mean": round(gain.mean or 0.0, 3),
            "ci95": [round(gain.low or 0.0, 3), round(gain.high or 0.0, 3)],
        },
        "decisions": decisions,
        "worse_without": worse,
        "solve_ms": solve_ms,
        "before_last_ms": dict(before_last_ms),
        "changed": sum(g != 0.0 for g in gains),
        "gains": gains,
    }


def _before_of(result: Mapping[str, Any]) -> str:
    # the first runs of endgame_before="sampled" wrote the option's first name
    return str(result.get("before") or ("sampled" if result.get("stages") == 2 else "off"))


def pool(results: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Runs of one measure (bot, opponent, options) on different seeds as one: the gain
    over all their positions, the decisions and times summed or weighed by count.
    ValueError for runs of different measures or a seed stored twice."""
    keys = {
        (r["bot"], r["against"], r["endgame"], _before_of(r), r.get("hidden", "off"))
        for r in results
    }
    if len(keys) != 1:
        raise ValueError(f"the runs measure different things: {sorted(keys)}")
    seeds = [int(r["seed"]) for r in results]
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"a seed is stored twice: {seeds}")
    gains = [float(g) for r in results for g in r["gains"]]
    counted = [r["before_last_ms"] for r in results if "before_last_ms" in r]
    count = sum(int(c["decisions"]) for c in counted)
    timed: dict[str, Any] = {"decisions": count}
    for arm in ("with", "without"):
        total = sum(float(c[arm]) * int(c["decisions"]) for c in counted if c[arm] is not None)
        timed[arm] = round(total / count, 1) if count else None
    solve_ms = sum(float(r["solve_ms"]) * int(r["positions"]) for r in results) / len(gains)
    return _result(
        keys.pop(),
        gains,
        sum(int(r["decisions"]) for r in results),
        sum(int(r["worse_without"]) for r in results),
        round(solve_ms, 2),
        timed,
        seeds=seeds,
    )


def report(result: Mapping[str, Any]) -> None:
    g = result["gain"]
    share = result["worse_without"] / max(1, result["decisions"])
    rows = [
        ("positions", f"{result['positions']}, {result['changed']} changed"),
        ("gain a smazzata", f"{g['mean']:+.3f} ({g['ci95'][0]:+.3f} .. {g['ci95'][1]:+.3f})"),
        (
            "moves below the best worth",
            f"{result['worse_without']} of {result['decisions']} ({share:.1%})",
        ),
        ("solve time a decision", f"{result['solve_ms']:.2f} ms"),
    ]
    before, hidden = _before_of(result), result.get("hidden", "off")
    ms = result.get("before_last_ms", {})
    took = f"{ms.get('with')} ms with, {ms.get('without')} ms without"
    option = ""
    if before != "off":
        rows.append(("stage before the last, a move", took))
        option = f", endgame_before={before}"
    if hidden != "off":
        rows.append(("last stage, a move", took))
        option = f", endgame_hidden={hidden}"
    who = f"{result['bot']} with endgame={result['endgame']}{option}"
    print_rows(f"{who}, against {result['against']}, {result['players']} players", rows, 40)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bot", default="campione", choices=sorted(LEVELS))
    p.add_argument("--against", default="campione", choices=sorted(LEVELS))
    p.add_argument("--positions", type=int, default=200)
    p.add_argument("--endgame", default="always", choices=ENDGAMES[1:])
    p.add_argument("--before", default="off", choices=ENDGAME_BEFORE)
    p.add_argument("--hidden", default="off", choices=ENDGAME_HIDDEN, help="at 4 players")
    p.add_argument("--seed", type=int, default=17501)
    p.add_argument("--processes", type=int, default=1)
    p.add_argument("--pool", type=Path, nargs="+", help="stored runs to pool, not a new run")
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    if args.pool:
        try:
            result = pool([json.loads(path.read_text()) for path in args.pool])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            p.error(f"cannot pool those runs: {exc}")
        report(result)
        write_json(result, args.json, said=True)
        return 0
    if LEVELS[args.bot].bot != "ismcts":
        p.error("--bot must be a search level (endgame is an option of ismcts)")
    if args.positions < 2:
        p.error("--positions must be at least 2 (an interval needs two)")
    if not 1 <= args.processes <= 64:
        p.error("--processes must be from 1 to 64")
    if args.before != "off" and args.hidden != "off":
        p.error("--before is a 2-player stage, --hidden a 4-player one: one at a time")
    result = run(
        args.bot,
        args.against,
        args.endgame,
        args.positions,
        args.seed,
        args.processes,
        args.before,
        args.hidden,
    )
    report(result)
    write_json(result, args.json, said=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
