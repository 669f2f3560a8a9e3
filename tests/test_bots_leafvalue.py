"""The search's leaf value and its cut playouts (`ismcts` option `leaf="cut"`,
bots/leafvalue.py; docs/strength.md, 2026-12-06)."""

from __future__ import annotations

import json
import random
from importlib.resources import files
from typing import Any

import pytest

from cirulla import Deal, Rules, bots
from cirulla.bots import Budget, choose_move
from cirulla.bots.base import SeatView
from cirulla.bots.evaluate import CARD_WEIGHT
from cirulla.bots.ismcts_options import IsmctsOptions
from cirulla.bots.leafvalue import FEATURES, ITEMS, LeafValue, features, leaf_model
from cirulla.bots.levels import CAMPIONE_2026_11_28
from cirulla.bots.playouts import cut_playout
from cirulla.bots.policies import UNSEEN
from cirulla.cards import Card
from cirulla.scoring import score_cards


def _walk(players: int, seed: int, plies: int) -> Deal:
    deal = Deal(Rules.preset("cirulla"), players, seed % players, seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if deal.is_over:
            break
        deal.play(rng.choice(deal.legal_moves()))
    return deal


def _reference_group(cards: list[Card]) -> list[float]:
    """The group's features written the plain way (the fit's first version)."""
    denari = [c for c in cards if c.suit == "D"]
    best: dict[str, int] = {}
    for c in cards:
        best[c.suit] = max(best.get(c.suit, 0), c.primiera)
    return [
        float(len(cards)),
        sum((CARD_WEIGHT[c.id] for c in cards), 0.0),
        float(len(denari)),
        float(sum(c.rank == "7" for c in cards)),
        float(sum(c.rank == "6" for c in cards)),
        float(sum(c.rank == "A" for c in cards)),
        float(any(c.suit == "D" and c.rank == "7" for c in cards)),
        float(sum(c.rank in "JQK" for c in denari)),
        float(sum(c.rank in "A23" for c in denari)),
        float(sum(c.rank in "456" for c in denari)),
        float(sum(best.values())),
        float(len(best)),
    ]


def _reference(deal: Deal) -> list[float]:
    seat = deal.to_move
    assert seat is not None
    us = deal.side_of(seat)
    sheet = score_cards(deal.rules, deal._piles, deal._scope, deal._bonus).sides
    row = [float(sheet[us][k] - sheet[1 - us][k]) for k in ITEMS]
    ours = [c for s, h in enumerate(deal._hands) if deal.side_of(s) == us for c in h]
    theirs = [c for s, h in enumerate(deal._hands) if deal.side_of(s) != us for c in h]
    for group in (deal._piles[us], deal._piles[1 - us], ours, theirs, deal._table, deal._deck):
        row.extend(_reference_group(list(group)))
    last = deal.last_capture
    row.append(0.0 if last is None else (1.0 if last == us else -1.0))
    row.append(float(sum(c.value for c in deal._table)))
    row.append(float(len(deal._sizes) - 1 - deal._stage))
    row.append(float((seat - deal._first) % deal.players))
    return row


@pytest.mark.parametrize("players", [2, 4])
def test_leaf_features_match_the_plain_reading_of_the_position(players: int) -> None:
    seen = 0
    for seed in range(12):
        for plies in (0, 5, 13, 22, 31):
            deal = _walk(players, seed, plies)
            if deal.is_over:
                continue
            row = features(deal)
            assert len(row) == len(FEATURES) == 84
            assert row == _reference(deal)
            seen += 1
    assert seen >= 40


def test_leaf_features_count_what_the_position_holds() -> None:
    deal = _walk(4, 3, 0)
    row = dict(zip(FEATURES, features(deal), strict=True))
    assert row["deck_cards"] == 40 - 4 - 12
    assert row["our_hands_cards"] == row["their_hands_cards"] == 6
    assert row["table_cards"] == 4
    assert row["table_sum"] == sum(c.value for c in deal._table)
    assert row["stages_left"] == 2  # three stages of twelve cards at 4 players
    assert row["our_pile_cards"] == row["their_pile_cards"] == 0
    assert row["last_capture"] == 0.0
    assert row["place_in_round"] == 0.0
    sevens = sum(row[f"{g}_sevens"] for g in ("our_hands", "their_hands", "table", "deck"))
    assert sevens == 4
    assert sum(row[f"{g}_settebello"] for g in ("our_hands", "their_hands", "table", "deck")) == 1


def test_the_shipped_values_are_for_the_features_and_two_sides() -> None:
    data = json.loads((files("cirulla") / "data" / "leaf_value.json").read_text())
    assert data["features"] == list(FEATURES)
    assert sorted(data["models"]) == ["2", "4"]
    for model in data["models"].values():
        assert len(model["weights"]) == len(FEATURES)
        # fitted, not a placeholder: a cross-validated error below the target's variance
        assert model["cv"]["mse"] < 0.7 * model["target_variance"]
    # a point already on the score sheet is worth about a point at the end
    four = dict(zip(FEATURES, data["models"]["4"]["weights"], strict=True))
    assert 0.6 < four["sheet_scope"] < 1.4


def test_leaf_model_applies_to_the_rules_it_was_fitted_on() -> None:
    cirulla = Rules.preset("cirulla")
    assert isinstance(leaf_model(cirulla, 4), LeafValue)
    assert isinstance(leaf_model(cirulla, 2), LeafValue)
    assert leaf_model(cirulla, 4) is not leaf_model(cirulla, 2)
    assert leaf_model(cirulla, 3) is None  # three sides: no model
    # the partita's length does not change a smazzata's value; the smazzata's rules do
    assert leaf_model(cirulla.replace(target=31), 4) is leaf_model(cirulla, 4)
    assert leaf_model(cirulla.replace(ace_choice=True), 4) is None
    assert leaf_model(Rules.preset("scopa"), 4) is None


def test_a_leaf_value_takes_one_weight_a_feature() -> None:
    with pytest.raises(ValueError, match="84 weights"):
        LeafValue([1.0, 2.0], 0.0)


def test_cut_playout_stops_at_the_stage_end_and_asks_the_value() -> None:
    deal = _walk(4, 5, 3)
    stage = deal._stage
    constant = LeafValue([0.0] * len(FEATURES), 2.5)
    side = deal.side_of(deal.to_move)
    copy = deal.copy()
    value = cut_playout(copy, random.Random(1), constant, 0.1, UNSEEN, side)
    assert copy._stage == stage + 1 and not copy.is_over
    mover_side = copy.side_of(copy.to_move)
    assert value == (2.5 if mover_side == side else -2.5)
    # the same from the other side's view
    other = deal.copy()
    assert cut_playout(other, random.Random(1), constant, 0.1, UNSEEN, 1 - side) == -value


def test_cut_playout_in_the_last_stage_scores_the_smazzata_exactly() -> None:
    deal = _walk(2, 6, 33)  # six stages of six cards at 2 players: the last
    assert deal._stage == len(deal._sizes) - 1 and not deal.is_over
    constant = LeafValue([0.0] * len(FEATURES), 100.0)
    value = cut_playout(deal, random.Random(2), constant, 0.1, UNSEEN, 0)
    assert deal.is_over
    totals = deal.score().totals
    assert value == float(totals[0] - totals[1])


def test_leaf_option_is_checked() -> None:
    with pytest.raises(ValueError, match="leaf must be one of playout, cut"):
        IsmctsOptions(leaf="value")
    with pytest.raises(ValueError, match="leaf"):
        bots.get("ismcts", leaf=1)
    bot = bots.get("ismcts", leaf="cut")
    assert bot.options()["leaf"] == "cut"
    assert bots.get("ismcts", **bot.options()).options() == bot.options()


def _visits(options: dict[str, Any], players: int, seed: int, plies: int) -> list[int]:
    deal = _walk(players, seed, plies)
    bot = bots.get("ismcts", seed=seed, budget=Budget(iterations=300), **options)
    seat = deal.to_move
    assert seat is not None
    _, visits = bot.root_visits(SeatView(deal.view(seat)))
    return visits


def test_the_cut_changes_the_search_where_a_model_applies_and_only_there() -> None:
    whole = CAMPIONE_2026_11_28.options
    cut = {**whole, "leaf": "cut"}
    assert _visits(cut, 4, 41, 5) != _visits(whole, 4, 41, 5)
    # three players: no value for three sides, so the playouts run to the end
    assert _visits(cut, 3, 42, 4) == _visits(whole, 3, 42, 4)


def test_cut_players_keeps_the_cut_to_the_player_counts_it_names() -> None:
    whole = CAMPIONE_2026_11_28.options
    cut = {**whole, "leaf": "cut"}
    four = {**cut, "cut_players": [4]}
    assert _visits(four, 4, 41, 5) == _visits(cut, 4, 41, 5)
    assert _visits(four, 2, 43, 6) == _visits(whole, 2, 43, 6) != _visits(cut, 2, 43, 6)


#: campione's search of 2026-11-27 with the cut at every player count a value is fitted.
CUT = {**CAMPIONE_2026_11_28.options, "leaf": "cut"}

# Root visits of that search, pinned: the pure and the compiled build (CI runs
# this file on both) must search alike, float for float.
PINNED: list[tuple[int, int, int, list[int]]] = [
    (4, 61, 2, [32, 38, 50, 142, 38]),
    (4, 62, 14, [15, 75, 210]),
    (2, 63, 9, [132, 168]),
    (2, 64, 21, [37, 263]),
]


@pytest.mark.parametrize(("players", "seed", "plies", "expected"), PINNED)
def test_cut_search_visits_are_pinned(
    players: int, seed: int, plies: int, expected: list[int]
) -> None:
    assert _visits(CUT, players, seed, plies) == expected


def test_campione_with_the_cut_plays_whole_smazzate() -> None:
    for players in (2, 4):
        deal = Deal(Rules.preset("cirulla"), players, 0, seed=players)
        seated = [
            bots.get("ismcts", seed=s, budget=Budget(iterations=40), **CUT) for s in range(players)
        ]
        while not deal.is_over:
            seat = deal.to_move
            assert seat is not None
            deal.play(choose_move(seated[seat], deal))
        assert sum(deal.score().totals) >= 0


def test_value_option_is_checked() -> None:
    with pytest.raises(ValueError, match="value must be one of cheater, campione"):
        IsmctsOptions(leaf="cut_mean", value="greedy")
    with pytest.raises(ValueError, match="value"):
        bots.get("ismcts", leaf="cut", value=None)
    # a value scores only a cut: without one the option would change nothing
    with pytest.raises(ValueError, match="set leaf='cut' or 'cut_mean'"):
        bots.get("ismcts", value="campione")
    bot = bots.get("ismcts", leaf="cut_mean", value="campione")
    assert bot.options()["value"] == "campione"
    assert bots.get("ismcts", **bot.options()).options() == bot.options()
    assert bots.get("ismcts").options()["value"] == "cheater"


def test_the_campione_value_is_fitted_to_campiones_games_at_4_players() -> None:
    data = json.loads((files("cirulla") / "data" / "leaf_value_campione.json").read_text())
    assert data["bot"] == "campione" and data["features"] == list(FEATURES)
    assert sorted(data["models"]) == ["4"]
    model = data["models"]["4"]
    assert len(model["weights"]) == len(FEATURES)
    assert model["cv"]["mse"] < 0.7 * model["target_variance"]
    cirulla = Rules.preset("cirulla")
    four = leaf_model(cirulla, 4, "campione")
    assert isinstance(four, LeafValue) and four is not leaf_model(cirulla, 4)
    assert four.weights == model["weights"]
    # no model of campione's games at 2 players: the cheater's scores the cut there
    assert leaf_model(cirulla, 2, "campione") is leaf_model(cirulla, 2)
    assert leaf_model(cirulla, 3, "campione") is None
    assert leaf_model(cirulla.replace(ace_choice=True), 4, "campione") is None
    with pytest.raises(ValueError, match="no value fitted to 'greedy' games"):
        leaf_model(cirulla, 4, "greedy")


def test_the_value_option_changes_the_search_where_its_model_applies() -> None:
    ours = {**CUT, "value": "campione"}
    assert _visits(ours, 4, 61, 2) != _visits(CUT, 4, 61, 2)
    assert _visits(ours, 2, 63, 9) == _visits(CUT, 2, 63, 9)
