"""The accusi's odds by exact enumeration (competition/luck.py), checked against the
issue's figures and against an independent count, and the luck index."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations

import pytest

from cirulla import Rules
from cirulla.cards import full_deck
from cirulla.competition.luck import dealer_odds, hand_odds, luck


def test_default_odds_match_the_issue_figures_10_49_0_95_and_11_75_percent() -> None:
    hands = hand_odds(Rules())
    assert hands.hands == math.comb(40, 3)
    assert round(float(hands.p_qualifying) * 100, 2) == 10.49
    assert round(float(hands.p("decino")) * 100, 2) == 0.95
    table = dealer_odds(Rules())
    assert round(float(table.p_scoring) * 100, 2) == 11.75
    # the 11.75% is among tables really dealt: two aces (D6) are dealt again
    assert table.tables == math.comb(40, 4) - sum(
        math.comb(4, a) * math.comb(36, 4 - a) for a in (2, 3, 4)
    )


def test_hand_odds_agree_with_an_independent_count_by_values() -> None:
    """Counted without the engine: sums of 9 or less and three equal values, with the
    7 of hearts as the matta (an ace for a cirulla, any value for a decino, B5)."""
    cirulla = decino = 0
    for trio in combinations(full_deck(), 3):
        wild = [c for c in trio if str(c) == "7H"]
        values = [c.value for c in trio if str(c) != "7H"]
        if not wild:
            if values[0] == values[1] == values[2]:
                decino += 1
            elif sum(values) <= 9:
                cirulla += 1
        elif values[0] == values[1]:
            decino += 1  # the decino's 10 beat the cirulla's 3 (B4: the player picks)
        elif sum(values) + 1 <= 9:
            cirulla += 1
    hands = hand_odds(Rules())
    assert (hands.by_kind["cirulla"], hands.by_kind["decino"]) == (cirulla, decino)
    assert hands.points_mean == Fraction(3 * cirulla + 10 * decino, math.comb(40, 3))


def test_rules_change_the_odds_no_decino_dossena_and_scopa() -> None:
    assert hand_odds(Rules(no_decino=True)).p("decino") == 0
    assert hand_odds(Rules(no_decino=True)).p_qualifying < hand_odds(Rules()).p_qualifying
    no_wild = hand_odds(Rules(wild_card=None))
    assert no_wild.p_qualifying < hand_odds(Rules()).p_qualifying
    assert dealer_odds(Rules(dealer_nine=True)).p("nove") > 0
    scopa = Rules.preset("scopa")
    assert hand_odds(scopa).qualifying == 0 and dealer_odds(scopa).scoring == 0
    assert dealer_odds(scopa).points_var == 0


def test_luck_index_is_a_z_score_and_none_without_variance() -> None:
    lucky = luck(received=13, expected=4, variance=9)
    assert lucky.index == pytest.approx(3.0)
    assert lucky.to_dict()["difference"] == 9
    assert luck(received=0, expected=0, variance=0).index is None
    assert luck(received=1, expected=4, variance=9).index == pytest.approx(-1.0)
