"""benchmarks/strength_arena.py: a bad bot option is a usage error, not a traceback."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import strength_arena


def test_a_bad_option_is_a_usage_error_naming_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["strength_arena.py", "ismcts", "greedy", "--budget-a", "10", "--budget-b", "1"]
    monkeypatch.setattr(sys, "argv", [*argv, "--options-a", '{"leaf": "cut_mean", "value": "x"}'])
    with pytest.raises(SystemExit) as exit_info:
        strength_arena.main()
    assert exit_info.value.code == 2
    said = capsys.readouterr().err
    assert "value must be one of cheater, campione, cheater_life, not 'x'" in said
