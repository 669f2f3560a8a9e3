"""benchmarks/cheater_share.py: the share of the cheater's margin, deck by deck (the
figure issue 16's aim is read from)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from cheater_share import share


def run(tmp: Path, name: str, a: str, seed: int, margins: list[float], **config: Any) -> Path:
    body = {
        "config": {
            "a": {"name": a},
            "b": {"name": "greedy"},
            "players": 2,
            "pairs": len(margins),
            "rules": {"game": "cirulla"},
            "seed": seed,
            **config,
        },
        "smazzate": {"pair_margins": margins},
    }
    path = tmp / f"{name}_s{seed}.json"
    path.write_text(json.dumps(body))
    return path


def test_the_share_and_the_paired_difference_are_read_deck_by_deck(tmp_path: Path) -> None:
    cheater = [8.0, 6.0, 7.0, 9.0]
    bot = [4.5, 2.5, 3.0, 4.0]  # each deck: about half of the cheater's, as luck moves both
    paths = [run(tmp_path, "bot", "ismcts", 1, bot[:2]), run(tmp_path, "bot", "ismcts", 2, bot[2:])]
    cheats = [
        run(tmp_path, "cheat", "cheater", 1, cheater[:2]),
        run(tmp_path, "cheat", "cheater", 2, cheater[2:]),
        run(tmp_path, "cheat", "cheater", 3, [1.0, 1.0]),  # no bot run: left out
    ]
    out = share(paths, cheats)
    assert out["seeds"] == [1, 2] and out["pairs"] == 4
    assert out["share"]["mean"] == pytest.approx(14 / 30)
    difference = out["bot_minus_fraction_of_cheater"]
    assert difference["mean"] == pytest.approx((14 - 15) / 4)
    lo, hi = difference["ci95"]
    # paired: the decks' luck cancels, so the interval is far narrower than unpaired
    assert hi - lo < 1.0
    assert out["share"]["ci95"][0] < 14 / 30 < out["share"]["ci95"][1]


def test_runs_of_other_matches_are_refused(tmp_path: Path) -> None:
    bot = run(tmp_path, "bot", "ismcts", 1, [3.0, 4.0])
    four = run(tmp_path, "cheat", "cheater", 1, [7.0, 6.0], players=4)
    with pytest.raises(SystemExit, match="players"):
        share([bot], [four])
    not_cheater = run(tmp_path, "other", "ismcts", 1, [7.0, 6.0])
    with pytest.raises(SystemExit, match="side A"):
        share([bot], [not_cheater])
    with pytest.raises(SystemExit, match="no seed"):
        share([bot], [run(tmp_path, "cheat", "cheater", 9, [7.0, 6.0])])
    with pytest.raises(SystemExit, match="fraction"):
        share([bot], [run(tmp_path, "cheat", "cheater", 1, [7.0, 6.0])], fraction=0)
