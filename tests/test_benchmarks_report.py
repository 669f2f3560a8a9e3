"""benchmarks/_report.py: how every benchmark saves and prints its figures."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from _report import print_rows, write_json


def test_write_json_makes_the_folders_and_writes_what_it_echoes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = {"benchmark": "x", "figures": [1, 2.5, None]}
    path = tmp_path / "deep" / "er" / "out.json"
    write_json(result, path, echo=True, said=True)
    text = path.read_text()
    assert text.endswith("}\n") and json.loads(text) == result
    out = capsys.readouterr().out
    assert out.startswith(text.rstrip("\n"))  # the same indented text, then where it went
    assert out.rstrip().endswith(f"wrote {path}")


def test_write_json_without_a_path_only_prints_and_quietly_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_json({"a": 1}, None, echo=True, said=True)
    assert json.loads(capsys.readouterr().out) == {"a": 1}
    write_json({"a": 1}, tmp_path / "q.json")
    assert capsys.readouterr().out == ""
    assert json.loads((tmp_path / "q.json").read_text()) == {"a": 1}


def test_print_rows_aligns_the_values_between_rules(capsys: pytest.CaptureFixture[str]) -> None:
    print_rows("cirulla thing", [("a", "1"), ("longer key", "two")], 5)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "" and lines[1] == "cirulla thing"
    assert lines[2] == lines[5] == "-" * (len("longer key") + 5)
    assert lines[3] == "a           1"
    assert lines[4] == "longer key  two"
