"""The PettingZoo environment and the Gymnasium wrapper (cirulla.env, docs/environments.md).

The shared action encoding and observation are tested in test_env_encoding.py."""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, performance_benchmark, render_test, seed_test
from test_env_encoding import CONFIGS, IDS

from cirulla import Game, Rules
from cirulla.env import SingleAgentEnv, env, raw_env
from cirulla.env.aec import side_rewards
from cirulla.moves import IllegalMove, Move


def test_no_leak_through_the_environment_observe() -> None:
    """The environment's observe reads the view only: swapping in a deal with other
    hidden cards changes no agent's observation but for the agents that see them."""
    e = raw_env(players=4)
    rng = random.Random(1)
    e.reset(seed=11)
    changed = 0
    for _ in range(30):
        agent = e.agent_selection
        seat = e.seat_of(agent)
        before = e.observe(agent)
        real = e.game.deals[-1]  # type: ignore[union-attr]
        alt = real.copy()
        alt.redeal_unseen(seat, rng)
        changed += any(alt.hand(s) != real.hand(s) for s in range(4) if s != seat)
        e.game.deals[-1] = alt  # type: ignore[union-attr]
        e._views.clear()
        after = e.observe(agent)
        assert np.array_equal(before["observation"], after["observation"])
        assert np.array_equal(before["action_mask"], after["action_mask"])
        e.game.deals[-1] = real  # type: ignore[union-attr]
        e._views.clear()
        e.step(int(rng.choice(np.flatnonzero(before["action_mask"]))))
    assert changed > 15


def test_render_shows_only_the_seat_to_move_hand() -> None:
    e = raw_env(players=4, render_mode="ansi")
    e.reset(seed=2)
    text = e.render()
    assert isinstance(text, str)
    seat = e.deal.to_move
    assert seat is not None
    for s in range(4):
        for card in e.deal.hand(s):
            if s == seat:
                assert str(card) in text
            elif card not in e.deal.table:
                assert str(card) not in text.split("table:")[1]


def test_pettingzoo_render_test(capsys: pytest.CaptureFixture[str]) -> None:
    render_test(lambda render_mode=None: env(players=3, render_mode=render_mode))
    assert "player_0" in capsys.readouterr().out  # "human" printed the table


# ---- the PettingZoo API -------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players", "options"), CONFIGS, ids=IDS)
def test_pettingzoo_api_test(preset: str, players: int, options: dict[str, Any] | None) -> None:
    api_test(env(players=players, preset=preset, options=options), num_cycles=60)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_test_whole_partita(players: int) -> None:
    api_test(
        env(players=players, preset="scopa" if players != 3 else "cirulla", reward="partita"),
        num_cycles=300,
    )


@pytest.mark.parametrize(
    ("preset", "players"), [("cirulla", 2), ("cirulla", 3), ("cirullone", 4), ("scopa", 4)]
)
def test_pettingzoo_seed_test(preset: str, players: int) -> None:
    seed_test(lambda: env(players=players, preset=preset), num_cycles=100)


def test_pettingzoo_performance_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    performance_benchmark(env(players=4))  # PettingZoo's: five seconds of random play
    out = capsys.readouterr().out
    turns = float(out.split(" turns per second")[0].split("\n")[-1])
    assert turns > 100


