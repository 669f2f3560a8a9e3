"""The `cirulla` command: rules, deal, game, replay, and their exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cirulla import Deal, Rules, game_record, replay_game
from cirulla.cli import main

SHEET_ITEMS = [
    "Scope",
    "Accusi",
    "Carte",
    "Denari",
    "Settebello",
    "Primiera",
    "Grande",
    "Piccola",
    "Total",
]
SRC = Path(__file__).resolve().parents[1] / "src"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _record_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> Path:
    path = tmp_path / "game.json"
    argv = ["game", "--seed", "6", "--players", "2", *extra, "--record", str(path)]
    assert _run(capsys, *argv)[0] == 0 and path.exists()
    return path


# ---- rules ---------------------------------------------------------------------------------


def test_cli_rules_lists_presets_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "rules")
    assert code == 0 and err == ""
    for name in Rules.presets():
        assert name in out
    for option in ("target", "knockout", "ace_choice", "matta_keeps_value", "dossena"):
        assert option in out


def test_cli_rules_of_a_preset_shows_its_values(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "rules", "--preset", "scopa")
    assert code == 0
    assert "'scopa'" in out and "11" in out


def test_cli_rules_json_parses_to_the_options_and_presets(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _run(capsys, "rules", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["options"] == Rules().to_dict()
    assert list(data["presets"]) == Rules.presets()
    for name in Rules.presets():
        assert Rules.from_dict(data["presets"][name]) == Rules.preset(name)


# ---- deal ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "preset,players", [("cirulla", 2), ("cirulla", 4), ("dossena", 3), ("scopa", 4)]
)
def test_cli_deal_prints_the_moves_and_the_score_sheet(
    capsys: pytest.CaptureFixture[str], preset: str, players: int
) -> None:
    args = ["deal", "--seed", "5", "--preset", preset, "--players", str(players), "--dealer", "1"]
    code, text, err = _run(capsys, *args)
    assert code == 0 and err == ""
    code, out, _ = _run(capsys, *args, "--json")
    assert code == 0
    data = json.loads(out)
    plays = [e for e in data["events"] if e["type"] == "play"]
    assert len(plays) == 36 and [e["move"] for e in plays] == [
        m for m in data["moves"] if not m.startswith("!")
    ]
    for event in plays:  # the move list
        assert f"seat {event['seat']}: {event['move']}" in text
    for event in data["events"]:
        if event["type"] == "declare":
            assert f"seat {event['seat']} declares {event['move']}" in text
    for item in SHEET_ITEMS:  # the score sheet
        assert item in text
    totals = [side["total"] for side in data["score"]["sides"]]
    total_row = next(line for line in text.splitlines() if "Total" in line)
    assert [int(x) for x in total_row.replace("│", " ").split()[1:]] == totals
    columns = (
        ["seats 0 + 2", "seats 1 + 3"] if players == 4 else [f"seat {s}" for s in range(players)]
    )
    header = next(line for line in text.splitlines() if "item" in line)
    assert [c for c in columns if c in header] == columns  # one column per side


def test_cli_deal_json_is_a_real_smazzata(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "deal", "--seed", "12", "--players", "3", "--dealer", "2", "--json")
    assert code == 0
    data = json.loads(out)
    deal = Deal(Rules.preset("cirulla"), players=3, dealer=2, seed=12)
    for move in data["moves"]:
        deal.play(move)
    assert deal.is_over
    assert deal.events == data["events"]
    assert deal.score().to_dict() == data["score"]


def test_cli_deal_is_reproducible_from_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    first = _run(capsys, "deal", "--seed", "3", "--json")
    again = _run(capsys, "deal", "--seed", "3", "--json")
    other = _run(capsys, "deal", "--seed", "4", "--json")
    assert first == again
    assert json.loads(first[1])["moves"] != json.loads(other[1])["moves"]


# ---- game and replay -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "preset,players", [("cirulla", 2), ("cirulla", 3), ("scopa", 4), ("cirullone", 4)]
)
def test_cli_game_plays_a_partita_and_its_record_replays(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, preset: str, players: int
) -> None:
    path = tmp_path / "g.json"
    argv = ["game", "--seed", "2", "--preset", preset, "--players", str(players)]
    code, out, err = _run(capsys, *argv, "--record", str(path))
    assert code == 0 and err == ""
    record = json.loads(path.read_text())
    assert record["format"] == "cirulla.game/1" and record["over"] is True
    assert record["rules"] == Rules.preset(preset).to_dict() and record["players"] == players
    for n in range(1, len(record["deals"]) + 1):
        assert f"Smazzata {n} " in out
    for item in SHEET_ITEMS:
        assert item in out
    assert f"totals: {record['totals']}" in out
    assert f"({record['end_reason']})" in out
    game = replay_game(record)
    assert json.loads(json.dumps(game_record(game))) == record

    code, out, _ = _run(capsys, "replay", str(path))
    assert code == 0
    assert "record replays" in out
    assert f"{len(record['deals'])} smazzate" in out
    assert str(record["totals"]) in out and f"winner {record['winner']}" in out


def test_cli_game_without_record_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = _run(capsys, "game", "--seed", "1", "--players", "2")
    assert code == 0 and "wins (" in out
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "tamper",
    [
        lambda r: r["deals"][1]["moves"].__setitem__(2, "KDxQD"),
        lambda r: r["deals"][0]["score"][0].__setitem__("total", 99),
        lambda r: r.__setitem__("winner", 1 - r["winner"]),
        lambda r: r["deals"][1].__setitem__("dealer", r["deals"][0]["dealer"]),
        lambda r: r.__setitem__("format", "cirulla.game/9"),
        lambda r: r.__setitem__("players", 3),
        lambda r: r.__setitem__("deals", []),
        lambda r: r.clear(),
    ],
)
def test_cli_replay_of_a_tampered_record_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tamper: Any
) -> None:
    path = _record_file(tmp_path, capsys)
    record = json.loads(path.read_text())
    tamper(record)
    path.write_text(json.dumps(record))
    code, out, _ = _run(capsys, "replay", str(path))
    assert code == 1
    assert "rejected" in out
    assert "record replays" not in out


def test_cli_replay_of_a_tampered_move_names_the_deal_and_move(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _record_file(tmp_path, capsys)
    record = json.loads(path.read_text())
    record["deals"][1]["moves"][2] = "not-a-move"
    path.write_text(json.dumps(record))
    code, out, _ = _run(capsys, "replay", str(path))
    assert code == 1
    assert "deal 2, move 3" in " ".join(out.split())


def test_cli_replay_rejects_a_move_that_looks_like_markup(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A record is untrusted input: its text must be printed, not interpreted."""
    path = _record_file(tmp_path, capsys)
    record = json.loads(path.read_text())
    record["deals"][0]["moves"][0] = "[/x]"
    path.write_text(json.dumps(record))
    code, out, _ = _run(capsys, "replay", str(path))
    assert code == 1
    assert "rejected" in out and "[/x]" in out


