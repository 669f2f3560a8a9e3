"""Statistics of a partita (competition/stats.py), on records made by the engine itself."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from conftest import play_out, stack

from cirulla import Game, Rules
from cirulla.competition.luck import dealer_odds, hand_odds
from cirulla.competition.stats import add, partita_stats
from cirulla.record import RecordError, game_record


def _json(data: Any) -> Any:
    return json.loads(json.dumps(data))


def _random_game(preset: str, players: int, seed: int) -> Game:
    rng = random.Random(seed)
    game = Game(Rules.preset(preset), players=players, seed=seed)
    while True:
        play_out(game.deal, rng.choice)
        if game.is_over:
            return game
        game.next_deal()


def _stacked_deal() -> Game:
    """Dealer 0 turns a 15 (B1); seat 0 holds a cirulla (B2), seat 1 a decino (B3)."""
    deck = stack(
        players=2,
        dealer=0,
        hands=[["AC", "2C", "3S"], ["5C", "5S", "5H"]],
        table=["2H", "3H", "4H", "6H"],
    )
    return Game(Rules(), players=2, dealer=0, deck=deck, deal_seed=1)


def test_stats_count_dealer_bonus_and_accusi_received_and_declared_by_seat() -> None:
    game = _stacked_deal()
    first = game.deal
    # seat 1 (first to play) declares its decino; seat 0 never declares (B7: may choose not to)
    play_out(
        first,
        lambda ms: (
            next((m for m in ms if not str(m).startswith("!")), ms[0])
            if first.to_move == 0
            else ms[0]
        ),
    )
    seat0, seat1 = partita_stats(_json(game_record(game)))
    assert (seat0["dealt"], seat0["dealer_bonus"], seat0["dealer_quindici"]) == (1, 1, 1)
    assert seat0["dealer_points"] == 1 and "dealt" not in seat1
    # received: the cirulla in the first hand, however many more the later stages gave
    assert seat0["hand_cirulla"] >= 1 and seat1["hand_decino"] >= 1
    assert seat1["declared_decino"] == 1 and seat1["declared_decino_points"] == 10
    assert "declared" not in seat0  # received but not declared
    assert seat0["hand_bonus"] >= 1 and "declared_cirulla" not in seat0
    assert seat0["hands"] == seat1["hands"] == 6  # D5: six stages with two players
    sheet = first.score().sides
    assert seat0["points"] == sheet[0]["total"] and seat1["points"] == sheet[1]["total"]
    assert seat0["smazzate"] == seat1["smazzate"] == 1


@pytest.mark.parametrize(
    ("preset", "players"),
    [
        ("cirulla", 2),
        ("cirulla", 3),
        ("cirulla", 4),
        ("pagat", 2),
        ("dossena", 2),
        ("scopa", 2),
        ("cirullone", 4),
    ],
)
def test_stats_add_up_to_the_score_sheets(preset: str, players: int) -> None:
    for seed in range(3):
        game = _random_game(preset, players, seed)
        rows = partita_stats(_json(game_record(game)))
        sides = game.deals[0].sides
        for side in range(sides):
            seats = [s for s in range(players) if s % sides == side]
            scope = sum(rows[s]["scope"] for s in seats)
            bonus = sum(
                rows[s].get("declared_points", 0) + rows[s].get("dealer_points", 0) for s in seats
            )
            assert scope == sum(d.score().sides[side]["scope"] for d in game.deals)
            assert bonus == sum(d.score().sides[side]["bonus"] for d in game.deals)
            for s in seats:
                assert rows[s]["points"] == game.totals[side]
                assert rows[s]["smazzate"] == len(game.deals)
                won = sum(d.score().sides[side]["primiera"] > 0 for d in game.deals)
                assert rows[s].get("won_primiera", 0) == won
        hands = hand_odds(game.rules)
        for s in range(players):
            row = rows[s]
            assert row.get("exp_hand_bonus", 0) == pytest.approx(
                row["hands"] * float(hands.p_qualifying)
            )
            assert (
                row.get("dealt", 0) == sum(d.dealer == s for d in game.deals) or preset == "scopa"
            )
            assert row.get("exp_dealer_points", 0) == pytest.approx(
                row.get("dealt", 0) * float(dealer_odds(game.rules).points_mean)
            )
        if preset == "cirullone":  # 9-card hands: no hand counted for the luck index
            assert all(r["hands"] == 0 for r in rows)
        if preset == "scopa":
            assert all("hand_bonus" not in r and "declared" not in r for r in rows)


def test_a_smazzata_halted_by_a_forfeit_has_no_score_but_its_hands_count() -> None:
    game = Game(Rules(), players=2, seed=5)
    play_out(game.deal)
    game.next_deal()
    for _ in range(7):
        game.deal.play(game.deal.legal_moves()[0])
    game.forfeit(1, "timeout")
    rows = partita_stats(_json(game_record(game)))
    assert rows[0]["smazzate"] == 1 and rows[0]["hands"] > 6


def test_rows_add_key_by_key_and_other_games_give_empty_rows() -> None:
    assert add({"scope": 2, "hands": 3}, {"scope": 1, "dealt": 1}) == {
        "scope": 3,
        "hands": 3,
        "dealt": 1,
    }
    assert partita_stats({"format": "cirulo.game/1", "players": 4}) == [{}, {}, {}, {}]


def test_a_record_that_does_not_replay_is_refused() -> None:
    record = _json(game_record(_random_game("cirulla", 2, 1)))
    record["totals"] = [0, 0]
    with pytest.raises(RecordError):
        partita_stats(record)
