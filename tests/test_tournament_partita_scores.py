"""What the bracket shows of a finished partita (competition/partita_scores.py): the
points before the spareggi, each spareggio's points (E3), the winner and the ending,
also when a timeout or abandon (E6) cuts a spareggio short."""

from __future__ import annotations

import random

from cirulla import Rules
from cirulla.competition.partita_scores import partita_score
from cirulla.game import Game

KNOCKOUT = Rules().replace(hands=1, knockout=True)


def _play(game: Game, rng: random.Random, deals: int | None = None) -> Game:
    """Random legal moves until the partita is over (or `deals` smazzate are over)."""
    while True:
        deal = game.deal
        while not deal.is_over:
            deal.play(rng.choice(deal.legal_moves()))
        if game.is_over or (deals is not None and len(game.deals) >= deals):
            return game
        game.next_deal()


def _tied_partita(spareggi: int) -> int:
    """The first seed whose partita of random moves needs at least `spareggi` spareggi."""
    for seed in range(20_000):
        game = _play(Game(KNOCKOUT, 2, seed=seed), random.Random(seed))
        if game.end_reason in ("spareggio", "last_capture") and len(game.deals) > spareggi:
            return seed
    raise AssertionError(f"no partita with {spareggi} spareggi")


def test_a_partita_on_points_has_no_spareggi() -> None:
    game = _play(Game(Rules().replace(target=21), 2, seed=5), random.Random(5))
    score = partita_score("t1", game)
    assert score == {
        "table": "t1",
        "status": "finished",
        "points": game.totals,
        "spareggi": [],
        "winner": game.winner,
        "end": game.end_reason,
    }


def test_spareggi_e3_are_the_smazzate_after_the_level_partita() -> None:
    seed = _tied_partita(2)
    game = _play(Game(KNOCKOUT, 2, seed=seed), random.Random(seed))
    totals = [d.score().totals for d in game.deals]
    score = partita_score("t2", game)
    assert score["points"] == totals[0] and totals[0][0] == totals[0][1]  # hands 1: level
    assert score["spareggi"] == totals[1:] and len(score["spareggi"]) >= 2
    assert score["winner"] == game.winner and score["end"] == game.end_reason


def test_a_timeout_in_a_spareggio_e6_keeps_the_spareggi_played_before_it() -> None:
    seed = _tied_partita(2)
    # the same moves as the tied partita up to the second spareggio's first card
    game = _play(Game(KNOCKOUT, 2, seed=seed), random.Random(seed), deals=2)
    game.next_deal()
    assert game.spareggio == 2
    level = game.deals[0].score().totals
    first = game.deals[1].score().totals
    game.forfeit(0, "timeout")
    score = partita_score("t3", game)
    assert score["points"] == level and score["spareggi"] == [first]
    assert score["winner"] == 1 and score["end"] == "timeout"


def test_a_timeout_between_the_level_smazzata_and_its_spareggio_shows_none() -> None:
    seed = _tied_partita(1)
    game = _play(Game(KNOCKOUT, 2, seed=seed), random.Random(seed), deals=1)
    assert not game.is_over and game.spareggio == 1  # the spareggio is due, not dealt
    game.forfeit(1, "abandon")
    score = partita_score("t4", game)
    assert score["points"] == game.deals[0].score().totals and score["spareggi"] == []
    assert score["winner"] == 0 and score["end"] == "abandon"
