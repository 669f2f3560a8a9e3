"""Accusi and the matta: RULES.md B1-B10 (with C4, the wild card option).

Examples marked "seed 001" are the worked examples of the English Cirulla rules.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import play_out, stack

from cirulla import Card, Deal, IllegalMove, Move, Rules, parse_move, score_piles

CIRULLA = Rules.preset("cirulla")
CHOICE = CIRULLA.replace(matta_choice=True)
MATTA = Card.parse("7H")
# A table no 2 and no ace can touch, summing to 33 (no dealer's bonus).
QUIET_TABLE = ["KS", "QD", "JC", "6S"]
# A table summing to exactly 15: the dealer takes it and the first player finds it empty.
FIFTEEN_TABLE = ["2C", "3S", "4S", "6D"]


def norm(text: str) -> str:
    """The engine's canonical notation of a move written in any card order."""
    return str(parse_move(text))


def legal(deal: Deal) -> set[str]:
    return {str(m) for m in deal.legal_moves()}


def declarations(deal: Deal) -> set[str]:
    return {str(m) for m in deal.legal_moves() if m.kind == "declare"}


def plays_of(deal: Deal, card: str) -> set[str]:
    c = Card.parse(card)
    return {str(m) for m in deal.legal_moves() if m.kind == "play" and m.card == c}


def first_play(moves: list[Move]) -> Move:
    return next(m for m in moves if m.kind == "play")


def snapshot(deal: Deal) -> tuple[Any, ...]:
    return (
        deal.view(None),
        [deal.view(s) for s in range(deal.players)],
        deal.events,
        deal.bonus(),
        deal.to_move,
    )


def deal_with(
    rules: Rules,
    hand: list[str],
    seat: int = 1,
    table: list[str] | None = None,
    players: int = 4,
    dealer: int = 0,
    others: dict[int, list[str]] | None = None,
    later: list[list[list[str]]] | None = None,
) -> Deal:
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[seat] = hand
    for s, h in (others or {}).items():
        hands[s] = h
    deck = stack(players=players, dealer=dealer, hands=hands, table=table, later=later)
    return Deal(rules, players=players, dealer=dealer, deck=deck)


def dealer_events(deal: Deal) -> list[dict[str, Any]]:
    return [e for e in deal.events if e["type"] == "dealer_bonus"]


# ---- B1: the dealer's bonus -------------------------------------------------------


def test_B1_dealer_fifteen_with_the_matta_as_two_seed_example() -> None:
    # seed 001: club4, heart7, club3, diamond6 -> one scopa, the heart7 as a 2.
    table = ["4C", "7H", "3C", "6D"]
    deal = Deal(CIRULLA, deck=stack(table=table))
    assert deal.bonus() == [1, 0]
    assert deal.table == []
    (event,) = dealer_events(deal)
    assert event["kind"] == "quindici"
    assert event["points"] == 1
    assert event["seat"] == 0 and event["side"] == 0
    assert event["matta_value"] == 2
    assert sorted(event["cards"]) == sorted(table)
    assert sorted(map(str, deal.captured(0))) == sorted(table)
    assert deal.captured(1) == []


def test_B1_dealer_thirty_scores_two_seed_example() -> None:
    # seed 001: spade6, spadeQ, diamondK, club5 = 30 -> two scope.
    table = ["6S", "QS", "KD", "5C"]
    deal = Deal(CIRULLA, deck=stack(table=table))
    assert deal.bonus() == [2, 0]
    assert deal.table == []
    (event,) = dealer_events(deal)
    assert event["kind"] == "trenta"
    assert event["points"] == 2
    assert event["matta_value"] is None
    assert sorted(map(str, deal.captured(0))) == sorted(table)


@pytest.mark.parametrize(
    ("players", "dealer", "side"), [(4, 1, 1), (4, 2, 0), (3, 2, 2), (2, 1, 1)]
)
def test_B1_dealer_bonus_goes_to_the_dealers_side(players: int, dealer: int, side: int) -> None:
    deck = stack(players=players, dealer=dealer, table=["6S", "QS", "KD", "5C"])
    deal = Deal(CIRULLA, players=players, dealer=dealer, deck=deck)
    expected = [0] * (2 if players == 4 else players)
    expected[side] = 2
    assert deal.bonus() == expected
    assert len(deal.captured(side)) == 4


