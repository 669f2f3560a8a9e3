"""benchmarks/play_rates.py: how often a bot's plays surprise campione's opponent model."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from play_rates import run


def test_greedy_rarely_surprises_the_greedy_model_and_a_whimsical_greedy_often_does() -> None:
    normale = run("normale", deals=12, players=4, seed=3)
    facile = run("facile", deals=12, players=4, seed=3)
    assert normale["plays"] > 80 and facile["plays"] > 80
    # normale plays greedy's best but where its threats (the cards it cannot see) differ
    # from the model's (every card not public); facile plays a third of its moves at random
    assert normale["greedy"]["share"] < 0.08
    assert facile["greedy"]["share"] > normale["greedy"]["share"] + 0.1
    # a sweep is worth a point more to greedy's score, so greedy rarely leaves one it holds
    assert normale["scopa"]["hits"] < facile["scopa"]["hits"]
    assert normale["capture_when_possible"]["share"] < 0.2
    for rates in (normale, facile):
        for key in ("scopa_when_possible", "capture_when_possible"):
            assert rates[key]["hits"] <= rates[key]["of"] <= rates["plays"]
