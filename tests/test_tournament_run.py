"""`cirulla tournament run`: whole tournaments of bots, their record (API.md,
"Tournaments"), determinism, `cirulla replay` and `cirulla verify` on the record,
and the command's errors."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from cirulla.cli import main
from cirulla.competition import TournamentError, verify_tournament


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _tournament(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, *argv: str
) -> dict[str, Any]:
    path = tmp_path / f"{name}.json"
    code, out, err = _run(capsys, "tournament", "run", *argv, "--json", str(path))
    assert code == 0, out + err
    assert "winner:" in out
    record: dict[str, Any] = json.loads(path.read_text())
    return record


def _played(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for r in record["rounds"] for m in r["matches"] if not m["bye"]]


def test_knockout_tie_goes_to_a_spareggio_and_the_record_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # seed 8: match 5 (round 2) ends 1 smazzata level and goes to a spareggio (E3)
    record = _tournament(
        tmp_path, capsys, "ko", "--format", "knockout", "--entrants", "random:8", "--hands", "1",
        "--seed", "8",
    )  # fmt: skip
    assert record["rules"]["knockout"] is True
    assert [len(r["matches"]) for r in record["rounds"]] == [4, 2, 1]
    spareggi = [
        (m, g) for m in _played(record) for g in m["records"] if g["end_reason"] == "spareggio"
    ]
    assert spareggi
    match, game = spareggi[0]
    first, *more = game["deals"]
    assert more and first["score"][0]["total"] == first["score"][1]["total"]  # level after 1
    last = more[-1]["score"]
    decider = 0 if last[0]["total"] > last[1]["total"] else 1
    assert match["winner"] == game["winner"] == decider  # the spareggio decided by itself
    final = record["rounds"][-1]["matches"][0]
    assert record["winner"] == final["sides"][final["winner"]]
    assert verify_tournament(record).partite == 7
    code, out, _ = _run(capsys, "verify", str(tmp_path / "ko.json"))
    assert code == 0 and "OK: knockout tournament" in out


def test_knockout_byes_go_to_the_top_seeds_and_best_of_three_plays_to_two_wins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = _tournament(
        tmp_path, capsys, "ko5", "--format", "knockout", "--entrants", "normale:2,random:3",
        "--hands", "1", "--best-of", "3", "--seed", "2",
    )  # fmt: skip
    first = record["rounds"][0]["matches"]
    byes = [m for m in first if m["bye"]]
    assert sorted(m["sides"][0][0] for m in byes) == ["e1", "e2", "e3"]
    for m in byes:
        assert m["sides"][1] == [] and m["records"] == [] and m["winner"] is None
    for m in _played(record):
        wins = [sum(1 for g in m["records"] if g["winner"] == s) for s in (0, 1)]
        assert len(m["records"]) in (2, 3) and max(wins) == 2 and wins[m["winner"]] == 2
    verify_tournament(record)


def test_record_has_the_keys_of_api_md_for_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = {
        "swiss": ("--entrants", "normale:3,facile:2,random:3", "--players", "4", "--hands", "2"),
        "round-robin": ("--entrants", "normale:2,random:3", "--target", "11"),
        "knockout": ("--entrants", "facile:3", "--hands", "1", "--players", "2"),
    }
    for fmt, argv in cases.items():
        record = _tournament(tmp_path, capsys, fmt, "--format", fmt, *argv, "--seed", "4")
        for key in ("format", "rules", "players", "seed", "entrants", "rounds", "standings"):
            assert key in record, (fmt, key)
        assert record["format"] == fmt and record["seed"] == 4
        players = record["players"]
        per_side = 2 if players == 4 else 1
        assert record["entrants"] == [f"e{i + 1}" for i in range(len(record["entrants"]))]
        for number, rnd in enumerate(record["rounds"], start=1):
            assert rnd["round"] == number
            for m in rnd["matches"]:
                assert {"sides", "bye", "records", "winner", "vp", "mp"} <= set(m)
                assert len(m["sides"][0]) == per_side
                if m["bye"]:
                    assert m["sides"][1] == [] and m["winner"] is None
                else:
                    assert len(m["sides"][1]) == per_side and m["winner"] in (0, 1)
                    assert all(g["players"] == players for g in m["records"])
                if fmt != "knockout":
                    assert len(m["vp"]) == 2 and len(m["mp"]) == 2
                    if not m["bye"]:
                        assert sum(m["vp"]) == 20 and m["mp"][0] == -m["mp"][1]
        rows = record["standings"]
        assert sorted(r["entrant"] for r in rows) == sorted(record["entrants"])
        if fmt != "knockout":
            assert all({"entrant", "rank", "vp", "mp"} <= set(r) for r in rows)
            assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
            assert record["winner"] == rows[0]["side"]
            vp = {e: 0 for e in record["entrants"]}
            for rnd in record["rounds"]:
                for m in rnd["matches"]:
                    for s, side in enumerate(m["sides"]):
                        for e in side:
                            vp[e] += m["vp"][s]
            assert all(r["vp"] == vp[r["entrant"]] for r in rows)
        assert len(record["winner"]) == per_side
        verify_tournament(record)
    odd = json.loads((tmp_path / "round-robin.json").read_text())
    assert sum(m["bye"] for r in odd["rounds"] for m in r["matches"]) == 5  # one each


def test_same_seed_gives_the_same_record_byte_for_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--format", "swiss", "--entrants", "normale:3,facile:3", "--hands", "1"]
    texts = []
    for name, seed in (("a", "7"), ("b", "7"), ("c", "8")):
        _tournament(tmp_path, capsys, name, *argv, "--seed", seed)
        texts.append((tmp_path / f"{name}.json").read_bytes())
    assert texts[0] == texts[1]
    assert texts[0] != texts[2]


def test_every_game_record_is_accepted_by_cirulla_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = _tournament(
        tmp_path, capsys, "rr", "--format", "round-robin", "--entrants", "normale:2,random:2",
        "--players", "4", "--hands", "2", "--option", "carte_viste=true",
    )  # fmt: skip
    assert record["rules"]["carte_viste"] is True and record["rules"]["hands"] == 2
    games = [g for m in _played(record) for g in m["records"]]
    assert len(games) == 1  # two pairs: one match
    more = _tournament(
        tmp_path, capsys, "ko", "--format", "knockout", "--entrants", "random:4",
        "--preset", "scopa", "--seed", "1",
    )  # fmt: skip
    games += [g for m in _played(more) for g in m["records"]]
    assert all(g["rules"]["game"] == "scopa" for g in games[1:])
    for i, game in enumerate(games):
        path = tmp_path / f"game{i}.json"
        path.write_text(json.dumps(game))
        code, out, _ = _run(capsys, "replay", str(path))
        assert code == 0 and "record replays" in out


def _tamperings() -> list[tuple[str, Any, str]]:
    """(what, how to change a Swiss record of 5 entrants, what the error names)."""

    def swap_sides(r: dict[str, Any]) -> None:
        m = r["rounds"][1]["matches"][0]
        m["sides"].reverse()

    def change_vp(r: dict[str, Any]) -> None:
        m = r["rounds"][0]["matches"][0]
        m["vp"] = [m["vp"][0] + 1, m["vp"][1] - 1]

    def change_winner(r: dict[str, Any]) -> None:
        m = r["rounds"][2]["matches"][1]
        m["winner"] = 1 - m["winner"]

    def change_move(r: dict[str, Any]) -> None:
        deal = r["rounds"][0]["matches"][1]["records"][0]["deals"][0]
        deal["moves"][0], deal["moves"][1] = deal["moves"][1], deal["moves"][0]

    def replay_other_deck(r: dict[str, Any]) -> None:  # a partita from another match
        a, b = r["rounds"][0]["matches"][0], r["rounds"][0]["matches"][1]
        a["records"], b["records"] = b["records"], a["records"]

    def move_bye(r: dict[str, Any]) -> None:
        matches = r["rounds"][0]["matches"]
        bye = next(m for m in matches if m["bye"])
        other = next(m for m in matches if not m["bye"])
        bye["sides"][0], other["sides"][1] = other["sides"][1], bye["sides"][0]

    def change_standing(r: dict[str, Any]) -> None:
        r["standings"][0]["vp"] += 1

    def change_tournament_winner(r: dict[str, Any]) -> None:
        r["winner"] = r["standings"][-1]["side"]

    def drop_round(r: dict[str, Any]) -> None:
        r["rounds"].pop()

    return [
        ("swapped sides", swap_sides, "round 2, match 1: sides"),
        ("changed vp", change_vp, "round 1, match 1: vp"),
        ("changed winner", change_winner, "round 3, match 2: winner"),
        ("changed move", change_move, "round 1, match 2, partita 1: deal 1, move"),
        ("another match's partita", replay_other_deck, "round 1, match 1, partita 1: seed"),
        ("moved bye", move_bye, "round 1, match"),
        ("changed standing", change_standing, "standings, row 1"),
        ("changed winner of all", change_tournament_winner, "winner"),
        ("dropped round", drop_round, "the record only 2"),
    ]


def test_verify_rejects_a_tampered_tournament_record_naming_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = _tournament(
        tmp_path, capsys, "swiss", "--format", "swiss", "--entrants", "normale:2,facile:3",
        "--hands", "1", "--seed", "11",
    )  # fmt: skip
    assert len(record["rounds"]) == 3
    verify_tournament(record)
    for what, tamper, where in _tamperings():
        bad = copy.deepcopy(record)
        tamper(bad)
        with pytest.raises(TournamentError, match=where):
            verify_tournament(bad)
        assert what
    bad = copy.deepcopy(record)
    bad["rounds"][0]["matches"][0]["vp"][0] += 1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    code, out, _ = _run(capsys, "verify", str(tmp_path / "swiss.json"), str(path))
    assert code == 1
    assert "swiss.json: OK: swiss tournament" in out
    assert f"{path}: REJECTED: round 1, match 1: vp" in out


BAD_ARGS = [
    (["--format", "ladder", "--entrants", "normale:4"], "invalid choice: 'ladder'"),
    (["--format", "swiss", "--entrants", "bogus:4"], "unknown level 'bogus'"),
    (["--format", "swiss", "--entrants", "normale:0"], "count must be at least 1"),
    (["--format", "swiss", "--entrants", "normale"], "expected LEVEL:COUNT"),
    (["--format", "swiss", "--entrants", "normale:5", "--players", "4"], "even"),
    (["--format", "knockout", "--entrants", "normale:4", "--rounds", "2"], "no --rounds"),
    (
        ["--format", "swiss", "--entrants", "normale:4", "--target", "11", "--hands", "1"],
        "not allowed with argument",
    ),
    (["--format", "swiss", "--entrants", "normale:6", "--rounds", "4"], "1 to 3 rounds"),
    (["--format", "swiss", "--entrants", "normale:4", "--target", "15"], "target must be one of"),
    (["--format", "round-robin", "--entrants", "normale:1"], "at least 2 sides"),
    (["--format", "swiss", "--entrants", "normale:4", "--best-of", "3"], "no best of three"),
    (["--format", "knockout", "--entrants", "normale:4", "--option", "bogus=1"], "bogus"),
    (["--format", "knockout", "--entrants", "normale:4", "--option", "knockout=no"], "knockout"),
    (["--format", "swiss", "--entrants", "normale:4", "--preset", "cirullone"], "4 players"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_ARGS)
def test_bad_arguments_are_a_usage_error_and_write_nothing(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.json"
    with pytest.raises(SystemExit) as exc:
        main(["tournament", "run", *argv, "--json", str(path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert not path.exists()