def test_B1_dealer_capture_is_the_last_capture_but_not_a_scopa() -> None:
    deal = Deal(CIRULLA, deck=stack(table=FIFTEEN_TABLE))
    assert deal.last_capture == 0
    assert deal.view(None)["last_capture"] == 0
    assert deal.scope() == [0, 0]
    assert [p["scope"] for p in deal.view(None)["piles"]] == [0, 0]
    assert [p["bonus"] for p in deal.view(None)["piles"]] == [1, 0]
    # The first player finds an empty table: every play captures nothing.
    assert deal.to_move == 1
    assert all(m.kind == "play" and not m.captured for m in deal.legal_moves())


def test_B1_dealer_bonus_is_bonus_not_scope_on_the_score_sheet() -> None:
    deal = Deal(CIRULLA, deck=stack(table=["6S", "QS", "KD", "5C"]))
    play_out(deal, first_play)  # never declares: only the dealer's bonus counts
    score = deal.score()
    assert score.sides[0]["bonus"] == 2
    assert score.sides[1]["bonus"] == 0
    assert score.sides[0]["scope"] == deal.scope()[0]
    assert sum(1 for e in deal.events if e["type"] == "play" and e["scopa"]) == sum(deal.scope())


@pytest.mark.parametrize(
    "table",
    [
        ["2C", "3S", "4D", "7C"],  # 16
        ["KS", "KD", "QC", "2H"],  # 31
        ["2C", "2S", "3D", "AH"],  # 8: no bonus without dealer_nine
    ],
)
def test_B1_no_dealer_bonus_for_other_sums(table: list[str]) -> None:
    deal = Deal(CIRULLA, deck=stack(table=table))
    assert deal.bonus() == [0, 0]
    assert [str(c) for c in deal.table] == table
    assert dealer_events(deal) == []
    assert deal.last_capture is None


def test_B1_dealer_bonus_is_checked_on_the_table_dealt_after_a_misdeal() -> None:
    deck = stack(table=["AS", "AD", "5C", "KH"])  # two aces: a misdeal (D6)
    checked = 0
    for seed in range(300):
        deal = Deal(CIRULLA, deck=deck, seed=seed)
        assert deal.misdeals >= 1
        (dealt,) = [e for e in deal.events if e["type"] == "deal"]
        total = sum(Card.parse(c).value for c in dealt["table"])
        if "7H" not in dealt["table"] and total in (15, 30):
            checked += 1
            assert deal.bonus() == [total // 15, 0]
            assert deal.table == []
        elif "7H" not in dealt["table"]:
            assert deal.bonus() == [0, 0]
    assert checked > 0


def test_B1_matta_on_the_table_is_not_kept_after_the_dealers_bonus() -> None:
    deal = Deal(CIRULLA, deck=stack(table=["4C", "7H", "3C", "6D"]))
    assert deal.matta_value is None
    assert deal.value_of(MATTA) == 7


def test_B1_matta_takes_the_value_of_thirty() -> None:
    # K + Q + J = 27: the matta as a 3 makes 30 (15 is out of reach).
    deal = Deal(CIRULLA, deck=stack(table=["KS", "QD", "JC", "7H"]))
    (event,) = dealer_events(deal)
    assert (event["kind"], event["points"], event["matta_value"]) == ("trenta", 2, 3)
    assert deal.bonus() == [2, 0]


# ---- B9: dealer_nine --------------------------------------------------------------


def test_B9_dealer_nine_scores_three_and_the_dealer_takes_the_table() -> None:
    rules = CIRULLA.replace(dealer_nine=True)
    deal = Deal(rules, deck=stack(table=["2C", "2S", "3D", "AH"]))
    assert deal.bonus() == [3, 0]
    assert deal.table == []
    assert deal.last_capture == 0
    assert deal.scope() == [0, 0]
    (event,) = dealer_events(deal)
    assert (event["kind"], event["points"]) == ("nove", 3)


def test_B9_dealer_nine_keeps_fifteen_and_thirty() -> None:
    rules = CIRULLA.replace(dealer_nine=True)
    assert Deal(rules, deck=stack(table=FIFTEEN_TABLE)).bonus() == [1, 0]
    assert Deal(rules, deck=stack(table=["6S", "QS", "KD", "5C"])).bonus() == [2, 0]


def test_B9_matta_gives_the_dealer_the_highest_bonus() -> None:
    # AD 2C 3S + matta: 9 or less with the matta as A/2/3, or 15 with it as a Queen.
    table = ["AD", "2C", "3S", "7H"]
    nine = Deal(CIRULLA.replace(dealer_nine=True), deck=stack(table=table))
    assert nine.bonus() == [3, 0]
    (event,) = dealer_events(nine)
    assert event["kind"] == "nove" and event["matta_value"] in (1, 2, 3)
    plain = Deal(CIRULLA, deck=stack(table=table))
    assert plain.bonus() == [1, 0]
    (event,) = dealer_events(plain)
    assert event["kind"] == "quindici" and event["matta_value"] == 9


# ---- B10: dossena -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "points"),
    [
        (["2C", "2S", "3D", "AH"], 1),  # 9 or less: 1
        (["AD", "2C", "3S", "7H"], 1),  # 9 or less with the matta
        (["6S", "QS", "KD", "5C"], 2),  # 30: 2
        (["KS", "QD", "JC", "7H"], 2),  # 30 with the matta as a 3
    ],
)
def test_B10_dossena_dealer_bonus(table: list[str], points: int) -> None:
    deal = Deal(Rules.preset("dossena"), deck=stack(table=table))
    assert deal.bonus() == [points, 0]
    assert deal.table == []
    assert deal.last_capture == 0


