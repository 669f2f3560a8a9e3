"""The score sheet of a smazzata: RULES.md S1-S9 (and Scopa's SC5), through `score_piles`
and through finished deals."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from conftest import PRESET_PLAYERS, play_out, stack

import cirulla
from cirulla import Card, Deal, Move, Rules, score_piles
from cirulla.cards import parse_cards
from cirulla.scoring import score_cards

ITEMS = ("scope", "bonus", "cards", "diamonds", "settebello", "primiera", "grande", "piccola")
C3 = {"7": 21, "6": 18, "A": 16, "5": 15, "4": 14, "3": 13, "2": 12, "J": 10, "Q": 10, "K": 10}
DIAMONDS = [f"{r}D" for r in "A234567JQK"]
# 30 cards that are no diamond, so they touch neither the diamonds nor the sequences.
PLAIN = [f"{r}{s}" for s in "HCS" for r in "A234567JQK"]

CIRULLA = Rules()
DOSSENA = Rules.preset("dossena")
SCOPA = Rules.preset("scopa")


def sheet(
    rules: Rules,
    piles: Sequence[Sequence[str | Card]],
    scope: list[int] | None = None,
    bonus: list[int] | None = None,
) -> cirulla.Score:
    """The sheet of piles that need not hold all 40 cards, so one item can be looked at
    alone: `score_cards` is `score_piles` without its checks of the input."""
    parsed = [parse_cards(list(p)) for p in piles]
    n = len(parsed)
    return score_cards(rules, parsed, scope or [0] * n, bonus or [0] * n)


def item(rules: Rules, piles: Sequence[Sequence[str]], name: str, **kw: Any) -> list[int]:
    """One item of the sheet, per side."""
    score = sheet(rules, [list(p) for p in piles], **kw)
    return [side[name] for side in score.sides]


# ---- S9: the sheet ------------------------------------------------------------------------


def test_S9_sheet_lists_every_item_per_side_and_the_total() -> None:
    score = score_piles(CIRULLA, [PLAIN[:20], PLAIN[20:] + DIAMONDS])
    assert len(score.sides) == 2
    for side in score.sides:
        assert set(side) == {*ITEMS, "total"}
        assert all(isinstance(v, int) and not isinstance(v, bool) for v in side.values())
    assert tuple(cirulla.ITEMS) == (*ITEMS, "total")
    assert score.totals == [s["total"] for s in score.sides]


def test_S9_sheet_details_say_why() -> None:
    score = sheet(CIRULLA, [["7D", "6H", "AC", "KS", "JD"], ["AD", "2D", "3D", "2H"]])
    d0, d1 = score.details
    assert d0["cards"] == 5 and d1["cards"] == 4
    assert d0["diamonds"] == 2 and d1["diamonds"] == 3
    assert d0["primiera"] == 21 + 18 + 16 + 10
    assert set(d0["primiera_cards"]) == {"7D", "6H", "AC", "KS"}
    assert d1["primiera"] is None
    assert d1["piccola_run"] == 3 and d0["piccola_run"] == 0
    assert d0["grande_run"] == 0


@pytest.mark.parametrize("seed", range(6))
def test_S9_total_is_the_sum_of_the_items(seed: int) -> None:
    rng = random.Random(seed)
    for rules in (CIRULLA, DOSSENA, SCOPA, CIRULLA.replace(piccola_to_seven=True)):
        for sides in (2, 3) if not rules.is_scopa else (2,):
            deck = [str(c) for c in cirulla.full_deck()]
            rng.shuffle(deck)
            cuts = sorted(rng.sample(range(41), sides - 1))
            piles = [deck[a:b] for a, b in zip([0, *cuts], [*cuts, 40], strict=True)]
            scope = [rng.randrange(5) for _ in range(sides)]
            bonus = [0] * sides if rules.is_scopa else [rng.randrange(14) for _ in range(sides)]
            score = score_piles(rules, piles, scope=scope, bonus=bonus)
            for side in score.sides:
                assert side["total"] == sum(side[k] for k in ITEMS)
            assert [s["scope"] for s in score.sides] == scope
            assert [s["bonus"] for s in score.sides] == bonus


def test_S9_score_piles_accepts_cards_and_strings_in_any_case() -> None:
    rest = [c for c in PLAIN + DIAMONDS if c not in ("7D", "KS", "AD", "2H")]
    a = score_piles(CIRULLA, [["7d", "kS", *rest], [Card.parse("AD"), "2h"]])
    b = score_piles(CIRULLA, [[Card.parse("7D"), "KS", *rest], ["AD", "2H"]])
    assert a.sides == b.sides and a.details == b.details


# ---- S1: scope and bonus points ---------------------------------------------------------------


def test_S1_each_scopa_is_one_point() -> None:
    score = sheet(CIRULLA, [[], []], scope=[3, 1])
    assert [s["scope"] for s in score.sides] == [3, 1]
    assert score.totals == [3, 1]


def test_S1_each_bonus_point_is_one_point() -> None:
    score = sheet(CIRULLA, [[], [], []], scope=[0, 2, 0], bonus=[10, 3, 0])
    assert [s["bonus"] for s in score.sides] == [10, 3, 0]
    assert score.totals == [10, 5, 0]


def test_S1_scope_and_bonus_default_to_zero() -> None:
    score = sheet(CIRULLA, [["2H"], ["3H"]])
    assert [(s["scope"], s["bonus"]) for s in score.sides] == [(0, 0), (0, 0)]


# ---- S2: most cards -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ((21, 19), [1, 0]),
        ((19, 21), [0, 1]),
        ((20, 20), [0, 0]),
        ((40, 0), [1, 0]),
        ((11, 9), [1, 0]),  # cards counted for nobody (P8) do not matter: most is most
        ((14, 13, 13), [1, 0, 0]),
        ((13, 14, 13), [0, 1, 0]),
        ((12, 13, 15), [0, 0, 1]),
        ((14, 14, 12), [0, 0, 0]),
        ((12, 14, 14), [0, 0, 0]),
        ((14, 12, 14), [0, 0, 0]),
        ((13, 13, 13), [0, 0, 0]),
    ],
)
def test_S2_most_cards_is_a_strict_maximum(counts: tuple[int, ...], expected: list[int]) -> None:
    deck = [str(c) for c in cirulla.full_deck()]
    piles, start = [], 0
    for k in counts:
        piles.append(deck[start : start + k])
        start += k
    score = sheet(CIRULLA, piles)
    assert [s["cards"] for s in score.sides] == expected
    assert [d["cards"] for d in score.details] == list(counts)


# ---- S3: most diamonds ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ((6, 4), [1, 0]),
        ((4, 6), [0, 1]),
        ((5, 5), [0, 0]),
        ((1, 0), [1, 0]),
        ((0, 0), [0, 0]),
        ((4, 3, 3), [1, 0, 0]),
        ((3, 4, 3), [0, 1, 0]),
        ((2, 3, 5), [0, 0, 1]),
        ((4, 4, 2), [0, 0, 0]),
        ((2, 4, 4), [0, 0, 0]),
        ((3, 3, 4), [0, 0, 1]),
    ],
)
def test_S3_most_diamonds_is_a_strict_maximum(counts: tuple[int, ...], expected: list[int]) -> None:
    # Diamonds from the middle of the suit, so no pile holds a piccola or grande by accident.
    order = ["4D", "5D", "6D", "JD", "AD", "QD", "2D", "KD", "3D", "7D"]
    piles, start = [], 0
    for i, k in enumerate(counts):
        # Pad with plain cards so that the pile with fewer diamonds has more cards.
        piles.append(order[start : start + k] + PLAIN[i * 10 : i * 10 + 10 - k])
        start += k
    score = sheet(CIRULLA, piles)
    assert [s["diamonds"] for s in score.sides] == expected
    assert [d["diamonds"] for d in score.details] == list(counts)


# ---- S4: sette bello ------------------------------------------------------------------------


@pytest.mark.parametrize("owner", [0, 1, 2, None])
def test_S4_sette_bello_is_one_point_for_its_holder(owner: int | None) -> None:
    piles: list[list[str]] = [["2H", "3C"], ["4S", "5H"], ["6C", "KS"]]
    if owner is not None:
        piles[owner].append("7D")
    assert item(CIRULLA, piles, "settebello") == [int(owner == i) for i in range(3)]


def test_S4_sette_bello_is_only_the_seven_of_diamonds() -> None:
    assert item(CIRULLA, [["7H", "7C", "7S"], ["6D", "KD"]], "settebello") == [0, 0]


# ---- S5 / C3: primiera ----------------------------------------------------------------------


@pytest.mark.parametrize(("rank", "value"), list(C3.items()))
def test_C3_primiera_value_of_each_rank(rank: str, value: int) -> None:
    for suit in "DHCS":
        assert Card.parse(rank + suit).primiera == value
    others = {"D": ["7H", "7C", "7S"], "H": ["7D", "7C", "7S"]}
    for suit in "DH":
        score = sheet(CIRULLA, [[rank + suit, *others[suit]], []])
        assert score.details[0]["primiera"] == value + 63


def test_S5_primiera_seven_seven_six_queen_beats_seven_seven_five_two() -> None:
    score = sheet(CIRULLA, [["7H", "7C", "6D", "QS"], ["7S", "7D", "5C", "2H"]])
    assert [d["primiera"] for d in score.details] == [70, 69]
    assert [s["primiera"] for s in score.sides] == [1, 0]
    # The other way round, the same cards still decide it.
    score = sheet(CIRULLA, [["7S", "7D", "5C", "2H"], ["7H", "7C", "6D", "QS"]])
    assert [s["primiera"] for s in score.sides] == [0, 1]


def test_S5_primiera_takes_the_best_card_of_each_suit() -> None:
    pile = ["KD", "5D", "6D", "2D", "QH", "AH", "4H", "JC", "3C", "QS"]
    score = sheet(CIRULLA, [pile, []])
    assert score.details[0]["primiera"] == 18 + 16 + 13 + 10
    assert set(score.details[0]["primiera_cards"]) == {"6D", "AH", "3C", "QS"}


@pytest.mark.parametrize(
    ("high", "low"),
    [("7", "6"), ("6", "A"), ("A", "5"), ("5", "4"), ("4", "3"), ("3", "2"), ("2", "K")],
)
def test_S5_primiera_order_seven_six_ace_five_four_three_two_pictures(high: str, low: str) -> None:
    piles = [[high + "D", "KH", "KC", "KS"], [low + "D", "QH", "QC", "QS"]]
    assert item(CIRULLA, piles, "primiera") == [1, 0]
    assert item(CIRULLA, piles[::-1], "primiera") == [0, 1]


def test_S5_side_missing_a_suit_has_no_primiera_even_with_three_sevens() -> None:
    strong = ["7D", "7H", "7C", "6D", "6H", "6C"]  # no spades
    weak = ["2D", "2H", "2C", "2S"]
    score = sheet(CIRULLA, [strong, weak])
    assert score.details[0]["primiera"] is None
    assert score.details[1]["primiera"] == 48
    assert [s["primiera"] for s in score.sides] == [0, 1]


def test_S5_nobody_has_all_four_suits_nobody_wins_primiera() -> None:
    score = sheet(CIRULLA, [["7D", "7H", "7C"], ["7S", "6S", "5S"]])
    assert [d["primiera"] for d in score.details] == [None, None]
    assert [s["primiera"] for s in score.sides] == [0, 0]


def test_S5_primiera_tie_gives_nobody_the_point() -> None:
    score = sheet(CIRULLA, [["7D", "6H", "5C", "4S"], ["7H", "6D", "5S", "4C"]])
    assert [d["primiera"] for d in score.details] == [68, 68]
    assert [s["primiera"] for s in score.sides] == [0, 0]
    # Different cards, the same total: J, Q and K are all 10.
    score = sheet(CIRULLA, [["JD", "JH", "JC", "JS"], ["KD", "QH", "KC", "QS"]])
    assert [s["primiera"] for s in score.sides] == [0, 0]


@pytest.mark.parametrize(
    ("piles", "expected"),
    [
        # strict top among three
        ((["7D", "7H", "7C", "7S"], ["6D", "6H", "6C", "6S"], ["AD", "AH", "AC", "AS"]), [1, 0, 0]),
        ((["6D", "6H", "6C", "6S"], ["AD", "AH", "AC", "AS"], ["7D", "7H", "7C", "7S"]), [0, 0, 1]),
        # two tie at the top: nobody, even though the third is lower
        ((["7D", "6H", "5C", "4S"], ["7H", "6D", "5S", "4C"], ["2D", "2H", "2C", "2S"]), [0, 0, 0]),
        # a tie for second place does not matter
        ((["7D", "7H", "7C", "7S"], ["2D", "3H", "2C", "3S"], ["3D", "2H", "3C", "2S"]), [1, 0, 0]),
        # the best side misses a suit: the best of the others wins
        ((["7D", "7H", "7C"], ["6D", "6H", "6C", "6S"], ["AD", "AH", "AC", "AS"]), [0, 1, 0]),
        # the best side misses a suit, the other two tie: nobody
        ((["7D", "7H", "7C"], ["6D", "6H", "AC", "AS"], ["AD", "AH", "6C", "6S"]), [0, 0, 0]),
    ],
)
def test_S5_primiera_with_three_sides_is_a_strict_maximum(
    piles: tuple[list[str], ...], expected: list[int]
) -> None:
    assert item(CIRULLA, piles, "primiera") == expected


def test_S5_primiera_in_scopa_uses_the_same_values() -> None:
    score = sheet(SCOPA, [["7H", "7C", "6D", "QS"], ["7S", "7D", "5C", "2H"]])
    assert [d["primiera"] for d in score.details] == [70, 69]
    assert [s["primiera"] for s in score.sides] == [1, 0]
    score = sheet(SCOPA, [["7H", "7C", "7D"], ["2S", "2D", "2C", "2H"]])
    assert [s["primiera"] for s in score.sides] == [0, 1]


# ---- S6: grande ------------------------------------------------------------------------------


def test_S6_grande_jack_queen_king_of_diamonds_is_five_points() -> None:
    assert item(CIRULLA, [["JD", "QD", "KD"], ["2H"]], "grande") == [5, 0]
    assert item(CIRULLA, [["2H"], ["KD", "JD", "QD", "7D", "6D"]], "grande") == [0, 5]


@pytest.mark.parametrize("missing", ["JD", "QD", "KD"])
def test_S6_grande_needs_all_three_pictures(missing: str) -> None:
    pictures = [c for c in ("JD", "QD", "KD") if c != missing]
    assert item(CIRULLA, [[*pictures, "JH", "QH", "KH"], [missing]], "grande") == [0, 0]


def test_S6_grande_is_not_other_suits_pictures() -> None:
    assert item(CIRULLA, [["JH", "QH", "KH", "JC", "QC", "KC"], ["JS", "QS", "KS"]], "grande") == [
        0,
        0,
    ]


# ---- S7: piccola -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("run", "points"),
    [
        ("A23", 3),
        ("A234", 4),
        ("A2345", 5),
        ("A23456", 6),
        ("A234567", 6),  # at most 6 without piccola_to_seven
        ("A2", 0),
        ("A", 0),
        ("23456", 0),  # no ace: no run
        ("A3456", 0),  # no 2
        ("A24567", 0),  # no 3
        ("A2356", 3),  # the 4 is missing: the run stops at the 3
        ("A23467", 4),
        ("A23457", 5),
    ],
)
def test_S7_piccola_runs_from_the_ace(run: str, points: int) -> None:
    pile = [r + "D" for r in run] + ["AH", "2H", "3H", "4C"]
    assert item(CIRULLA, [pile, ["5H"]], "piccola") == [points, 0]
    score = sheet(CIRULLA, [pile, ["5H"]])
    expected_run = 0
    for r in "A23456":
        if r not in run:
            break
        expected_run += 1
    assert score.details[0]["piccola_run"] == expected_run


@pytest.mark.parametrize(
    ("run", "points"),
    [("A23", 3), ("A23456", 6), ("A234567", 7), ("A23457", 5), ("A2345 7", 5), ("234567", 0)],
)
def test_S7_piccola_to_seven_lets_the_run_reach_the_seven(run: str, points: int) -> None:
    rules = CIRULLA.replace(piccola_to_seven=True)
    pile = [r + "D" for r in run.replace(" ", "")]
    score = sheet(rules, [pile, ["5H"]])
    assert score.sides[0]["piccola"] == points
    assert score.sides[0]["settebello"] == int("7" in run)


def test_S7_piccola_to_seven_full_run_with_sette_bello_is_eight_points() -> None:
    rules = CIRULLA.replace(piccola_to_seven=True)
    score = sheet(rules, [[f"{r}D" for r in "A234567"], ["5H"]])
    assert score.sides[0]["piccola"] + score.sides[0]["settebello"] == 8
    assert score.details[0]["piccola_run"] == 7


def test_S7_piccola_split_between_sides_scores_nothing() -> None:
    assert item(CIRULLA, [["AD", "2D", "4D", "5D", "6D"], ["3D"]], "piccola") == [0, 0]


def test_S7_both_sides_can_score_grande_and_piccola_independently() -> None:
    score = sheet(CIRULLA, [["AD", "2D", "3D", "4D"], ["JD", "QD", "KD"]])
    assert [(s["grande"], s["piccola"]) for s in score.sides] == [(0, 4), (5, 0)]


# ---- S7 / B10: dossena scalette ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "points"),
    [
        ("KQJ", 5),
        ("KQJ7", 6),
        ("KQJ76", 7),
        ("KQJ765", 7),  # KQJ76 is the longest scaletta alta
        ("KQJ6", 5),  # without the 7 the run stops at the J
        ("QJ76", 0),
        ("KJ76", 0),
        ("KQ7", 0),
    ],
)
def test_S7_dossena_scaletta_alta_reported_as_grande(cards: str, points: int) -> None:
    pile = [r + "D" for r in cards]
    score = sheet(DOSSENA, [pile, ["2H"]])
    assert score.sides[0]["grande"] == points
    assert score.sides[0]["piccola"] == 0


@pytest.mark.parametrize(
    ("cards", "points"),
    [
        ("A23", 3),
        ("A234", 4),
        ("A2345", 5),
        ("A23456", 5),  # A2345 is the longest scaletta bassa
        ("A234567", 5),
        ("A2", 0),
        ("A245", 0),
        ("2345", 0),
    ],
)
def test_S7_dossena_scaletta_bassa_reported_as_piccola(cards: str, points: int) -> None:
    pile = [r + "D" for r in cards]
    score = sheet(DOSSENA, [pile, ["2H"]])
    assert score.sides[0]["piccola"] == points
    assert score.sides[0]["grande"] == 0


def test_S7_dossena_whole_diamond_suit_scores_both_scalette() -> None:
    rules = DOSSENA.replace(cappotto_scores_only=True)
    score = sheet(rules, [DIAMONDS, ["2H"]])
    assert (score.sides[0]["grande"], score.sides[0]["piccola"]) == (7, 5)


def test_S7_same_piles_score_differently_with_and_without_dossena() -> None:
    pile = ["KD", "QD", "JD", "7D", "6D", "AD", "2D", "3D", "4D", "5H"]
    plain = sheet(CIRULLA, [pile, ["2H"]]).sides[0]
    dossena = sheet(DOSSENA, [pile, ["2H"]]).sides[0]
    assert (plain["grande"], plain["piccola"]) == (5, 4)
    assert (dossena["grande"], dossena["piccola"]) == (7, 4)


# ---- S8: cappotto ----------------------------------------------------------------------------


@pytest.mark.parametrize("sides", [2, 3])
def test_S8_all_ten_diamonds_is_a_cappotto_and_the_sheet_is_still_computed(sides: int) -> None:
    piles: list[list[str]] = [PLAIN[:10], PLAIN[10:20], PLAIN[20:]][:sides]
    piles[sides - 1] = piles[sides - 1] + DIAMONDS
    score = sheet(CIRULLA, piles)
    assert score.cappotto == sides - 1
    row = score.sides[sides - 1]
    assert row["grande"] == 5 and row["piccola"] == 6 and row["settebello"] == 1
    assert row["diamonds"] == 1
    assert row["total"] == sum(row[k] for k in ITEMS)


def test_S8_nine_diamonds_is_no_cappotto() -> None:
    score = sheet(CIRULLA, [DIAMONDS[1:], [DIAMONDS[0]]])
    assert score.cappotto is None


def test_S8_cappotto_scores_only_still_reports_the_cappotto_on_the_sheet() -> None:
    rules = CIRULLA.replace(cappotto_scores_only=True)
    score = sheet(rules, [["2H"], DIAMONDS])
    assert score.cappotto == 1
    assert score.sides[1]["grande"] + score.sides[1]["piccola"] + score.sides[1]["settebello"] == (
        5 + 6 + 1
    )


def test_SC5_scopa_has_no_grande_piccola_or_cappotto() -> None:
    score = score_piles(SCOPA, [DIAMONDS + PLAIN[:12], PLAIN[12:]])
    row = score.sides[0]
    assert (row["grande"], row["piccola"], row["bonus"]) == (0, 0, 0)
    assert score.cappotto is None
    assert (row["cards"], row["diamonds"], row["settebello"]) == (1, 1, 1)


# ---- score_piles: bad input -------------------------------------------------------------------


@pytest.mark.parametrize(
    "piles",
    [
        [["7D", "7D"], []],
        [["7D"], ["7D"]],
        [["7D", "2H"], ["3C"], ["2h"]],
        [[Card.parse("KS")], ["ks"]],
    ],
)
def test_S9_score_piles_duplicate_card_is_an_error(piles: list[list[Any]]) -> None:
    with pytest.raises(ValueError, match=r"(?i)more than one|twice|duplicate"):
        score_piles(CIRULLA, piles)


@pytest.mark.parametrize("bad", ["10H", "ZZ", "8D", "7X", "", "7", "7HH", 7, None, ("7", "H")])
def test_S9_score_piles_bad_card_is_an_error(bad: object) -> None:
    with pytest.raises(ValueError):
        score_piles(CIRULLA, [["2H", bad], ["3C"]])


@pytest.mark.parametrize("count", [0, 1, 4, 5])
def test_S9_score_piles_needs_two_or_three_piles(count: int) -> None:
    piles = [[PLAIN[i]] for i in range(count)]
    with pytest.raises(ValueError, match="pile"):
        score_piles(CIRULLA, piles)


@pytest.mark.parametrize("piles", [None, "7D", {"0": ["7D"], "1": []}, 2])
def test_S9_score_piles_must_be_a_list_of_piles(piles: object) -> None:
    with pytest.raises(ValueError):
        score_piles(CIRULLA, piles)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "rules",
    [SCOPA, Rules.preset("cirullone"), Rules.preset("luzzati")],
    ids=["scopa", "cirullone", "luzzati"],
)
def test_S9_score_piles_three_piles_for_rules_with_two_sides_is_an_error(rules: Rules) -> None:
    """Scopa (SC1), Cirullone (CR1) and Luzzati (D7) have two sides: a third pile is wrong."""
    with pytest.raises(ValueError, match="pile"):
        score_piles(rules, [["2H"], ["3H"], ["4H"]])


@pytest.mark.parametrize("name", ["scope", "bonus"])
@pytest.mark.parametrize(
    "bad", [[1], [1, 2, 3], [], [-1, 0], [0, -3], [1.0, 0], ["1", 0], [True, 0], [None, 0], 3]
)
def test_S9_score_piles_scope_or_bonus_of_wrong_length_or_negative_is_an_error(
    name: str, bad: object
) -> None:
    with pytest.raises(ValueError, match=name):
        score_piles(CIRULLA, [["2H"], ["3H"]], **{name: bad})


def test_S9_score_piles_scope_and_bonus_need_one_number_per_side_with_three_sides() -> None:
    with pytest.raises(ValueError, match="scope"):
        score_piles(CIRULLA, [["2H"], ["3H"], ["4H"]], scope=[0, 0])
    with pytest.raises(ValueError, match="bonus"):
        score_piles(CIRULLA, [["2H"], ["3H"], ["4H"]], bonus=[0, 0, 0, 0])
    assert score_piles(CIRULLA, [[], [], []], scope=[0, 1, 2]).totals == [0, 1, 2]


def test_SC5_score_piles_bonus_with_scopa_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"(?i)bonus"):
        score_piles(SCOPA, [["2H"], ["3H"]], bonus=[1, 0])
    assert score_piles(SCOPA, [[], []], scope=[2, 0]).totals == [2, 0]


# ---- through finished deals -------------------------------------------------------------------


def _reference(rules: Rules, piles: list[list[Card]], scope: list[int], bonus: list[int]) -> Any:
    """An independent score sheet written from RULES.md S1-S8 and SC5."""

    def strict(values: list[int | None]) -> list[int]:
        present = [v for v in values if v is not None]
        if not present:
            return [0] * len(values)
        top = max(present)
        winners = [i for i, v in enumerate(values) if v == top]
        return [int(len(winners) == 1 and i == winners[0]) for i in range(len(values))]

    def primiera(pile: list[Card]) -> int | None:
        best = {}
        for c in pile:
            best[c.suit] = max(best.get(c.suit, 0), C3[c.rank])
        return sum(best.values()) if len(best) == 4 else None

    def run(pile: list[Card], ranks: str) -> int:
        held = {c.rank for c in pile if c.suit == "D"}
        k = 0
        for r in ranks:
            if r not in held:
                break
            k += 1
        return k

    cards = strict([len(p) for p in piles])
    diamonds = strict([sum(c.suit == "D" for c in p) for p in piles])
    prim = strict([primiera(p) for p in piles])
    rows = []
    for i, pile in enumerate(piles):
        grande = piccola = 0
        if not rules.is_scopa:
            if rules.dossena:
                high, low = run(pile, "KQJ76"), run(pile, "A2345")
                grande = high + 2 if high >= 3 else 0
                piccola = low if low >= 3 else 0
            else:
                grande = 5 if run(pile, "KQJ") == 3 else 0
                low = run(pile, "A234567" if rules.piccola_to_seven else "A23456")
                piccola = low if low >= 3 else 0
        row = {
            "scope": scope[i],
            "bonus": bonus[i],
            "cards": cards[i],
            "diamonds": diamonds[i],
            "settebello": int(Card.parse("7D") in pile),
            "primiera": prim[i],
            "grande": grande,
            "piccola": piccola,
        }
        row["total"] = sum(row.values())
        rows.append(row)
    return rows


def _random_play(seed: int) -> Callable[[list[Move]], Move]:
    rng = random.Random(seed)
    return lambda moves: rng.choice(moves)


def _only_plays(moves: list[Move]) -> Move:
    return next(m for m in moves if m.kind == "play")


def _check_finished(deal: Deal) -> None:
    score = deal.score()
    n = deal.sides
    piles = [deal.captured(s) for s in range(n)]
    # S9: the sheet adds up and is the sheet of the piles, sweeps and bonus points.
    for row in score.sides:
        assert row["total"] == sum(row[k] for k in ITEMS)
    assert [r["scope"] for r in score.sides] == deal.scope()
    assert [r["bonus"] for r in score.sides] == deal.bonus()
    again = score_piles(deal.rules, piles, scope=deal.scope(), bonus=deal.bonus())
    assert again.sides == score.sides
    assert again.details == score.details
    assert again.cappotto == score.cappotto
    assert score.sides == _reference(deal.rules, piles, deal.scope(), deal.bonus())
    # S1: scope and bonus are those the events recorded.
    events = deal.events
    scope = [0] * n
    bonus = [0] * n
    for e in events:
        if e["type"] == "play" and e["scopa"]:
            scope[deal.side_of(e["seat"])] += 1
        elif e["type"] in ("declare", "dealer_bonus"):
            bonus[e["side"]] += e["points"]
    assert scope == deal.scope()
    assert bonus == deal.bonus()
    # Every card is in a pile, or on the table when nobody ever captured (P8).
    assert sum(len(p) for p in piles) + len(deal.table) == 40
    assert [d["cards"] for d in score.details] == [len(p) for p in piles]
    # The end event carries the same sheet.
    assert events[-1]["type"] == "end"
    assert events[-1]["score"] == score.to_dict()
    if deal.rules.is_scopa:
        assert all(r["bonus"] == r["grande"] == r["piccola"] == 0 for r in score.sides)
        assert score.cappotto is None


@pytest.mark.parametrize(("name", "players"), PRESET_PLAYERS)
@pytest.mark.parametrize("seed", range(4))
def test_S9_finished_deal_sheet_adds_up_and_matches_piles_scope_and_bonus(
    name: str, players: int, seed: int
) -> None:
    deal = Deal(Rules.preset(name), players=players, dealer=seed % players, seed=seed)
    play_out(deal, _random_play(seed))
    _check_finished(deal)


@pytest.mark.parametrize(
    "options",
    [
        {"piccola_to_seven": True},
        {"bonuses_stack": True, "dealer_nine": True},
        {"cappotto_scores_only": True, "no_decino": True},
        {"declare_at_deal": True, "may_decline_capture": True},
    ],
)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_S9_finished_deal_sheet_matches_with_scoring_options(
    options: dict[str, Any], players: int
) -> None:
    rules = Rules().replace(**options)
    for seed in range(3):
        deal = Deal(rules, players=players, dealer=seed % players, seed=100 + seed)
        play_out(deal, _random_play(seed))
        _check_finished(deal)


def test_S9_no_score_sheet_before_the_smazzata_is_over() -> None:
    deal = Deal(CIRULLA, players=4, seed=3)
    with pytest.raises(ValueError):
        deal.score()
    deal.play(deal.legal_moves()[0])
    with pytest.raises(ValueError):
        deal.score()


def test_S1_dealer_bonus_points_reach_the_sheet_as_bonus() -> None:
    # Table 2C 3C 4C 6C = 15: the dealer (seat 0, side 0) scores 1.
    deck = stack(players=4, dealer=0, table=["2C", "3C", "4C", "6C"])
    deal = play_out(Deal(CIRULLA, players=4, dealer=0, deck=deck), _only_plays)
    assert deal.bonus() == [1, 0]
    score = deal.score()
    assert [r["bonus"] for r in score.sides] == [1, 0]
    _check_finished(deal)


def test_S1_declared_hand_bonus_reaches_the_sheet_as_bonus() -> None:
    # Seat 1 (side 1) holds 2S 3S 4S, a cirulla (3 points), and declares it.
    deck = stack(players=4, dealer=0, hands=[[], ["2S", "3S", "4S"], [], []])
    deal = Deal(CIRULLA, players=4, dealer=0, deck=deck)
    deal.play("!cirulla:2S3S4S")
    play_out(deal, _only_plays)
    assert deal.bonus() == [0, 3]
    assert [r["bonus"] for r in deal.score().sides] == [0, 3]
    _check_finished(deal)


def _cappotto_policy(deal: Deal) -> Move:
    """Side 0 grabs diamonds, side 1 lays diamonds down and avoids capturing."""
    moves = deal.legal_moves()
    assert deal.to_move is not None
    side = deal.side_of(deal.to_move)

    def key(m: Move) -> tuple[int, ...]:
        if m.kind != "play":
            return (9,)
        assert m.card is not None
        taken = sum(c.suit == "D" for c in m.captured) + int(
            bool(m.captured) and m.card.suit == "D"
        )
        if side == 0:
            return (-taken, -len(m.captured))
        return (int(bool(m.captured)), int(m.card.suit != "D"))

    return min(moves, key=key)


def _find_cappotto(rules: Rules) -> Deal:
    for seed in range(400):
        deal = Deal(rules, players=2, dealer=1, seed=seed)
        while not deal.is_over:
            deal.play(_cappotto_policy(deal))
        if len(deal.captured(0)) and sum(c.suit == "D" for c in deal.captured(0)) == 10:
            return deal
    raise AssertionError("no smazzata with all ten diamonds to one side found")


def test_S8_cappotto_in_a_finished_deal_wins_at_once_and_is_still_scored() -> None:
    deal = _find_cappotto(CIRULLA)
    score = deal.score()
    assert score.cappotto == 0
    assert deal.instant_winner == 0
    assert deal.instant_reason == "cappotto"
    row = score.sides[0]
    assert row["grande"] == 5 and row["piccola"] == 6 and row["settebello"] == 1
    assert row["diamonds"] == 1
    _check_finished(deal)
    end = deal.events[-1]
    assert end["instant_winner"] == 0 and end["instant_reason"] == "cappotto"


def test_S8_cappotto_scores_only_no_instant_win_but_sheet_reports_it() -> None:
    found = _find_cappotto(CIRULLA)
    rules = CIRULLA.replace(cappotto_scores_only=True)
    deal = Deal(rules, players=2, dealer=1, seed=found.seed)
    for move in found.moves:
        deal.play(move)
    assert deal.is_over
    assert deal.instant_winner is None
    assert deal.instant_reason is None
    score = deal.score()
    assert score.cappotto == 0
    assert score.sides == found.score().sides
    _check_finished(deal)


def test_S8_no_cappotto_without_all_ten_diamonds_in_finished_deals() -> None:
    for seed in range(10):
        deal = play_out(Deal(CIRULLA, players=4, seed=seed), _random_play(seed))
        counts = [sum(c.suit == "D" for c in deal.captured(s)) for s in range(2)]
        if 10 not in counts:
            assert deal.score().cappotto is None
            assert deal.instant_winner is None
