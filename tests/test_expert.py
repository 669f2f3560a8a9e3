"""The expert bot: always legal, plays by Cirulla know-how, and beats greedy.

Bots are only ever asked through `cirulla.bots.choose_move`, which hands them a
seat's view and nothing else.
"""

from __future__ import annotations

import math
import random

import pytest
from conftest import PRESET_PLAYERS, stack

from cirulla import Card, Deal, Rules, bots
from cirulla.bots import Bot, choose_move, play_deal
from cirulla.bots.expert import ExpertBot, chance_of_none, expected_best

if "expert" not in bots.names():  # the lead registers it in bots/__init__.py
    bots.register("expert", ExpertBot)


def expert(seed: int = 0) -> Bot:
    return bots.get("expert", seed=seed)


def first_turn(
    hand: list[str], table: list[str], preset: str = "cirulla", players: int = 4
) -> Deal:
    """A fresh smazzata where seat 1 (first to play, dealer 0) holds `hand` facing `table`."""
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[1] = hand
    deal = Deal(Rules.preset(preset), players, 0, deck=stack(players, 0, hands=hands, table=table))
    assert deal.to_move == 1 and deal.table == [Card.parse(c) for c in table]
    return deal


# ---- legality -----------------------------------------------------------------------


def _check_positions(rules: Rules, players: int, deals: int, seed: int) -> int:
    """Play `deals` smazzate mixing expert's and random moves; expert must answer every
    position with a legal move. Returns how many positions were asked."""
    rng = random.Random(seed)
    bot = expert(seed)
    asked = 0
    for k in range(deals):
        deal = Deal(rules, players, k % players, seed=seed * 1000 + k)
        while not deal.is_over:
            legal = deal.legal_moves()
            move = choose_move(bot, deal)
            asked += 1
            assert move in legal, f"{move} is not legal here: {[str(m) for m in legal]}"
            deal.play(move if rng.random() < 0.5 else rng.choice(legal))
    return asked


@pytest.mark.parametrize(("preset", "players"), PRESET_PLAYERS)
def test_legal_in_random_positions_of_every_preset(preset: str, players: int) -> None:
    asked = _check_positions(Rules.preset(preset), players, deals=6, seed=len(preset) + players)
    assert asked >= 150


@pytest.mark.parametrize(
    ("options", "players"),
    [
        ({"may_decline_capture": True, "declare_at_deal": True, "bonuses_stack": True}, 3),
        ({"carte_scoperte": True, "matta_choice": True, "ace_choice": True}, 4),
        ({"matta_choice": True, "declare_all_at_once": True, "stages": (9,)}, 4),
        ({"no_decino": True, "dealer_nine": True, "piccola_to_seven": True}, 2),
    ],
)
def test_legal_under_house_rules(options: dict[str, object], players: int) -> None:
    rules = Rules.preset("cirulla").replace(**options)
    assert _check_positions(rules, players, deals=4, seed=7) >= 80


def test_deterministic_for_its_seed() -> None:
    def moves(seed: int) -> list[str]:
        deal = Deal(Rules.preset("pagat"), 4, 1, seed=11)
        play_deal(deal, [expert(seed) for _ in range(4)])
        return [str(m) for m in deal.moves]

    assert moves(3) == moves(3)


# ---- counting -----------------------------------------------------------------------


def test_chance_of_none_is_hypergeometric() -> None:
    # No ace in 3 cards out of 33 holding 4 aces: C(29, 3) / C(33, 3).
    assert chance_of_none(4, 3, 33) == pytest.approx(math.comb(29, 3) / math.comb(33, 3))
    assert chance_of_none(0, 3, 33) == 1.0
    assert chance_of_none(3, 3, 5) == 0.0  # 3 of 5 marked: 3 cards must hold one


def test_expected_best_takes_the_best_card_held() -> None:
    gains = [0.0] * 11
    gains[1], gains[5] = 2.0, 1.0  # an ace takes 2, a 5 takes 1
    counts = [0] * 11
    counts[1], counts[5] = 1, 1
    # One card out of two: the ace or the 5, half and half.
    best, nothing = expected_best(gains, counts, 1, 2)
    assert best == pytest.approx(1.5) and nothing == pytest.approx(0.0)
    # Two cards out of four (ace, 5, two blanks), six hands: three hold the ace, two the
    # 5 without the ace, one neither.
    best, nothing = expected_best(gains, counts, 2, 4)
    assert best == pytest.approx(2.0 * 3 / 6 + 1.0 * 2 / 6) and nothing == pytest.approx(1 / 6)


# ---- know-how -----------------------------------------------------------------------


def test_keeps_an_ace_against_a_crowded_table() -> None:
    # The table holds an ace: the ace of clubs would only take the ace of spades and leave
    # J and K with no ace, for the next ace to sweep. Greedy takes the ace with the ace;
    # expert takes it with a 5 (5 = A + 4) and keeps its own ace for the table to come.
    deal = first_turn(["AC", "5H", "5S"], ["AS", "4C", "JC", "KC"])
    move = choose_move(expert(), deal)
    assert move.card is not None and move.card.rank != "A"
    assert Card.parse("AS") in move.captured