def test_B10_dossena_has_no_dealer_fifteen() -> None:
    deal = Deal(Rules.preset("dossena"), deck=stack(table=FIFTEEN_TABLE))
    assert deal.bonus() == [0, 0]
    assert [str(c) for c in deal.table] == FIFTEEN_TABLE
    assert dealer_events(deal) == []


@pytest.mark.parametrize(
    ("hand", "move", "points"),
    [
        (["AS", "3D", "4C"], "!cirulla:AS3D4C", 1),
        (["7H", "3C", "4D"], "!cirulla:7H3C4D=A", 1),
        (["QS", "QD", "QC"], "!decino:QSQDQC", 2),
        (["4S", "4D", "4C"], "!decino:4S4D4C", 2),  # 12: not 9 or less
        (["3S", "3D", "3C"], "!decino:3S3D3C", 3),  # three equal summing to 9
        (["AS", "AD", "AC"], "!decino:ASADAC", 3),
        (["2S", "2D", "2C"], "!decino:2S2D2C", 3),
        (["7H", "2C", "2S"], "!decino:7H2C2S=2", 3),  # the matta as a 2: 2-2-2
        (["QS", "QD", "7H"], "!decino:QSQD7H=Q", 2),
    ],
)
def test_B10_dossena_hand_bonus_scores(hand: list[str], move: str, points: int) -> None:
    deal = deal_with(Rules.preset("dossena"), hand)
    assert norm(move) in declarations(deal)
    deal.play(move)
    assert deal.bonus() == [0, points]


# ---- B2, B3: hand bonuses -----------------------------------------------------------


def test_B2_cirulla_of_three_natural_cards_scores_three() -> None:
    deal = deal_with(CIRULLA, ["AS", "3D", "4C"])
    assert declarations(deal) == {norm("!cirulla:AS3D4C")}
    deal.play("!cirulla:AS3D4C")
    assert deal.bonus() == [0, 3]
    (event,) = [e for e in deal.events if e["type"] == "declare"]
    assert event["kind"] == "cirulla"
    assert event["points"] == 3
    assert event["seat"] == 1 and event["side"] == 1
    assert sorted(event["cards"]) == ["3D", "4C", "AS"]
    assert event["matta_value"] is None


def test_B2_cirulla_boundary_nine_yes_ten_no() -> None:
    assert declarations(deal_with(CIRULLA, ["2S", "3D", "4C"])) == {norm("!cirulla:2S3D4C")}
    assert declarations(deal_with(CIRULLA, ["3S", "3D", "4C"])) == set()


def test_B3_decino_of_three_natural_cards_scores_ten() -> None:
    deal = deal_with(CIRULLA, ["QS", "QD", "QC"])
    assert declarations(deal) == {norm("!decino:QSQDQC")}
    deal.play("!decino:QCQDQS")  # cards in any order
    assert deal.bonus() == [0, 10]


def test_B2_no_bonus_for_an_ordinary_hand() -> None:
    deal = deal_with(CIRULLA, ["5C", "6D", "KH"])
    assert declarations(deal) == set()
    # The matta is wild only to make a bonus: 7H 5C 6D makes none.
    deal = deal_with(CIRULLA, ["7H", "5C", "6D"])
    assert declarations(deal) == set()


