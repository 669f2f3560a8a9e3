"""The cut's value averaged over the hands it finds just dealt (`ismcts` option
`leaf="cut_mean"`, `leafvalue.mean_features`; docs/strength.md, 2026-12-06, a third)."""

from __future__ import annotations

import itertools
import random

import pytest
from test_bots_leafvalue import _visits

from cirulla import Deal, Rules, bots
from cirulla.bots import Budget, choose_move
from cirulla.bots.ismcts_options import IsmctsOptions
from cirulla.bots.leafvalue import FEATURES, LeafValue, features, leaf_model, mean_features
from cirulla.bots.levels import CAMPIONE_2026_11_28
from cirulla.bots.playouts import cut_playout
from cirulla.bots.policies import UNSEEN
from cirulla.cards import Card

HANDS = (FEATURES.index("our_hands_cards"), FEATURES.index("their_hands_cards"))
DECK = FEATURES.index("deck_cards")
WIDTH = 12  # features a group of cards gives


def _stage_start(players: int, seed: int, stage: int) -> Deal:
    """A position where stage `stage`'s hands have just been dealt, reached by random play."""
    deal = Deal(Rules.preset("cirulla"), players, seed % players, seed=seed)
    rng = random.Random(seed)
    while deal._stage < stage:
        deal.play(rng.choice(deal.legal_moves()))
    assert not deal.is_over and all(len(h) == deal._sizes[stage] for h in deal._hands)
    return deal


def _every_deal(deal: Deal) -> list[Deal]:
    """The position once for every way its hands and deck could hold their cards (as
    sides: which of a side's seats holds a card does not change a feature)."""
    seat = deal.to_move
    assert seat is not None
    us = deal.side_of(seat)
    ours = [s for s in range(deal.players) if deal.side_of(s) == us]
    theirs = [s for s in range(deal.players) if deal.side_of(s) != us]
    size = deal._sizes[deal._stage]
    pool: list[Card] = [c for h in deal._hands for c in h] + list(deal._deck)
    out = []
    for mine in itertools.combinations(range(len(pool)), size * len(ours)):
        rest = [i for i in range(len(pool)) if i not in mine]
        for other in itertools.combinations(rest, size * len(theirs)):
            deck = [pool[i] for i in rest if i not in other]
            copy = deal.copy()
            for k, s in enumerate(ours):
                copy._hands[s] = [pool[i] for i in mine[k * size : (k + 1) * size]]
            for k, s in enumerate(theirs):
                copy._hands[s] = [pool[i] for i in other[k * size : (k + 1) * size]]
            copy._deck = deck
            out.append(copy)
    return out


@pytest.mark.parametrize(
    ("players", "seed", "stage"),
    [(2, 3, 5), (2, 4, 4), (4, 5, 2), (2, 6, 5)],
)
def test_mean_features_are_the_mean_over_every_deal_of_the_hands(
    players: int, seed: int, stage: int
) -> None:
    deal = _stage_start(players, seed, stage)
    deals = _every_deal(deal)
    assert len(deals) > 10
    rows = [features(d) for d in deals]
    mean = [sum(col) / len(rows) for col in zip(*rows, strict=True)]
    got = mean_features(deal)
    assert got == pytest.approx(mean, abs=1e-9)
    # only the hands' and the deck's groups are averaged; the rest is the position's own
    real = features(deal)
    averaged = {i for g in (*HANDS, DECK) for i in range(g, g + WIDTH)}
    for i, name in enumerate(FEATURES):
        if i not in averaged:
            assert got[i] == real[i], name
    assert got != real


def test_an_averaged_value_is_the_mean_of_the_value_over_the_deals() -> None:
    deal = _stage_start(2, 8, 5)
    leaf = leaf_model(deal.rules, 2)
    assert leaf is not None and not leaf.mean
    averaged = leaf.averaged()
    assert averaged.mean and averaged.weights == leaf.weights
    values = [leaf.value(d) for d in _every_deal(deal)]
    assert averaged.value(deal) == pytest.approx(sum(values) / len(values), abs=1e-9)
    assert averaged.value(deal) != leaf.value(deal)


def test_the_mean_of_an_empty_hand_or_deck_is_empty() -> None:
    deal = _stage_start(2, 9, 5)  # the last stage: the deck is empty
    assert not deal._deck
    row = mean_features(deal)
    assert row[DECK : DECK + WIDTH] == [0.0] * WIDTH
    constant = LeafValue([0.0] * len(FEATURES), 1.5).averaged()
    assert constant.value(deal) == 1.5


def test_the_cut_with_the_averaged_value_stops_at_the_stage_end() -> None:
    deal = _stage_start(4, 10, 0)
    leaf = leaf_model(deal.rules, 4)
    assert leaf is not None
    side = deal.side_of(deal.to_move)
    copy = deal.copy()
    value = cut_playout(copy, random.Random(3), leaf.averaged(), 0.1, UNSEEN, side)
    assert copy._stage == 1
    sign = 1.0 if copy.side_of(copy.to_move) == side else -1.0
    assert value == pytest.approx(sign * leaf.averaged().value(copy))


def test_cut_mean_is_an_option_of_the_search() -> None:
    assert IsmctsOptions(leaf="cut_mean").cuts(4)
    assert IsmctsOptions(leaf="cut_mean", cut_players=[4]).cuts(4)
    assert not IsmctsOptions(leaf="cut_mean", cut_players=[4]).cuts(2)
    with pytest.raises(ValueError, match="leaf must be one of playout, cut, cut_mean"):
        IsmctsOptions(leaf="mean")
    bot = bots.get("ismcts", leaf="cut_mean", cut_players=[2, 4])
    assert bot.options()["leaf"] == "cut_mean"
    assert bots.get("ismcts", **bot.options()).options() == bot.options()


WHOLE = CAMPIONE_2026_11_28.options
MEAN = {**WHOLE, "leaf": "cut_mean"}


def test_cut_mean_searches_otherwise_than_the_cut_where_a_model_applies() -> None:
    cut = {**WHOLE, "leaf": "cut"}
    assert _visits(MEAN, 4, 41, 5) != _visits(cut, 4, 41, 5)
    # three players: no value for three sides, so the playouts run to the end
    assert _visits(MEAN, 3, 42, 4) == _visits(WHOLE, 3, 42, 4)


# Root visits of campione's search with the averaged cut, pinned: the pure and the
# compiled build (CI runs this file on both) must search alike, float for float.
PINNED: list[tuple[int, int, int, list[int]]] = [
    (4, 61, 2, [25, 55, 104, 99, 17]),
    (4, 62, 14, [31, 72, 197]),
    (2, 63, 9, [171, 129]),
    (2, 64, 21, [208, 92]),
]


@pytest.mark.parametrize(("players", "seed", "plies", "expected"), PINNED)
def test_cut_mean_search_visits_are_pinned(
    players: int, seed: int, plies: int, expected: list[int]
) -> None:
    assert _visits(MEAN, players, seed, plies) == expected


def test_the_averaged_cut_plays_whole_smazzate() -> None:
    for players in (2, 4):
        deal = Deal(Rules.preset("cirulla"), players, 0, seed=players + 10)
        seated = [
            bots.get("ismcts", seed=s, budget=Budget(iterations=40), **MEAN) for s in range(players)
        ]
        while not deal.is_over:
            seat = deal.to_move
            assert seat is not None
            deal.play(choose_move(seated[seat], deal))
        assert sum(deal.score().totals) >= 0
