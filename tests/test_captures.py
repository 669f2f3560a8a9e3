"""Captures: RULES.md P1-P9 with the seeds' examples, and illegal moves."""

from __future__ import annotations

import json
from collections.abc import Iterable
from itertools import combinations
from typing import Any

import pytest
from conftest import play_out, stack

import cirulla
from cirulla import Deal, IllegalMove, Move, Rules, parse_move

CIRULLA = Rules.preset("cirulla")
PAGAT = Rules.preset("pagat")
DECLINE = CIRULLA.replace(may_decline_capture=True)


# ---- helpers ----------------------------------------------------------------------------


def norm(moves: Iterable[str]) -> set[str]:
    """Moves in the engine's notation (captured cards in any order on input)."""
    return {str(parse_move(m)) for m in moves}


def plays_of(deal: Deal, card: str) -> set[str]:
    """The legal plays of one card for the seat to move."""
    return {str(m) for m in deal.legal_moves() if m.kind == "play" and str(m.card) == card}


def captures_of(deal: Deal, card: str) -> set[str]:
    return {m for m in plays_of(deal, card) if "x" in m}


def make(
    rules: Rules = CIRULLA,
    table: list[str] | None = None,
    hands: list[list[str]] | None = None,
    players: int = 4,
    dealer: int = 0,
    dealer_takes: bool = False,
) -> Deal:
    """A deal from a stacked deck; the table is as given unless the dealer takes it (B1)."""
    deal = Deal(
        rules, players=players, dealer=dealer, deck=stack(players, dealer, hands=hands, table=table)
    )
    assert deal.misdeals == 0
    if dealer_takes:
        assert deal.table == []
    elif table is not None:
        assert [str(c) for c in deal.table] == table
    return deal


def snapshot(deal: Deal) -> Any:
    """Everything observable about a deal, to prove an illegal move changed nothing."""
    n = deal.players
    return json.dumps(
        {
            "views": [deal.view(s) for s in (None, *range(n))],
            "events": deal.events,
            "events_for": [deal.events_for(s) for s in (None, *range(n))],
            "moves": [str(m) for m in deal.moves],
            "legal": [str(m) for m in deal.legal_moves()],
            "hands": [[str(c) for c in deal.hand(s)] for s in range(n)],
            "declared": [[str(c) for c in deal.declared(s)] for s in range(n)],
            "table": [str(c) for c in deal.table],
            "captured": [[str(c) for c in deal.captured(i)] for i in range(len(deal.scope()))],
            "scope": deal.scope(),
            "bonus": deal.bonus(),
            "to_move": deal.to_move,
            "is_over": deal.is_over,
            "last_capture": deal.last_capture,
            "stage": deal.stage,
            "mano": deal.mano,
            "matta_value": deal.matta_value,
        },
        sort_keys=True,
        default=str,
    )


def only_plays(moves: list[Move]) -> list[Move]:
    return [m for m in moves if m.kind == "play"]


# ---- P1 equal, P2 sum, P3 fifteen (seed 000 a, b, c; seed 001 methods 1-3) --------------


def test_P1_equal_a_six_takes_a_six_and_a_king_takes_a_king() -> None:
    # Seed 001: "a 6 can capture a 6 or a King can capture a King".
    deal = make(table=["6D", "KS", "2C", "JH"], hands=[[], ["6S", "KC", "3H"]])
    assert plays_of(deal, "6S") == norm(["6Sx6D"])
    assert plays_of(deal, "KC") == norm(["KCxKS", "KCx2CJH"])  # equal, or the sum 2 + 8
    deal.play("6Sx6D")
    assert [str(c) for c in deal.table] == ["KS", "2C", "JH"]
    assert {str(c) for c in deal.captured(1)} == {"6S", "6D"}
    assert deal.last_capture == 1


def test_P2_sum_a_queen_takes_two_three_and_four_together() -> None:
    # Seed 001: "a Queen can capture a 2, a 3 and a 4 together (2+3+4=9)".
    deal = make(table=["2H", "3S", "4D", "KC"], hands=[[], ["QC"]])
    # 9 = 2 + 3 + 4 (P2); 9 + 2 + 4 = 15 (P3)
    assert plays_of(deal, "QC") == norm(["QCx2H3S4D", "QCx2H4D"])
    deal.play("QCx4D3S2H")  # captured cards in any order on input
    assert [str(c) for c in deal.table] == ["KC"]
    assert {str(c) for c in deal.captured(1)} == {"QC", "2H", "3S", "4D"}
    assert deal.scope() == [0, 0]


