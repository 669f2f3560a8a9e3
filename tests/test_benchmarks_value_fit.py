"""benchmarks/value_fit.py: the cheater's games, and whether a learned evaluation
predicts them better than the playouts do."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import value_fit
from value_fit import ITEMS, features, fit
from value_games import play, positions

from cirulla import Deal, Rules
from cirulla.bots.leafvalue import FEATURES, LIFE, LeafValue
from cirulla.scoring import score_cards


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # a weaker cheater keeps the test quick; the script's figures use 1,500 iterations
    path = tmp_path_factory.mktemp("value_fit") / "games.json"
    play(deals=4, players=2, seed=7, out=path, iterations=60)
    return path


def test_recorded_games_replay_to_their_totals_and_give_one_position_a_stage(games: Path) -> None:
    recorded = json.loads(games.read_text())
    assert recorded["bot"] == "cheater" and len(recorded["games"]) == 4
    for game in recorded["games"]:
        stages = positions(game, every=False)
        # 2 players: six hands of three cards, so five stages after the first
        assert len(stages) == 5
        for deal, result, made in stages:
            assert deal.to_move is not None and not deal.is_over
            assert made in {str(m) for m in deal.legal_moves()}
            us = deal.side_of(deal.to_move)
            assert result == game["totals"][us] - game["totals"][1 - us]
        every = positions(game, every=True)
        assert len(every) > len(stages)
        assert all(len(d.legal_moves()) > 1 for d, _, _ in every)


def test_features_read_the_position_from_the_side_to_move() -> None:
    deal = Deal(Rules.preset("cirulla"), players=4, dealer=0, seed=11)
    rng = random.Random(3)
    while deal.mano < 2 and deal._stage == 0:
        legal = deal.legal_moves()
        deal.play(legal[rng.randrange(len(legal))])
    row = features(deal)
    seat = deal.to_move
    assert seat is not None
    us = deal.side_of(seat)
    sheet = score_cards(deal.rules, deal._piles, deal._scope, deal._bonus).sides
    banked = sum(row[: len(ITEMS)])
    assert banked == sheet[us]["total"] - sheet[1 - us]["total"]
    # the groups' card counts add up to the deck
    counts = [row[len(ITEMS) + 12 * g] for g in range(6)]
    assert sum(counts) == 40
    assert counts[2] == sum(len(deal.hand(s)) for s in range(4) if deal.side_of(s) == us)
    with_cards = features(deal, cards=True)
    assert len(with_cards) == len(row) + 240 and sum(with_cards[len(row) :]) == 40


def test_the_fit_scores_playouts_and_learned_models_against_the_cheaters_results(
    games: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(value_fit, "CHEATER_ITERATIONS", 60)  # the judge's play-outs
    result = fit([games], playouts=4, seed=1, every=True, cards=False, judge=2)
    assert result["games"] == 4 and result["positions"] > 40
    assert result["seed"] == 1 and result["judge"] == 2
    first = positions(json.loads(games.read_text())["games"][0], every=False)[0][0]
    assert result["features"] == len(features(first))
    # playouts from the real deal follow the real result far better than chance
    assert result["playout"]["corr"] > 0.5
    assert result["playout"]["mse"] < result["target_variance"]
    decisions = result["decisions"]
    assert decisions["positions"] == result["positions"]
    assert set(decisions["agrees_with_cheater"]) == {"playout", "learned", "corrected", "cut"}
    for name in ("learned", "corrected", "cut"):
        row = decisions[name]
        assert 0.0 <= row["best_changed"] <= 1.0
        low, high = row["agreement_gain_interval"]
        assert -1.0 <= low <= high <= 1.0
        # two positions where the evaluation changes the move, played out both ways
        if row["best_changed"] > 0:
            assert row["judged"] == 2 and isinstance(row["minus_playout_points"], float)


def test_campione_games_are_recorded_as_its_own_and_fit_apart_from_the_cheaters(
    games: Path, tmp_path: Path
) -> None:
    path = tmp_path / "campione.json"
    record = play(deals=1, players=2, seed=8, out=path, iterations=30, bot="campione")
    assert record["bot"] == "campione" and record["iterations"] == 30
    game = record["games"][0]
    assert positions(game, every=False)  # replays to its recorded totals
    fitted = value_fit.weights([path], tmp_path / "value.json")
    assert fitted["bot"] == "campione" and fitted["iterations"] == 30
    assert sorted(fitted["models"]) == ["2"] and fitted["sources"] == ["campione.json"]
    # one value is one player's: the cheater's games and campione's do not mix
    with pytest.raises(SystemExit, match="one player's games"):
        value_fit.weights([games, path], None)


def test_weights_with_life_fit_the_life_features_after_the_others(games: Path) -> None:
    plain = value_fit.weights([games], None)
    lived = value_fit.weights([games], None, with_life=True)
    assert plain["features"] == list(FEATURES)
    assert lived["features"] == list(FEATURES) + list(LIFE)
    for n, model in lived["models"].items():
        assert len(model["weights"]) == len(FEATURES) + len(LIFE)
        assert model["positions"] == plain["models"][n]["positions"]
        LeafValue(model["weights"], model["intercept"])  # the engine takes it
