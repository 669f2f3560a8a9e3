"""benchmarks/model_fit.py: the log score of an opponent model on the hands really held."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from cirulla import Deal, Rules
from cirulla.bots import level_bot
from cirulla.bots.base import SeatView

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from model_fit import run, score


def test_a_greedy_model_knows_greedy_players_hands_better_than_the_uniform_prior() -> None:
    result = run("normale", deals=4, players=4, redraws=60, seed=1)
    opponents = result["opponents"]
    assert opponents["campione"]["score"]["n"] > 20
    # campione's factors model greedy players: their real hands score well above the
    # uniform prior (0), and above the model without greedy's score
    assert opponents["campione"]["score"]["mean"] > 0.2
    assert opponents["no_greedy"]["minus_campione"]["ci95"][1] < 0.0


def test_a_model_that_notes_nothing_scores_every_hand_zero() -> None:
    models = {"campione": (0.4, 0.1, 0.05, 0.05), "flat": (1.0, 1.0, 1.0, 1.0)}
    deal = Deal(Rules.preset("cirulla"), players=4, dealer=3, seed=5)
    bots = [level_bot("normale", seed=s) for s in range(4)]
    rng = random.Random(2)
    seen = 0
    while not deal.is_over:
        seat = deal.to_move
        assert seat is not None
        view = SeatView(deal.view(seat))
        for by_model in score(deal, seat, view, rng, 30, models).values():
            # kept because campione's factors noted something; the flat ones never do
            assert by_model["flat"] == 0.0
            seen += 1
        deal.play(bots[seat].choose(view))
    assert seen > 10


def test_scores_are_set_against_campiones_model() -> None:
    with pytest.raises(ValueError, match="campione"):
        run("normale", deals=1, players=2, redraws=5, seed=1, models={"flat": (1.0,) * 4})
