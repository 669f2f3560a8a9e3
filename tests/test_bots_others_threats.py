"""The other sides' tree moves judged their own way (`others_threats`, with
`others="policy"`): "lookahead" makes them reply to the next player's cards."""

from __future__ import annotations

import pytest
from botutil import CAMPIONE_LIKE, whimsical_position

from cirulla import bots
from cirulla.bots import Budget, SeatView
from cirulla.bots.search import IsmctsBot


def _visits(players: int, **extra: object) -> list[int]:
    deal = whimsical_position(11, 1, players=players)
    bot = IsmctsBot(seed=5, budget=Budget(iterations=400), **CAMPIONE_LIKE, **extra)  # type: ignore[arg-type]
    return bot.root_visits(SeatView(deal.view(0)))[1]


@pytest.mark.parametrize("players", [2, 4])
def test_others_threats_lookahead_reaches_the_tree_and_repeats_for_a_seed(players: int) -> None:
    plain = _visits(players)
    sharp = _visits(players, others_threats="lookahead")
    assert sum(v for v in sharp if v > 0) == 400
    # the others reply to the next player's cards: the search sees other futures
    assert sharp != plain
    assert _visits(players, others_threats="lookahead") == sharp


def test_others_threats_as_the_playouts_judge_is_the_search_without_it() -> None:
    # only the others' tree moves change: named as `threats`, nothing does
    assert _visits(4, others_threats="unseen") == _visits(4)


@pytest.mark.parametrize(
    "bad",
    [
        {"others": "policy", "others_threats": "deeper"},
        {"others": "policy", "others_threats": ["lookahead"]},
        {"others": "policy", "others_threats": 3},
        {"others_threats": "lookahead"},
    ],
)
def test_bad_others_threats_options_are_value_errors(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="others_threats"):
        bots.get("ismcts", **bad)


def test_others_threats_round_trips_through_options_and_is_off_by_default() -> None:
    assert IsmctsBot().options()["others_threats"] is None
    bot = IsmctsBot(others="policy", others_threats="lookahead")
    again = bots.get("ismcts", **bot.options())
    assert isinstance(again, IsmctsBot) and again.others_threats == "lookahead"