@pytest.mark.parametrize("content", [None, "{not json", "", b"\xff\xfe\x00garbage"])
def test_cli_replay_of_an_unreadable_file_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str | bytes | None
) -> None:
    path = tmp_path / "record.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    code, out, err = _run(capsys, "replay", str(path))
    assert code == 2
    assert "record replays" not in out
    assert str(path.name) in out + err or "error" in out + err


def test_cli_error_names_a_long_path_whole_on_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A path in an error is not folded at the console's width: it can be copied."""
    path = tmp_path / ("a-partita-with-a-long-name-" * 4 + "record.json")
    code, out, err = _run(capsys, "replay", str(path))
    assert code == 2
    assert str(path) in out + err


def test_cli_replay_of_a_directory_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, _ = _run(capsys, "replay", str(tmp_path))
    assert code == 2


def test_cli_replay_of_a_missing_file_with_brackets_in_its_name_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = _run(capsys, "replay", str(tmp_path / "[/x]game.json"))
    assert code == 2
    assert "[/x]game.json" in out + err


# ---- impossible combinations and bad arguments ---------------------------------------------


@pytest.mark.parametrize(
    "argv,words",
    [
        (["deal", "--preset", "cirullone", "--players", "2"], ["cirullone", "2"]),
        (["deal", "--preset", "cirullone-6-3", "--players", "3"], ["cirullone-6-3", "3"]),
        (["game", "--preset", "scopa", "--players", "3"], ["scopa", "3"]),
        (["game", "--preset", "luzzati", "--players", "3"], ["luzzati", "2 or 4"]),
        (["game", "--preset", "cirullone-3-6", "--players", "2"], ["cirullone-3-6", "2"]),
    ],
)
def test_cli_impossible_preset_and_players_exit_2_with_a_message(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: list[str]
) -> None:
    code, out, err = _run(capsys, *argv)
    assert code == 2
    assert "error" in err
    message = " ".join(err.split())
    for word in words:
        assert word in message
    assert "Total" not in out  # nothing was played


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["shuffle"],
        ["deal", "--players", "5"],
        ["deal", "--preset", "briscola"],
        ["deal", "--seed", "many"],
        ["game", "--players", "1"],
        ["rules", "--preset", "nope"],
        ["replay"],
    ],
)
def test_cli_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert "usage" in capsys.readouterr().err


def test_cli_module_entry_point_returns_the_exit_codes(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC)}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "cirulla.cli", *argv],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )

    ok = run("rules", "--json")
    assert ok.returncode == 0 and "presets" in json.loads(ok.stdout)
    path = tmp_path / "g.json"
    assert run("game", "--seed", "4", "--players", "2", "--record", str(path)).returncode == 0
    assert run("replay", str(path)).returncode == 0
    record = json.loads(path.read_text())
    record["totals"] = [0, 0]
    path.write_text(json.dumps(record))
    assert run("replay", str(path)).returncode == 1
    assert run("replay", str(tmp_path / "missing.json")).returncode == 2
    bad = run("deal", "--preset", "cirullone", "--players", "3")
    assert bad.returncode == 2 and "cirullone" in bad.stderr