def test_P3_fifteen_a_five_takes_a_king_or_a_seven_and_a_three() -> None:
    # Seed 001: "a 5 can capture a King (5+10=15) or a 7 and a 3 together (5+7+3=15)".
    # (The 7H is the matta, but only for a bonus: here it is a plain 7.)
    deal = make(table=["7H", "3C", "KD", "6S"], hands=[[], ["5C"]])
    assert plays_of(deal, "5C") == norm(["5CxKD", "5Cx7H3C"])
    deal.play("5Cx3C7H")
    assert [str(c) for c in deal.table] == ["KD", "6S"]
    assert {str(c) for c in deal.captured(1)} == {"5C", "7H", "3C"}


def test_P1_P2_P3_seed_000_example_four_takes_the_four_or_four_and_seven() -> None:
    # Seed 000 (Conferma presa): table 4, 7, 2 and a 4 in hand: the 4 alone, or 4 + 7 (15).
    deal = make(table=["4D", "7C", "2S", "JH"], hands=[[], ["4S"]])
    assert plays_of(deal, "4S") == norm(["4Sx4D", "4Sx4D7C"])


@pytest.mark.parametrize(
    ("table", "card", "expected"),
    [
        # P1 the J, or P3 5 + 2 (8 + 5 + 2 = 15)
        (["JD", "5C", "2H", "KS"], "JC", ["JCxJD", "JCx5C2H"]),
        # P2 the sums 1 + 4; P3 the King (5 + 10) and 1 + 9
        (["AH", "4D", "KC", "QS"], "5S", ["5SxAH4D", "5SxKC", "5SxAHQS"]),
        # a card that makes nothing captures nothing
        (["JD", "QC", "KS", "6H"], "2S", ["2S"]),
        # P2 2 + 4; P3 2 + 3 + 4 (6 + 9 = 15)
        (["2D", "3H", "4C", "JS"], "6S", ["6Sx2D3H4C", "6Sx2D4C"]),
    ],
)
def test_P1_P2_P3_exactly_the_equal_sum_and_fifteen_captures_are_legal(
    table: list[str], card: str, expected: list[str]
) -> None:
    deal = make(table=table, hands=[[], [card]])
    assert plays_of(deal, card) == norm(expected)


def test_P3_fifteen_may_take_the_whole_table_and_that_is_a_scopa() -> None:
    deal = make(table=["2D", "3H", "4C", "JS"], hands=[[], ["KS"]])
    # 10 = 2 + 8; 15 - 10 = 5 = 2 + 3
    assert plays_of(deal, "KS") == norm(["KSx2DJS", "KSx2D3H"])
    deal = make(table=["2D", "3H", "AC", "5S"], hands=[[], ["4S"]])  # 4 + 2 + 3 + 1 + 5 = 15
    assert "4Sx2D3HAC5S" in plays_of(deal, "4S")
    deal.play("4Sx5SAC3H2D")
    assert deal.table == []
    assert deal.scope() == [0, 1]


def _oracle(deal: Deal, card: cirulla.Card) -> set[str]:
    """The legal plays of `card` by P1-P6 (Cirulla), by brute force over the table's subsets."""
    rules = deal.rules
    table = deal.table
    if not table:
        return {str(card)}
    vals = [deal.value_of(c) for c in table]
    value = deal.value_of(card)
    subsets = [s for r in range(1, len(table) + 1) for s in combinations(range(len(table)), r)]
    if value == 1:  # P4
        aces = [(i,) for i, v in enumerate(vals) if v == 1]
        caps = aces or [tuple(range(len(table)))]
        if rules.ace_choice:
            caps += [s for s in subsets if sum(vals[i] for i in s) == 14]
    else:  # P1, P2 (sum = value), P3 (sum = 15 - value)
        caps = [s for s in subsets if sum(vals[i] for i in s) in (value, 15 - value)]
    moves = {str(parse_move(f"{card}x" + "".join(str(table[i]) for i in s))) for s in caps}
    if not caps or rules.may_decline_capture:  # P6
        moves.add(str(card))
    return moves


def test_P2_a_table_card_is_never_counted_twice() -> None:
    # Table A, 3, 4, K: a Jack (8) takes A + 3 + 4 (P2) or 3 + 4 (P3, 8 + 7 = 15). It cannot
    # take the 4 alone: 4 is neither 8 nor 15 - 8 (it would be counting the 4 twice).
    deal = make(table=["AH", "3C", "4S", "KD"], hands=[[], ["JS"]])
    assert plays_of(deal, "JS") == norm(["JSxAH3C4S", "JSx3C4S"])
    before = snapshot(deal)
    with pytest.raises(IllegalMove):
        deal.play("JSx4S")
    assert snapshot(deal) == before


