"""Seats, sides and the deal: RULES.md D1-D8 (with the decisions of the engine brief)."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import play_out, stack

import cirulla
from cirulla import Card, Deal, Rules

CIRULLA = Rules.preset("cirulla")
LUZZATI = Rules.preset("luzzati")
STAGES = {4: 3, 3: 4, 2: 6}
SEATINGS = [(n, dealer) for n in (2, 3, 4) for dealer in range(n)]


def _cards(texts: list[str]) -> list[Card]:
    return [Card.parse(t) for t in texts]


def _deals(deal: Deal) -> list[dict[str, Any]]:
    return [e for e in deal.events if e["type"] == "deal"]


def _plays(deal: Deal) -> list[dict[str, Any]]:
    return [e for e in deal.events if e["type"] == "play"]


def _no_misdeal_deck(n: int, offset: int) -> list[Card]:
    """full_deck rotated by `offset`; checked below to deal a table with at most one ace."""
    deck = cirulla.full_deck()
    return deck[offset:] + deck[:offset]


def _first_seed(
    pred: Any, rules: Rules, deck: list[Card], players: int = 4, dealer: int = 0
) -> int:
    for seed in range(20_000):
        if pred(Deal(rules, players=players, dealer=dealer, deck=deck, seed=seed)):
            return seed
    raise AssertionError("no seed found")  # pragma: no cover


# ---- D1: seats and sides --------------------------------------------------------------


def test_D1_four_players_partners_sit_opposite_seats_0_2_vs_1_3() -> None:
    deal = Deal(CIRULLA, players=4, seed=1)
    assert [deal.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert [deal.view(s)["side"] for s in range(4)] == [0, 1, 0, 1]
    assert [h["side"] for h in deal.view(None)["hands"]] == [0, 1, 0, 1]
    assert len(deal.view(None)["piles"]) == 2
    assert len(deal.scope()) == len(deal.bonus()) == 2


@pytest.mark.parametrize("players", [2, 3])
def test_D1_two_or_three_players_each_player_is_a_side(players: int) -> None:
    deal = Deal(CIRULLA, players=players, seed=1)
    assert [deal.side_of(s) for s in range(players)] == list(range(players))
    assert [deal.view(s)["side"] for s in range(players)] == list(range(players))
    assert len(deal.view(None)["piles"]) == players
    assert len(deal.scope()) == len(deal.bonus()) == players


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_D1_captures_go_to_the_pile_of_the_players_side(players: int, seed: int) -> None:
    deal = play_out(Deal(CIRULLA, players=players, seed=seed))
    for event in _plays(deal):
        if event["captured"]:
            pile = {str(c) for c in deal.captured(deal.side_of(event["seat"]))}
            assert {event["card"], *event["captured"]} <= pile
    piles = [c for side in range(len(deal.scope())) for c in deal.captured(side)]
    assert len(piles) == len(set(piles))


@pytest.mark.parametrize("bad", [-1, 4, "0", None, True])
def test_D1_side_of_a_bad_seat_is_a_ValueError(bad: object) -> None:
    with pytest.raises(ValueError, match="seat"):
        Deal(CIRULLA, players=4, seed=1).side_of(bad)  # type: ignore[arg-type]


# ---- D2: anticlockwise order is the seat order ------------------------------------------


@pytest.mark.parametrize(("players", "dealer"), SEATINGS)
def test_D2_seat_s_is_followed_by_seat_s_plus_1_mod_n(players: int, dealer: int) -> None:
    deal = Deal(CIRULLA, players=players, dealer=dealer, seed=11)
    seats = []
    while not deal.is_over:
        seats.append(deal.to_move)
        deal.play(next(m for m in deal.legal_moves() if m.kind == "play"))
    assert len(seats) == 36
    assert seats[0] == (dealer + 1) % players
    for a, b in itertools.pairwise(seats):
        assert b == (a + 1) % players
    assert [e["seat"] for e in _plays(deal)] == seats


@pytest.mark.parametrize("players", [2, 3, 4])
def test_D2_clockwise_option_is_presentation_only(players: int) -> None:
    a = play_out(Deal(CIRULLA, players=players, dealer=1, seed=5))
    b = play_out(Deal(CIRULLA.replace(clockwise=True), players=players, dealer=1, seed=5))
    assert [str(m) for m in a.moves] == [str(m) for m in b.moves]
    assert a.events == b.events
    assert a.score().sides == b.score().sides


# ---- D4 and the canonical deal order --------------------------------------------------


@pytest.mark.parametrize(("players", "dealer"), SEATINGS)
def test_D4_each_player_gets_three_cards_and_four_go_face_up_to_the_table(
    players: int, dealer: int
) -> None:
    for seed in range(6):
        deal = Deal(CIRULLA, players=players, dealer=dealer, seed=seed)
        assert all(len(deal.hand(s)) == 3 for s in range(players))
        first = _deals(deal)[0]
        assert first["stage"] == 0
        assert len(first["table"]) == 4
        assert first["deck"] == 40 - 4 - 3 * players
        assert deal.view(None)["deck"] == 40 - 4 - 3 * players
        dealt = [c for s in range(players) for c in deal.hand(s)] + _cards(first["table"])
        assert len(set(dealt)) == 3 * players + 4


@pytest.mark.parametrize(("players", "dealer"), SEATINGS)
@pytest.mark.parametrize("offset", [0, 17])
def test_D4_canonical_deal_order_one_card_at_a_time_from_the_seat_after_the_dealer(
    players: int, dealer: int, offset: int
) -> None:
    deck = _no_misdeal_deck(players, offset)
    n = players
    table = deck[3 * n : 3 * n + 4]
    assert sum(c.rank == "A" for c in table) < 2  # precondition: no misdeal
    deal = Deal(CIRULLA, players=n, dealer=dealer, deck=deck)
    assert deal.misdeals == 0
    first = (dealer + 1) % n
    expected = {(first + k) % n: [str(c) for c in deck[k : 3 * n : n]] for k in range(n)}
    deals = _deals(deal)
    assert deals[0]["hands"] == [expected[s] for s in range(n)]
    assert deals[0]["table"] == [str(c) for c in table]
    play_out(deal)
    deals = _deals(deal)
    assert len(deals) == STAGES[n]
    pos = 3 * n + 4
    for stage in range(1, STAGES[n]):
        chunk = deck[pos : pos + 3 * n]
        pos += 3 * n
        expected = {(first + k) % n: [str(c) for c in chunk[k::n]] for k in range(n)}
        assert deals[stage]["stage"] == stage
        assert deals[stage]["dealer"] == dealer
        assert deals[stage]["hands"] == [expected[s] for s in range(n)]
        assert "table" not in deals[stage]  # D5: nothing more goes to the table
    assert pos == 40


def test_D4_stack_helper_puts_named_cards_in_named_hands() -> None:
    deck = stack(
        players=4,
        dealer=2,
        hands=[["AD", "2D", "3D"], ["KS", "QS", "JS"], ["5C", "6C", "4H"], ["7D", "7C", "7S"]],
        table=["JH", "QH", "KH", "2C"],
    )
    deal = Deal(CIRULLA, players=4, dealer=2, deck=deck)
    assert [[str(c) for c in deal.hand(s)] for s in range(4)] == [
        ["AD", "2D", "3D"],
        ["KS", "QS", "JS"],
        ["5C", "6C", "4H"],
        ["7D", "7C", "7S"],
    ]
    assert [str(c) for c in deal.table] == ["JH", "QH", "KH", "2C"]
    assert deal.to_move == 3


# ---- D5: stages per player count ---------------------------------------------------------


@pytest.mark.parametrize(("players", "stages"), [(4, 3), (3, 4), (2, 6)])
def test_D5_stages_4p_3_3p_4_2p_6(players: int, stages: int) -> None:
    deal = Deal(CIRULLA, players=players, seed=4)
    assert tuple(deal.stages) == (3,) * stages
    assert deal.view(None)["stages"] == [3] * stages
    play_out(deal)
    deals = _deals(deal)
    assert [d["stage"] for d in deals] == list(range(stages))
    remaining = 40 - 4 - 3 * players
    assert [d["deck"] for d in deals] == [remaining - 3 * players * k for k in range(stages)]
    assert deals[-1]["deck"] == 0
    assert len(_plays(deal)) == 36


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [0, 9])
def test_D5_later_stages_deal_three_each_when_all_hands_are_empty_and_nothing_to_table(
    players: int, seed: int
) -> None:
    deal = Deal(CIRULLA, players=players, seed=seed)
    while not deal.is_over:
        stage = deal.stage
        before = list(deal.table)
        hands_before = [len(deal.hand(s)) for s in range(players)]
        move = next(m for m in deal.legal_moves() if m.kind == "play")
        deal.play(move)
        if deal.stage != stage:
            # the stage ended with this play: every hand had one card left
            assert sorted(hands_before) == [0] * (players - 1) + [1]
            after = [c for c in before if c not in move.captured]
            if not move.captured:
                after.append(move.card)
            assert deal.table == after  # the new stage added nothing to the table
            assert all(len(deal.hand(s)) == 3 for s in range(players))
        elif not deal.is_over:
            assert sum(len(deal.hand(s)) for s in range(players)) == sum(hands_before) - 1


# ---- D6: misdeals ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "table",
    [
        ["AS", "AD", "5C", "KH"],
        ["5C", "AH", "KH", "AC"],
        ["AS", "AD", "AC", "KH"],
        ["AS", "AD", "AC", "AH"],
    ],
)
@pytest.mark.parametrize(("players", "dealer"), [(4, 0), (4, 3), (3, 1), (2, 1)])
def test_D6_two_or_more_aces_on_the_table_is_a_misdeal_same_dealer_deals_again(
    table: list[str], players: int, dealer: int
) -> None:
    deal = Deal(CIRULLA, players=players, dealer=dealer, deck=stack(players, dealer, table=table))
    assert deal.misdeals >= 1
    misdeals = [e for e in deal.events if e["type"] == "misdeal"]
    assert len(misdeals) == deal.misdeals
    assert misdeals[0]["table"] == table
    assert misdeals[0]["reason"] == "two_aces"
    assert [m["count"] for m in misdeals] == list(range(1, deal.misdeals + 1))
    # the same dealer dealt again, a table with fewer than two aces
    assert deal.dealer == dealer
    assert [d["dealer"] for d in _deals(deal)] == [dealer]
    final = _deals(deal)[0]["table"]
    assert sum(c[0] == "A" for c in final) < 2
    assert final != table
    assert deal.view(None)["misdeals"] == deal.misdeals
    assert deal.to_move == (dealer + 1) % players
    assert deal.instant_winner is None
    # the re-deal is of the same 40 cards
    dealt = [c for s in range(players) for c in deal.hand(s)] + _cards(final)
    assert len(set(dealt)) == 3 * players + 4
    assert _deals(deal)[0]["deck"] == 40 - 4 - 3 * players


@pytest.mark.parametrize("rules", [CIRULLA, LUZZATI], ids=["cirulla", "luzzati"])
def test_D6_the_matta_is_not_wild_for_misdeals(rules: Rules) -> None:
    # Seed 001: 4C-4S-7H-AS is not a misdeal, but the dealer takes it for one scopa
    # with the matta as a 6 (4 + 4 + 6 + 1 = 15).
    deal = Deal(rules, players=4, dealer=0, deck=stack(table=["4C", "4S", "7H", "AS"]))
    assert deal.misdeals == 0
    assert not [e for e in deal.events if e["type"] == "misdeal"]
    assert _deals(deal)[0]["table"] == ["4C", "4S", "7H", "AS"]
    bonus = [e for e in deal.events if e["type"] == "dealer_bonus"]
    assert len(bonus) == 1
    assert bonus[0]["points"] == 1
    assert bonus[0]["matta_value"] == 6
    assert deal.bonus() == [1, 0]
    assert deal.table == []


@pytest.mark.parametrize("table", [["AS", "5C", "6D", "KH"], ["7H", "AD", "QC", "JS"]])
def test_D6_one_ace_on_the_table_is_no_misdeal(table: list[str]) -> None:
    deal = Deal(CIRULLA, deck=stack(table=table))
    assert deal.misdeals == 0
    assert [str(c) for c in deal.table] == table


def test_D6_misdeal_redeal_is_deterministic_from_the_seed() -> None:
    deck = stack(table=["AS", "AD", "5C", "KH"])
    a = Deal(CIRULLA, deck=deck, seed=42)
    b = Deal(CIRULLA, deck=deck, seed=42)
    assert a.events == b.events
    assert [a.hand(s) for s in range(4)] == [b.hand(s) for s in range(4)]
    assert a.table == b.table
    play_out(a)
    play_out(b)
    assert a.events == b.events


def test_D6_misdeal_redeal_differs_for_different_seeds() -> None:
    deck = stack(table=["AS", "AD", "5C", "KH"])
    deals = [Deal(CIRULLA, deck=deck, seed=s) for s in range(8)]
    first_deals = [repr((_deals(d)[0]["hands"], _deals(d)[0]["table"])) for d in deals]
    assert len(set(first_deals)) == 8


def test_D6_a_seeded_deal_can_misdeal_and_is_redealt_by_the_same_dealer() -> None:
    seed = next(s for s in range(5000) if Deal(CIRULLA, dealer=2, seed=s).misdeals)
    deal = Deal(CIRULLA, dealer=2, seed=seed)
    again = Deal(CIRULLA, dealer=2, seed=seed)
    assert deal.events == again.events
    misdeal = next(e for e in deal.events if e["type"] == "misdeal")
    assert sum(c[0] == "A" for c in misdeal["table"]) >= 2
    assert _deals(deal)[0]["dealer"] == 2
    assert deal.to_move == 3


def test_D6_without_luzzati_repeated_misdeals_never_end_the_partita() -> None:
    deck = stack(table=["AS", "AD", "5C", "KH"])
    seed = _first_seed(lambda d: d.misdeals >= 3, CIRULLA, deck)
    deal = Deal(CIRULLA, deck=deck, seed=seed)
    assert deal.instant_winner is None
    assert not deal.is_over
    assert deal.to_move == 1
    assert sum(c.rank == "A" for c in deal.table) < 2


# ---- D7: Luzzati -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "table",
    [
        ["5C", "5D", "5H", "5S"],  # four of a rank
        ["KC", "KD", "KH", "KS"],
        ["5C", "5D", "7H", "5S"],  # three of a rank and the matta
        ["QS", "7H", "QD", "QC"],
        ["AS", "AD", "AC", "AH"],  # (a) is checked before D6
        ["AS", "AD", "7H", "AC"],
    ],
)
@pytest.mark.parametrize(("players", "dealer"), [(4, 0), (4, 1), (4, 3), (2, 0), (2, 1)])
def test_D7a_luzzati_four_of_a_rank_or_three_and_the_matta_dealers_side_wins(
    table: list[str], players: int, dealer: int
) -> None:
    deal = Deal(LUZZATI, players=players, dealer=dealer, deck=stack(players, dealer, table=table))
    assert deal.instant_winner == deal.side_of(dealer)
    assert deal.instant_reason == "luzzati_table"
    assert deal.is_over
    assert deal.to_move is None
    assert deal.legal_moves() == []
    assert deal.misdeals == 0
    assert not [e for e in deal.events if e["type"] == "misdeal"]
    wins = [e for e in deal.events if e["type"] == "instant_win"]
    assert len(wins) == 1
    assert wins[0]["side"] == deal.side_of(dealer)
    end = deal.events[-1]
    assert end["type"] == "end"
    assert end["instant_winner"] == deal.side_of(dealer)
    assert end["instant_reason"] == "luzzati_table"
    assert deal.view(None)["instant_winner"] == deal.side_of(dealer)


@pytest.mark.parametrize("table", [["5C", "5D", "5H", "5S"], ["5C", "5D", "7H", "5S"]])
def test_D7a_without_luzzati_four_of_a_rank_is_an_ordinary_deal(table: list[str]) -> None:
    deal = Deal(CIRULLA, deck=stack(table=table))
    assert deal.instant_winner is None
    assert deal.misdeals == 0
    assert not deal.is_over
    assert [str(c) for c in deal.table] == table


@pytest.mark.parametrize(
    "table", [["5C", "5D", "KH", "5S"], ["KC", "KD", "KS", "2H"], ["JH", "2C", "JC", "JS"]]
)
def test_D7b_luzzati_three_of_a_rank_fourth_not_the_matta_is_a_misdeal(table: list[str]) -> None:
    deal = Deal(LUZZATI, deck=stack(table=table), seed=3)
    misdeals = [e for e in deal.events if e["type"] == "misdeal"]
    assert misdeals, "three of a rank is a Luzzati misdeal"
    assert misdeals[0]["table"] == table
    assert misdeals[0]["reason"] == "three_of_a_rank"
    assert misdeals[0]["count"] == 1
    assert deal.instant_winner is None  # seed 3 re-deals a good table
    assert _deals(deal)[0]["dealer"] == 0
    final = _deals(deal)[0]["table"]
    assert max(sum(c[0] == r for c in final) for r in "A234567JQK") < 3


@pytest.mark.parametrize(
    "table", [["5C", "5D", "KH", "5S"], ["KC", "KD", "KS", "2H"], ["JH", "2C", "JC", "JS"]]
)
def test_D7b_without_luzzati_three_of_a_rank_is_no_misdeal(table: list[str]) -> None:
    deal = Deal(CIRULLA, deck=stack(table=table))
    assert deal.misdeals == 0
    assert [str(c) for c in deal.table] == table


def test_D7_luzzati_check_order_a_before_D6_and_b() -> None:
    # Three aces and the matta: (a) wins, though D6 (two aces) would call a misdeal.
    deal = Deal(LUZZATI, dealer=1, deck=stack(dealer=1, table=["AS", "AD", "7H", "AC"]))
    assert (deal.instant_reason, deal.instant_winner, deal.misdeals) == ("luzzati_table", 1, 0)
    # Three fives and the matta: (a) wins, though (b) would call a misdeal.
    deal = Deal(LUZZATI, dealer=1, deck=stack(dealer=1, table=["5C", "5D", "7H", "5S"]))
    assert (deal.instant_reason, deal.instant_winner, deal.misdeals) == ("luzzati_table", 1, 0)
    # The same tables without luzzati: D6 misdeal, and an ordinary deal.
    assert Deal(CIRULLA, deck=stack(table=["AS", "AD", "7H", "AC"])).misdeals >= 1
    assert Deal(CIRULLA, deck=stack(table=["5C", "5D", "7H", "5S"])).misdeals == 0


def test_D7_luzzati_the_matta_is_the_rules_wild_card() -> None:
    # C4 option: with the Queen of hearts wild, three 5s and the 7H are a misdeal (b),
    # three 5s and the QH a win (a).
    rules = LUZZATI.replace(wild_card="QH")
    deal = Deal(rules, deck=stack(table=["5C", "5D", "5S", "7H"]), seed=3)
    assert deal.instant_reason is None
    assert [e["reason"] for e in deal.events if e["type"] == "misdeal"] == ["three_of_a_rank"]
    deal = Deal(rules, deck=stack(table=["5C", "5D", "5S", "QH"]), seed=3)
    assert (deal.instant_reason, deal.instant_winner, deal.misdeals) == ("luzzati_table", 0, 0)


def test_D7_luzzati_two_of_a_rank_and_the_matta_is_no_misdeal_the_matta_is_not_wild() -> None:
    deal = Deal(LUZZATI, deck=stack(table=["5C", "5D", "7H", "JS"]))
    assert deal.misdeals == 0
    assert deal.instant_winner is None
    assert [str(c) for c in deal.table] == ["5C", "5D", "7H", "JS"]


@pytest.mark.parametrize(("players", "dealer"), [(4, 0), (4, 1), (2, 0), (2, 1)])
def test_D7c_luzzati_third_misdeal_in_a_row_the_other_side_wins(players: int, dealer: int) -> None:
    deck = stack(players, dealer, table=["AS", "AD", "5C", "KH"])
    seed = _first_seed(lambda d: d.misdeals >= 3, LUZZATI, deck, players, dealer)
    deal = Deal(LUZZATI, players=players, dealer=dealer, deck=deck, seed=seed)
    other = 1 - deal.side_of(dealer)
    assert deal.misdeals == 3
    assert [e["count"] for e in deal.events if e["type"] == "misdeal"] == [1, 2, 3]
    assert deal.instant_winner == other
    assert deal.instant_reason == "luzzati_three_misdeals"
    assert deal.is_over
    assert deal.to_move is None
    assert deal.events[-1]["type"] == "end"
    assert deal.events[-1]["instant_winner"] == other


def test_D7c_luzzati_two_misdeals_then_a_good_deal_is_no_instant_win() -> None:
    deck = stack(table=["AS", "AD", "5C", "KH"])
    seed = _first_seed(lambda d: d.misdeals == 2 and d.instant_reason is None, LUZZATI, deck)
    deal = Deal(LUZZATI, deck=deck, seed=seed)
    assert deal.instant_winner is None
    assert not deal.is_over
    assert deal.to_move == 1
    assert len(_deals(deal)) == 1


@pytest.mark.parametrize("preset", ["luzzati", "cirulla"])
def test_D7_luzzati_needs_two_sides_not_three_players(preset: str) -> None:
    rules = Rules.preset(preset).replace(luzzati=True)
    with pytest.raises(ValueError, match="luzzati"):
        Deal(rules, players=3)
    assert Deal(rules, players=2, seed=1).players == 2
    assert Deal(rules, players=4, seed=1).players == 4


# ---- D8: the first player of every mano --------------------------------------------------


@pytest.mark.parametrize(("players", "dealer"), SEATINGS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_D8_first_player_of_every_mano_is_the_seat_after_the_dealer(
    players: int, dealer: int, seed: int
) -> None:
    deal = Deal(CIRULLA, players=players, dealer=dealer, seed=seed)
    first = (dealer + 1) % players
    assert deal.to_move == first
    assert deal.view(None)["to_move"] == first
    mano_starts = []
    while not deal.is_over:
        played_in_stage = sum(3 - len(deal.hand(s)) for s in range(players))
        if played_in_stage % players == 0:
            assert deal.mano == played_in_stage // players
            mano_starts.append(deal.to_move)
        deal.play([m for m in deal.legal_moves() if m.kind == "play"][-1])
    assert len(mano_starts) == 36 // players
    assert set(mano_starts) == {first}
    plays = _plays(deal)
    for i in range(0, 36, players):
        assert plays[i]["seat"] == first  # every mano starts with the seat after the dealer
        assert plays[i + players - 1]["seat"] == dealer  # and the dealer plays last


def test_D8_after_a_dealer_bonus_the_seat_after_the_dealer_plays_first() -> None:
    deal = Deal(CIRULLA, players=4, dealer=3, deck=stack(dealer=3, table=["2C", "3C", "4C", "6C"]))
    assert deal.table == []
    assert deal.to_move == 0


# ---- seeded shuffles -------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_seeded_shuffle_is_deterministic(players: int) -> None:
    a = Deal(CIRULLA, players=players, dealer=1, seed=2024)
    b = Deal(CIRULLA, players=players, dealer=1, seed=2024)
    assert [a.hand(s) for s in range(players)] == [b.hand(s) for s in range(players)]
    assert a.table == b.table
    assert a.events == b.events
    play_out(a)
    play_out(b)
    assert a.events == b.events
    assert a.score().sides == b.score().sides


def test_seeded_shuffle_different_seeds_give_different_deals() -> None:
    deals = [Deal(CIRULLA, seed=s) for s in range(30)]
    seen = {repr((_deals(d)[0]["hands"], _deals(d)[0]["table"])) for d in deals}
    assert len(seen) == 30


def _published_shuffle(seed: int) -> list[Card]:
    """The first shuffle of a seed as cirulla.shuffle documents it (SHUFFLE_VERSION 1)."""
    digest = hashlib.shake_256(str(seed).encode("ascii") + b":shuffle:0").digest(8 * 40)
    keys = struct.unpack(">40Q", digest)
    deck = cirulla.full_deck()
    return [deck[i] for i in sorted(range(40), key=keys.__getitem__)]


@pytest.mark.parametrize("seed", [0, 1, 2, 123, 2**40])
def test_seeded_shuffle_follows_the_published_algorithm(seed: int) -> None:
    assert cirulla.SHUFFLE_VERSION == "shake256-sort-1"
    seeded = Deal(CIRULLA, seed=seed)
    stacked = Deal(CIRULLA, deck=_published_shuffle(seed), seed=seed)
    assert seeded.misdeals == 0  # (a re-deal would reshuffle differently)
    assert seeded.events == stacked.events


def test_seeded_shuffle_is_the_same_in_every_process() -> None:
    code = (
        "import json, cirulla;"
        "d = cirulla.Deal(cirulla.Rules.preset('cirulla'), players=3, dealer=2, seed=77);"
        "[d.play(d.legal_moves()[-1]) for _ in iter(lambda: d.is_over, True)];"
        "print(json.dumps(d.events))"
    )
    src = str(Path(cirulla.__file__).parents[1])
    outputs = []
    for hashseed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed, "PYTHONPATH": src}
        run = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outputs.append(json.loads(run.stdout))
    here = Deal(CIRULLA, players=3, dealer=2, seed=77)
    while not here.is_over:
        here.play(here.legal_moves()[-1])
    assert outputs[0] == outputs[1] == json.loads(json.dumps(here.events))


def test_seeded_shuffle_default_seed_is_zero() -> None:
    assert Deal(CIRULLA).events == Deal(CIRULLA, seed=0).events


def test_stacked_deck_accepts_card_strings_and_cards_alike() -> None:
    deck = stack()
    a = Deal(CIRULLA, deck=deck)
    b = Deal(CIRULLA, deck=[str(c) for c in deck])
    c = Deal(CIRULLA, deck=[str(c).lower() for c in deck])
    assert a.events == b.events == c.events


# ---- bad constructor input --------------------------------------------------------------


@pytest.mark.parametrize("players", [0, 1, 5, -4, "4", 4.0, True, None])
def test_bad_players_is_a_ValueError_naming_players(players: object) -> None:
    with pytest.raises(ValueError, match="players") as err:
        Deal(CIRULLA, players=players)  # type: ignore[arg-type]
    assert "2, 3 or 4" in str(err.value)


@pytest.mark.parametrize(("players", "dealer"), [(4, -1), (4, 4), (3, 3), (2, 2), (4, "0")])
@pytest.mark.parametrize("extra", [None, True, 1.0])
def test_bad_dealer_is_a_ValueError_naming_dealer(
    players: int, dealer: object, extra: object
) -> None:
    for bad in (dealer, extra):
        with pytest.raises(ValueError, match="dealer") as err:
            Deal(CIRULLA, players=players, dealer=bad)  # type: ignore[arg-type]
        assert f"0 to {players - 1}" in str(err.value)


_FULL = [str(c) for c in cirulla.full_deck()]


@pytest.mark.parametrize(
    ("deck", "words"),
    [
        (_FULL[:39], "40"),  # too short
        ([*_FULL, "AD"], "40"),  # too long
        (["AD", *_FULL[1:39], "AD"], "40"),  # a duplicate, a card missing
        (["AD"] * 40, "40"),
        (["8H", *_FULL[1:]], "8H"),  # not a card
        ([None] * 40, "None"),
        (123, "deck"),
        (" ".join(_FULL), "deck"),  # a string is not a list of cards
    ],
)
def test_bad_deck_is_a_ValueError_with_a_clear_message(deck: object, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        Deal(CIRULLA, deck=deck)  # type: ignore[arg-type]


@pytest.mark.parametrize("rules", [None, "cirulla", {}, Rules, 1])
def test_bad_rules_is_a_ValueError_naming_rules(rules: object) -> None:
    with pytest.raises(ValueError, match="rules"):
        Deal(rules)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [-1, "x", 1.5, None])
def test_bad_seed_is_a_ValueError_naming_seed(seed: object) -> None:
    with pytest.raises(ValueError, match="seed"):
        Deal(CIRULLA, seed=seed)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("rules", "players", "word"),
    [
        (Rules.preset("scopa"), 3, "scopa"),
        (Rules.preset("cirullone"), 2, "cirullone"),
        (Rules.preset("cirullone-6-3"), 3, "cirullone-6-3"),
        (CIRULLA.replace(carte_scoperte=True), 2, "carte_scoperte"),
        (CIRULLA.replace(knockout=True), 3, "knockout"),
    ],
)
def test_bad_rules_for_the_player_count_is_a_ValueError_naming_the_problem(
    rules: Rules, players: int, word: str
) -> None:
    with pytest.raises(ValueError, match=word):
        Deal(rules, players=players)
    with pytest.raises(ValueError, match=word):
        rules.check_players(players)


def test_bad_constructor_input_is_not_an_IllegalMove() -> None:
    with pytest.raises(ValueError) as err:
        Deal(CIRULLA, players=7)
    assert not isinstance(err.value, cirulla.IllegalMove)
