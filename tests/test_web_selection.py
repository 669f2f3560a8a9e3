"""The pure logic of playing a card (RULES.md U1-U4) in js/selection.js, and the card
names of js/cards.js, run in node against legal moves the engine itself produces."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import stack

import cirulla
from cirulla import Card

JS = Path(__file__).resolve().parent.parent / "src" / "cirulla" / "web" / "js"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def run(body: str, **data: Any) -> Any:
    """Run an ES module body with `selection` and `cards` imported and `data` bound;
    what it passes to out(...) comes back as JSON."""
    script = (
        f"import * as selection from {json.dumps((JS / 'selection.js').as_uri())};\n"
        f"import * as cards from {json.dumps((JS / 'cards.js').as_uri())};\n"
        f"const data = {json.dumps(data)};\n"
        "const out = (x) => process.stdout.write(JSON.stringify(x));\n"
        f"{body}\n"
    )
    assert NODE is not None
    result = subprocess.run(
        [NODE, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def legal_moves(
    hands: list[list[str]], table: list[str], preset: str = "cirulla", **options: Any
) -> list[str]:
    """The engine's legal moves for seat 0 (playing first) with these cards dealt."""
    rules = cirulla.Rules.preset(preset).replace(**options)
    deal = cirulla.Deal(rules, 2, 1, deck=stack(players=2, dealer=1, hands=hands, table=table))
    assert deal.to_move == 0
    assert sorted(str(c) for c in deal.table) == sorted(table)
    return [str(m) for m in deal.legal_moves()]


def move_with(moves: list[str], card: str, taken: set[str]) -> str:
    for m in moves:
        parsed = cirulla.parse_move(m)
        if str(parsed.card) == card and {str(c) for c in parsed.captured} == taken:
            return m
    raise AssertionError(f"no {card}x{taken} in {moves}")


# U1's example: table 4, 7, 2 (and a King that the 4 cannot use), hand 4.
U1 = legal_moves([["4S", "QC", "KD"], ["5H", "6D", "JH"]], ["4D", "7C", "2S", "KH"])


def test_parse_move() -> None:
    got = run(
        "const moves = ['5C', '5Cx7H3C', '!cirulla:7H3C4D=A', '!decino:QSQDQC', '!pass'];"
        "out(moves.map(selection.parseMove));"
    )
    assert got[0] == {"kind": "play", "text": "5C", "card": "5C", "captured": []}
    assert got[1]["captured"] == ["7H", "3C"]
    assert got[2] == {
        "kind": "declare",
        "text": "!cirulla:7H3C4D=A",
        "bonus": "cirulla",
        "cards": ["7H", "3C", "4D"],
        "matta": "A",
    }
    assert got[3]["matta"] is None and got[3]["cards"] == ["QS", "QD", "QC"]
    assert got[4] == {"kind": "pass", "text": "!pass"}


def test_u1_the_rules_example() -> None:
    alone = move_with(U1, "4S", {"4D"})
    both = move_with(U1, "4S", {"4D", "7C"})
    got = run(
        """
        const L = data.legal;
        out({
          empty: selection.selectionState(L, '4S', []),
          four: selection.selectionState(L, '4S', ['4D']),
          both: selection.selectionState(L, '4S', ['4D', '7C']),
          seven: selection.selectionState(L, '4S', ['7C']),
          two: selection.toggleTableCard(L, '4S', ['4D'], '2S'),
          untoggle: selection.toggleTableCard(L, '4S', ['4D', '7C'], '7C'),
        });
        """,
        legal=U1,
    )
    assert got["empty"]["state"] == "empty"
    assert sorted(got["empty"]["candidates"]) == ["4D", "7C"]
    # the 4 alone is a capture, but 4+7 extends it: "Conferma presa"
    assert got["four"]["state"] == "complete" and got["four"]["confirm"] is True
    assert got["four"]["move"] == alone
    assert got["four"]["candidates"] == ["7C"]
    # 4 and 7: nothing extends it, it is taken at once
    assert got["both"]["state"] == "complete" and got["both"]["confirm"] is False
    assert got["both"]["move"] == both
    # the 7 alone is part of one capture only: that capture
    assert got["seven"]["state"] == "complete" and got["seven"]["auto"] is True
    assert got["seven"]["move"] == both
    # the 2 fits no capture with 4S: refused, the selection kept
    assert got["two"]["rejected"] == "2S" and got["two"]["selected"] == ["4D"]
    assert got["two"]["confirm"] is True
    # picking a card again takes it out
    assert got["untoggle"]["selected"] == ["4D"] and got["untoggle"]["confirm"] is True


def test_u1_partial_selection_waits_for_more() -> None:
    # 6H over 4D 7C 2S KH: 6H x 4D 2S (sum) or 6H x 7C 2S (fifteen); the 2 is in both
    moves = legal_moves([["6H", "JS", "QC"], ["5H", "6D", "JH"]], ["4D", "7C", "2S", "KH"])
    got = run(
        "const st = (picked) => selection.selectionState(data.legal, '6H', picked);"
        "out([st(['2S']), st(['2S', '4D'])]);",
        legal=moves,
    )
    assert got[0]["state"] == "partial" and sorted(got[0]["candidates"]) == ["4D", "7C"]
    assert got[1]["state"] == "complete" and got[1]["move"] == move_with(moves, "6H", {"4D", "2S"})