def test_P5_each_capture_is_listed_once() -> None:
    # Table 2, 3, 5, K and a King: K (equal), 2 + 3 + 5 (sum), 5 or 2 + 3 (fifteen).
    deal = make(table=["2H", "3C", "5S", "KD"], hands=[[], ["KS"]])
    moves = [str(m) for m in deal.legal_moves() if m.kind == "play" and str(m.card) == "KS"]
    assert sorted(moves) == sorted(norm(["KSxKD", "KSx2H3C5S", "KSx5S", "KSx2H3C"]))


@pytest.mark.parametrize("preset", ["cirulla", "pagat"])
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(6))
def test_P1_to_P6_legal_plays_are_exactly_the_captures_the_rules_allow(
    preset: str, players: int, seed: int
) -> None:
    rules = Rules.preset(preset)
    deal = Deal(rules, players=players, dealer=seed % players, seed=seed)
    while not deal.is_over:
        seat = deal.to_move
        assert seat is not None
        plays = [str(m) for m in deal.legal_moves() if m.kind == "play"]
        assert len(plays) == len(set(plays)), f"a play is listed twice: {plays}"
        for card in deal.hand(seat):
            expected = _oracle(deal, card)
            got = {p for p in plays if p.split("x")[0] == str(card)}
            assert got == expected, (str(card), [str(c) for c in deal.table])
        moves = deal.legal_moves()
        deal.play(moves[(7 * len(deal.moves) + seed) % len(moves)])


# ---- P4 the ace -------------------------------------------------------------------------


def test_P4_ace_takes_all_on_a_table_without_aces() -> None:
    deal = make(table=["4S", "2C", "KD", "6H"], hands=[[], ["AD"]])
    # 1 + 4 + 10 = 15 is a fifteen, but the default ace has no choice (P4, P5)
    assert plays_of(deal, "AD") == norm(["ADx4S2CKD6H"])
    deal.play("ADx4S2CKD6H")
    assert deal.table == []
    assert deal.scope() == [0, 1]  # seed 000: "anche giocando un asso"
    assert {str(c) for c in deal.captured(1)} == {"AD", "4S", "2C", "KD", "6H"}


def test_P4_ace_takes_only_an_ace_on_a_table_with_an_ace() -> None:
    deal = make(table=["AH", "4S", "KD", "6C"], hands=[[], ["AC"]])
    assert plays_of(deal, "AC") == norm(["ACxAH"])
    deal.play("ACxAH")
    assert [str(c) for c in deal.table] == ["4S", "KD", "6C"]
    assert deal.scope() == [0, 0]


def test_P4_ace_onto_an_empty_table_just_lies_there() -> None:
    # 2 + 3 + 4 + 6 = 15: the dealer takes the table (B1), the first player finds it empty.
    deal = make(table=["2C", "3C", "4C", "6C"], hands=[[], ["AS"]], dealer_takes=True)
    assert deal.table == []
    assert plays_of(deal, "AS") == {"AS"}
    deal.play("AS")
    assert [str(c) for c in deal.table] == ["AS"]
    assert deal.scope() == [0, 0]
    assert deal.last_capture == 0  # still the dealer's capture
    assert deal.captured(1) == []


def test_P4_each_ace_on_the_table_is_a_separate_capture() -> None:
    # Two aces on the table need an ace laid without capturing (may_decline_capture).
    deal = make(DECLINE, table=["AH", "5C", "6D", "KS"], hands=[[], ["AD"], ["AC"]])
    assert plays_of(deal, "AD") == norm(["ADxAH", "AD"])
    deal.play("AD")
    assert captures_of(deal, "AC") == norm(["ACxAH", "ACxAD"])


def test_P4_ace_choice_with_an_ace_on_the_table_also_takes_any_fifteen() -> None:
    deal = make(PAGAT, table=["AH", "4S", "KD", "6C"], hands=[[], ["AC"]])
    # the ace, or 1 + 4 + 10 = 15
    assert plays_of(deal, "AC") == norm(["ACxAH", "ACx4SKD"])
    deal.play("ACxKD4S")
    assert [str(c) for c in deal.table] == ["AH", "6C"]


def test_P4_ace_choice_without_an_ace_on_the_table_takes_all_or_any_fifteen() -> None:
    deal = make(PAGAT, table=["4S", "2C", "KD", "6H"], hands=[[], ["AD"]])
    assert plays_of(deal, "AD") == norm(["ADx4S2CKD6H", "ADx4SKD"])
    deal.play("ADx4SKD")
    assert [str(c) for c in deal.table] == ["2C", "6H"]
    assert deal.scope() == [0, 0]