def test_bad_arguments_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="players"):
        raw_env(players=5)
    with pytest.raises(ValueError, match="preset"):
        raw_env(preset="briscola")
    with pytest.raises(ValueError, match="option"):
        raw_env(options={"no_such_rule": True})
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="points")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="scopa"):
        raw_env(players=3, preset="scopa")


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    e = raw_env(players=3)
    e.reset(seed=4)
    agent = e.agent_selection
    before = e.observe(agent)
    bad = int(np.flatnonzero(before["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        e.step(bad)
    assert e.agent_selection == agent and e.prefix == ()
    assert np.array_equal(e.observe(agent)["observation"], before["observation"])
    assert len(e.deal.moves) == 0


def test_the_seat_to_act_gets_its_view_and_legal_moves_in_infos() -> None:
    e = raw_env(players=2)
    e.reset(seed=9)
    agent = e.agent_selection
    info = e.infos[agent]
    assert info["view"] == e.deal.view(e.seat_of(agent))
    assert info["legal_moves"] == [str(m) for m in e.deal.legal_moves()]
    assert info["prefix"] == []


# ---- seeding -------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players"), [("cirulla", 4), ("scopa", 2), ("pagat", 3)])
def test_reset_with_a_seed_deals_the_partita_of_that_seed(preset: str, players: int) -> None:
    e = raw_env(players=players, preset=preset)
    for seed in (0, 1, 12345, 2**62):
        e.reset(seed=seed)
        game = Game(Rules.preset(preset), players, seed=seed)
        assert e.episode_seed == seed  # no preset here has instant wins at these seeds
        assert e.deal.initial_deck == game.deal.initial_deck
        assert e.deal.dealer == game.deal.dealer
    e.reset(seed=5)
    first = (e.deal.initial_deck, e.deal.dealer)
    e.reset(seed=6)
    assert (e.deal.initial_deck, e.deal.dealer) != first
    e.reset(seed=5)
    assert (e.deal.initial_deck, e.deal.dealer) == first


def test_resets_without_a_seed_follow_the_last_seed() -> None:
    a, b = raw_env(players=2), raw_env(players=2)
    a.reset(seed=3)
    b.reset(seed=3)
    for _ in range(3):
        a.reset()
        b.reset()
        assert a.deal.initial_deck == b.deal.initial_deck and a.deal.dealer == b.deal.dealer


def test_luzzati_instant_wins_are_skipped_reproducibly() -> None:
    """D7: a smazzata won at the deal has no move, so reset deals past it, the same way
    for the same seed."""
    e = raw_env(players=2, preset="luzzati")
    skipped = 0
    for seed in range(400):
        e.reset(seed=seed)
        assert not e.deal.is_over and e.agents == e.possible_agents
        skipped += len(e.game.deals) > 1 or e.episode_seed != seed  # type: ignore[union-attr]
        deck = e.deal.initial_deck
        e.reset(seed=seed)
        assert e.deal.initial_deck == deck
    assert skipped > 0


# ---- rewards -------------------------------------------------------------------------


def play_out(e: Any, rng: random.Random) -> dict[str, float]:
    """Random legal actions to the end of the episode; each agent's total reward."""
    totals: dict[str, float] = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


@pytest.mark.parametrize("players", [2, 3, 4])
def test_smazzata_reward_is_the_side_points_less_the_others_mean(players: int) -> None:
    e = raw_env(players=players)
    e.reset(seed=21)
    deal = e.deal
    totals = play_out(e, random.Random(0))
    points = deal.score().totals
    want = side_rewards(points)
    for i, agent in enumerate(e.possible_agents):
        assert totals[agent] == pytest.approx(want[deal.side_of(i)])
    assert sum(want) == pytest.approx(0)
    if players != 3:
        assert want[0] == points[0] - points[1]


@pytest.mark.parametrize(("preset", "players"), [("scopa", 2), ("cirulla", 3), ("scopa", 4)])
def test_partita_reward_is_won_or_lost_at_the_end(preset: str, players: int) -> None:
    e = raw_env(players=players, preset=preset, reward="partita")
    e.reset(seed=8)
    game = e.game
    assert game is not None
    totals = play_out(e, random.Random(1))
    assert game.is_over and len(game.deals) > 1
    sides = game.sides
    for i, agent in enumerate(e.possible_agents):
        won = game.deal.side_of(i) == game.winner
        assert totals[agent] == pytest.approx(1.0 if won else -1 / (sides - 1))


# ---- the Gymnasium wrapper -------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "preset", "seat"), [(2, "cirulla", 0), (3, "pagat", 2), (4, "cirulla", 1)]
)
def test_gymnasium_check_env_passes(players: int, preset: str, seat: int) -> None:
    check_env(SingleAgentEnv(players=players, preset=preset, seat=seat), skip_render_check=True)
    check_env(
        gymnasium.make("Cirulla-v0", players=players, preset=preset, render_mode="ansi").unwrapped
    )


@pytest.mark.parametrize(
    ("players", "level", "reward"),
    [
        (2, "normale", "smazzata"),
        (3, "facile", "smazzata"),
        (4, "difficile", "smazzata"),
        (2, "normale", "partita"),
    ],
)
def test_gymnasium_wrapper_plays_whole_episodes(players: int, level: str, reward: str) -> None:
    e = gymnasium.make("Cirulla-v0", players=players, level=level, reward=reward)
    rng = np.random.default_rng(0)
    for episode in range(3):
        obs, info = e.reset(seed=episode)
        assert e.unwrapped.aec.agent_selection == "player_0"
        done, total, steps = False, 0.0, 0
        while not done:
            assert obs["action_mask"].any()
            assert np.array_equal(obs["action_mask"].astype(bool), e.unwrapped.action_masks())
            obs, r, term, trunc, info = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            total += float(r)
            done = term or trunc
            steps += 1
        assert "illegal_action" not in info and "points" in info
        assert steps >= 3
        if reward == "smazzata":
            deal = e.unwrapped.aec.deal
            assert total == pytest.approx(side_rewards(deal.score().totals)[deal.side_of(0)])
        else:
            assert total in (1.0, -1.0)


def test_gymnasium_wrapper_reproduces_an_episode_from_its_seed() -> None:
    def run(seed: int) -> list[Any]:
        e = SingleAgentEnv(players=4, level="difficile")
        obs, _ = e.reset(seed=seed)
        trace: list[Any] = []
        done = False
        while not done:
            a = int(np.flatnonzero(obs["action_mask"])[-1])
            obs, r, term, _, _ = e.step(a)
            trace.append((a, float(r), obs["observation"].tobytes()))
            done = term
        return trace

    assert run(4) == run(4)
    assert run(4) != run(5)


def test_gymnasium_illegal_actions_terminate_or_raise() -> None:
    e = SingleAgentEnv(players=2)
    obs, _ = e.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, r, term, trunc, info = e.step(bad)
    assert term and not trunc and r == -100.0 and "not legal" in info["illegal_action"]
    with pytest.raises(ValueError, match="reset"):
        e.step(0)
    strict = SingleAgentEnv(players=2, illegal_action="raise")
    obs, _ = strict.reset(seed=1)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(bad)
    strict.step(int(np.flatnonzero(obs["action_mask"])[0]))  # still playable
    with pytest.raises(ValueError, match="level"):
        SingleAgentEnv(level="impossibile")
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv(players=2, seat=2)


def test_the_engine_imports_no_numpy() -> None:
    import subprocess
    import sys

    code = "import sys, cirulla, cirulla.bots; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_play_move_plays_a_whole_legal_move_or_refuses() -> None:
    e = raw_env(players=2)
    e.reset(seed=3)
    legal = e.deal.legal_moves()
    seat = e.seat_of(e.agent_selection)
    with pytest.raises(IllegalMove):
        e.play_move("not a move")
    with pytest.raises(IllegalMove, match="not a legal move"):
        e.play_move(Move.play(e.deal.hand(1 - seat)[0]))  # the other seat's card
    assert e.deal.moves == [] and e.agent_selection == f"player_{seat}"
    e.play_move(str(legal[-1]).lower())
    assert e.deal.moves == [legal[-1]] and e.agent_selection == f"player_{1 - seat}"
    with pytest.raises(ValueError, match="non-negative"):
        e.reset(seed=-1)
