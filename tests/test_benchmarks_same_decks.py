"""benchmarks/same_decks.py: two bots' margins against one opponent, deck by deck."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_benchmarks_cheater_share import run

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from same_decks import compare


def test_the_difference_is_paired_deck_by_deck(tmp_path: Path) -> None:
    # the decks' luck moves both bots alike; A makes half a point more on each
    b = [6.0, -2.0, 3.0, 9.0, -5.0, 1.0]
    a = [m + 0.5 + (0.1 if i % 2 else -0.1) for i, m in enumerate(b)]
    a_runs = [run(tmp_path, "a", "ismcts", s, a[2 * s : 2 * s + 2]) for s in range(3)]
    b_runs = [run(tmp_path, "b", "ismcts", s, b[2 * s : 2 * s + 2]) for s in range(3)]
    b_runs.append(run(tmp_path, "b", "ismcts", 7, [4.0, 4.0]))  # A has no seed 7: left out
    out = compare(a_runs, b_runs)
    assert out["seeds"] == [0, 1, 2] and out["pairs"] == 6
    d = out["a_minus_b"]
    assert d["mean"] == pytest.approx(0.5)
    assert 0.3 < d["ci95"][0] < 0.5 < d["ci95"][1] < 0.7  # unpaired, it would span zero
    assert out["a_margin"]["ci95"][0] < 0 < out["a_margin"]["ci95"][1]


def test_runs_of_other_matches_or_no_common_seed_are_refused(tmp_path: Path) -> None:
    a = run(tmp_path, "a", "ismcts", 1, [3.0, 4.0])
    with pytest.raises(SystemExit, match="players"):
        compare([a], [run(tmp_path, "b", "ismcts", 1, [1.0, 2.0], players=4)])
    with pytest.raises(SystemExit, match="no seed"):
        compare([a], [run(tmp_path, "b", "ismcts", 2, [1.0, 2.0])])
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    for bad in (tmp_path / "missing.json", broken):
        with pytest.raises(SystemExit, match="not a `cirulla arena --json` run"):
            compare([bad], [a])


def test_greedy_pairs_whatever_budget_a_run_wrote_beside_it(tmp_path: Path) -> None:
    # greedy ignores its budget, so runs that wrote different ones played the same decks
    greedy = {"name": "greedy", "budget": {"iterations": 1, "seconds": None}}
    a = run(tmp_path, "a", "ismcts", 1, [3.0, 4.0], b={**greedy, "budget": {"iterations": 3000}})
    out = compare([a], [run(tmp_path, "b", "ismcts", 1, [1.0, 2.0], b=greedy)])
    assert out["a_minus_b"]["mean"] == pytest.approx(2.0)
    # a searcher's budget is its strength: those runs are not the same match
    searcher = {"name": "ismcts", "budget": {"iterations": 1500}}
    a = run(tmp_path, "a", "ismcts", 2, [3.0, 4.0], b=searcher)
    stronger = {**searcher, "budget": {"iterations": 3000}}
    with pytest.raises(SystemExit, match="'b'"):
        compare([a], [run(tmp_path, "b", "ismcts", 2, [1.0, 2.0], b=stronger)])
    # nor is greedy with other options
    a = run(tmp_path, "a", "ismcts", 3, [3.0, 4.0], b={**greedy, "options": {"x": 1}})
    with pytest.raises(SystemExit, match="'b'"):
        compare([a], [run(tmp_path, "b", "ismcts", 3, [1.0, 2.0], b=greedy)])