def test_B2_cirulla_with_the_matta_as_ace_by_default_seed_example() -> None:
    # seed 001: heart7, club3, diamond4 scores 3 scope; seed 000: always an ace.
    deal = deal_with(CIRULLA, ["7H", "3C", "4D"])
    assert declarations(deal) == {norm("!cirulla:7H3C4D=A")}
    deal.play("!cirulla:7H3C4D=A")
    assert deal.bonus() == [0, 3]
    assert deal.matta_value == 1
    assert deal.value_of(MATTA) == 1


def test_B5_matta_choice_cirulla_as_two_or_ace_seed_example() -> None:
    # seed 001: "declaring the heart7 as either a 2 or an Ace".
    deal = deal_with(CHOICE, ["7H", "3C", "4D"])
    assert declarations(deal) == {norm("!cirulla:7H3C4D=A"), norm("!cirulla:7H3C4D=2")}
    deal.play("!cirulla:7H3C4D=2")
    assert deal.bonus() == [0, 3]
    assert deal.matta_value == 2


def test_B3_decino_with_the_matta_as_queen_seed_example() -> None:
    # seed 001: spadeQ, diamondQ, heart7 scores 10, the heart7 declared as a Queen.
    deal = deal_with(CIRULLA, ["QS", "QD", "7H"])
    assert declarations(deal) == {norm("!decino:QSQD7H=Q")}
    deal.play("!decino:QSQD7H=Q")
    assert deal.bonus() == [0, 10]
    assert deal.matta_value == 9
    assert deal.value_of(MATTA) == 9
    (event,) = [e for e in deal.events if e["type"] == "declare"]
    assert (event["kind"], event["matta_value"], event["points"]) == ("decino", 9, 10)


def test_B5_decino_matta_takes_only_the_value_that_makes_it_even_with_matta_choice() -> None:
    assert declarations(deal_with(CHOICE, ["QS", "QD", "7H"])) == {norm("!decino:QSQD7H=Q")}


# ---- B4: one bonus per hand -------------------------------------------------------


@pytest.mark.parametrize("hand", [["2S", "2D", "2C"], ["AS", "AD", "AC"], ["3S", "3D", "3C"]])
def test_B4_a_hand_that_is_both_scores_only_the_decino(hand: list[str]) -> None:
    deal = deal_with(CIRULLA, hand)
    move = norm("!decino:" + "".join(hand))
    assert declarations(deal) == {move}
    with pytest.raises(IllegalMove):
        deal.play("!cirulla:" + "".join(hand))
    deal.play(move)
    assert deal.bonus() == [0, 10]
    assert declarations(deal) == set()  # not the cirulla on top


def test_B4_a_matta_hand_may_qualify_either_way_and_the_player_picks() -> None:
    deal = deal_with(CIRULLA, ["7H", "2C", "2S"])
    decino, cirulla = norm("!decino:7H2C2S=2"), norm("!cirulla:7H2C2S=A")
    assert declarations(deal) == {decino, cirulla}
    as_decino = deal.copy()
    as_decino.play(decino)
    assert as_decino.bonus() == [0, 10]
    assert as_decino.value_of(MATTA) == 2
    assert declarations(as_decino) == set()
    deal.play(cirulla)
    assert deal.bonus() == [0, 3]
    assert deal.value_of(MATTA) == 1
    assert declarations(deal) == set()


@pytest.mark.parametrize(
    ("hand", "move", "points"),
    [
        (["3S", "3D", "3C"], "!decino:3S3D3C", 13),
        (["2S", "2D", "2C"], "!decino:2S2D2C", 13),
        (["AS", "AD", "AC"], "!decino:ASADAC", 13),
        (["4S", "4D", "4C"], "!decino:4S4D4C", 10),  # 12: only a decino
        (["7H", "2C", "2S"], "!decino:7H2C2S=2", 13),
        (["AS", "3D", "4C"], "!cirulla:AS3D4C", 3),
    ],
)
def test_B4_bonuses_stack_scores_both_as_a_decino(hand: list[str], move: str, points: int) -> None:
    deal = deal_with(CIRULLA.replace(bonuses_stack=True), hand)
    assert norm(move) in declarations(deal)
    deal.play(move)
    assert deal.bonus() == [0, points]


