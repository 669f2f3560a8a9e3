"""The score keeper for partite played with real cards: `score_piles` refuses piles that
are not the whole deck (P8), `cirulla score` (pile notation, totals, E1 ties, S8
cappotto, the winner), and POST /api/score answering the engine's own sheet."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cirulla import Rules, score_piles
from cirulla.cards import full_deck
from cirulla.cli import main
from cirulla.score_keeping import parse_pile, parse_smazzata, standing

DECK = [str(c) for c in full_deck()]
DIAMONDS = [f"{r}D" for r in "A234567JQK"]
CIRULLA = Rules()


def rest(*taken: list[str]) -> list[str]:
    held = {c for pile in taken for c in pile}
    return [c for c in DECK if c not in held]


# ---- the engine: the whole deck or nothing -----------------------------------------------


@pytest.mark.parametrize(
    ("piles", "missing"),
    [
        ([DECK[:10], DECK[10:30]], 10),  # the bug of issue 15: piles covering 30 of 40
        ([DECK[:20], DECK[20:39]], 1),
        ([DECK[:1], []], 39),
        ([DECK[:10], DECK[10:20], DECK[20:38]], 2),
    ],
)
def test_score_piles_refuses_piles_that_are_not_the_whole_deck(
    piles: list[list[str]], missing: int
) -> None:
    with pytest.raises(ValueError, match=rf"\b{missing} missing\b") as info:
        score_piles(CIRULLA, piles)
    message = str(info.value)
    assert f"{40 - missing} of the 40 cards" in message
    left = [c for c in DECK if all(c not in p for p in piles)]
    assert left[0] in message  # names the missing cards (the first few)


def test_score_piles_names_at_most_a_few_missing_cards() -> None:
    with pytest.raises(ValueError) as info:
        score_piles(CIRULLA, [DECK[:5], DECK[5:10]])
    assert "30 missing" in str(info.value) and "..." in str(info.value)
    assert len(str(info.value)) < 200


def test_score_piles_accepts_the_whole_deck_and_no_cards_at_all() -> None:
    assert [d["cards"] for d in score_piles(CIRULLA, [DECK[:21], DECK[21:]]).details] == [21, 19]
    # P8: when nobody captured, the cards are counted for nobody; D7 wins at the deal.
    assert score_piles(CIRULLA, [[], []], scope=[0, 0], bonus=[3, 0]).totals == [3, 0]


@pytest.mark.parametrize("preset", Rules.presets())
def test_every_preset_plays_the_forty_card_deck(preset: str) -> None:
    """No preset uses another deck (C1, CR2, SC1): 40 cards shared out always score."""
    rules = Rules.preset(preset)
    players = 4 if rules.stages else 2
    rules.check_players(players)
    assert len(score_piles(rules, [DECK[::2], DECK[1::2]]).sides) == 2
    with pytest.raises(ValueError, match="1 missing"):
        score_piles(rules, [DECK[::2], DECK[1:-1:2]])


def test_a_duplicate_is_reported_before_the_count() -> None:
    with pytest.raises(ValueError, match="more than one pile"):
        score_piles(CIRULLA, [DECK[:21], DECK[20:]])


# ---- pile notation and the partita's standing -------------------------------------------


def test_pile_notation_suits_ranks_runs_minus_and_rest() -> None:
    cards, takes = parse_pile("d 7 -7H A-3s, KC rest")
    assert takes
    expected = [*DIAMONDS, "7C", "7S", "AS", "2S", "3S", "KC"]
    assert sorted(map(str, cards)) == sorted(expected)
    with pytest.raises(ValueError, match="bad card"):
        parse_pile("8D")
    with pytest.raises(ValueError, match="lower rank"):
        parse_pile("5-AD")
    with pytest.raises(ValueError, match="does not hold"):
        parse_pile("7D -6D")


def test_smazzata_by_name_the_last_side_takes_the_rest() -> None:
    s = parse_smazzata("Bruno: H s=1 | Anna: a=3", ["Anna", "Bruno"])
    assert [len(p) for p in s.piles] == [30, 10]
    assert s.scope == [0, 1] and s.bonus == [3, 0]
    assert all(c.suit == "H" for c in s.piles[1])
    with pytest.raises(ValueError, match="only one pile"):
        parse_smazzata("rest | rest", ["A", "B"])
    with pytest.raises(ValueError, match="2 sides"):
        parse_smazzata("D", ["A", "B"])
    with pytest.raises(ValueError, match="unknown side"):
        parse_smazzata("Carla: D | B: rest", ["A", "B"])


def test_standing_follows_E1_E2_and_S8() -> None:
    r = Rules().replace(target=21)
    assert not standing(r, [[10, 5], [5, 5]]).over
    tied = standing(r, [[15, 15], [6, 6]])
    assert not tied.over and tied.totals == [21, 21]  # E1: a tie at the top plays on
    won = standing(r, [[15, 15], [6, 6], [1, 0]])
    assert (won.over, won.winner, won.reason, won.smazzate) == (True, 0, "target", 3)
    assert standing(r, [[2, 9]], [1]).winner == 1  # S8 cappotto at once
    hands = Rules().replace(hands=2)
    assert standing(hands, [[30, 0], [0, 31]]).winner == 1
    with pytest.raises(ValueError, match="already over after smazzata 1"):
        standing(r, [[25, 0], [1, 1]])


# ---- cirulla score ----------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["score", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_non_interactive_gives_the_totals_and_the_winner(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = ["AD", "2D", "3D", "4D", "5D", "6D", "7H"]
    second = ["7D", "JD", "QD", "KD", "7C", "7S", "6C", "6S", "AC", "AS"]
    r = Rules().replace(target=21)
    s1 = score_piles(r, [first, rest(first)], scope=[2, 1], bonus=[3, 0])
    s2 = score_piles(r, [rest(second), second], scope=[0, 3], bonus=[10, 0])
    totals = [a + b for a, b in zip(s1.totals, s2.totals, strict=True)]
    code, out, err = run(
        capsys,
        "--target", "21", "--names", "Anna,Bruno", "--json",
        "--smazzata", f"Anna: {' '.join(first)} s=2 a=3 | Bruno: rest s=1",
        "--smazzata", f"Bruno: {' '.join(second)} s=3 | Anna: a=10",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["scores"] == [s1.to_dict(), s2.to_dict()]
    assert data["totals"] == totals and data["over"] is True
    assert data["winner"] == totals.index(max(totals)) and data["reason"] == "target"
    # The same partita as tables, for people.
    code, out, _ = run(
        capsys, "--target", "21", "--names", "Anna,Bruno",
        "--smazzata", f"{' '.join(first)} s=2 a=3 | rest s=1",
        "--smazzata", f"rest a=10 | {' '.join(second)} s=3",
    )  # fmt: skip
    assert code == 0
    assert "Smazzata 2" in out and "Anna" in out
    winner = ["Anna", "Bruno"][data["winner"]]
    assert f"{winner} wins the partita (21 points)" in out


def test_cli_file_three_players_and_scopa(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "partita.json"
    path.write_text(
        json.dumps(
            {
                "preset": "cirulla",
                "players": 3,
                "options": {"target": 11},
                "smazzate": [
                    {"piles": ["D", "H", "rest"], "scope": [0, 1, 2], "bonus": [0, 0, 3]},
                ],
            }
        )
    )
    code, out, err = run(capsys, "--file", str(path), "--json")
    assert code == 0, err
    data = json.loads(out)
    want = score_piles(
        CIRULLA.replace(target=11),
        [DIAMONDS, [f"{r}H" for r in "A234567JQK"], [c for c in DECK if c[1] in "CS"]],
        scope=[0, 1, 2],
        bonus=[0, 0, 3],
    )
    assert data["scores"] == [want.to_dict()]
    assert data["winner"] == 0 and data["reason"] == "cappotto"
    code, out, err = run(capsys, "--preset", "scopa", "--json", "--smazzata", "D s=1 | rest")
    assert code == 0, err
    assert (
        json.loads(out)["totals"]
        == score_piles(Rules.preset("scopa"), [DIAMONDS, rest(DIAMONDS)], scope=[1, 0]).totals
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--smazzata", "A: D | B: 7H"], "29 missing"),
        (["--smazzata", "A: D | B: D"], "more than one pile"),
        (["--smazzata", "A: 9D | B: rest"], "bad card"),
        (["--players", "3", "--smazzata", "D | rest"], "3 sides"),
        (["--preset", "cirullone", "--smazzata", "D | rest"], "4 players"),
        (["--set", "knockout=true", "--smazzata", "D | rest"], "knockout"),
        (["--preset", "scopa", "--smazzata", "D a=3 | rest"], "no bonus"),
        (["--smazzata", "D | rest", "--smazzata", "H | rest"], "already over"),
    ],
)
def test_cli_bad_input_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in re.sub(r"\s+", " ", err), err


def test_cli_interactive_asks_each_side_and_takes_undo(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = iter(
        [
            "", "",  # rules cirulla, 2 players (the defaults)
            "H AD", "1", "0", "", "0", "0",  # smazzata 1: hearts and AD to A, the rest to B
            "undo",  # ... taken back
            "D", "0", "0", "", "0", "0",  # smazzata 1 again: all diamonds, a cappotto
        ]
    )  # fmt: skip
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    code, out, _ = run(capsys)
    assert code == 0
    assert "smazzata 1 removed" in out
    assert "A wins the partita (cappotto)" in out


# ---- POST /api/score ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def client() -> Any:
    from cirulla.gateway.app import create_app
    from cirulla.settings import Settings

    return TestClient(create_app(Settings(test_mode=True)))  # no lifespan: no store needed


def test_api_answers_the_engines_sheet_without_a_login(client: Any) -> None:
    piles = [[*DIAMONDS[:6], "7H"], rest(DIAMONDS[:6], ["7H"])]
    body = {"piles": piles, "scope": [2, 1], "bonus": [3, 0], "options": {"target": 21}}
    r = client.post("/api/score", json=body)
    assert r.status_code == 200, r.text
    data = r.json()
    rules = Rules().replace(target=21)
    assert data["sheet"] == score_piles(rules, piles, scope=[2, 1], bonus=[3, 0]).to_dict()
    assert data["rules"] == rules.to_dict()
    assert data["totals"] == [s["total"] for s in data["sheet"]["sides"]]
    assert data["over"] is False and data["winner"] is None


def test_api_counts_the_smazzate_before_and_ends_the_partita(client: Any) -> None:
    piles = [rest(DIAMONDS[:3]), DIAMONDS[:3]]
    sheet = score_piles(CIRULLA, piles)
    r = client.post("/api/score", json={"piles": piles, "before": [[30, 20], [15, 18]]})
    assert r.status_code == 200, r.text
    data = r.json()
    totals = [45 + sheet.totals[0], 38 + sheet.totals[1]]
    assert data["totals"] == totals and data["smazzate"] == 3
    assert data["over"] is True and data["winner"] == 0 and data["reason"] == "target"


def test_api_four_players_are_two_sides_and_cirullone_needs_them(client: Any) -> None:
    piles = [DECK[:20], DECK[20:]]
    r = client.post("/api/score", json={"preset": "cirullone", "players": 4, "piles": piles})
    assert r.status_code == 200, r.text
    assert r.json()["rules"]["target"] == 101


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"piles": [DIAMONDS, ["7H"]]}, "29 missing"),
        ({"piles": [DECK[:30], DECK[29:]]}, "more than one pile"),
        ({"piles": [DECK[:20], [*DECK[20:39], "9D"]]}, "9D"),
        ({"piles": [DECK[:20], DECK[20:]], "players": 3}, "3 piles"),
        ({"piles": [DECK[:20], DECK[20:]], "preset": "cirullone"}, "4 players"),
        ({"piles": [DECK[:20], DECK[20:]], "preset": "bridge"}, "unknown preset"),
        ({"piles": [DECK[:20], DECK[20:]], "options": {"target": 0}}, "target"),
        ({"piles": [DECK[:20], DECK[20:]], "preset": "scopa", "bonus": [1, 0]}, "bonus"),
        ({"piles": [DECK[:20], DECK[20:]], "scope": [-1, 0]}, "scope"),
        ({"piles": [DECK[:20], DECK[20:]], "before": [[60, 10]]}, "already over"),
        ({"piles": [DECK[:20], DECK[20:]], "before": [[1, 2, 3]]}, "one per side"),
    ],
)
def test_api_bad_input_is_422_with_the_engines_message(
    client: Any, body: dict[str, Any], message: str
) -> None:
    r = client.post("/api/score", json=body)
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "bad_score"
    assert message in error["message"]


def test_api_refuses_unknown_fields_and_huge_bodies(client: Any) -> None:
    r = client.post("/api/score", json={"piles": [DECK[:20], DECK[20:]], "cheat": 1})
    assert r.status_code == 422
    r = client.post("/api/score", json={"piles": [DECK] * 4})
    assert r.status_code == 422
