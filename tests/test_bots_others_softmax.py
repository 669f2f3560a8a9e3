"""The other sides' moves in the tree drawn by the softmax model (`others_beta`, with
`others="policy"`; `policies.softmax_move`), in place of greedy's best."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from botutil import CAMPIONE_LIKE, whimsical_position

from cirulla import Deal, Rules, bots
from cirulla.bots import Budget, SeatView
from cirulla.bots.evaluate import greedy_score
from cirulla.bots.policies import UNSEEN, policy_move, softmax_move, sweep_threats
from cirulla.bots.search import IsmctsBot
from cirulla.moves import Move

RULES = Rules.preset("cirulla")


def _spread_position() -> tuple[Deal, list[Move], list[float]]:
    """A position whose mover has at least three plays of different greedy scores (no
    declaration), with those plays and their scores judged as UNSEEN judges them."""
    for seed in range(200):
        deal = whimsical_position(seed, 1)
        legal = deal.legal_moves()
        if any(m.kind != "play" for m in legal):
            continue
        seat = deal.to_move
        assert seat is not None
        threats = sweep_threats(deal, seat, UNSEEN, random.Random(0))
        last = deal.deck_left == 0 and deal._stage_plays + 1 == deal._stage_len
        scores = [greedy_score(m, deal._tkey, deal._table, threats, last) for m in legal]
        if len(legal) >= 3 and len({round(s, 6) for s in scores}) >= 3:
            return deal, legal, scores
    raise AssertionError("no position with three plays of different scores")


def test_softmax_move_draws_plays_in_proportion_to_exp_beta_times_greedy_score() -> None:
    deal, legal, scores = _spread_position()
    beta = 0.8
    top = max(scores)
    weights = [math.exp(beta * (s - top)) for s in scores]
    expected = {m.key: w / sum(weights) for m, w in zip(legal, weights, strict=True)}
    rng = random.Random(7)
    draws = 6000
    seen = Counter(softmax_move(deal, legal, beta, UNSEEN, rng).key for _ in range(draws))
    assert set(seen) <= set(expected)
    for key, p in expected.items():
        # 6,000 draws: a standard error under 0.0065; 0.03 is over four of them
        assert abs(seen[key] / draws - p) < 0.03, (key, seen[key] / draws, p)


def test_a_sharp_softmax_is_greedy_and_a_flat_one_tries_every_play() -> None:
    deal, legal, scores = _spread_position()
    best = policy_move(deal, legal, UNSEEN, random.Random(0))
    rng = random.Random(3)
    gap = sorted(scores)[-1] - sorted(scores)[-2]
    assert gap > 0  # (greedy's best is one play)
    sharp = 30.0 / gap  # every other play at most e**-30 as likely as the best
    assert {softmax_move(deal, legal, sharp, UNSEEN, rng).key for _ in range(300)} == {best.key}
    flat = {softmax_move(deal, legal, 1e-6, UNSEEN, rng).key for _ in range(300)}
    assert flat == {m.key for m in legal}


def test_softmax_move_declares_when_it_can_as_the_policy_does() -> None:
    for seed in range(400):
        deal = Deal(RULES, 2, 1, seed=seed)
        legal = deal.legal_moves()
        declares = [m for m in legal if m.kind == "declare"]
        if declares:
            move = softmax_move(deal, legal, 3.0, UNSEEN, random.Random(seed))
            assert move.kind == "declare"
            assert move.key == policy_move(deal, legal, UNSEEN, random.Random(seed)).key
            return
    raise AssertionError("no deal with a declaration in 400")


def test_others_beta_reaches_the_tree_and_plays_the_same_move_for_the_same_seed() -> None:
    deal = whimsical_position(11, 1, players=4)
    view = SeatView(deal.view(0))
    budget = Budget(iterations=400)
    plain = IsmctsBot(seed=5, budget=budget, **CAMPIONE_LIKE)  # type: ignore[arg-type]
    soft = IsmctsBot(seed=5, budget=budget, others_beta=0.5, **CAMPIONE_LIKE)  # type: ignore[arg-type]
    again = IsmctsBot(seed=5, budget=budget, others_beta=0.5, **CAMPIONE_LIKE)  # type: ignore[arg-type]
    legal, plain_visits = plain.root_visits(view)
    soft_legal, soft_visits = soft.root_visits(view)
    assert [m.key for m in soft_legal] == [m.key for m in legal]
    assert sum(v for v in soft_visits if v > 0) == 400
    # the others' tree moves are drawn, not greedy's: the search sees other futures
    assert soft_visits != plain_visits
    assert again.root_visits(view)[1] == soft_visits
    assert soft.choose(view).key in {m.key for m in view.legal}


@pytest.mark.parametrize(
    "bad",
    [
        {"others": "policy", "others_beta": 0},
        {"others": "policy", "others_beta": -1.0},
        {"others": "policy", "others_beta": 21.0},
        {"others": "policy", "others_beta": True},
        {"others": "policy", "others_beta": "3"},
        {"others_beta": 3.0},
    ],
)
def test_bad_others_beta_options_are_value_errors(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="others_beta"):
        bots.get("ismcts", **bad)


def test_others_beta_round_trips_through_options_and_is_off_by_default() -> None:
    assert IsmctsBot().options()["others_beta"] is None
    bot = IsmctsBot(others="policy", others_beta=3)
    assert bot.options()["others_beta"] == 3.0
    again = bots.get("ismcts", **bot.options())
    assert isinstance(again, IsmctsBot) and again.others_beta == 3.0
