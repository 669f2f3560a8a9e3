"""benchmarks/endgame.py: what solving the last stage at 2 players is worth, paired on
the same positions with the `endgame` option and without it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import endgame as bench

from cirulla.bots import get
from cirulla.bots.base import Bot, Budget
from cirulla.bots.endgame import solvable
from cirulla.bots.levels import LEVELS


def _quick(name: str, seed: int, endgame: str | None = None) -> Bot:
    """The level's bot with 60 iterations: the script's logic, not its strength."""
    level = LEVELS[name]
    options = dict(level.options)
    if endgame is not None:
        options["endgame"] = endgame
    if level.bot != "ismcts":
        return get(level.bot, seed=seed, **options)
    return get(level.bot, seed=seed, budget=Budget(iterations=60), **options)


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "player", _quick)


def test_the_positions_are_where_the_last_stage_is_dealt_and_the_same_for_a_seed() -> None:
    start = bench.last_stage("campione", "normale", 5, 1, 0)
    assert solvable(start) and start.deck_left == 0
    assert bench.last_stage("campione", "normale", 5, 1, 0).view(0) == start.view(0)


def test_with_the_solve_always_on_no_move_is_below_the_best_exact_worth() -> None:
    start = bench.last_stage("campione", "normale", 5, 2, 0)
    margin, decisions, worse, seconds = bench.finish(start, "campione", "normale", 0, "always", 9)
    assert decisions >= 1 and worse == 0 and seconds > 0.0
    assert isinstance(margin, int)
    assert not start.is_over  # the position is played on a copy


def test_the_run_writes_the_paired_gain(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    out = tmp_path / "endgame.json"
    monkeypatch.setattr(
        sys,
        "argv",
        ["endgame.py", "--against", "normale", "--positions", "3", "--seed", "5",
         "--endgame", "searchers", "--json", str(out)],
    )  # fmt: skip
    assert bench.main() == 0
    result = json.loads(out.read_text())
    assert result["positions"] == 3 and len(result["gains"]) == 3
    assert result["endgame"] == "searchers" and result["searcher_odds"] > 0.0
    low, high = result["gain"]["ci95"]
    assert low <= result["gain"]["mean"] <= high
    assert 0 <= result["worse_without"] <= result["decisions"]


@pytest.mark.parametrize("argv", [["--positions", "1"], ["--bot", "normale"], ["--endgame", "off"]])
def test_bad_arguments_are_refused(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["endgame.py", *argv])
    with pytest.raises(SystemExit) as exit_info:
        bench.main()
    assert exit_info.value.code == 2