def test_P4_ace_choice_taking_all_by_fifteen_is_one_move_not_two() -> None:
    # 1 + 1 + 3 + 4 + 6 = 15 takes the whole table; listed once.
    deal = make(PAGAT, table=["AH", "3C", "4S", "6D"], hands=[[], ["AD"]])
    moves = [str(m) for m in deal.legal_moves() if m.kind == "play" and str(m.card) == "AD"]
    assert sorted(moves) == sorted(norm(["ADxAH", "ADxAH3C4S6D"]))
    default = make(CIRULLA, table=["AH", "3C", "4S", "6D"], hands=[[], ["AD"]])
    assert plays_of(default, "AD") == norm(["ADxAH"])


@pytest.mark.parametrize("rules", [PAGAT, Rules.preset("luzzati"), Rules.preset("dossena")])
def test_P4_seed_001_ace_example_A_3_4_6_7_under_ace_choice(rules: Rules) -> None:
    # Seed 001: with A, 3, 4, 6, 7 on the table an Ace "could capture 3, 4, 7 ... or
    # A, 3, 4, 6 ... or just the Ace alone". (No Cirulla table reaches A-3-4-6-7 without
    # a card left uncaptured, so the 7 is laid with may_decline_capture.)
    rules = rules.replace(may_decline_capture=True)
    deal = make(rules, table=["AH", "3C", "4S", "6D"], hands=[[], ["7S"], ["AD"]])
    deal.play("7S")
    assert [str(c) for c in deal.table] == ["AH", "3C", "4S", "6D", "7S"]
    captures = captures_of(deal, "AD")
    named = norm(["ADx3C4S7S", "ADxAH3C4S6D", "ADxAH"])
    assert named <= captures
    # and every other fifteen: 1 + 1 + 6 + 7
    assert captures == named | norm(["ADxAH6D7S"])


def test_P4_seed_001_ace_example_default_ace_takes_only_the_ace() -> None:
    deal = make(DECLINE, table=["AH", "3C", "4S", "6D"], hands=[[], ["7S"], ["AD"]])
    deal.play("7S")
    assert captures_of(deal, "AD") == norm(["ADxAH"])


# ---- P5 choice among captures; equal cards are distinct -----------------------------------


def test_P5_seed_001_queen_6_5_4_3_example_any_one_of_four_captures() -> None:
    # Seed 001: with Queen, 6, 5, 4, 3 on the table a Queen "can choose to capture either the
    # Queen alone or the 5+4 or the 6+3 or the 6 alone (making 15)".
    deal = make(table=["QH", "6C", "5D", "4S"], hands=[[], ["3H"], ["QS"]])
    assert plays_of(deal, "3H") == {"3H"}  # the 3 captures nothing here
    deal.play("3H")
    assert [str(c) for c in deal.table] == ["QH", "6C", "5D", "4S", "3H"]
    assert plays_of(deal, "QS") == norm(["QSxQH", "QSx5D4S", "QSx6C3H", "QSx6C"])


@pytest.mark.parametrize(
    ("capture", "left"),
    [
        ("QSxQH", ["6C", "5D", "4S", "3H"]),
        ("QSx4S5D", ["QH", "6C", "3H"]),
        ("QSx3H6C", ["QH", "5D", "4S"]),
        ("QSx6C", ["QH", "5D", "4S", "3H"]),
    ],
)
def test_P5_the_player_makes_one_chosen_capture_only(capture: str, left: list[str]) -> None:
    deal = make(table=["QH", "6C", "5D", "4S"], hands=[[], ["3H"], ["QS"]])
    deal.play("3H")
    deal.play(capture)
    assert [str(c) for c in deal.table] == left
    taken = {str(c) for c in deal.captured(0)}
    assert taken == {"QS", *(str(c) for c in parse_move(capture).captured)}


def test_P5_a_card_matching_a_table_card_may_still_take_a_sum_unlike_scopa() -> None:
    deal = make(table=["3S", "5C", "JD", "KH"], hands=[[], ["JH"]])
    assert plays_of(deal, "JH") == norm(["JHxJD", "JHx5C3S"])
    scopa = make(Rules.preset("scopa"), table=["3S", "5C", "JD", "KH"], hands=[[], ["JH"]])
    assert plays_of(scopa, "JH") == norm(["JHxJD"])  # SC3: the equal card only


def test_P5_two_equal_fives_are_two_captures() -> None:
    deal = make(table=["5C", "5D", "JS", "4H"], hands=[[], ["KS"]])
    # both fives as a sum (10), or either five as a fifteen (10 + 5)
    assert plays_of(deal, "KS") == norm(["KSx5C5D", "KSx5C", "KSx5D"])
    deal.play("KSx5D")
    assert [str(c) for c in deal.table] == ["5C", "JS", "4H"]


