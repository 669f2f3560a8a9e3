"""benchmarks/value_starts.py: the cut's value judged at the stage starts it is asked at."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import value_fit
import value_games
from conftest import stack
from value_starts import REACH, judge, reach, rows

from cirulla import Deal, Rules
from cirulla.bots.leafvalue import FEATURES, GROUP, LIFE


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # a weak cheater keeps the test quick; the figures use value_fit's recorded games
    path = tmp_path_factory.mktemp("value_starts") / "games.json"
    value_games.play(deals=6, players=2, seed=11, out=path, iterations=40)
    return path


def test_the_stage_starts_are_the_first_moves_of_each_later_stage(games: Path) -> None:
    recorded = json.loads(games.read_text())["games"]
    raw, mean, y, ids, starts = rows(recorded)
    # 2 players: six stages, so five starts a game, each with a choice of three cards
    assert int(starts.sum()) == 5 * len(recorded)
    assert len(y) > int(starts.sum()) and set(ids.tolist()) == set(range(len(recorded)))
    # averaged, a start keeps its sheet, piles and table; only hands and deck change
    hidden = {f"{g}_{k}" for g in ("our_hands", "their_hands", "deck") for k in GROUP}
    shown = [i for i, name in enumerate(FEATURES) if name not in hidden]
    assert (raw[starts][:, shown] == mean[starts][:, shown]).all()
    moved = [i for i, name in enumerate(FEATURES) if name in hidden]
    assert (raw[starts][:, moved] != mean[starts][:, moved]).any()


def test_each_fit_is_scored_at_the_starts_and_the_shipped_value_too(games: Path) -> None:
    out = judge([games])
    assert "4p" not in out
    fig = out["2p"]
    assert fig["games"] == 6 and fig["stage_starts"] == 30
    for name in ("every_raw", "starts_mean", "every_starts_mean"):
        assert fig[name]["lambda"] in value_fit.LAMBDAS
        assert math.isfinite(fig[name]["mse"]) and fig[name]["mse"] > 0
    # the shipped weights, scored on the averaged and on the real features
    assert fig["shipped_raw"] > 0 and fig["shipped_mean"] > 0


def test_games_of_three_players_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "three.json"
    path.write_text(json.dumps({"games": [{"players": 3, "moves": []}]}))
    with pytest.raises(SystemExit, match="2 or 4 players"):
        judge([path])


def test_the_reach_counts_the_cards_that_sweep_the_table() -> None:
    # a table of 12 with no ace: a three (to fifteen) or an ace sweeps it
    deck = stack(
        players=2, hands=[["3D", "AC", "KC"], ["3H", "5S", "7C"]], table=["2S", "3S", "3C", "4C"]
    )
    deal = Deal(Rules.preset("cirulla"), players=2, deck=deck)
    seat = deal.to_move
    assert seat is not None
    ours, theirs = (2.0, 1.0) if seat == 0 else (1.0, 2.0)
    # the other two threes lie on the table: the deck holds three aces; the mover leads
    assert reach(deal, False) == [0.0, 2.0, ours, theirs, 3.0, ours, theirs, 0.0]
    # averaged: six sweepers among the 36 cards of the hands and the deck
    assert reach(deal, True) == pytest.approx([0.0, 2.0, 0.5, 0.5, 5.0, 0.5, 0.5, 0.0])
    assert len(REACH) == len(reach(deal, False))


def test_the_reach_joins_each_fit_when_asked(games: Path) -> None:
    out = judge([games], with_reach=True)
    assert out["reach"] is True
    assert out["2p"]["every_raw"]["mse"] != judge([games])["2p"]["every_raw"]["mse"]


def test_life_joins_each_fit_when_asked(games: Path) -> None:
    recorded = json.loads(games.read_text())["games"]
    raw, mean, _, _, starts = rows(recorded, with_life=True)
    assert raw.shape[1] == len(FEATURES) + len(LIFE)
    # the piles are public: a start's life is the same averaged or not
    assert (raw[starts][:, len(FEATURES) :] == mean[starts][:, len(FEATURES) :]).all()
    out = judge([games], with_life=True)
    assert out["life"] is True and out["reach"] is False
    assert out["2p"]["every_raw"]["mse"] != judge([games])["2p"]["every_raw"]["mse"]


def test_a_file_that_is_not_a_record_of_games_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="cannot read it as JSON"):
        judge([tmp_path / "missing.json"])
    (tmp_path / "empty.json").write_text("{}")
    with pytest.raises(SystemExit, match="no games"):
        judge([tmp_path / "empty.json"])
