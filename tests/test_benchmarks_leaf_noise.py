"""benchmarks/leaf_noise.py: how much each way of ending a playout scatters."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from leaf_noise import measure

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.mark.parametrize("players", [2, 4])
def test_averaging_the_dealt_hands_scatters_the_leaves_less(players: int) -> None:
    sd = measure(players, positions=4, samples=40)["mean_sd"]
    # the cut drops the later stages' greedy play; the mean drops the hands' draw too
    assert sd["whole"] > sd["cut"] > sd["cut_mean"] > 0.0


def test_the_script_prints_and_writes_its_figures(tmp_path: Path) -> None:
    out = tmp_path / "noise.json"
    args = ["--players", "2", "--positions", "2", "--samples", "5", "--json", str(out)]
    run = subprocess.run(
        [sys.executable, str(BENCH / "leaf_noise.py"), *args],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "2 players, cut_mean: a leaf's standard deviation" in run.stdout
    saved = json.loads(out.read_text())
    assert saved["positions"] == 2 and set(saved["mean_sd"]) == {"whole", "cut", "cut_mean"}
    bad = subprocess.run(
        [sys.executable, str(BENCH / "leaf_noise.py"), "--samples", "1"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "--samples at least 2" in bad.stderr
