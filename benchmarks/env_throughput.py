"""Environment throughput: steps a second of cirulla.env beside the engine's own moves.

    python benchmarks/env_throughput.py [--seconds 10] [--rounds 10] [--players 4]
                     [--preset cirulla] [--envs 2] [--out results/DATE/env_throughput.json]

Measured, each for about `--seconds`, with uniformly random legal actions:
- engine: `Deal.legal_moves()` + `play()` of a random move (benchmarks/engine.py's loop);
- aec: the PettingZoo loop, `agent_iter()` + `last()` (the observation tensor and
  mask of the agent to act) + `step()`; a step is one action, a move is one or more;
- aec_no_observation: `step()` with actions from `legal_actions()`, no observation
  tensor made (the view for `infos` still is): the encoding and the bookkeeping;
- gym: the single-agent wrapper against "normale" bots (the bots' moves are inside a step);
- vector: gymnasium's AsyncVectorEnv of `--envs` wrappers in as many processes, and its
  speed-up over the single-process wrapper (the ratio of the two, round by round).
Prints JSON (and writes it to `--out` when given), with the load average before and
after. A machine's other load shows up here: run it on a quiet machine, and compare
figures only between runs on one machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from _report import write_json

import cirulla
from cirulla import Deal, Rules
from cirulla.env import SingleAgentEnv, raw_env


def engine(rules: Rules, players: int, seconds: float) -> dict[str, float]:
    rng = random.Random(0)
    moves = hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        deal = Deal(rules, players=players, dealer=hands % players, seed=hands)
        while not deal.is_over:
            legal = deal.legal_moves()
            deal.play(legal[int(rng.random() * len(legal))])
            moves += 1
        deal.score()
        hands += 1
    elapsed = time.perf_counter() - start
    return {"moves_per_second": moves / elapsed, "smazzate_per_second": hands / elapsed}


def aec(preset: str, players: int, seconds: float, observe: bool) -> dict[str, float]:
    e = raw_env(players=players, preset=preset)
    rng = random.Random(0)
    steps = moves = episodes = 0
    e.reset(seed=0)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        if observe:
            for _agent in e.agent_iter():
                obs, _, term, trunc, _ = e.last()
                if term or trunc:
                    e.step(None)
                    continue
                e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                steps += 1
        else:
            while not all(e.terminations.values()):
                actions = e.legal_actions()
                e.step(actions[int(rng.random() * len(actions))])
                steps += 1
        moves += len(e.deal.moves)
        episodes += 1
        e.reset()
    elapsed = time.perf_counter() - start
    return {
        "steps_per_second": steps / elapsed,
        "moves_per_second": moves / elapsed,
        "smazzate_per_second": episodes / elapsed,
    }


def gym(preset: str, players: int, seconds: float) -> dict[str, float]:
    e = SingleAgentEnv(players=players, preset=preset, level="normale")
    rng = np.random.default_rng(0)
    steps = episodes = 0
    obs, _ = e.reset(seed=0)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _, term, trunc, _ = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
        if term or trunc:
            episodes += 1
            obs, _ = e.reset()
    elapsed = time.perf_counter() - start
    return {"steps_per_second": steps / elapsed, "episodes_per_second": episodes / elapsed}


def _make(preset: str, players: int) -> Any:
    return lambda: SingleAgentEnv(players=players, preset=preset, level="normale")


class Vector:
    """gymnasium's AsyncVectorEnv of `n` wrappers in as many processes, kept open across
    the rounds (its processes wait, idle, while the others are measured)."""

    def __init__(self, preset: str, players: int, n: int) -> None:
        self.n = n
        self.envs = gymnasium.vector.AsyncVectorEnv(
            [_make(preset, players) for _ in range(n)],
            autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP,  # obs: the new episode's
        )
        self.rng = np.random.default_rng(0)
        self.obs, _ = self.envs.reset(seed=list(range(n)))

    def measure(self, seconds: float) -> dict[str, float]:
        steps = episodes = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            masks = self.obs["action_mask"]
            actions = np.array([self.rng.choice(np.flatnonzero(m)) for m in masks])
            self.obs, _, term, trunc, _ = self.envs.step(actions)
            steps += self.n
            episodes += int(np.sum(term | trunc))
        elapsed = time.perf_counter() - start
        return {"steps_per_second": steps / elapsed, "episodes_per_second": episodes / elapsed}

    def close(self) -> None:
        self.envs.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=10, help="interleaved rounds")
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--preset", default="cirulla", choices=Rules.presets())
    parser.add_argument("--envs", type=int, default=2, help="processes of the vector run")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    args = parser.parse_args()
    load_before = list(os.getloadavg())
    rules = Rules.preset(args.preset)
    rules.check_players(args.players)
    # The machine may be shared: the single-process measurements are interleaved in
    # short rounds and each figure is the median of its rounds, so that load that comes
    # and goes hits all of them alike; the ratios are taken round by round.
    rounds = max(1, args.rounds)
    s = args.seconds / rounds
    runs: dict[str, list[dict[str, float]]] = {
        "engine": [],
        "aec": [],
        "aec_no_observation": [],
        "gym_vs_normale": [],
        "vector_vs_normale": [],
    }
    vec = Vector(args.preset, args.players, args.envs)
    for _ in range(rounds):
        runs["engine"].append(engine(rules, args.players, s))
        runs["aec"].append(aec(args.preset, args.players, s, observe=True))
        runs["aec_no_observation"].append(aec(args.preset, args.players, s, observe=False))
        runs["gym_vs_normale"].append(gym(args.preset, args.players, s))
        runs["vector_vs_normale"].append(vec.measure(s))
    vec.close()
    result: dict[str, Any] = {
        "preset": args.preset,
        "players": args.players,
        "seconds_each": args.seconds,
        "rounds": rounds,
    }
    for name, measured in runs.items():
        result[name] = {k: statistics.median(m[k] for m in measured) for k in measured[0]}
    result["aec"]["steps_per_engine_move"] = statistics.median(
        m["steps_per_second"] / m["moves_per_second"] for m in runs["aec"]
    )
    result["aec_moves_per_engine_move"] = statistics.median(
        a["moves_per_second"] / e["moves_per_second"]
        for a, e in zip(runs["aec"], runs["engine"], strict=True)
    )
    result["vector_vs_normale"]["envs"] = args.envs
    result["vector_vs_normale"]["speedup_over_one_process"] = statistics.median(
        v["steps_per_second"] / g["steps_per_second"]
        for v, g in zip(runs["vector_vs_normale"], runs["gym_vs_normale"], strict=True)
    )
    result["machine"] = {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_average_before": load_before,
        "load_average_after": list(os.getloadavg()),
        "compiled_engine": not cirulla.deal.__file__.endswith(".py"),
    }
    write_json(result, args.out, echo=True)


if __name__ == "__main__":
    main()