def test_P5_seed_000_example_king_on_5_5_3_2_has_six_distinct_captures() -> None:
    # Seed 000 (drag and drop): table 5, 5, 3, 2 and a King: "which of the two 5s?".
    # 5-5-3-2 sums to 15, so that table needs a card laid that could capture.
    deal = make(DECLINE, table=["5C", "5D", "3S", "QH"], hands=[[], ["QC"], ["2H"], ["KS"]])
    deal.play("QCxQH")
    deal.play("2H")
    assert [str(c) for c in deal.table] == ["5C", "5D", "3S", "2H"]
    assert captures_of(deal, "KS") == norm(
        ["KSx5C5D", "KSx5C3S2H", "KSx5D3S2H", "KSx5C", "KSx5D", "KSx3S2H"]
    )


def test_P5_captured_cards_are_written_sorted_by_card_id() -> None:
    deal = make(table=["2H", "3S", "4D", "KC"], hands=[[], ["QC"]])
    assert "QCx4D2H3S" in plays_of(deal, "QC")  # suits D, H, C, S
    move = parse_move("qcx3s2h4d")
    assert str(move) == "QCx4D2H3S"
    assert [str(c) for c in move.captured] == ["4D", "2H", "3S"]


def test_P5_moves_accept_lower_case_and_captured_cards_in_any_order() -> None:
    for text in ("qcx3s2h4d", "QCx2H4D3S", "QCX4D3S2H"):
        deal = make(table=["2H", "3S", "4D", "KC"], hands=[[], ["QC"]])
        deal.play(text)
        assert deal.moves[-1] == parse_move("QCx4D2H3S")
        assert [str(c) for c in deal.table] == ["KC"]


# ---- P6 forced capture ------------------------------------------------------------------


def test_P6_a_card_that_can_capture_must_capture() -> None:
    deal = make(table=["4D", "7C", "2S", "QH"], hands=[[], ["4S", "5H", "JS"]])
    assert "4S" not in plays_of(deal, "4S")
    assert plays_of(deal, "4S") == norm(["4Sx4D", "4Sx4D7C", "4Sx2SQH"])
    before = snapshot(deal)
    with pytest.raises(IllegalMove, match=r"must") as err:
        deal.play("4S")
    assert "4S" in str(err.value)
    assert snapshot(deal) == before


def test_P6_a_player_may_play_another_card_that_captures_nothing() -> None:
    deal = make(table=["4D", "7C", "2S", "QH"], hands=[[], ["4S", "5H", "JS"]])
    assert plays_of(deal, "5H") == {"5H"}  # 5 makes neither 5 nor 10 here
    deal.play("5H")
    assert [str(c) for c in deal.table] == ["4D", "7C", "2S", "QH", "5H"]
    assert deal.captured(1) == []


def test_P6_every_legal_move_of_a_capturing_card_captures() -> None:
    for seed in range(40):
        deal = Deal(CIRULLA, seed=seed)
        for move in only_plays(deal.legal_moves()):
            if not move.captured:
                assert not captures_of(deal, str(move.card)), (seed, str(move))


def test_P6_may_decline_capture_adds_the_plain_play() -> None:
    deal = make(DECLINE, table=["4D", "7C", "2S", "QH"], hands=[[], ["4S", "5H", "JS"]])
    assert plays_of(deal, "4S") == norm(["4Sx4D", "4Sx4D7C", "4Sx2SQH", "4S"])
    deal.play("4S")
    assert [str(c) for c in deal.table] == ["4D", "7C", "2S", "QH", "4S"]
    assert deal.last_capture is None


def test_P6_may_decline_capture_lets_an_ace_lie_on_a_table_without_aces() -> None:
    deal = make(DECLINE, table=["4S", "2C", "KD", "6H"], hands=[[], ["AD"]])
    assert plays_of(deal, "AD") == norm(["ADx4S2CKD6H", "AD"])


# ---- P7 scopa --------------------------------------------------------------------------


def test_P7_a_capture_that_empties_the_table_is_a_scopa() -> None:
    deal = make(table=["2C", "3D", "4S", "AH"], hands=[[], ["KC"], ["6D"]])
    assert norm(["KCx3D2C4SAH"]) <= plays_of(deal, "KC")  # 2 + 3 + 4 + 1 = 10
    deal.play("KCxAH2C3D4S")
    assert deal.table == []
    assert deal.scope() == [0, 1]
    event = deal.events[-1]
    assert event["type"] == "play"
    assert event["scopa"] is True
    assert deal.view(None)["piles"][1]["scope"] == 1
    # the next player finds an empty table and can only lay a card
    assert all(not m.captured for m in only_plays(deal.legal_moves()))


