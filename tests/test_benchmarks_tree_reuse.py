"""benchmarks/tree_reuse.py: how far a determinization follows the moves really played."""

from __future__ import annotations

import random
import sys
from pathlib import Path

from cirulla import Deal, Move, Rules
from cirulla.bots.policies import NEXT_HAND, policy_move

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from tree_reuse import follow


def _deal_and_path(moves: int) -> tuple[Deal, list[Move]]:
    deal = Deal(Rules.preset("cirulla"), players=2, dealer=1, seed=11)
    played = deal.copy()
    rng = random.Random(3)
    for _ in range(moves):
        played.play(rng.choice(played.legal_moves()))
    return deal, played.moves


def test_own_moves_are_followed_and_the_other_sides_only_where_the_policy_plays_them() -> None:
    deal, path = _deal_and_path(1)
    assert deal.to_move == 0
    # seat 0's own move is always followed where its card is held
    assert follow(deal.copy(), path, 0, random.Random(1), NEXT_HAND) == 1
    after = deal.copy()
    after.play(path[0])
    legal = after.legal_moves()
    policy = policy_move(after.copy(), legal, NEXT_HAND)
    other = next(m for m in legal if m.key != policy.key)
    for answer, low, high in ((policy, 85, 100), (other, 0, 15)):
        reached = sum(
            follow(deal.copy(), [path[0], answer], 0, random.Random(s), NEXT_HAND) == 2
            for s in range(100)
        )
        # the policy's move but for epsilon (0.1); another move only by epsilon's draw
        assert low <= reached <= high, (answer, reached)


def test_a_move_whose_card_the_sample_does_not_hold_is_not_followed() -> None:
    _, path = _deal_and_path(1)
    other = Deal(Rules.preset("cirulla"), players=2, dealer=1, seed=12)
    held = {m.key for m in other.legal_moves()}
    if path[0].key in held:  # the two deals share the card: another seed
        other = Deal(Rules.preset("cirulla"), players=2, dealer=1, seed=13)
    assert path[0].key not in {m.key for m in other.legal_moves()}
    assert follow(other, path, 0, random.Random(1), NEXT_HAND) == 0
