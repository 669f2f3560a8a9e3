"""The engine's own edges (issue 12, item 16): a forfeited partita's smazzata refuses moves
(E6), option combinations no source describes are refused (C4, B4), and every number of a
rule set is bounded (E1, E2, CR2, and Cirulo's CI5 point value and hands)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import cirulla
from cirulla import Card, Game, IllegalMove, Rules
from cirulla.cirulo import CiruloRules

CIRULLA = Rules.preset("cirulla")


def _game_in_play(preset: str, players: int, moves: int) -> Game:
    """A partita with `moves` first-legal moves played in its first smazzata."""
    game = Game(Rules.preset(preset), players=players, seed=7)
    for _ in range(moves):
        game.deal.play(game.deal.legal_moves()[0])
    assert not game.deal.is_over
    return game


# ---- E6: a forfeited partita's smazzata stops ---------------------------------------------


@pytest.mark.parametrize(
    ("preset", "players", "reason"),
    [("cirulla", 2, "abandon"), ("cirulla", 3, "timeout"), ("scopa", 4, "abandon")],
)
def test_E6_a_forfeited_partitas_smazzata_refuses_every_move(
    preset: str, players: int, reason: Any
) -> None:
    game = _game_in_play(preset, players, moves=5)
    deal = game.deal
    seat = deal.to_move
    assert seat is not None
    before = deal.legal_moves()
    hand, table, events = deal.hand(seat), deal.table, deal.events
    settled = game.forfeit(seat % game.sides, reason)

    assert game.is_over and game.end_reason == reason and game.winner == settled.winner
    assert deal.to_move is None and deal.legal_moves() == []
    assert deal.halted == reason and not deal.is_over
    for move in [*before, str(before[0])]:
        with pytest.raises(IllegalMove, match="partita is over"):
            deal.play(move)
    # nothing moved: the hands, the table, the log and the settlement are as they were
    assert deal.hand(seat) == hand and deal.table == table and deal.events == events
    assert game.forfeit_result == settled
    with pytest.raises(ValueError, match="stopped before its end"):
        deal.score()
    assert "legal_moves" not in deal.view(seat) and deal.view(seat)["to_move"] is None
    copy = deal.copy()  # the bots' search copies deals: the copy stays stopped too
    assert copy.legal_moves() == [] and copy.halted == reason
    with pytest.raises(ValueError, match="partita is over"):
        game.next_deal()


def test_E6_a_forfeit_between_smazzate_leaves_the_finished_smazzata_as_it_was() -> None:
    game = Game(CIRULLA.replace(target=1000), players=2, seed=3)
    while not game.deal.is_over:
        game.deal.play(game.deal.legal_moves()[0])
    sheet = game.deal.score().to_dict()
    game.forfeit(1, "timeout")
    assert game.is_over and game.end_reason == "timeout"
    assert game.deal.is_over and game.deal.halted is None
    assert game.deal.score().to_dict() == sheet
    with pytest.raises(IllegalMove, match="smazzata is over"):
        game.deal.play("5C")


def test_E6_a_forfeited_partita_replays_from_its_record_with_its_smazzata_stopped() -> None:
    game = _game_in_play("pagat", 4, moves=9)
    game.forfeit(0, "abandon")
    record = json.loads(json.dumps(cirulla.game_record(game)))
    assert record["deals"][-1]["over"] is False

    again = cirulla.replay_game(record)
    assert cirulla.game_record(again) == record
    assert again.deal.halted == "abandon" and again.deal.legal_moves() == []
    with pytest.raises(IllegalMove, match="partita is over"):
        again.deal.play(game.deals[-1].moves[0])


# ---- C4, B4: combinations no source describes -----------------------------------------------


def test_C4_the_matta_may_be_any_card_but_a_diamond() -> None:
    """S001: 'a different card, such as the Queen of hearts'; diamonds score on their own."""
    for card in map(str, cirulla.full_deck()):
        if card.endswith("D"):
            for name in (card, card.lower()):
                with pytest.raises(ValueError, match=r"wild_card.*diamond"):
                    CIRULLA.replace(wild_card=name)
            with pytest.raises(ValueError, match="wild_card"):
                Rules.from_dict({**CIRULLA.to_dict(), "wild_card": card})
        else:
            rules = CIRULLA.replace(wild_card=card)
            assert rules.matta() is Card.parse(card)
            assert Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules


def test_B4_bonuses_stack_with_no_decino_is_refused_naming_both() -> None:
    for rules in (CIRULLA.replace(bonuses_stack=True), CIRULLA.replace(no_decino=True)):
        with pytest.raises(ValueError, match=r"bonuses_stack.*no_decino"):
            rules.replace(bonuses_stack=True, no_decino=True)
    with pytest.raises(ValueError, match=r"bonuses_stack.*no_decino"):
        Rules(bonuses_stack=True, no_decino=True)
    for preset in Rules.presets():  # the presets are untouched by the new checks
        assert Rules.from_dict(Rules.preset(preset).to_dict()) == Rules.preset(preset)


# ---- bounded numbers -------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "most"), [("target", 1000), ("hands", 100)])
def test_E1_E2_target_and_hands_are_bounded_with_an_error_naming_the_option(
    name: str, most: int
) -> None:
    assert getattr(CIRULLA.replace(**{name: most}), name) == most
    for bad in (most + 1, 10**9, 10**30):
        with pytest.raises(ValueError, match=rf"{name}.*1 to {most}"):
            CIRULLA.replace(**{name: bad})
        with pytest.raises(ValueError, match=name):
            Rules.from_dict({**CIRULLA.to_dict(), "target": None, **{name: bad}})


def test_CR2_stages_deal_each_player_at_most_18_cards() -> None:
    assert CIRULLA.replace(stages=(18,)).check_players(2) == 2
    assert CIRULLA.replace(stages=(9, 9)).check_players(2) == 2
    for bad in ((19,), (10**30,), (9, 9, 1), (1,) * 19):
        with pytest.raises(ValueError, match=r"stages.*at most 18"):
            CIRULLA.replace(stages=bad)


@pytest.mark.parametrize(("name", "most"), [("point_value", 1000), ("hands", 100)])
def test_CI5_cirulo_point_value_and_hands_are_bounded_with_an_error_naming_the_option(
    name: str, most: int
) -> None:
    assert getattr(CiruloRules().replace(**{name: most}), name) == most
    for bad in (most + 1, 10**9, 10**40):
        options: dict[str, Any] = {name: bad}
        with pytest.raises(ValueError, match=rf"{name}.*1 to {most}"):
            CiruloRules(**options)
        with pytest.raises(ValueError, match=name):
            CiruloRules.from_dict(options)
