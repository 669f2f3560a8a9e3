"""The cut that waits for the last stages (`ismcts` option `cut_within`: the playout
plays on past stage ends until the value has at most that many stages left to score;
docs/strength.md, Next: the 2-player question)."""

from __future__ import annotations

import random

import pytest
from test_bots_leafvalue import CUT, _visits, _walk

from cirulla import Deal, Rules, bots
from cirulla.bots import Budget, choose_move
from cirulla.bots.ismcts_options import IsmctsOptions
from cirulla.bots.leafvalue import FEATURES, LeafValue
from cirulla.bots.playouts import cut_playout
from cirulla.bots.policies import UNSEEN

CONSTANT = LeafValue([0.0] * len(FEATURES), 2.5)


def _cut_at(deal: Deal, within: int) -> tuple[int, float]:
    copy = deal.copy()
    side = deal.side_of(deal.to_move)
    value = cut_playout(copy, random.Random(3), CONSTANT, 0.1, UNSEEN, side, -1.0, None, within)
    return copy._stage, value


@pytest.mark.parametrize(
    ("within", "stage"),
    # 2 players, six stages (0 to 5): the value scores at most `within` of them, the
    # one just dealt included; 0, or as many as are left, is the plain cut (stage 1)
    [(0, 1), (6, 1), (5, 1), (4, 2), (3, 3), (2, 4), (1, 5)],
)
def test_cut_within_plays_on_until_that_many_stages_are_left(within: int, stage: int) -> None:
    deal = _walk(2, 11, 1)
    assert deal._stage == 0 and len(deal._sizes) == 6
    reached, value = _cut_at(deal, within)
    assert reached == stage
    assert abs(value) == 2.5  # the value asked, at the first stage end that qualifies


def test_cut_within_from_a_later_stage_cuts_at_its_end() -> None:
    deal = _walk(2, 12, 27)  # in stage 4 at 2 players: two left, itself included
    assert deal._stage == 4
    assert _cut_at(deal, 2)[0] == 5
    assert _cut_at(deal, 1)[0] == 5


def test_cut_within_is_the_plain_cut_at_four_players_from_two_up() -> None:
    """Three stages at 4 players: at the first stage end two are left, so a value that may
    score two (or more) cuts where the plain cut does, and the search is the same."""
    for within in (2, 3):
        assert _visits({**CUT, "cut_within": within}, 4, 41, 5) == _visits(CUT, 4, 41, 5)
    assert _visits({**CUT, "cut_within": 1}, 4, 41, 5) != _visits(CUT, 4, 41, 5)


@pytest.mark.parametrize("bad", [0, -1, 21, 2.0, True, "2", [2]])
def test_cut_within_is_checked(bad: object) -> None:
    with pytest.raises(ValueError, match="cut_within"):
        IsmctsOptions(leaf="cut", cut_within=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cut_within"):
        bots.get("ismcts", leaf="cut_mean", cut_within=bad)


def test_cut_within_needs_a_leaf_that_cuts_and_round_trips() -> None:
    with pytest.raises(ValueError, match="cut_within says"):
        IsmctsOptions(cut_within=2)
    bot = bots.get("ismcts", leaf="cut_mean", cut_within=2, cut_players=[2])
    assert bot.options()["cut_within"] == 2
    assert bots.get("ismcts", **bot.options()).options() == bot.options()
    assert bots.get("ismcts").options()["cut_within"] is None


#: The cut searches, and the pinned root visits of each at 2 players: the pure and the
#: compiled build (CI runs this file on both) must search alike, float for float.
PINNED: list[tuple[str, int, int, int, list[int]]] = [
    ("cut", 2, 63, 9, [188, 112]),  # the plain cut: [132, 168]
    ("cut", 2, 64, 3, [196, 104]),  # [220, 80]
    ("cut_mean", 2, 63, 9, [123, 177]),  # the plain averaged cut: [171, 129]
    ("cut_mean", 2, 64, 3, [270, 30]),  # [195, 105]
]


@pytest.mark.parametrize(("leaf", "players", "seed", "plies", "expected"), PINNED)
def test_cut_within_search_visits_are_pinned(
    leaf: str, players: int, seed: int, plies: int, expected: list[int]
) -> None:
    assert _visits({**CUT, "leaf": leaf, "cut_within": 2}, players, seed, plies) == expected


def test_a_search_cutting_within_two_stages_plays_whole_smazzate() -> None:
    for players in (2, 4):
        deal = Deal(Rules.preset("cirulla"), players, 0, seed=players + 10)
        options = {**CUT, "leaf": "cut_mean", "cut_within": 2}
        seated = [
            bots.get("ismcts", seed=s, budget=Budget(iterations=40), **options)
            for s in range(players)
        ]
        while not deal.is_over:
            seat = deal.to_move
            assert seat is not None
            deal.play(choose_move(seated[seat], deal))
        # every card ends in a side's pile: nothing lost to the cut's copies
        assert len(deal.captured(0)) + len(deal.captured(1)) == 40
