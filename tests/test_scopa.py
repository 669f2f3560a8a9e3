"""Scopa: RULES.md SC1-SC6 (seed 002, the platform's Scopa rules)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import play_out, stack

from cirulla import Card, Deal, IllegalMove, Move, Rules, parse_move, score_piles

SCOPA = Rules.preset("scopa")
CIRULLA = Rules.preset("cirulla")


def norm(text: str) -> str:
    return str(parse_move(text))


def legal(deal: Deal) -> set[str]:
    return {str(m) for m in deal.legal_moves()}


def plays_of(deal: Deal, card: str) -> set[str]:
    c = Card.parse(card)
    return {str(m) for m in deal.legal_moves() if m.card == c}


def snapshot(deal: Deal) -> tuple[Any, ...]:
    return (deal.view(None), deal.events, deal.to_move)


def scopa_deal(
    hand: list[str], table: list[str], players: int = 2, rules: Rules = SCOPA, seat: int = 1
) -> Deal:
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[seat] = hand
    deck = stack(players=players, hands=hands, table=table)
    return Deal(rules, players=players, dealer=0, deck=deck)


def greedy(moves: list[Move]) -> Move:
    """Capture as many cards as possible: keeps the table small."""
    return max(moves, key=lambda m: len(m.captured))


# ---- SC1: players and deal ---------------------------------------------------------------


def test_SC1_two_or_four_players_only() -> None:
    assert SCOPA.check_players(2) == 2
    assert SCOPA.check_players(4) == 4
    with pytest.raises(ValueError, match="3"):
        SCOPA.check_players(3)
    with pytest.raises(ValueError):
        Deal(SCOPA, players=3, dealer=0, seed=1)


@pytest.mark.parametrize(("players", "stages"), [(2, 6), (4, 3)])
def test_SC1_deal_three_each_four_to_the_table(players: int, stages: int) -> None:
    deal = Deal(SCOPA, players=players, dealer=1, seed=7)
    assert [len(deal.hand(s)) for s in range(players)] == [3] * players
    assert len(deal.table) == 4
    assert len(deal.stages) == stages
    assert deal.to_move == (1 + 1) % players  # the seat after the dealer
    if players == 4:
        assert [deal.side_of(s) for s in range(4)] == [0, 1, 0, 1]


# ---- SC2: re-deal on kings, aces are ordinary -------------------------------------------------


@pytest.mark.parametrize(
    "table", [["KS", "KD", "KC", "5H"], ["KS", "KD", "KC", "KH"], ["5H", "KD", "KS", "KC"]]
)
def test_SC2_three_or_four_kings_on_the_table_is_a_redeal(table: list[str]) -> None:
    deal = Deal(SCOPA, players=2, dealer=0, deck=stack(players=2, table=table), seed=3)
    assert deal.misdeals >= 1
    first = next(e for e in deal.events if e["type"] == "misdeal")
    assert first["reason"] == "three_kings"
    assert first["table"] == table
    assert sum(c.rank == "K" for c in deal.table) < 3
    assert deal.dealer == 0


def test_SC2_two_kings_are_no_redeal() -> None:
    table = ["KS", "KD", "5C", "5H"]
    deal = Deal(SCOPA, players=2, dealer=0, deck=stack(players=2, table=table))
    assert deal.misdeals == 0
    assert [str(c) for c in deal.table] == table


def test_SC2_two_aces_are_no_misdeal_in_scopa() -> None:
    table = ["AS", "AD", "5C", "6H"]
    deck = stack(players=2, table=table)
    deal = Deal(SCOPA, players=2, dealer=0, deck=deck)
    assert deal.misdeals == 0
    assert [str(c) for c in deal.table] == table
    assert not [e for e in deal.events if e["type"] == "misdeal"]
    # The same cards are a misdeal in Cirulla (D6): the table really holds two aces.
    assert Deal(CIRULLA, players=2, dealer=0, deck=deck).misdeals >= 1


# ---- SC3: captures -----------------------------------------------------------------------


def test_SC3_equal_card_rule_seed_example_jack() -> None:
    # seed 002: 3, 5 and J on the table, a J played takes only the J (not 3 + 5).
    deal = scopa_deal(["JH", "QH", "AC"], ["3S", "5C", "JD", "KH"])
    assert plays_of(deal, "JH") == {norm("JHxJD")}
    before = snapshot(deal)
    with pytest.raises(IllegalMove):
        deal.play("JHx3S5C")
    assert snapshot(deal) == before


def test_SC3_choice_among_sums_seed_example_queen() -> None:
    # seed 002: A, 3, 4, 5 on the table, a Queen takes A+3+5 or 4+5 at will.
    deal = scopa_deal(["QH", "5D", "2H"], ["AC", "3S", "4D", "5C"])
    assert plays_of(deal, "QH") == {norm("QHxAC3S5C"), norm("QHx4D5C")}
    deal.play("QHx5C4D")  # captured cards in any order
    assert sorted(map(str, deal.captured(1))) == sorted(["QH", "4D", "5C"])


def test_SC3_equal_rule_with_two_equal_cards_gives_two_captures() -> None:
    deal = scopa_deal(["5D", "KH", "2H"], ["5C", "5S", "3D", "2C"])
    # A 5 must take one of the 5s, never 3 + 2.
    assert plays_of(deal, "5D") == {norm("5Dx5C"), norm("5Dx5S")}


def test_SC3_a_sum_uses_each_table_card_once() -> None:
    # A 6 on A, 2, 3, K: no equal card, so it takes the sum A + 2 + 3 (the 3 alone is not 6).
    deal = scopa_deal(["6H", "QS", "QC"], ["AS", "2C", "3D", "KH"])
    assert plays_of(deal, "6H") == {norm("6HxAS2C3D")}
    # A King on A, 2, 3, 4: only all four make 10 (2 + 4 and 3 + 4 do not).
    deal = scopa_deal(["KS", "6H", "2H"], ["AS", "2C", "3D", "4H"])
    assert plays_of(deal, "KS") == {norm("KSxAS2C3D4H")}


def test_SC3_no_fifteen() -> None:
    # In Cirulla 5 + K = 15 captures; in Scopa the 5 just lies on the table.
    deal = scopa_deal(["5D", "6H", "2H"], ["KS", "QD", "JC", "4H"])
    assert plays_of(deal, "5D") == {"5D"}
    assert plays_of(deal, "6H") == {"6H"}
    cirulla = scopa_deal(["5D", "6H", "2H"], ["KS", "QD", "JC", "4H"], rules=CIRULLA)
    assert norm("5DxKS") in plays_of(cirulla, "5D")


def test_SC3_no_ace_sweep() -> None:
    deal = scopa_deal(["AH", "6H", "2H"], ["3S", "5C", "JD", "KS"])
    assert plays_of(deal, "AH") == {"AH"}  # no ace on the table: it lies there


def test_SC3_ace_takes_an_ace_like_any_equal_card() -> None:
    deal = scopa_deal(["AH", "6H", "2H"], ["AS", "3C", "JD", "KS"])
    assert plays_of(deal, "AH") == {norm("AHxAS")}


def test_SC3_forced_capture() -> None:
    deal = scopa_deal(["JH", "QH", "AC"], ["3S", "5C", "JD", "KH"])
    before = snapshot(deal)
    with pytest.raises(IllegalMove):
        deal.play("JH")  # the Jack can capture, so it must
    assert snapshot(deal) == before
    # A card that captures nothing may be played.
    assert plays_of(deal, "QH") == {"QH"}
    deal.play("QH")
    assert "QH" in [str(c) for c in deal.table]


def test_SC3_may_decline_capture_is_not_a_scopa_rule() -> None:
    # seed 002: "Se il giocatore puo fare almeno un tipo di presa e costretto a prendere".
    with pytest.raises(ValueError, match="may_decline_capture"):
        SCOPA.replace(may_decline_capture=True)


# ---- SC4: scopa and the last cards -----------------------------------------------------------


def test_SC4_a_capture_that_empties_the_table_is_a_scopa() -> None:
    deal = scopa_deal(["KS", "6H", "2H"], ["AS", "2C", "3D", "4H"])
    deal.play("KSxAS2C3D4H")  # 1 + 2 + 3 + 4 = 10
    assert deal.table == []
    assert deal.scope() == [0, 1]
    assert deal.events[-1]["type"] == "play" and deal.events[-1]["scopa"] is True
    assert deal.view(None)["piles"][1]["scope"] == 1


def _find_last_sweep(deal: Deal) -> list[Move] | None:
    """A line of play from here whose very last play captures the whole table."""
    for move in deal.legal_moves():
        after = deal.copy()
        after.play(move)
        if after.is_over:
            last = [e for e in after.events if e["type"] == "play"][-1]
            if last["captured"] and not any(e["type"] == "last_cards" for e in after.events):
                return [move]
        else:
            rest = _find_last_sweep(after)
            if rest is not None:
                return [move, *rest]
    return None


def test_SC4_the_last_play_of_the_smazzata_is_never_a_scopa() -> None:
    deal = Deal(SCOPA, players=4, dealer=0, seed=0)
    while deal.stage < len(deal.stages) - 1:
        deal.play(greedy(deal.legal_moves()))
    line = _find_last_sweep(deal)
    assert line is not None, "no line of play ends with a sweep from this deal"
    for move in line[:-1]:
        deal.play(move)
    scope_before = deal.scope()
    deal.play(line[-1])
    assert deal.is_over
    last = [e for e in deal.events if e["type"] == "play"][-1]
    assert last["captured"]
    assert last["scopa"] is False
    assert deal.scope() == scope_before
    assert [s["scope"] for s in deal.score().sides] == scope_before


def test_SC4_last_cards_go_to_the_last_capture_and_are_no_scopa() -> None:
    deal = play_out(Deal(SCOPA, players=2, dealer=0, seed=1))
    (event,) = [e for e in deal.events if e["type"] == "last_cards"]
    assert event["cards"]
    plays = [e for e in deal.events if e["type"] == "play"]
    last_capture = [e for e in plays if e["captured"]][-1]
    assert event["side"] == deal.side_of(last_capture["seat"]) == deal.last_capture
    assert set(event["cards"]) <= {str(c) for c in deal.captured(event["side"])}
    for side in (0, 1):
        sweeps = sum(1 for e in plays if e["scopa"] and deal.side_of(e["seat"]) == side)
        assert deal.scope()[side] == sweeps
    assert len(deal.captured(0)) + len(deal.captured(1)) == 40


# ---- SC5: scoring -------------------------------------------------------------------------


ALL_DIAMONDS = ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "JD", "QD", "KD"]


def _other_cards(taken: list[str]) -> list[str]:
    return [
        r + s
        for s in "DHCS"
        for r in ("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K")
        if r + s not in taken
    ]


def test_SC5_no_grande_no_piccola_no_cappotto() -> None:
    side0 = [*ALL_DIAMONDS, "7H", "7C", "7S", "6H", "6C", "6S", "AH", "AC", "AS"]
    side1 = _other_cards(side0)
    score = score_piles(SCOPA, [side0, side1], scope=[2, 1])
    row = score.sides[0]
    assert row["grande"] == 0
    assert row["piccola"] == 0
    assert score.cappotto is None
    assert row["diamonds"] == 1
    assert row["settebello"] == 1
    assert row["primiera"] == 1
    assert row["cards"] == 0  # 19 against 21
    assert score.sides[1]["cards"] == 1
    assert row["scope"] == 2 and row["bonus"] == 0
    assert row["total"] == 2 + 1 + 1 + 1
    assert score.sides[1]["total"] == 1 + 1
    # The same piles in Cirulla: grande, piccola and the cappotto.
    cirulla = score_piles(CIRULLA, [side0, side1], scope=[2, 1])
    assert cirulla.sides[0]["grande"] == 5 and cirulla.sides[0]["piccola"] == 6
    assert cirulla.cappotto == 0


def test_SC5_scopa_has_no_bonus_points() -> None:
    side0 = [*ALL_DIAMONDS, "AH"]
    with pytest.raises(ValueError):
        score_piles(SCOPA, [side0, _other_cards(side0)], bonus=[1, 0])


def test_SC5_ties_and_primiera_without_a_suit() -> None:
    # 20 cards each, 5 diamonds each: nobody gets cards or diamonds.
    side0 = [
        *["AD", "2D", "3D", "4D", "5D"],
        *["AH", "2H", "3H", "4H", "5H", "6H", "7H"],
        *["AC", "2C", "3C", "4C", "5C", "6C", "7C", "JC"],
    ]
    side1 = _other_cards(side0)
    score = score_piles(SCOPA, [side0, side1])
    assert [s["cards"] for s in score.sides] == [0, 0]
    assert [s["diamonds"] for s in score.sides] == [0, 0]
    assert score.details[0]["primiera"] is None  # no spades
    assert score.sides[1]["primiera"] == 1


def test_SC5_no_dealer_bonus_for_fifteen_or_thirty() -> None:
    for table in (["2C", "3S", "4D", "6H"], ["6S", "QS", "KD", "5C"], ["4C", "7H", "3C", "6D"]):
        deal = Deal(SCOPA, players=2, dealer=0, deck=stack(players=2, table=table))
        assert [str(c) for c in deal.table] == table
        assert deal.bonus() == [0, 0]
        assert deal.last_capture is None
        assert not [e for e in deal.events if e["type"] == "dealer_bonus"]


@pytest.mark.parametrize(
    "hand",
    [["AS", "2D", "3C"], ["QS", "QD", "QC"], ["7H", "2C", "2S"], ["7H", "3C", "4D"]],
)
def test_SC5_no_declarations_are_ever_offered(hand: list[str]) -> None:
    deal = scopa_deal(hand, ["KS", "QH", "JC", "6S"])
    assert all(m.kind == "play" for m in deal.legal_moves())
    assert deal.view(None)["matta"] is None
    before = snapshot(deal)
    for move in (
        "!cirulla:" + "".join(hand),
        "!decino:" + "".join(hand),
        "!cirulla:" + "".join(hand) + "=A",
        "!decino:" + "".join(hand) + "=2",
        "!pass",
    ):
        with pytest.raises(IllegalMove):
            deal.play(move)
    assert snapshot(deal) == before


def test_SC5_seven_of_hearts_is_an_ordinary_seven() -> None:
    deal = scopa_deal(["7H", "3C", "4D"], ["7C", "KS", "QH", "JC"])
    assert plays_of(deal, "7H") == {norm("7Hx7C")}
    assert deal.value_of(Card.parse("7H")) == 7


def test_SC5_played_smazzata_score_sheet_has_no_cirulla_items() -> None:
    for players in (2, 4):
        deal = play_out(Deal(SCOPA, players=players, dealer=0, seed=5))
        score = deal.score()
        assert len(score.sides) == 2
        for row in score.sides:
            assert row["bonus"] == 0 and row["grande"] == 0 and row["piccola"] == 0
        assert score.cappotto is None
        assert deal.instant_winner is None
        assert not [e for e in deal.events if e["type"] in ("declare", "dealer_bonus")]


# ---- SC6 and options -----------------------------------------------------------------------


def test_SC6_preset_plays_to_eleven() -> None:
    assert SCOPA.game == "scopa"
    assert SCOPA.target == 11


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("luzzati", True),
        ("ace_choice", True),
        ("bonuses_stack", True),
        ("no_decino", True),
        ("matta_choice", True),
        ("matta_keeps_value", True),
        ("declare_at_deal", True),
        ("dealer_nine", True),
        ("dossena", True),
        ("piccola_to_seven", True),
        ("cappotto_scores_only", True),
        ("stages", (9,)),
        ("declared_first", True),
        ("declare_all_at_once", True),
    ],
)
def test_SC_cirulla_only_options_are_rejected_with_scopa(option: str, value: object) -> None:
    with pytest.raises(ValueError, match=option):
        SCOPA.replace(**{option: value})
    with pytest.raises(ValueError, match=option):
        CIRULLA.replace(**{option: value}).replace(game="scopa")


def test_SC_wild_card_is_rejected_with_scopa() -> None:
    # Scopa has no matta (SC5: no accusi); another wild card would be silently ignored.
    with pytest.raises(ValueError, match="wild_card"):
        SCOPA.replace(wild_card="QH")


def test_SC_cirulla_presets_cannot_become_scopa() -> None:
    with pytest.raises(ValueError):
        Rules.preset("pagat").replace(game="scopa")