def test_P7_a_capture_that_leaves_cards_is_no_scopa() -> None:
    deal = make(table=["2C", "3D", "4S", "AH"], hands=[[], ["KC"]])
    deal.play("KCx2C3D")
    assert deal.scope() == [0, 0]
    assert deal.events[-1]["scopa"] is False


def test_P7_the_dealers_bonus_capture_is_no_scopa() -> None:
    deal = make(table=["2C", "3C", "4C", "6C"], dealer_takes=True)
    assert deal.table == []
    assert deal.scope() == [0, 0]
    assert deal.bonus() == [1, 0]


def _sweep_at_the_end_deck() -> list[Any]:
    # Dealer 0 plays last in every mano. Its three aces sweep in stage 0; its last card of the
    # smazzata, the AD, takes every card of a table with no ace: the very last play.
    return stack(
        hands=[["AH", "AC", "AS"], [], [], []],
        later=[[[], [], [], []], [["AD"], [], [], []]],
    )


def _lay_first(moves: list[Move]) -> Move:
    plays = only_plays(moves)
    bare = [m for m in plays if not m.captured and m.card is not None and m.card.rank != "A"]
    not_ace = [m for m in plays if m.card is not None and m.card.rank != "A"]
    return (bare or not_ace or plays)[0]


def test_P7_no_scopa_on_the_very_last_play_of_the_smazzata() -> None:
    deal = Deal(CIRULLA, deck=_sweep_at_the_end_deck())
    while len(deal.moves) < 35:
        deal.play(_lay_first(deal.legal_moves()))
    # the very last play: the dealer's ace on a table without aces
    assert (deal.stage, deal.to_move, deal.hand(0)) == (2, 0, [cirulla.Card.parse("AD")])
    table = list(deal.table)
    assert table and all(c.rank != "A" for c in table)
    (last,) = deal.legal_moves()
    assert set(last.captured) == set(table)
    scope = deal.scope()
    deal.play(last)
    assert deal.is_over
    assert deal.scope() == scope  # no scopa for the last play
    play = [e for e in deal.events if e["type"] == "play"][-1]
    assert play["move"] == str(last)
    assert play["scopa"] is False
    assert not [e for e in deal.events if e["type"] == "last_cards"]
    assert deal.score().sides[0]["scope"] == scope[0]


def test_P7_a_sweep_on_the_last_play_of_an_earlier_stage_is_a_scopa() -> None:
    deal = Deal(CIRULLA, deck=_sweep_at_the_end_deck())
    while deal.stage == 0:
        deal.play(_lay_first(deal.legal_moves()))
    plays = [e for e in deal.events if e["type"] == "play"]
    assert len(plays) == 12
    last_of_stage = plays[-1]
    assert last_of_stage["seat"] == 0
    assert last_of_stage["card"][0] == "A"
    assert last_of_stage["scopa"] is True
    assert deal.scope()[0] == sum(e["scopa"] for e in plays)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(8))
def test_P7_scope_count_the_sweeps_and_the_last_play_never_counts(players: int, seed: int) -> None:
    deal = play_out(Deal(CIRULLA, players=players, seed=seed))
    plays = [e for e in deal.events if e["type"] == "play"]
    assert plays[-1]["scopa"] is False
    sides = [deal.side_of(s) for s in range(players)]
    for side in range(len(deal.scope())):
        scope = sum(1 for e in plays if e["scopa"] and sides[e["seat"]] == side)
        assert deal.scope()[side] == scope
        assert deal.score().sides[side]["scope"] == scope


# ---- P8 last cards ----------------------------------------------------------------------


def _last_capturer(deal: Deal) -> int | None:
    side = None
    for e in deal.events:
        if e["type"] == "dealer_bonus":
            side = e["side"]
        elif e["type"] == "play" and e["captured"]:
            side = deal.side_of(e["seat"])
    return side


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(10))
def test_P8_last_cards_go_to_the_side_of_the_last_capture_never_a_scopa(
    players: int, seed: int
) -> None:
    deal = Deal(CIRULLA, players=players, seed=seed)
    table_before_end: list[str] = []
    scope_before_end: list[int] = []
    while not deal.is_over:
        table_before_end = [str(c) for c in deal.table]
        scope_before_end = deal.scope()
        deal.play(deal.legal_moves()[-1])
    last = [e for e in deal.events if e["type"] == "play"][-1]
    if last["captured"]:
        table_before_end = [c for c in table_before_end if c not in last["captured"]]
    else:
        table_before_end.append(last["card"])
    side = _last_capturer(deal)
    assert deal.last_capture == side
    leftovers = [e for e in deal.events if e["type"] == "last_cards"]
    if table_before_end and side is not None:
        assert len(leftovers) == 1
        assert leftovers[0]["side"] == side
        assert sorted(leftovers[0]["cards"]) == sorted(table_before_end)
        assert set(leftovers[0]["cards"]) <= {str(c) for c in deal.captured(side)}
        assert deal.scope() == scope_before_end  # taking the last cards is never a scopa
    else:
        assert leftovers == []
    assert deal.table == []
    assert sum(len(deal.captured(s)) for s in range(len(deal.scope()))) == 40
    assert deal.score().details[0]["cards"] == len(deal.captured(0))


