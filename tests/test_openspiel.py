"""The OpenSpiel game "python_cirulla": OpenSpiel's own checks and tools run on it, and
its information states hold only what a seat may know."""

from __future__ import annotations

import json
import random

import numpy as np
import pyspiel
import pytest
from conftest import PRESET_PLAYERS
from open_spiel.python.algorithms import ismcts, mcts

from cirulla import Card
from cirulla.env.encoding import OBSERVATION_SIZE, move_actions
from cirulla.env.openspiel import GAME_NAME, INFO_STATE_SIZE, CirullaState


def _load(**params: object) -> pyspiel.Game:
    return pyspiel.load_game(GAME_NAME, params)


def _deal_out(state: CirullaState, rng: random.Random) -> None:
    while state.is_chance_node():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))


def _random_position(game: pyspiel.Game, rng: random.Random, depth: int) -> CirullaState:
    """A state after the deal and up to `depth` random player actions (not terminal)."""
    state = game.new_initial_state()
    _deal_out(state, rng)
    for _ in range(depth):
        if state.is_terminal():
            break
        child = state.clone()
        child.apply_action(rng.choice(child.legal_actions()))
        if child.is_terminal():
            break
        state = child
    return state


def _with_prefix(game: pyspiel.Game, rng: random.Random) -> CirullaState:
    """A state whose seat to move is half-way through a multi-action move."""
    for _ in range(500):
        state = _random_position(game, rng, rng.randrange(30))
        if state.is_terminal() or state.is_chance_node():
            continue
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(action)
            if child.prefix:
                return child
    raise AssertionError("no position with a pending prefix found")


def test_load_game_parameters_and_shapes() -> None:
    game = _load(players=4, preset="cirullone")
    assert game.num_players() == 4
    assert game.num_distinct_actions() == 104
    assert game.max_chance_outcomes() == 40
    assert game.observation_tensor_shape() == [OBSERVATION_SIZE]
    assert game.information_state_tensor_shape() == [INFO_STATE_SIZE]
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    defaults = _load()
    assert defaults.num_players() == 2


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"preset": "nope"}, "unknown preset 'nope'"),
        ({"players": 5}, "players must be 2, 3 or 4"),
        ({"preset": "cirullone", "players": 2}, "is for 4 players"),
        ({"options": "{not json"}, "options must be a JSON object"),
        ({"options": '{"no_such_option": true}'}, "unknown rules option 'no_such_option'"),
        ({"options": "[1]"}, "options must be a JSON object"),
        ({"dealer": 2}, "dealer must be a seat from 0 to 1"),
        ({"scope": "partita"}, "scope must be 'smazzata'"),
    ],
)
def test_bad_parameters_are_refused_with_a_clear_error(
    params: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        _load(**params)


@pytest.mark.parametrize(("preset", "players"), PRESET_PLAYERS)
def test_openspiel_random_simulation_checks_every_preset(preset: str, players: int) -> None:
    game = _load(players=players, preset=preset, dealer=players - 1)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_openspiel_random_simulation_checks_declare_at_deal_and_options() -> None:
    options = {"declare_at_deal": True, "ace_choice": True, "may_decline_capture": True}
    game = _load(players=4, options=json.dumps(options))
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)
    game = _load(players=4, options=json.dumps({"carte_scoperte": True}))
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    game = _load(players=2, options=json.dumps({"carte_viste": True}))
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_chance_deals_each_card_once_uniformly() -> None:
    state = _load().new_initial_state()
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(40))
    assert all(p == pytest.approx(1 / 40) for _, p in outcomes)
    state.apply_action(7)
    outcomes = state.chance_outcomes()
    assert 7 not in [a for a, _ in outcomes] and len(outcomes) == 39
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)


def _deck_ids(first: list[str]) -> list[int]:
    """The front of the deck as given, then every other card in id order."""
    ids = [Card.parse(c).id for c in first]
    return ids + [i for i in range(40) if i not in ids]


def test_misdeal_deals_a_fresh_deck_and_keeps_its_table_public() -> None:
    game = _load(players=2)
    state = game.new_initial_state()
    # 2 players, 3 cards each, then the table: two aces on it is a misdeal (D6)
    for card in _deck_ids(["2C", "3C", "4C", "5C", "6C", "7C", "AD", "AH", "JS", "QS"]):
        state.apply_action(card)
    assert state.is_chance_node() and len(state.chance_outcomes()) == 40
    assert state.misdeals == [["AD", "AH", "JS", "QS"]]
    _deal_out(state, random.Random(3))
    assert state.deal is not None and state.deal.misdeals == 0


def test_third_luzzati_misdeal_wins_for_the_side_after_the_dealer() -> None:
    game = _load(players=2, preset="luzzati", dealer=1)
    state = game.new_initial_state()
    for _ in range(3):
        for card in _deck_ids(["2C", "3C", "4C", "5C", "6C", "7C", "AD", "AH", "JS", "QS"]):
            state.apply_action(card)
    assert state.is_terminal() and len(state.misdeals) == 3
    target = game.target
    assert state.returns() == [target, -target]  # D7(c): the side after the dealer wins