def test_B4_no_decino_removes_the_ten_point_bonus() -> None:
    rules = CIRULLA.replace(no_decino=True)
    assert declarations(deal_with(rules, ["QS", "QD", "QC"])) == set()
    assert declarations(deal_with(rules, ["QS", "QD", "7H"])) == set()
    assert declarations(deal_with(rules, ["7H", "2C", "2S"])) == {norm("!cirulla:7H2C2S=A")}
    deal = deal_with(rules, ["3S", "3D", "3C"])  # 3-3-3 is then a cirulla
    assert declarations(deal) == {norm("!cirulla:3S3D3C")}
    deal.play("!cirulla:3S3D3C")
    assert deal.bonus() == [0, 3]


# ---- B6: the matta's declared value ----------------------------------------------------


def test_B6_matta_declared_as_two_captures_as_a_two_seed_example() -> None:
    # seed 001: declared as a 2 "if the table cards were for example Ace, 5, 7, so as to
    # capture all three cards by making 15".
    deal = deal_with(CHOICE, ["7H", "3C", "4D"], table=["AS", "5D", "7C", "KS"])
    assert norm("7Hx7C") in plays_of(deal, "7H")  # undeclared: an ordinary 7
    deal.play("!cirulla:7H3C4D=2")
    # As a 2 it must capture (P6): only the fifteen 2 + 1 + 5 + 7; not the 7 any more.
    assert plays_of(deal, "7H") == {norm("7HxAS5D7C")}
    deal.play("7HxAS5D7C")
    assert {str(c) for c in deal.captured(1)} == {"7H", "AS", "5D", "7C"}


def test_B6_matta_declared_as_ace_is_an_ace_in_hand_with_an_ace_on_the_table() -> None:
    deal = deal_with(CIRULLA, ["7H", "3C", "4D"], table=["AS", "5D", "7C", "KS"])
    deal.play("!cirulla:7H3C4D=A")
    assert plays_of(deal, "7H") == {norm("7HxAS")}


def test_B6_matta_declared_as_ace_sweeps_a_table_without_aces_seed_example() -> None:
    # seed 001: "if it is named as an Ace it can be played to capture all the cards".
    deal = deal_with(CIRULLA, ["7H", "3C", "4D"], table=QUIET_TABLE)
    deal.play("!cirulla:7H3C4D=A")
    sweep = norm("7Hx" + "".join(QUIET_TABLE))
    assert plays_of(deal, "7H") == {sweep}
    deal.play(sweep)
    assert deal.table == []
    assert deal.scope() == [0, 1]


def test_B6_matta_declared_as_two_must_capture_as_a_two_P6() -> None:
    # Table 2S 7C ...: as a 2 the matta must take the 2, it may not lie or take the 7.
    deal = deal_with(CHOICE, ["7H", "3C", "4D"], table=["2S", "7C", "KD", "QS"])
    deal.play("!cirulla:7H3C4D=2")
    assert plays_of(deal, "7H") == {norm("7Hx2S")}
    with pytest.raises(IllegalMove):
        deal.play("7H")
    with pytest.raises(IllegalMove):
        deal.play("7Hx7C")


def test_B6_matta_laid_as_ace_is_an_ace_on_the_table_for_P4() -> None:
    deal = deal_with(
        CIRULLA,
        ["7H", "3C", "4D"],
        table=FIFTEEN_TABLE,  # the dealer takes it: seat 1 finds an empty table
        others={2: ["5D", "JS", "KH"], 3: ["AC", "5H", "6H"]},
    )
    assert deal.table == []
    deal.play("!cirulla:7H3C4D=A")
    deal.play("7H")  # an ace onto an empty table just lies there
    assert deal.view(None)["table"] == [{"card": "7H", "value": 1}]
    deal.play("5D")
    # Seat 3's ace meets an ace on the table: it takes that ace only, not everything.
    assert plays_of(deal, "AC") == {norm("ACx7H")}


def _laid_matta_deal(rules: Rules) -> Deal:
    """Seat 1 declares the matta as a 2 and lays it on a table it cannot capture from."""
    deal = deal_with(
        rules,
        ["7H", "3C", "4D"],
        table=QUIET_TABLE,
        others={0: ["5S", "6C", "QC"], 2: ["2S", "JS", "KH"], 3: ["4S", "5H", "6H"]},
    )
    deal.play("!cirulla:7H3C4D=2")
    deal.play("7H")
    return deal