def _lay_everything(moves: list[Move]) -> Move:
    return next(m for m in only_plays(moves) if not m.captured)


def test_P8_the_dealers_bonus_capture_counts_as_the_last_capture() -> None:
    # Nobody captures after the dealer's 15 (every card is laid, may_decline_capture):
    # the 36 laid cards go to the dealer's side at the end.
    deal = make(DECLINE, table=["2C", "3C", "4C", "6C"], dealer=1, dealer_takes=True)
    assert deal.last_capture == 1
    play_out(deal, _lay_everything)
    (leftovers,) = [e for e in deal.events if e["type"] == "last_cards"]
    assert leftovers["side"] == 1
    assert len(leftovers["cards"]) == 36
    assert len(deal.captured(1)) == 40
    assert deal.captured(0) == []
    assert deal.scope() == [0, 0]


def test_P8_if_nobody_captured_the_last_cards_go_to_nobody() -> None:
    deal = make(DECLINE)
    assert deal.last_capture is None
    play_out(deal, _lay_everything)
    assert deal.is_over
    assert deal.last_capture is None
    assert not [e for e in deal.events if e["type"] == "last_cards"]
    assert deal.captured(0) == deal.captured(1) == []
    assert deal.scope() == [0, 0]
    sheet = deal.score()
    assert [s["cards"] for s in sheet.sides] == [0, 0]
    assert [d["cards"] for d in sheet.details] == [0, 0]


def test_P8_the_last_cards_go_to_the_last_capturer_not_the_last_player() -> None:
    # Side 1 captures, then only cards are laid: side 1 takes the rest, though the dealer
    # (side 0) plays the last card.
    deal = make(DECLINE, table=["5C", "5D", "JS", "4H"], hands=[[], ["KS"]])
    deal.play("KSx5C5D")
    play_out(deal, _lay_everything)
    (leftovers,) = [e for e in deal.events if e["type"] == "last_cards"]
    assert leftovers["side"] == 1
    assert [e for e in deal.events if e["type"] == "play"][-1]["seat"] == 0
    assert len(deal.captured(1)) == 40
    assert deal.scope() == [0, 0]


# ---- P9 captures are public --------------------------------------------------------------


def test_P9_the_capture_is_public_in_every_seats_view_and_history() -> None:
    deal = make(table=["2H", "3S", "4D", "KC"], hands=[[], ["QC"]])
    deal.play("QCx2H3S4D")
    expected = {
        "type": "play",
        "seat": 1,
        "move": "QCx4D2H3S",
        "card": "QC",
        "captured": ["4D", "2H", "3S"],
        "scopa": False,
    }
    for seat in (None, 0, 1, 2, 3):
        view = deal.view(seat)
        assert view["history"][-1] == expected
        assert deal.events_for(seat)[-1] == expected
        assert [t["card"] for t in view["table"]] == ["KC"]
        assert view["last_capture"] == 1
        assert [p["count"] for p in view["piles"]] == [0, 4]
        assert [p["scope"] for p in view["piles"]] == [0, 0]
        # the piles themselves are face down: no card lists
        assert all(set(p) == {"side", "count", "scope", "bonus"} for p in view["piles"])


def test_P9_the_scope_count_of_each_side_is_public() -> None:
    deal = make(table=["2C", "3D", "4S", "AH"], hands=[[], ["KC"]])
    deal.play("KCxAH2C3D4S")
    for seat in (None, 0, 1, 2, 3):
        view = deal.view(seat)
        assert [p["scope"] for p in view["piles"]] == [0, 1]
        assert view["history"][-1]["scopa"] is True


# ---- illegal moves ------------------------------------------------------------------------

