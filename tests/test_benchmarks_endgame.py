"""benchmarks/endgame.py: what solving the last stages is worth, paired on the same
positions with the `endgame` option (and `endgame_before`, `endgame_hidden`) and without
it."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import endgame as bench

from cirulla.bots import get, search
from cirulla.bots.base import Bot, Budget
from cirulla.bots.endgame import solvable
from cirulla.bots.levels import LEVELS


def _quick(name: str, seed: int, extra: Mapping[str, Any] | None = None) -> Bot:
    """The level's bot with 60 iterations: the script's logic, not its strength."""
    level = LEVELS[name]
    options = {**level.options, **(extra or {})}
    if level.bot != "ismcts":
        return get(level.bot, seed=seed, **options)
    return get(level.bot, seed=seed, budget=Budget(iterations=60), **options)


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "player", _quick)
    monkeypatch.setattr(search, "SAMPLED_DEALS", 4)  # the stage before the last, sooner


def test_the_positions_are_where_the_last_stage_is_dealt_and_the_same_for_a_seed() -> None:
    start = bench.last_stage("campione", "normale", 5, 1, 0)
    assert solvable(start) and start.deck_left == 0
    assert bench.last_stage("campione", "normale", 5, 1, 0).view(0) == start.view(0)


def test_with_the_solve_always_on_no_move_is_below_the_best_exact_worth() -> None:
    start = bench.last_stage("campione", "normale", 5, 2, 0)
    margin, decisions, worse, seconds, before = bench.finish(
        start, "campione", "normale", 0, {"endgame": "always"}, 9
    )
    assert decisions >= 1 and worse == 0 and seconds > 0.0 and before == []
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


def test_two_stages_start_where_the_stage_before_the_last_is_dealt() -> None:
    start = bench.last_stage("campione", "normale", 5, 1, 0, before="sampled")
    assert start.stage == len(start.stages) - 2 and start.deck_left == 6
    assert sum(len(start.hand(s)) for s in (0, 1)) == 6
    assert bench.arms("always", "searched") == (
        {"endgame": "always", "endgame_before": "searched"},
        {"endgame": "always"},
    )
    assert bench.arms("searchers") == ({"endgame": "searchers"}, {"endgame": "off"})
    with_it, without = bench.arms("always", "sampled")
    *_, timed = bench.finish(start, "campione", "normale", 0, with_it, 9)
    # the bot's moves of that stage with more than one choice, each timed
    assert 1 <= len(timed) <= 3 and all(t > 0.0 for t in timed)
    margin, *_ = bench.finish(start, "campione", "normale", 0, without, 9)
    assert isinstance(margin, int)


def test_a_two_stage_run_writes_its_times(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    out = tmp_path / "endgame2.json"
    monkeypatch.setattr(
        sys,
        "argv",
        ["endgame.py", "--against", "normale", "--positions", "2", "--seed", "5",
         "--endgame", "always", "--before", "sampled", "--json", str(out)],
    )  # fmt: skip
    assert bench.main() == 0
    result = json.loads(out.read_text())
    assert result["before"] == "sampled" and len(result["gains"]) == 2
    timed = result["before_last_ms"]
    assert timed["decisions"] >= 2 and timed["with"] > 0.0 and timed["without"] > 0.0


@pytest.mark.parametrize(
    "argv",
    [
        ["--positions", "1"],
        ["--bot", "normale"],
        ["--endgame", "off"],
        ["--before", "on"],
        ["--hidden", "searched"],
        ["--before", "sampled", "--hidden", "sampled"],
    ],
)
def test_bad_arguments_are_refused(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["endgame.py", *argv])
    with pytest.raises(SystemExit) as exit_info:
        bench.main()
    assert exit_info.value.code == 2


def test_at_4_players_the_positions_are_where_the_deck_is_dealt_out() -> None:
    start = bench.last_stage("campione", "normale", 5, 1, 1, players=4)
    assert start.players == 4 and start.deck_left == 0
    assert start.stage == len(start.stages) - 1 and not solvable(start)
    assert sum(len(start.hand(s)) for s in range(4)) == 12
    assert bench.arms("searchers", hidden="sampled") == (
        {"endgame": "searchers", "endgame_hidden": "sampled"},
        {"endgame": "searchers"},
    )
    with_it, without = bench.arms("always", hidden="sampled")
    margin, decisions, worse, _, timed = bench.finish(start, "campione", "normale", 1, with_it, 9)
    # two seats of the bot's side, three cards each: its moves with a choice, each timed
    assert 1 <= len(timed) <= 6 and all(t > 0.0 for t in timed)
    assert decisions == worse == 0  # nothing is known exactly at 4 players
    assert isinstance(margin, int) and not start.is_over
    *_, untimed = bench.finish(start, "campione", "normale", 1, without, 9)
    assert 1 <= len(untimed) <= 6  # the same stage timed without the option


def test_a_4_player_run_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    out = tmp_path / "endgame4.json"
    monkeypatch.setattr(
        sys,
        "argv",
        ["endgame.py", "--against", "normale", "--positions", "2", "--seed", "5",
         "--endgame", "always", "--hidden", "sampled", "--json", str(out)],
    )  # fmt: skip
    assert bench.main() == 0
    result = json.loads(out.read_text())
    assert result["players"] == 4 and result["hidden"] == "sampled" and len(result["gains"]) == 2
    assert result["before_last_ms"]["decisions"] >= 2


def _stored(seed: int, gains: list[float], before: str = "searched") -> dict[str, Any]:
    return {
        "bot": "campione", "against": "campione", "endgame": "searchers", "before": before,
        "searcher_odds": 2.6, "seed": seed, "positions": len(gains), "gains": gains,
        "decisions": 4 * len(gains), "worse_without": 1, "solve_ms": 2.0,
        "before_last_ms": {"with": 100.0, "without": 200.0, "decisions": 3 * len(gains)},
    }  # fmt: skip


def test_runs_on_different_seeds_pool_into_one_gain() -> None:
    pooled = bench.pool([_stored(1, [0.0, 1.0, -0.5]), _stored(2, [2.0, 0.0])])
    assert pooled["positions"] == 5 and pooled["changed"] == 3 and pooled["seeds"] == [1, 2]
    assert pooled["gain"]["mean"] == 0.5
    assert pooled["decisions"] == 20 and pooled["worse_without"] == 2
    assert pooled["before_last_ms"] == {"with": 100.0, "without": 200.0, "decisions": 15}
    # the option's first name in a stored run reads as "sampled"
    first = {**_stored(3, [1.0, 0.0], before=""), "stages": 2}
    assert bench.pool([first, _stored(4, [0.0, 0.0], "sampled")])["before"] == "sampled"


def test_runs_of_different_measures_or_a_seed_twice_do_not_pool() -> None:
    with pytest.raises(ValueError, match="different things"):
        bench.pool([_stored(1, [0.0, 1.0]), _stored(2, [0.0, 1.0], "sampled")])
    with pytest.raises(ValueError, match="twice"):
        bench.pool([_stored(1, [0.0, 1.0]), _stored(1, [0.0, 1.0])])
    four = {**_stored(2, [0.0, 1.0], "off"), "hidden": "sampled"}
    with pytest.raises(ValueError, match="different things"):
        bench.pool([_stored(1, [0.0, 1.0], "off"), four])


def test_pool_from_the_command_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    paths = []
    for seed in (1, 2):
        path = tmp_path / f"run{seed}.json"
        path.write_text(json.dumps(_stored(seed, [0.5, 0.0, 1.0])))
        paths.append(str(path))
    out = tmp_path / "pooled.json"
    monkeypatch.setattr(sys, "argv", ["endgame.py", "--pool", *paths, "--json", str(out)])
    assert bench.main() == 0
    assert json.loads(out.read_text())["positions"] == 6
    monkeypatch.setattr(sys, "argv", ["endgame.py", "--pool", str(tmp_path / "missing.json")])
    with pytest.raises(SystemExit) as exit_info:
        bench.main()
    assert exit_info.value.code == 2