def test_B6_laid_matta_keeps_its_value_until_the_end_of_the_mano() -> None:
    deal = _laid_matta_deal(CHOICE)
    assert deal.value_of(MATTA) == 2
    assert {"card": "7H", "value": 2} in deal.view(None)["table"]
    assert deal.to_move == 2
    assert norm("2Sx7H") in legal(deal)  # still a 2 later in the same mano
    deal.play("JSxJC")
    deal.play("5HxKS")
    deal.play("5S")  # the dealer ends the mano
    assert deal.mano == 1
    assert deal.value_of(MATTA) == 7
    assert deal.matta_value is None
    assert {"card": "7H", "value": 7} in deal.view(None)["table"]
    deal.play("4Dx5S6S")
    assert deal.to_move == 2
    assert norm("2Sx7H") not in legal(deal)


def test_B6_matta_keeps_value_for_the_rest_of_the_smazzata() -> None:
    deal = _laid_matta_deal(CHOICE.replace(matta_keeps_value=True))
    deal.play("JSxJC")
    deal.play("5HxKS")
    deal.play("5S")
    assert deal.mano == 1
    assert deal.value_of(MATTA) == 2
    deal.play("4Dx5S6S")
    assert deal.to_move == 2
    assert norm("2Sx7H") in legal(deal)
    deal.play("KH")
    deal.play("6HxQD")
    deal.play("QC")
    assert deal.mano == 2
    assert deal.value_of(MATTA) == 2
    # Seat 1's 3 makes 15 with the matta as a 2 and the King (as a 7 it could not).
    assert legal(deal) == {norm("3Cx7HKH")}


def test_B6_matta_in_hand_keeps_its_declared_value_across_manos() -> None:
    deal = deal_with(
        CIRULLA,
        ["7H", "3C", "4D"],
        table=QUIET_TABLE,
        others={0: ["5S", "6C", "QC"], 2: ["5D", "JS", "KH"], 3: ["4S", "5H", "6H"]},
    )
    deal.play("!cirulla:7H3C4D=A")
    deal.play("3C")
    while deal.to_move != 1:
        deal.play(first_play(deal.legal_moves()))
    assert deal.mano == 1
    assert deal.value_of(MATTA) == 1
    assert deal.table and all(c.rank != "A" for c in deal.table)
    # Still an ace: onto a table with no ace it takes every card.
    assert plays_of(deal, "7H") == {str(Move.play(MATTA, tuple(deal.table)))}


def test_B6_matta_scores_as_the_seven_of_hearts() -> None:
    deal = deal_with(CIRULLA, ["7H", "3C", "4D"], table=QUIET_TABLE)
    deal.play("!cirulla:7H3C4D=A")
    deal.play("7Hx" + "".join(QUIET_TABLE))
    play_out(deal, first_play)
    assert MATTA in deal.captured(1)
    score = deal.score()
    assert "7H" in score.details[1]["primiera_cards"]  # the best heart: 21, not an ace's 16
    piles = [deal.captured(0), deal.captured(1)]
    assert score == score_piles(CIRULLA, piles, scope=deal.scope(), bonus=deal.bonus())


# ---- B7: when and how a bonus is declared -------------------------------------------


def test_B7_declarations_are_listed_first_beside_the_plays() -> None:
    deal = deal_with(CIRULLA, ["AS", "3D", "4C"])
    moves = deal.legal_moves()
    kinds = [m.kind for m in moves]
    assert kinds[0] == "declare"
    assert "play" in kinds
    assert kinds == sorted(kinds, key=lambda k: k != "declare")


def test_B7_points_go_to_the_declarers_side_at_once_and_the_turn_continues() -> None:
    deal = deal_with(CIRULLA, ["AS", "3D", "4C"], seat=2)
    deal.play(first_play(deal.legal_moves()))  # seat 1
    assert deal.to_move == 2
    deal.play("!cirulla:AS3D4C")
    assert deal.bonus() == [3, 0]  # seat 2 is side 0
    assert deal.to_move == 2
    assert len(deal.hand(2)) == 3
    assert all(m.kind == "play" for m in deal.legal_moves())


