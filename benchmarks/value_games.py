"""The games a learned value is fitted to (issue 16): recorded, read back and replayed.

`value_fit.py play` records smazzate of the cheater (1,500 iterations, the yardstick's
options) or of campione's search at every seat, as deal seeds and moves, the file
rewritten after each smazzata; `value_fit.py` and `value_starts.py` replay them to
score positions against what that side then made.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from _report import write_json

from cirulla import Deal, Rules
from cirulla.bots import get
from cirulla.bots.base import Bot, Budget, choose_move
from cirulla.bots.levels import LEVELS
from cirulla.moves import parse_move

CHEATER_ITERATIONS = 1500  # the yardstick's budget (strength_aims.CHEATER)
#: campione's level: its bot, options and iterations (its time cap left out).
CAMPIONE = LEVELS["campione"]
assert CAMPIONE.budget is not None and CAMPIONE.budget.iterations is not None
#: Who plays `play`'s games, and each one's iterations a move: the cheater (the value
#: shipped since 2026-12-05) or campione's search at its budget (docs/strength.md,
#: 2026-12-06, an eighth: a value of what the search itself makes from a position).
BOTS: Final = {"cheater": CHEATER_ITERATIONS, "campione": CAMPIONE.budget.iterations}


def _player(bot: str, seed: int, iterations: int) -> Bot:
    """A seat's player: the cheater, or campione's search (its options, no time cap, so
    a run is the same on any machine) playing from its seat's view."""
    budget = Budget(iterations=iterations)
    if bot == "cheater":
        return get("cheater", seed=seed, budget=budget)
    return get(CAMPIONE.bot, seed=seed, budget=budget, **CAMPIONE.options)


def play(
    deals: int,
    players: int,
    seed: int,
    out: Path | None,
    iterations: int = CHEATER_ITERATIONS,
    bot: str = "cheater",
) -> dict[str, Any]:
    """`deals` smazzate of `bot` (BOTS) at every seat, as replays (`iterations` below
    the yardstick's only for quick tests)."""
    rules = Rules.preset("cirulla")
    result: dict[str, Any] = {
        "benchmark": "value_fit.play",
        "preset": "cirulla",
        "bot": bot,
        "iterations": iterations,
        "games": [],
    }
    for n in range(deals):
        game_seed = seed * 1000 + n
        deal = Deal(rules, players=players, dealer=n % players, seed=game_seed)
        seated = [_player(bot, game_seed * 10 + s, iterations) for s in range(players)]
        while not deal.is_over:
            seat = deal.to_move
            assert seat is not None
            deal.play(choose_move(seated[seat], deal))
        result["games"].append(
            {
                "seed": game_seed,
                "dealer": n % players,
                "players": players,
                "moves": [str(m) for m in deal.moves],
                "totals": deal.score().totals,
            }
        )
        write_json(result, out)
        print(f"deal {n + 1}/{deals}", file=sys.stderr, flush=True)
    return result


def read_records(paths: list[Path]) -> list[dict[str, Any]]:
    """`play`'s records, a clear error for a file that is not one."""
    records: list[dict[str, Any]] = []
    for path in paths:
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise SystemExit(f"{path}: cannot read it as JSON ({e})") from None
        if not isinstance(record, dict) or not isinstance(record.get("games"), list):
            raise SystemExit(f"{path}: not a record of `value_fit.py play` (no games)")
        records.append(record)
    return records


def games_of(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every record's games in one list, in the records' order (a fold is by game)."""
    return [game for record in records for game in record["games"]]


def load_games(paths: list[Path]) -> list[dict[str, Any]]:
    """The games of `play`'s records."""
    return games_of(read_records(paths))


def replay(game: dict[str, Any]) -> Iterator[tuple[Deal, float, str, bool]]:
    """The game's deal before each move (live: copy what is kept), with what the side to
    move then made (its points minus the other side's), the move played there, and
    whether it is the first move of a stage after the first."""
    rules = Rules.preset("cirulla")
    deal = Deal(rules, players=game["players"], dealer=game["dealer"], seed=game["seed"])
    totals = game["totals"]
    stage = deal._stage
    for text in game["moves"]:
        first = deal._stage != stage
        stage = deal._stage
        seat = deal.to_move
        assert seat is not None
        us = deal.side_of(seat)
        yield deal, float(totals[us] - totals[1 - us]), text, first
        deal.play(parse_move(text))
    assert deal.is_over and deal.score().totals == totals, game["seed"]


def positions(game: dict[str, Any], every: bool) -> list[tuple[Deal, float, str]]:
    """The game's deal at the first move of every stage after the first (or, `every`,
    at every move with a choice), each with what the side to move then made (its
    points minus the other side's) and the move played there (by whichever bot `play`
    recorded)."""
    return [
        (deal.copy(), result, text)
        for deal, result, text, first in replay(game)
        if (first if not every else len(deal.legal_moves()) > 1)
    ]
