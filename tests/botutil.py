"""Positions for the opponent model's tests: players far from greedy's play."""

from __future__ import annotations

import random

from cirulla import Deal, Rules, bots
from cirulla.bots import choose_move

RULES = Rules.preset("cirulla")

#: The parts of campione's options that shape its tree (`levels.CAMPIONE_OPTIONS` less
#: the model's factors): the base the tests of the others' tree moves change one thing of.
CAMPIONE_LIKE = {"infer": True, "others": "policy", "threats": "unseen", "epsilon": 0.1}


def whimsical_position(seed: int, stage: int, players: int = 2) -> Deal:
    """A smazzata in `stage` (0-based) or later, seat 0 greedy and to move with a choice
    after every other seat, each playing at random (far from greedy's play), has played
    in the stage."""
    deal = Deal(RULES, players, players - 1, seed=seed)
    greedy = bots.get("greedy", seed=seed)
    rng = random.Random(seed)
    while True:
        seat = deal.to_move
        assert seat is not None and not deal.is_over
        if (
            seat == 0
            and deal.stage >= stage
            and deal._stage_plays >= players
            and len(deal.legal_moves()) > 1
        ):
            return deal
        move = choose_move(greedy, deal, 0) if seat == 0 else rng.choice(deal.legal_moves())
        deal.play(move)