def test_B7_not_twice_in_a_stage() -> None:
    deal = deal_with(CIRULLA, ["AS", "3D", "4C"])
    deal.play("!cirulla:AS3D4C")
    assert declarations(deal) == set()
    before = snapshot(deal)
    with pytest.raises(IllegalMove):
        deal.play("!cirulla:AS3D4C")
    assert snapshot(deal) == before
    assert deal.bonus() == [0, 3]


def test_B7_no_declaration_after_playing_a_card() -> None:
    deal = deal_with(CIRULLA, ["AS", "3D", "4C"])
    deal.play(first_play(deal.legal_moves()))  # plays without declaring
    assert deal.bonus() == [0, 0]
    while deal.to_move != 1:
        deal.play(first_play(deal.legal_moves()))
    assert declarations(deal) == set()
    before = snapshot(deal)
    with pytest.raises(IllegalMove):
        deal.play("!cirulla:AS3D4C")
    assert snapshot(deal) == before


def test_B7_a_new_stage_allows_a_new_declaration() -> None:
    later = [[[], ["QS", "QD", "QC"], [], []]]
    deal = deal_with(CIRULLA, ["AS", "3D", "4C"], later=later)
    deal.play("!cirulla:AS3D4C")
    while deal.stage == 0:
        deal.play(first_play(deal.legal_moves()))
    assert deal.to_move == 1
    assert declarations(deal) == {norm("!decino:QSQDQC")}
    deal.play("!decino:QSQDQC")
    assert deal.bonus() == [0, 13]
    assert [e["stage"] for e in deal.events if e["type"] == "declare"] == [0, 1]


def test_B7_declared_cards_are_shown_to_every_seat_and_spectators_until_played() -> None:
    deal = deal_with(CIRULLA, ["AS", "3D", "4C"])
    assert deal.declared(1) == []
    deal.play("!cirulla:AS3D4C")
    assert sorted(map(str, deal.declared(1))) == ["3D", "4C", "AS"]
    for viewer in (None, 0, 1, 2, 3):
        view = deal.view(viewer)
        assert sorted(view["hands"][1]["declared"]) == ["3D", "4C", "AS"]
        assert [d["kind"] for d in view["declarations"]] == ["cirulla"]
        if viewer != 1:
            assert "cards" not in view["hands"][1]
        declared = [e for e in deal.events_for(viewer) if e["type"] == "declare"]
        assert sorted(declared[0]["cards"]) == ["3D", "4C", "AS"]
    move = first_play(deal.legal_moves())
    deal.play(move)
    assert move.card is not None
    shown = sorted(c for c in ["3D", "4C", "AS"] if c != str(move.card))
    assert sorted(deal.view(0)["hands"][1]["declared"]) == shown
    assert sorted(deal.view(None)["hands"][1]["declared"]) == shown


def test_B7_undeclared_hands_stay_hidden() -> None:
    deal = deal_with(CIRULLA, ["AS", "3D", "4C"])
    view = deal.view(None)
    assert view["hands"][1]["declared"] == []
    assert all("cards" not in h for h in view["hands"])


def test_B7_declare_at_deal_gives_every_seat_a_declaration_turn() -> None:
    rules = CIRULLA.replace(declare_at_deal=True)
    later = [[["QS", "QD", "QC"], ["KS", "KD", "JD"], ["6D", "7C", "JH"], ["5S", "7S", "QH"]]]
    deal = deal_with(
        rules,
        ["AS", "3D", "4C"],
        others={0: ["2S", "2C", "2H"], 2: ["5D", "JS", "KH"], 3: ["6C", "5H", "6H"]},
        later=later,
    )
    assert deal.to_move == 1
    assert legal(deal) == {norm("!cirulla:AS3D4C"), "!pass"}
    before = snapshot(deal)
    with pytest.raises(IllegalMove):  # no play during the declaration round
        deal.play(str(deal.hand(1)[0]))
    assert snapshot(deal) == before
    deal.play("!cirulla:AS3D4C")
    assert deal.to_move == 2
    assert legal(deal) == {"!pass"}
    deal.play("!pass")
    assert deal.to_move == 3
    assert legal(deal) == {"!pass"}
    deal.play("!pass")
    assert deal.to_move == 0
    assert legal(deal) == {norm("!decino:2S2C2H"), "!pass"}
    deal.play("!decino:2S2C2H")
    assert deal.bonus() == [10, 3]
    # Play starts with the seat after the dealer; no more declarations, no more passing.
    assert deal.to_move == 1
    assert all(m.kind == "play" for m in deal.legal_moves())
    with pytest.raises(IllegalMove):
        deal.play("!pass")
    assert sorted(deal.view(2)["hands"][0]["declared"]) == ["2C", "2H", "2S"]
    while deal.stage == 0:
        deal.play(first_play(deal.legal_moves()))
    # The next stage opens with a new declaration round.
    for seat in (1, 2, 3):
        assert deal.to_move == seat
        assert legal(deal) == {"!pass"}
        deal.play("!pass")
    assert deal.to_move == 0
    assert legal(deal) == {norm("!decino:QSQDQC"), "!pass"}