def test_u2_a_card_that_captures_nothing() -> None:
    moves = legal_moves([["JC", "5S", "4H"], ["2C", "6D", "JH"]], ["3D", "6C", "QS", "KH"])
    assert "JC" in moves
    got = run(
        """out([
          selection.selectionState(data.legal, 'JC', []),
          selection.dragTarget(data.legal, 'JC', null),
          selection.cardOptions(data.legal, '5S'),
        ]);""",
        legal=moves,
    )
    assert got[0]["state"] == "none" and got[0]["plain"] == "JC"
    assert got[1] == {"kind": "ghost", "move": "JC"}
    assert got[2]["plain"] is None and [c["move"] for c in got[2]["captures"]] == ["5SxKH"]


def test_u3_the_only_capture_and_the_hovered_one() -> None:
    moves = legal_moves([["6H", "JS", "QC"], ["5H", "6D", "JH"]], ["4D", "7C", "2S", "KH"])
    got = run(
        """
        const L = data.legal;
        out({
          js: selection.dragTarget(L, 'JS', null),
          free: selection.dragTarget(L, '6H', null),
          two: selection.dragTarget(L, '6H', '2S'),
          seven: selection.dragTarget(L, '6H', '7C'),
          four: selection.dragTarget(L, '6H', '4D'),
          unique: selection.uniqueHoverCards(L, '6H'),
        });
        """,
        legal=moves,
    )
    assert got["js"] == {"kind": "capture", "move": "JSx7C", "cards": ["7C"]}
    assert got["free"]["kind"] == "ambiguous"
    assert got["two"]["kind"] == "ambiguous"  # the 2 is in both captures
    assert got["seven"]["move"] == move_with(moves, "6H", {"7C", "2S"})
    assert got["four"]["move"] == move_with(moves, "6H", {"4D", "2S"})
    assert sorted(got["unique"]) == ["4D", "7C"]


def test_u3_the_king_over_five_five_three_two_is_ambiguous() -> None:
    """In Scopa (where 5+5+3+2 = 15 stays on the table) the King takes 5+5 or 5+3+2 with
    either 5: over the 2, which 5? No hover point leaves one capture."""
    hands = [["KC", "QD", "JD"], ["2C", "6D", "JH"]]
    scopa = legal_moves(hands, ["5D", "5C", "3S", "2H"], preset="scopa")
    # in Cirulla (a Queen instead of the 2, so that the dealer takes no 15) the fifteens
    # add a King capture for each 5
    cirulla_moves = legal_moves(hands, ["5D", "5C", "3S", "QS"])
    got = run(
        """
        const points = [null, '5D', '5C', '3S', '2H'];
        const hover = (L) => points.map((x) => selection.dragTarget(L, 'KC', x).kind);
        out({
          scopa: hover(data.scopa), unique: selection.uniqueHoverCards(data.scopa, 'KC'),
          count: selection.cardOptions(data.scopa, 'KC').captures.length,
          pick: selection.selectionState(data.scopa, 'KC', ['2H', '3S']),
          last: selection.selectionState(data.scopa, 'KC', ['2H', '3S', '5C']),
          cirulla: selection.cardOptions(data.cirulla, 'KC').captures.length,
        });
        """,
        scopa=scopa,
        cirulla=cirulla_moves,
    )
    assert got["count"] == 3
    assert got["scopa"] == ["ambiguous"] * 5
    assert got["unique"] == []
    assert got["pick"]["state"] == "partial"  # which 5?
    assert got["last"]["state"] == "complete"
    assert got["last"]["move"] == move_with(scopa, "KC", {"5C", "3S", "2H"})
    assert got["cirulla"] == 3  # 5+5, and either 5 alone (fifteen)


def test_u4_double_click() -> None:
    moves = legal_moves([["JC", "5S", "4H"], ["2C", "6D", "JH"]], ["3D", "6C", "QS", "KH"])
    got = run(
        "out(['JC', '5S', '2C'].map((c) => selection.doubleClickPlay(data.legal, c)))", legal=moves
    )
    assert got[0] == {"ok": True, "move": "JC"}
    assert got[1]["ok"] is False and got[1]["reason"] == "must_capture"
    assert [c["move"] for c in got[1]["captures"]] == ["5SxKH"]
    assert got[2] == {"ok": False, "reason": "not_playable"}  # not in this hand


def test_u4_may_decline_capture() -> None:
    moves = legal_moves(
        [["JC", "5S", "4H"], ["2C", "6D", "JH"]], ["3D", "6C", "QS", "KH"], may_decline_capture=True
    )
    got = run("out(selection.doubleClickPlay(data.legal, '5S'))", legal=moves)
    assert got == {"ok": True, "move": "5S"}


def test_declaration_choices_group_the_mattas_values() -> None:
    moves = legal_moves(
        [["7H", "3C", "4D"], ["5H", "6D", "JH"]], ["QS", "KH", "6C", "2D"], matta_choice=True
    )
    got = run(
        """out({
          groups: selection.declarationChoices(data.legal),
          pass: selection.passMove(data.legal),
          playable: [...selection.playableCards(data.legal)].sort(),
        });""",
        legal=moves,
    )
    assert len(got["groups"]) == 1
    group = got["groups"][0]
    assert group["bonus"] == "cirulla" and sorted(group["cards"]) == ["3C", "4D", "7H"]
    assert sorted(o["matta"] for o in group["options"]) == ["2", "A"]
    assert got["pass"] is None
    assert got["playable"] == ["3C", "4D", "7H"]


def test_card_names_match_the_engine() -> None:
    codes = [str(c) for c in cirulla.full_deck()]
    got = run(
        """
        const res = {};
        for (const style of cards.STYLES) for (const lang of ['it', 'en'])
          res[`${style}/${lang}`] = data.codes.map((c) => cards.cardName(c, style, lang));
        out(res);
        """,
        codes=codes,
    )
    for style in ("french", "napoletane", "piacentine"):
        for lang in ("it", "en"):
            assert got[f"{style}/{lang}"] == [Card.parse(c).name(style, lang) for c in codes]
