"""benchmarks/bot_ratings.py: the fit of the shipped bot ratings, and campione's budget."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cirulla.bots.base import Budget
from cirulla.bots.levels import LEVELS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from bot_ratings import BOTS, campione_budget, fit


def _matchup(a: str, b: str, a_won: int, partite: int = 100) -> dict[str, object]:
    return {"a": a, "b": b, "partite": partite, "a_won": a_won}


def test_the_fit_anchors_normale_and_orders_the_bots_by_their_results() -> None:
    # each bot beats every weaker one 70 times in 100; one sweeps campione's match-ups
    matchups = [
        _matchup(a, b, 30 if b != "campione" else 0)
        for i, a in enumerate(BOTS)
        for b in BOTS[i + 1 :]
    ]
    levels = fit(matchups)
    assert levels["normale"]["rating"] == 1200.0
    ratings = [levels[b]["rating"] for b in BOTS]
    assert ratings == sorted(ratings) and len(set(ratings)) == len(BOTS)
    # a sweep stays finite (the virtual draw), and far above a 70% edge
    gap = levels["campione"]["rating"] - levels["difficile"]["rating"]
    assert 200 < gap < 2000
    assert levels["campione"]["partite"] == 4 * 100


def test_campione_plays_its_level_budget_unless_told_fewer_iterations() -> None:
    assert (
        campione_budget(argparse.Namespace(campione_iterations=None)) == LEVELS["campione"].budget
    )
    assert campione_budget(argparse.Namespace(campione_iterations=300)) == Budget(300, 1.0)