@pytest.mark.parametrize("players", [2, 3, 4])
def test_returns_are_each_sides_points_less_the_others_mean(players: int) -> None:
    game = _load(players=players)
    rng = random.Random(players)
    for _ in range(5):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                _deal_out(state, rng)
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        returns = state.returns()
        assert sum(returns) == pytest.approx(0.0)
        deal = state.deal
        assert deal is not None
        totals = deal.score().totals
        if deal.instant_winner is None:
            sides = len(totals)
            for seat in range(players):
                side = deal.side_of(seat)
                mean_others = (sum(totals) - totals[side]) / (sides - 1)
                assert returns[seat] == pytest.approx(totals[side] - mean_others)


def test_a_move_is_entered_as_its_action_sequence() -> None:
    game = _load(players=2)
    state = _with_prefix(game, random.Random(5))
    deal = state.deal
    assert deal is not None
    before = len(deal.moves)
    candidates = [
        m for m in deal.legal_moves() if move_actions(m)[: len(state.prefix)] == state.prefix
    ]
    assert len(candidates) > 1  # the prefix is ambiguous, so the same seat acts again
    player = state.current_player()
    target = candidates[0]
    for action in move_actions(target)[len(state.prefix) :]:
        if len(deal.moves) > before:
            break
        assert state.current_player() == player
        state.apply_action(action)
        deal = state.deal
        assert deal is not None
    assert deal.moves[before] == target
    assert state.prefix == ()


@pytest.mark.parametrize("players", [2, 4])
def test_ismcts_bot_plays_whole_games_against_random(players: int) -> None:
    game = _load(players=players)
    rng = np.random.RandomState(7)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=rng)
    choose = random.Random(players)
    for _ in range(2):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                _deal_out(state, choose)
            elif state.current_player() == 0:
                action = bot.step(state)
                assert action in state.legal_actions()
                state.apply_action(action)
            else:
                state.apply_action(choose.choice(state.legal_actions()))
        assert sum(state.returns()) == pytest.approx(0.0)


def _hidden_hands(state: CirullaState, player: int) -> list[list[Card]]:
    deal = state.deal
    assert deal is not None
    return [deal.hand(s) for s in range(deal.players) if s != player]


@pytest.mark.parametrize(
    ("players", "options"),
    [(2, {}), (3, {}), (4, {}), (4, {"carte_scoperte": True}), (2, {"carte_viste": True})],
)
def test_information_state_is_the_same_when_only_hidden_cards_differ(
    players: int, options: dict[str, bool]
) -> None:
    game = _load(players=players, options=json.dumps(options))
    rng = random.Random(11)
    positions = [_random_position(game, rng, rng.randrange(40)) for _ in range(12)]
    positions.append(_with_prefix(game, rng))
    changed = 0
    for state in positions:
        if state.is_terminal():
            continue
        for player in range(players):
            other = state.clone()
            deal = other.deal
            assert deal is not None
            deal.redeal_unseen(player, rng)  # the engine's own re-draw of hidden cards
            changed += _hidden_hands(other, player) != _hidden_hands(state, player)
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.information_state_tensor(player) == state.information_state_tensor(player)
            assert other.observation_string(player) == state.observation_string(player)
            assert other.observation_tensor(player) == state.observation_tensor(player)
            if player == state.current_player():
                assert other.legal_actions() == state.legal_actions()
    assert changed > 0  # the hidden cards did differ somewhere


@pytest.mark.parametrize(("players", "preset"), [(2, "cirulla"), (3, "pagat"), (4, "cirullone")])
def test_resample_from_infostate_keeps_the_players_information(players: int, preset: str) -> None:
    game = _load(players=players, preset=preset)
    rng = random.Random(13)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    positions = [_random_position(game, rng, rng.randrange(30)) for _ in range(8)]
    positions.append(_with_prefix(game, rng))
    differs = 0
    for state in positions:
        if state.is_terminal():
            continue
        for player in range(players):
            sample = state.resample_from_infostate(player, sampler)
            assert sample.information_state_string(player) == state.information_state_string(player)
            assert sample.information_state_tensor(player) == state.information_state_tensor(player)
            assert sample.current_player() == state.current_player()
            assert sample.prefix == (state.prefix if player == state.current_player() else ())
            assert sample.deal is not None and state.deal is not None
            assert sample.deal.moves == state.deal.moves
            differs += _hidden_hands(sample, player) != _hidden_hands(state, player)
            # the sample is a real state: it plays on to the end
            while not sample.is_terminal():
                sample.apply_action(rng.choice(sample.legal_actions()))
    assert differs > 0


def test_information_state_string_holds_no_other_seats_hidden_card() -> None:
    game = _load(players=2)
    state = _random_position(game, random.Random(17), 3)
    deal = state.deal
    assert deal is not None
    text = state.information_state_string(0)
    for card in deal.hand(1):
        assert str(card) not in text.split("history:")[0]
    assert "seat 0 (side 0) of 2" in text
    assert state.information_state_string(0) != state.information_state_string(1)


def test_clone_is_independent() -> None:
    game = _load(players=2)
    state = _random_position(game, random.Random(19), 2)
    copy = state.clone()
    before = str(state)
    copy.apply_action(copy.legal_actions()[0])
    assert str(state) == before
    assert str(copy) != before
    pending = _with_prefix(game, random.Random(23))
    assert pending.clone().prefix == pending.prefix != ()
    assert str(pending.clone()) == str(pending)