ILLEGAL = [
    # malformed strings
    ("", "two characters"),
    ("x", "two characters"),
    ("5", "two characters"),
    ("3Hx", "two characters"),
    ("3Hx3", "two characters"),
    ("ZZ", "rank"),
    ("8H", "rank"),
    ("3Z", "suit"),
    ("3Hx9C", "rank"),
    ("3H4H", "one card"),
    ("3Hx3H", "itself"),
    ("3Hx3C3C", "twice"),
    ("!foo", "declaration"),
    ("!cirulla", "declaration"),
    # card not in hand (nobody's: still in the deck)
    ("QD", "not in"),
    ("QDx3C", "not in"),
    # out of turn: the card of another seat
    ("5C", "not in the hand of seat 1"),
    ("KDxKS", "not in the hand of seat 1"),
    ("ADxKS", "not in the hand of seat 1"),
    # capture not legal
    ("3Hx2D", "cannot take"),
    ("3HxKS", "cannot take"),
    ("4Hx3C", "cannot take"),
    ("6Hx2D7H3C", "cannot take"),
    # capture of cards not on the table
    ("3HxQD", "not on the table"),
    ("3Hx5C", "not on the table"),
    ("3Hx3C4H", "not on the table"),
    # a capturing card laid without capturing (P6)
    ("3H", "must"),
    ("6H", "must"),
    # not a move now
    ("!pass", "pass"),
]


def _illegal_position() -> Deal:
    return make(
        table=["7H", "3C", "KS", "2D"], hands=[["5C", "KD", "2S"], ["3H", "4H", "6H"], ["AD"]]
    )


@pytest.mark.parametrize(("move", "why"), ILLEGAL)
def test_illegal_move_raises_IllegalMove_saying_why_and_changes_nothing(
    move: str, why: str
) -> None:
    deal = _illegal_position()
    assert deal.to_move == 1
    before = snapshot(deal)
    with pytest.raises(IllegalMove) as err:
        deal.play(move)
    assert isinstance(err.value, ValueError)
    message = str(err.value)
    assert why in message
    try:
        shown = str(parse_move(move))
    except IllegalMove:
        shown = repr(move)
    assert shown in message  # names the move
    assert snapshot(deal) == before
    # the deal goes on exactly as if nothing had been tried
    deal.play("3Hx3C")
    fresh = _illegal_position()
    fresh.play("3Hx3C")
    assert snapshot(deal) == snapshot(fresh)


@pytest.mark.parametrize("move", [123, None, 3.5, ["3Hx3C"], b"3Hx3C"])
def test_illegal_move_that_is_not_a_move_or_string_raises_IllegalMove(move: object) -> None:
    deal = _illegal_position()
    before = snapshot(deal)
    with pytest.raises(IllegalMove, match="Move"):
        deal.play(move)  # type: ignore[arg-type]
    assert snapshot(deal) == before


def test_illegal_move_as_a_Move_object_changes_nothing() -> None:
    deal = _illegal_position()
    before = snapshot(deal)
    for text in ("5C", "3Hx2D", "3H", "QDx3C"):
        with pytest.raises(IllegalMove):
            deal.play(parse_move(text))
    assert snapshot(deal) == before


def test_illegal_move_out_of_turn_names_the_seat_to_move() -> None:
    deal = _illegal_position()
    before = snapshot(deal)
    with pytest.raises(IllegalMove, match="seat 1") as err:
        deal.play("2S")  # seat 0's card; seat 1 is to move
    assert "2S" in str(err.value)
    assert snapshot(deal) == before


@pytest.mark.parametrize("move", ["3Hx3C", "5C", "AD", "!pass", "!cirulla:AD2D3D"])
def test_illegal_move_after_the_end_raises_IllegalMove_and_changes_nothing(move: str) -> None:
    deal = play_out(_illegal_position())
    assert deal.is_over
    before = snapshot(deal)
    score = deal.score().to_dict()
    with pytest.raises(IllegalMove, match="over"):
        deal.play(move)
    assert snapshot(deal) == before
    assert deal.score().to_dict() == score
    assert deal.legal_moves() == []


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(5))
def test_illegal_moves_anywhere_in_a_smazzata_change_nothing(players: int, seed: int) -> None:
    deal = Deal(CIRULLA, players=players, seed=seed)
    while not deal.is_over:
        legal = deal.legal_moves()
        legal_text = {str(m) for m in legal}
        seat = deal.to_move
        assert seat is not None
        tries = []
        for card in deal.hand(seat):
            if str(card) not in legal_text:
                tries.append(str(card))  # a capturing card laid bare
            tries.extend(f"{card}x{t}" for t in deal.table if f"{card}x{t}" not in legal_text)
        other = deal.hand((seat + 1) % players)
        if other:
            tries.append(str(other[0]))  # another seat's card
        before = snapshot(deal)
        for text in tries:
            if str(parse_move(text)) in legal_text:
                continue
            with pytest.raises(IllegalMove):
                deal.play(text)
        assert snapshot(deal) == before
        deal.play(legal[len(deal.moves) % len(legal)])
