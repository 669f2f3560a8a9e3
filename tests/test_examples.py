"""The programs in examples/ run as documented (briefly)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_train_policy_trains_and_evaluates_in_a_few_seconds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main = runpy.run_path(str(EXAMPLES / "train_policy.py"), run_name="example")["main"]
    result = main(["--episodes", "20", "--eval-pairs", "4", "--seed", "3"])
    out = capsys.readouterr().out
    assert result["episodes"] == 20
    assert "trained on 20 smazzate" in out
    assert "trained policy (greedy):" in out and "random legal moves:" in out
    # a margin is a points difference of one smazzata: finite and within any score sheet
    assert -60 < result["trained"] < 60 and -60 < result["random"] < 60
