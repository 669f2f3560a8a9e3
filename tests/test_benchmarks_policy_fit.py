"""benchmarks/policy_fit.py: a softmax model of play, fitted to recorded smazzate."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from policy_fit import fit, loglik, observations, play


def test_a_uniform_model_scores_zero_and_greedy_players_fit_a_sharp_softmax(
    tmp_path: Path,
) -> None:
    games = play(deals=6, players=2, seed=3, bots=["normale"])
    assert len(games["games"]) == 6 and all(g["bots"] == ["normale"] * 2 for g in games["games"])
    obs = observations(games["games"])
    assert len(obs) > 60
    assert abs(loglik(obs, 0.0, 0.0)) < 1e-12  # beta 0: the uniform choice itself
    path = tmp_path / "games.json"
    path.write_text(json.dumps(games))
    result = fit([path])
    normale = result["normale"]
    # greedy players make greedy's top play nearly always, as an observer judges it
    assert normale["greedy_top_share"] > 0.85
    beta = float(normale["best"].split(",")[0])
    assert beta >= 3.0 and normale["best_nats"] > 0.5
    assert normale["best_nats"] > normale["grid"]["0.5,0.0"] + 0.2


def test_a_player_with_whims_fits_a_softmax_blended_with_the_uniform_choice() -> None:
    games = play(deals=4, players=2, seed=5, bots=["facile"])
    obs = observations(games["games"])
    # facile plays one move in three at random: a sharp softmax alone calls those
    # plays near impossible, one blended with the uniform choice does not
    assert loglik(obs, 3.0, 0.4) > loglik(obs, 3.0, 0.0)
