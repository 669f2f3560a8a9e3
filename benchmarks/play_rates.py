"""How often each bot does what campione's opponent model calls surprising.

    python benchmarks/play_rates.py [--bots facile,normale,difficile,old,campione]
        [--deals 30] [--players 4] [--seed 1] [--json PATH]

Campione keeps a determinization with the product of the surprises its hidden hands
imply (`bots/inference.py`): a play while holding a card whose best play greedy's
score rates higher weighs `missed_greedy` (0.05), no sweep while holding a card that
sweeps `MISSED_SCOPA` (0.1), a card laid down while holding one that captures
`MISSED_CAPTURE` (0.4). Those numbers fit a greedy player. Head to head with a searcher
campione gains nothing (docs/strength.md), so the question is how far a searcher's
play is from them: this plays `--deals` smazzate of each bot (the seats of side 0)
against normale, preset cirulla, and at every play of side 0 that left cards in hand
notes, from the mover's real hand, whether each surprise happened. `old` is the
campione of 2026-11-21 (`levels.CAMPIONE_2026_11_21`), `campione` today's.

Figures, per bot: plays counted, and for each surprise the share of plays where it
happened with its 95% Wilson interval (`greedy`, `scopa`, `capture`); and the share
among the plays where it could happen (`scopa` and `capture` need a sweep or a
capture to be missed). Prints JSON.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from _report import write_json

from cirulla import Deal, Rules
from cirulla.bots import get, level_bot
from cirulla.bots.base import Bot, Budget, SeatView
from cirulla.bots.inference import _greedy_better, capturing_cards, last_play
from cirulla.bots.levels import CAMPIONE_2026_11_21, LEVELS
from cirulla.bots.stats import wilson_interval
from cirulla.moves import Move

BOTS = ("facile", "normale", "difficile", "old", "campione")


def make(name: str, seed: int) -> Bot:
    """A bot of level `name` ("old": the campione of 2026-11-21); the searchers without
    their 1 s cap, as in the arena runs, so that the machine's load cannot change a move."""
    spec = {"old": CAMPIONE_2026_11_21, "campione": LEVELS["campione"]}.get(name)
    if spec is not None:
        iterations = spec.budget.iterations if spec.budget else None
        return get(spec.bot, seed=seed, budget=Budget(iterations=iterations), **spec.options)
    return level_bot(name, seed=seed)


def surprises(deal: Deal, seat: int, move: Move) -> dict[str, bool]:
    """Which of the model's surprises `seat`'s play `move` made, judged with its real
    hand (`deal` before the play, its table not empty), and which it could have made."""
    table = deal.table
    card = move.card
    assert card is not None and table
    last = last_play(deal)
    captured = len(move.captured)
    swept = captured > 0 and captured == len(table)
    rest = [c for c in deal.hand(seat) if c is not card]
    capture_cards, scopa_cards = capturing_cards(deal, rest, last)
    can_sweep = bool(scopa_cards)
    can_capture = bool(capture_cards - scopa_cards)  # a card that captures but cannot sweep
    better = _greedy_better(deal, move, last)
    return {
        "greedy": any(c in better for c in rest),
        "scopa": not swept and can_sweep,
        "scopa_possible": can_sweep,
        "capture": not captured and can_capture,
        "capture_possible": can_capture,
    }


def run(name: str, deals: int, players: int, seed: int) -> dict[str, Any]:
    rules = Rules.preset("cirulla")
    keys = ("plays", "greedy", "scopa", "scopa_possible", "capture", "capture_possible")
    counts = dict.fromkeys(keys, 0)
    for d in range(deals):
        deal = Deal(rules, players=players, dealer=d % players, seed=seed * 1000 + d)
        bots = [
            make(name, seed + s) if deal.side_of(s) == 0 else level_bot("normale", seed + s)
            for s in range(players)
        ]
        while not deal.is_over:
            seat = deal.to_move
            assert seat is not None
            move = bots[seat].choose(SeatView(deal.view(seat)))
            if (
                deal.side_of(seat) == 0
                and move.kind == "play"
                and len(deal.hand(seat)) > 1
                and deal.table
            ):
                counts["plays"] += 1
                for key, hit in surprises(deal, seat, move).items():
                    counts[key] += int(hit)
            deal.play(move)
    plays = counts["plays"]

    def share(hits: int, n: int) -> dict[str, Any]:
        interval = wilson_interval(hits, n)
        return {
            "hits": hits,
            "of": n,
            "share": round(hits / n, 4) if n else None,
            "wilson95": [round(x, 4) for x in interval] if interval else None,
        }

    return {
        "plays": plays,
        "greedy": share(counts["greedy"], plays),
        "scopa": share(counts["scopa"], plays),
        "scopa_when_possible": share(counts["scopa"], counts["scopa_possible"]),
        "capture": share(counts["capture"], plays),
        "capture_when_possible": share(counts["capture"], counts["capture_possible"]),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bots", default=",".join(BOTS))
    p.add_argument("--deals", type=int, default=30)
    p.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    names = [n for n in args.bots.split(",") if n]
    unknown = [n for n in names if n not in BOTS]
    if not names or unknown:
        p.error(f"--bots takes some of {', '.join(BOTS)}; got {args.bots!r}")
    if args.deals < 1:
        p.error("--deals must be at least 1")
    result = {
        "benchmark": "play_rates",
        "players": args.players,
        "deals": args.deals,
        "seed": args.seed,
        "bots": {n: run(n, args.deals, args.players, args.seed) for n in names},
    }
    write_json(result, args.json, echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