def test_does_not_lay_the_last_ace_on_an_empty_table() -> None:
    hands = [["AD", "KS", "QC"], ["AH", "KH", "QH"], ["AS", "2S", "QS"], ["AC", "KD", "QD"]]
    deck = stack(4, 0, hands=hands, table=["5C", "4C", "3C", "2C"])
    deal = Deal(Rules.preset("cirulla"), 4, 0, deck=deck)
    for move in ("AHx2C3C4C5C", "AS", "ACxAS"):  # three aces seen, the table swept
        deal.play(move)
    assert deal.to_move == 0 and not deal.table
    # The ace of diamonds is the last ace: kept, it sweeps whatever the table holds next.
    assert choose_move(expert(), deal).card != Card.parse("AD")
    assert choose_move(bots.get("greedy"), deal).card == Card.parse("AD")  # greedy lays it


def test_declares_a_decino() -> None:
    deal = first_turn(["5C", "5S", "5H"], ["KD", "2H", "3H", "4H"])
    move = choose_move(expert(), deal)
    assert move.kind == "declare" and move.bonus == "decino"


def test_declares_a_cirulla_of_low_cards() -> None:
    deal = first_turn(["AC", "2S", "3H"], ["KD", "QH", "JH", "4C"])
    move = choose_move(expert(), deal)
    assert move.kind == "declare" and move.bonus == "cirulla"


def test_names_the_matta_an_ace_when_that_sweeps() -> None:
    # pagat: matta_choice. 7H-2-3 is a cirulla with the matta as A, 2, 3 or 4; the table
    # holds no ace, so as an ace it takes all four cards: a scopa.
    deal = first_turn(["7H", "2C", "3S"], ["5C", "6C", "KC", "JS"], preset="pagat")
    move = choose_move(expert(), deal)
    assert move.kind == "declare" and move.matta_value == 1
    deal.play(move)
    sweep = choose_move(expert(), deal)
    assert sweep.card == Card.parse("7H") and len(sweep.captured) == 4


def test_names_the_matta_for_its_best_capture_when_the_table_holds_an_ace() -> None:
    # With the ace of spades on the table the matta as an ace would take only that ace;
    # as a 3 it makes 15 with A + 5 + 6: three cards.
    deal = first_turn(["7H", "2C", "3S"], ["AS", "5C", "6C", "JS"], preset="pagat")
    move = choose_move(expert(), deal)
    assert move.kind == "declare" and move.matta_value == 3
    deal.play(move)
    take = choose_move(expert(), deal)
    assert take.card == Card.parse("7H") and len(take.captured) == 3


def test_avoids_the_table_the_next_opponent_is_likely_to_sweep() -> None:
    # 4D x J + 3 (a fifteen) leaves 4 + 5 = 9: any ace, 9 or 6 sweeps it (12 of the 33
    # unseen cards). 4D x 4H leaves 5 + J + 3 = 16: only an ace sweeps it (4 cards).
    # Greedy sees "sweepable" both ways and takes more; expert counts.
    deal = first_turn(["KS", "4D", "6S"], ["4H", "5S", "JC", "3C"])
    move = choose_move(expert(), deal)
    assert str(move) == "4Dx4H"


def test_lays_no_ace_where_the_next_ace_takes_it_for_a_scopa() -> None:
    # An empty table (the 15 on the table went to the dealer, B1); other aces are out
    # there: an ace laid alone is a scopa for the next one. Lay something else.
    deck = stack(4, 0, hands=[[], ["AH", "KS", "QS"]], table=["2C", "3C", "4C", "6C"])
    deal = Deal(Rules.preset("cirulla"), 4, 0, deck=deck)
    assert deal.to_move == 1 and not deal.table
    assert choose_move(expert(), deal).card != Card.parse("AH")


# ---- strength -------------------------------------------------------------------------


def _margin(rules: Rules, seed: int, a: str, b: str) -> float:
    """One paired smazzata: the deck of `seed` played twice, `a` on each side in turn
    (partners play the same bot); `a`'s points minus `b`'s, averaged."""
    total = 0.0
    for a_side in (0, 1):
        seats = [
            bots.get(a, seed=seed) if s % 2 == a_side else bots.get(b, seed=seed) for s in range(4)
        ]
        deal = play_deal(Deal(rules, 4, seed % 4, seed=seed), seats)
        points = deal.score().totals
        total += points[a_side] - points[1 - a_side]
    return total / 2


def test_expert_beats_greedy_over_paired_smazzate() -> None:
    rules = Rules.preset("cirulla")
    margins = [_margin(rules, 20_000 + i, "expert", "greedy") for i in range(300)]
    n = len(margins)
    mean = sum(margins) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in margins) / (n - 1))
    low = mean - 1.96 * sd / math.sqrt(n)
    assert low > 0, f"expert - greedy = {mean:+.2f} points per smazzata, 95% from {low:+.2f}"