def test_B7_declare_at_deal_a_seat_that_passed_cannot_declare_later() -> None:
    rules = CIRULLA.replace(declare_at_deal=True)
    deal = deal_with(rules, ["AS", "3D", "4C"])
    for _ in range(4):  # seats 1, 2, 3, 0 all pass
        deal.play("!pass")
    assert deal.to_move == 1
    assert all(m.kind == "play" for m in deal.legal_moves())
    before = snapshot(deal)
    with pytest.raises(IllegalMove):
        deal.play("!cirulla:AS3D4C")
    assert snapshot(deal) == before
    assert deal.bonus() == [0, 0]


def test_B7_pass_is_only_for_the_declaration_round() -> None:
    deal = deal_with(CIRULLA, ["AS", "3D", "4C"])
    before = snapshot(deal)
    with pytest.raises(IllegalMove):
        deal.play("!pass")
    assert snapshot(deal) == before


@pytest.mark.parametrize(
    "move",
    [
        "!cirulla:7H3C5D=A",  # 5D is not in the hand
        "!cirulla:AS2S3S",  # none of these is in the hand
        "!cirulla:7H3C4D",  # the matta is included: "=X" is required
        "!cirulla:7H3C4D=3",  # 3 + 3 + 4 = 10: no cirulla
        "!cirulla:7H3C4D=2",  # without matta_choice the cirulla's matta is an ace
        "!decino:7H3C4D=3",  # not three equal cards
    ],
)
def test_B7_illegal_declarations_raise_and_change_nothing(move: str) -> None:
    deal = deal_with(CIRULLA, ["7H", "3C", "4D"])
    before = snapshot(deal)
    with pytest.raises(IllegalMove) as info:
        deal.play(move)
    assert str(info.value)
    assert snapshot(deal) == before
    assert deal.matta_value is None


def test_B7_cards_that_make_no_bonus_cannot_be_declared() -> None:
    deal = deal_with(CIRULLA, ["5C", "6D", "KH"])
    before = snapshot(deal)
    for move in ("!cirulla:5C6DKH", "!decino:5C6DKH"):
        with pytest.raises(IllegalMove):
            deal.play(move)
    assert snapshot(deal) == before


# ---- C4: the wild card option ----------------------------------------------------------


def test_C4_wild_card_queen_of_hearts() -> None:
    rules = CIRULLA.replace(wild_card="QH")
    assert declarations(deal_with(rules, ["QH", "3C", "4D"])) == {norm("!cirulla:QH3C4D=A")}
    assert declarations(deal_with(rules, ["7H", "3C", "4D"])) == set()  # 7H is a plain 7
    # 7H + A + A = 9 is a natural cirulla, with no "=X".
    assert declarations(deal_with(rules, ["7H", "AC", "AS"])) == {norm("!cirulla:7HACAS")}
    assert Deal(rules, deck=stack(table=["4C", "QH", "3C", "6D"])).bonus() == [1, 0]
    assert Deal(rules, deck=stack(table=["4C", "7H", "3C", "6D"])).bonus() == [0, 0]


def test_C4_wild_card_none_means_no_matta() -> None:
    rules = CIRULLA.replace(wild_card=None)
    assert declarations(deal_with(rules, ["7H", "3C", "4D"])) == set()
    assert declarations(deal_with(rules, ["QS", "QD", "7H"])) == set()
    assert declarations(deal_with(rules, ["7H", "AC", "AS"])) == {norm("!cirulla:7HACAS")}
    deal = Deal(rules, deck=stack(table=["4C", "7H", "3C", "6D"]))
    assert deal.bonus() == [0, 0]
    assert len(deal.table) == 4
    assert deal.view(None)["matta"] is None
