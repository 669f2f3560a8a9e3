"""benchmarks/score_items.py: a bot's margin and the cheater's, item by item (S1-S7)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import score_items

from cirulla.scoring import ITEMS


def test_each_play_is_read_item_by_item_and_adds_up_to_its_total() -> None:
    plays = score_items.sheet_margins("normale", "facile", 4, 7, 0)
    assert len(plays) == 2  # the arena's two seatings at 4 players
    for play in plays:
        assert set(play) == set(ITEMS)
        assert sum(v for k, v in play.items() if k != "total") == play["total"]
    # the same deck and seeds: the same sheets
    assert score_items.sheet_margins("normale", "facile", 4, 7, 0) == plays


def test_the_run_pairs_the_bot_and_the_cheater_on_the_same_decks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(score_items, "CHEATER_ITERATIONS", 30)
    out = tmp_path / "items.json"
    monkeypatch.setattr(
        sys,
        "argv",
        ["score_items.py", "--bot", "normale", "--against", "facile", "--players", "2",
         "--pairs", "3", "--seed", "5", "--json", str(out)],
    )  # fmt: skip
    assert score_items.main() == 0
    result = json.loads(out.read_text())
    assert result["pairs"] == 3 and result["cheater_iterations"] == 30
    items = result["items"]
    assert set(items) == set(ITEMS)
    for row in items.values():
        # the gap is the cheater's margin less the bot's, deck by deck
        assert row["gap"]["mean"] == pytest.approx(
            row["cheater"]["mean"] - row["normale"]["mean"], abs=0.002
        )
    parts = sum(items[k]["normale"]["mean"] for k in ITEMS if k != "total")
    assert parts == pytest.approx(items["total"]["normale"]["mean"], abs=0.01)


def test_too_few_decks_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["score_items.py", "--pairs", "1"])
    with pytest.raises(SystemExit) as exit_info:
        score_items.main()
    assert exit_info.value.code == 2
