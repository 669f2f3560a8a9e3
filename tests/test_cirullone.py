"""Cirullone: RULES.md CR1-CR4 (seed 001's Cirullone section and seed 003)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import stack

from cirulla import Card, Deal, IllegalMove, Move, Rules, parse_move

PRESETS = ("cirullone", "cirullone-6-3", "cirullone-3-6")
SIZES = {"cirullone": (9,), "cirullone-6-3": (6, 3), "cirullone-3-6": (3, 6)}
CIRULLONE = Rules.preset("cirullone")
RIVAROLO = CIRULLONE.replace(declared_first=False, declare_all_at_once=True)
# The example of the project's guide: a decino and a cirulla (several, in fact) in 9 cards.
HAND = ["QS", "QD", "QC", "2H", "AH", "3S", "5C", "6D", "KH"]
TABLE = ["6S", "7S", "JS", "KS"]  # 31: no dealer's bonus, no ace, no matta
DECINO = "!decino:QSQDQC"
CIRULLE = {"!cirulla:2HAH3S", "!cirulla:AH2H5C", "!cirulla:AH2H6D", "!cirulla:AH3S5C"}


def norm(text: str) -> str:
    return str(parse_move(text))


def declarations(deal: Deal) -> set[str]:
    return {str(m) for m in deal.legal_moves() if m.kind == "declare"}


def played_cards(deal: Deal) -> set[str]:
    return {str(m.card) for m in deal.legal_moves() if m.kind == "play"}


def first_play(moves: list[Move]) -> Move:
    return next(m for m in moves if m.kind == "play")


def snapshot(deal: Deal) -> tuple[Any, ...]:
    return (deal.view(None), deal.events, deal.bonus(), deal.to_move, deal.hand(deal.to_move or 0))


def nine_card_deal(rules: Rules = CIRULLONE, hand: list[str] = HAND, seat: int = 1) -> Deal:
    hands: list[list[str]] = [[], [], [], []]
    hands[seat] = hand
    deck = stack(hands=hands, table=TABLE, sizes=[9])
    return Deal(rules, players=4, dealer=0, deck=deck)


def until_seat(deal: Deal, seat: int) -> None:
    """The other seats play their first legal play until `seat` is to move."""
    while deal.to_move != seat:
        deal.play(first_play(deal.legal_moves()))


# ---- CR1, CR2: players, presets and deals -------------------------------------------------


@pytest.mark.parametrize("name", PRESETS)
def test_CR1_presets_are_for_four_players_only(name: str) -> None:
    rules = Rules.preset(name)
    assert rules.check_players(4) == 4
    for players in (2, 3):
        with pytest.raises(ValueError):
            rules.check_players(players)
        with pytest.raises(ValueError):
            Deal(rules, players=players, dealer=0, seed=1)


@pytest.mark.parametrize("name", PRESETS)
def test_CR1_partnerships_opposite(name: str) -> None:
    deal = Deal(Rules.preset(name), players=4, dealer=0, seed=3)
    assert [deal.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert deal.to_move == 1


def test_CR1_preset_options() -> None:
    big = Rules.preset("cirullone")
    assert big.stages == (9,)
    assert big.matta_choice and big.matta_keeps_value and big.declared_first
    assert not big.ace_choice  # seed 003: with an ace on the table an ace takes only the ace
    assert not big.declare_all_at_once
    for name in ("cirullone-6-3", "cirullone-3-6"):
        rules = Rules.preset(name)
        assert rules.ace_choice and rules.matta_choice and rules.matta_keeps_value
        assert rules.declared_first and not rules.declare_all_at_once
        assert rules.stages == SIZES[name]


@pytest.mark.parametrize("name", PRESETS)
def test_CR2_hand_sizes_per_stage(name: str) -> None:
    sizes = SIZES[name]
    deal = Deal(Rules.preset(name), players=4, dealer=0, seed=11)
    assert tuple(deal.stages) == sizes
    assert [len(deal.hand(s)) for s in range(4)] == [sizes[0]] * 4
    assert deal.deck_left == 36 - 4 * sizes[0]
    seen_stages = []
    while not deal.is_over:
        if deal.stage not in seen_stages:
            seen_stages.append(deal.stage)
            assert [len(deal.hand(s)) for s in range(4)] == [sizes[deal.stage]] * 4
        deal.play(first_play(deal.legal_moves()))
    assert seen_stages == list(range(len(sizes)))
    deals = [e for e in deal.events if e["type"] == "deal"]
    assert [len(e["hands"][0]) for e in deals] == list(sizes)
    assert len(deals[0]["table"]) == 4  # the table comes with the first stage
    assert all("table" not in e for e in deals[1:])
    assert sorted(deal.captured(0) + deal.captured(1)) == sorted(deal.initial_deck)


def test_CR2_nine_cards_deal_from_a_stacked_deck() -> None:
    deal = nine_card_deal()
    assert sorted(map(str, deal.hand(1))) == sorted(HAND)
    assert [str(c) for c in deal.table] == TABLE
    assert deal.deck_left == 0
    assert len(deal.events[0]["hands"][1]) == 9


@pytest.mark.parametrize("name", PRESETS)
def test_CR2_two_aces_on_the_table_is_a_misdeal(name: str) -> None:
    sizes = SIZES[name]
    deck = stack(table=["AS", "AD", "5C", "KH"], sizes=list(sizes))
    deal = Deal(Rules.preset(name), players=4, dealer=0, deck=deck, seed=4)
    assert deal.misdeals >= 1
    (first, *_) = [e for e in deal.events if e["type"] == "misdeal"]
    assert first["reason"] == "two_aces"
    assert first["table"] == ["AS", "AD", "5C", "KH"]
    (dealt,) = [e for e in deal.events if e["type"] == "deal"]
    assert sum(c.startswith("A") for c in dealt["table"]) < 2
    assert [len(deal.hand(s)) for s in range(4)] == [sizes[0]] * 4


# ---- CR3: bonuses in a big hand ---------------------------------------------------------


def test_CR3_hand_bonuses_from_any_three_cards_of_the_hand() -> None:
    deal = nine_card_deal()
    assert declarations(deal) == {norm(DECINO)} | {norm(m) for m in CIRULLE}


def test_CR3_only_the_declared_three_cards_are_shown() -> None:
    deal = nine_card_deal()
    deal.play(DECINO)
    assert deal.bonus() == [0, 10]
    for viewer in (None, 0, 2, 3):
        view = deal.view(viewer)
        assert sorted(view["hands"][1]["declared"]) == ["QC", "QD", "QS"]
        assert "cards" not in view["hands"][1]
        assert view["hands"][1]["count"] == 9


def test_CR3_one_set_per_turn() -> None:
    deal = nine_card_deal()
    deal.play(DECINO)
    assert declarations(deal) == set()
    before = snapshot(deal)
    with pytest.raises(IllegalMove):
        deal.play("!cirulla:2HAH3S")
    assert snapshot(deal) == before
    assert deal.bonus() == [0, 10]


def test_CR3_declared_first_forces_the_declared_cards_to_be_played_first() -> None:
    deal = nine_card_deal()
    deal.play(DECINO)
    assert played_cards(deal) == {"QS", "QD", "QC"}
    before = snapshot(deal)
    with pytest.raises(IllegalMove):
        deal.play("KHxKS")  # a legal capture for the King, but the Queens come first
    assert snapshot(deal) == before
    for turn in range(3):
        assert deal.to_move == 1
        assert played_cards(deal) <= {"QS", "QD", "QC"}
        assert declarations(deal) == set()  # no second set while Queens are shown
        deal.play(first_play(deal.legal_moves()))
        until_seat(deal, 1)
        assert len(deal.declared(1)) == 2 - turn
    # All three played: a new set may be declared now, and any card played.
    assert deal.declared(1) == []
    assert declarations(deal) == {norm(m) for m in CIRULLE}
    assert played_cards(deal) == {"2H", "AH", "3S", "5C", "6D", "KH"}
    deal.play("!cirulla:2HAH3S")
    assert deal.bonus() == [0, 13]
    assert declarations(deal) == set()
    assert played_cards(deal) == {"2H", "AH", "3S"}


def test_CR3_without_declared_first_a_new_set_at_a_later_turn() -> None:
    # Without declared_first nothing waits for the shown cards: one set per turn, from the
    # cards not yet declared.
    deal = nine_card_deal(CIRULLONE.replace(declared_first=False))
    deal.play(DECINO)
    assert declarations(deal) == set()  # one set per turn
    assert played_cards(deal) == set(HAND)  # any card may be played
    deal.play("KHxKS")
    until_seat(deal, 1)
    assert len(deal.declared(1)) == 3
    assert declarations(deal) == {norm(m) for m in CIRULLE}
    deal.play("!cirulla:2HAH3S")
    assert deal.bonus() == [0, 13]


def test_CR3_declare_all_at_once_every_set_at_the_first_turn() -> None:
    deal = nine_card_deal(RIVAROLO)
    deal.play(DECINO)
    assert deal.to_move == 1
    # The Queens are taken: the other sets are still open at this first turn.
    assert declarations(deal) == {norm(m) for m in CIRULLE}
    deal.play("!cirulla:2HAH3S")
    assert deal.bonus() == [0, 13]
    assert sorted(map(str, deal.declared(1))) == sorted(["QS", "QD", "QC", "2H", "AH", "3S"])
    # 5C 6D KH make no bonus: nothing left to declare.
    assert declarations(deal) == set()
    # Any order of play: cards that were not declared too.
    assert played_cards(deal) == set(HAND)
    deal.play("KHxKS")
    until_seat(deal, 1)
    assert declarations(deal) == set()
    assert deal.bonus() == [0, 13]


def test_CR3_declare_all_at_once_not_after_the_first_turn() -> None:
    deal = nine_card_deal(RIVAROLO)
    deal.play("KHxKS")
    until_seat(deal, 1)
    assert declarations(deal) == set()
    before = snapshot(deal)
    with pytest.raises(IllegalMove):
        deal.play(DECINO)
    assert snapshot(deal) == before


def test_CR3_matta_in_a_big_hand_declared_with_its_value() -> None:
    hand = ["QS", "QD", "7H", "4C", "5C", "6D", "KH", "JH", "JC"]
    deal = nine_card_deal(CIRULLONE, hand)
    decino = norm("!decino:QSQD7H=Q")
    assert decino in declarations(deal)
    assert norm("!decino:QSQD7H=J") not in declarations(deal)
    deal.play(decino)
    assert deal.value_of(Card.parse("7H")) == 9
    assert played_cards(deal) == {"QS", "QD", "7H"}


def test_CR3_later_stage_of_six_cards_allows_a_set_of_three() -> None:
    rules = Rules.preset("cirullone-3-6")
    later = [[[], ["QS", "QD", "QC", "KH", "JH", "6D"], [], []]]
    deck = stack(hands=[[], ["KC", "KD", "JC"], [], []], table=TABLE, later=later, sizes=[3, 6])
    deal = Deal(rules, players=4, dealer=0, deck=deck)
    while deal.stage == 0:
        deal.play(first_play(deal.legal_moves()))
    assert deal.to_move == 1
    assert len(deal.hand(1)) == 6
    assert declarations(deal) == {norm(DECINO)}
    deal.play(DECINO)
    assert played_cards(deal) == {"QS", "QD", "QC"}


# ---- CR4: target --------------------------------------------------------------------


@pytest.mark.parametrize("name", PRESETS)
def test_CR4_presets_play_to_101(name: str) -> None:
    assert Rules.preset(name).target == 101
    assert Rules.preset(name).hands is None
