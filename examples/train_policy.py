"""Train a small policy against the `normale` bot on a CPU in minutes, then measure it honestly.

    python examples/train_policy.py --minutes 3 --seed 0 [--episodes N] [--out run.json]

The policy is a tiny numpy network (observation -> 64 tanh units -> 104 logits, the
illegal actions masked out) trained by REINFORCE with a learned baseline on the
Gymnasium wrapper `cirulla.env.gym.SingleAgentEnv`: 2 players, preset "cirulla", the
opponent the `normale` bot; the agent plays seat 0 and seat 1 in turn. The reward is
the smazzata's margin: the agent's points minus the opponent's.

The evaluation plays deals the training never saw, each twice: the agent in seat 0,
then in seat 1 against the same cards and the same bot (paired decks, so the luck of
the cards cancels out), acting greedily. A uniformly random legal player goes through
the same deals as the baseline. It prints the mean margin per smazzata with a 95%
interval for both, whatever they are, and `--out` writes them as JSON. A run stops at
`--minutes` or `--episodes`, whichever comes first; with the same `--episodes` (and
minutes to spare) and the same seed it trains the same policy again. Needs the "rl"
extra: pip install "cirulla[rl]".
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from cirulla import Card, Move, parse_move
from cirulla.env.encoding import (
    NUM_ACTIONS,
    OBSERVATION_HIGH,
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    move_actions,
)
from cirulla.env.gym import SingleAgentEnv

Array = npt.NDArray[np.float64]
Obs = dict[str, npt.NDArray[np.float32]]
Step = tuple[Array, npt.NDArray[np.bool_], Array, int]
SETTEBELLO = Card.parse("7D")
EVAL_SEED_BASE = 10**12  # evaluation deals: seeds no training episode uses
HIDDEN = 64
#: What each action leads to, read off the seat's own legal moves and table (its view).
ACTION_FEATURES = (
    "captures",
    "cards captured / 4",
    "diamonds won / 4",
    "settebello won",
    "sevens won / 2",
    "sweeps the table (scopa)",
    "cards left on the table / 4",
    "table left worth 1 to 10 (one card may sweep it)",
    "sevens left on the table / 2",
    "declares a bonus",
    "passes",
)
K = len(ACTION_FEATURES)
_AT = {part.name: part.offset for part in OBSERVATION_LAYOUT}


def move_features(move: Move, table: list[tuple[Card, int]]) -> list[float]:
    """ACTION_FEATURES of one legal move, given the table as (card, capture value)."""
    f = [0.0] * K
    if move.kind != "play":
        f[9 if move.kind == "declare" else 10] = 1.0
        return f
    assert move.card is not None
    won = [*move.captured, move.card] if move.captured else []
    left = [(c, v) for c, v in table if c not in move.captured]
    if not move.captured:
        left.append((move.card, move.card.value))
    f[0] = float(bool(move.captured))
    f[1] = len(move.captured) / 4
    f[2] = sum(c.suit == "D" for c in won) / 4
    f[3] = float(SETTEBELLO in won)
    f[4] = sum(c.rank == "7" for c in won) / 2
    f[5] = float(bool(move.captured) and not left)
    f[6] = len(left) / 4
    f[7] = float(0 < sum(v for _, v in left) <= 10)
    f[8] = sum(c.rank == "7" for c, _ in left) / 2
    return f


def _table(obs: Obs) -> list[tuple[Card, int]]:
    """The table's cards and capture values, read off the observation."""
    o = obs["observation"]
    matta = np.flatnonzero(o[_AT["matta"] : _AT["matta"] + 40])
    named = int(np.argmax(o[_AT["matta_value"] : _AT["matta_value"] + 11]))
    out = []
    for i in np.flatnonzero(o[_AT["table"] : _AT["table"] + 40]):
        card = Card.from_id(int(i))
        out.append((card, named if named and i in matta else card.value))
    return out


def action_features(obs: Obs, info: dict[str, Any]) -> Array:
    """Per action (NUM_ACTIONS x K): the features of the legal moves it leads to (their
    maximum, when the action is the start of several)."""
    phi = np.zeros((NUM_ACTIONS, K))
    if "legal_moves" not in info:
        return phi
    table = _table(obs)
    prefix = tuple(info["prefix"])
    n = len(prefix)
    for text in info["legal_moves"]:
        move = parse_move(text)
        seq = move_actions(move)
        if seq[:n] == prefix and len(seq) > n:
            phi[seq[n]] = np.maximum(phi[seq[n]], move_features(move, table))
    return phi


@dataclass
class Policy:
    """Softmax over the legal actions of an MLP of the observation (64 tanh units) plus a
    linear score of each action's features; a linear baseline on the hidden layer."""

    w1: Array
    b1: Array
    w2: Array
    b2: Array
    theta: Array  # weights of ACTION_FEATURES
    wv: Array  # the baseline: a linear value of the hidden layer
    bv: Array
    adam: dict[str, tuple[Array, Array]] = field(default_factory=dict)
    steps: int = 0

    @classmethod
    def new(cls, rng: np.random.Generator) -> Policy:
        return cls(
            w1=rng.normal(0, 1 / math.sqrt(OBSERVATION_SIZE), (OBSERVATION_SIZE, HIDDEN)),
            b1=np.zeros(HIDDEN),
            w2=rng.normal(0, 0.01, (HIDDEN, NUM_ACTIONS)),
            b2=np.zeros(NUM_ACTIONS),
            theta=np.zeros(K),
            wv=np.zeros(HIDDEN),
            bv=np.zeros(1),
        )

    def forward(
        self, x: Array, mask: npt.NDArray[np.bool_], phi: Array
    ) -> tuple[Array, Array, Array]:
        """Hidden layer, action probabilities (0 where masked) and baseline, for a batch."""
        h = np.tanh(x @ self.w1 + self.b1)
        logits = np.where(mask, h @ self.w2 + self.b2 + phi @ self.theta, -np.inf)
        logits -= logits.max(axis=-1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=-1, keepdims=True)
        return h, p, h @ self.wv + self.bv[0]

    def act(self, step: Step, rng: np.random.Generator | None) -> int:
        """Sample an action (or take the likeliest when `rng` is None)."""
        x, mask, phi, _ = step
        _, p, _ = self.forward(x[None], mask[None], phi[None])
        if rng is None:
            return int(np.argmax(p[0]))
        return int(rng.choice(NUM_ACTIONS, p=p[0]))

    def update(self, steps: list[Step], returns: Array, lr: float, entropy: float) -> None:
        """One REINFORCE step with the baseline, an entropy bonus and Adam."""
        x = np.array([s[0] for s in steps])
        mask = np.array([s[1] for s in steps])
        phi = np.array([s[2] for s in steps])
        actions = np.array([s[3] for s in steps])
        n = len(actions)
        h, p, v = self.forward(x, mask, phi)
        adv = returns - v
        adv_n = adv / (adv.std() + 1e-8)
        logp = np.log(np.where(mask, p, 1.0))
        ent = -(p * logp).sum(axis=1, keepdims=True)
        # the loss to descend: -(adv * log p(a)) - entropy * H, and the baseline's error
        dz = p.copy()
        dz[np.arange(n), actions] -= 1.0
        dz *= adv_n[:, None]
        dz += entropy * p * (logp + ent)
        dz = np.where(mask, dz, 0.0) / n
        dv = -2.0 * adv / n / 100.0  # mean squared error of the baseline, scaled down
        dh = dz @ self.w2.T + np.outer(dv, self.wv)
        dpre = dh * (1.0 - h * h)
        grads = {
            "w2": h.T @ dz,
            "b2": dz.sum(axis=0),
            "theta": np.einsum("na,nak->k", dz, phi),
            "w1": x.T @ dpre,
            "b1": dpre.sum(axis=0),
            "wv": h.T @ dv,
            "bv": np.array([dv.sum()]),
        }
        self.steps += 1
        for name, g in grads.items():
            m, s = self.adam.get(name, (np.zeros_like(g), np.zeros_like(g)))
            m = 0.9 * m + 0.1 * g
            s = 0.999 * s + 0.001 * g * g
            self.adam[name] = (m, s)
            mhat = m / (1 - 0.9**self.steps)
            shat = s / (1 - 0.999**self.steps)
            setattr(self, name, getattr(self, name) - lr * mhat / (np.sqrt(shat) + 1e-8))


def make_step(obs: Obs, info: dict[str, Any]) -> Step:
    """What the policy reads: the observation scaled to [0, 1] by its documented bounds,
    the action mask and the action features (the action is filled in later)."""
    x: Array = obs["observation"].astype(np.float64) / OBSERVATION_HIGH
    return x, obs["action_mask"].astype(bool), action_features(obs, info), -1


def play(env: SingleAgentEnv, seed: int, choose: Callable[[Step], int]) -> tuple[float, list[Step]]:
    """One smazzata: the agent's margin and its steps."""
    obs, info = env.reset(seed=seed)
    steps = []
    total = 0.0
    done = False
    while not done:
        x, mask, phi, _ = make_step(obs, info)
        action = choose((x, mask, phi, -1))
        steps.append((x, mask, phi, action))
        obs, reward, done, _, info = env.step(action)
        total += float(reward)
    return total, steps


def train(
    envs: Sequence[SingleAgentEnv],
    seconds: float,
    episodes: int,
    seed: int,
    batch: int = 32,
    lr: float = 3e-3,
) -> tuple[Policy, int]:
    rng = np.random.default_rng(seed)
    policy = Policy.new(rng)
    done = 0
    start = time.monotonic()
    while done < episodes and time.monotonic() - start < seconds:
        batch_steps: list[Step] = []
        returns: list[float] = []
        for _ in range(min(batch, episodes - done)):
            env = envs[done % len(envs)]  # seat 0 and seat 1 in turn
            seed_ = int(rng.integers(EVAL_SEED_BASE))
            margin, steps = play(env, seed_, lambda step: policy.act(step, rng))
            batch_steps += steps
            returns += [margin] * len(steps)
            done += 1
        policy.update(batch_steps, np.array(returns), lr, 0.01)
    return policy, done


def evaluate(
    envs: Sequence[SingleAgentEnv],
    pairs: int,
    choose: Callable[[Step], int],
) -> Array:
    """Per deal, the mean margin of the agent in seat 0 and in seat 1 on those cards."""
    out = []
    for i in range(pairs):
        seed = EVAL_SEED_BASE + i
        out.append(np.mean([play(env, seed, choose)[0] for env in envs]))
    return np.array(out)


def half_width(samples: Array) -> float:
    """Of the 95% interval of the mean (normal approximation)."""
    if len(samples) < 2:
        return math.inf
    return float(1.96 * samples.std(ddof=1) / math.sqrt(len(samples)))


def interval(samples: Array) -> str:
    return f"{samples.mean():+.2f} ± {half_width(samples):.2f}"


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="training time (default 3)")
    parser.add_argument("--episodes", type=int, default=10**9, help="at most this many episodes")
    parser.add_argument("--seed", type=int, default=0, help="seed of the training run")
    parser.add_argument(
        "--eval-pairs", type=int, default=1000, help="evaluation deals, each played twice"
    )
    parser.add_argument("--batch", type=int, default=32, help="episodes per update")
    parser.add_argument("--lr", type=float, default=3e-3, help="Adam's learning rate")
    parser.add_argument("--out", type=Path, help="also write the results here (JSON)")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    envs = [SingleAgentEnv(players=2, preset="cirulla", level="normale", seat=s) for s in (0, 1)]
    start = time.monotonic()
    policy, episodes = train(envs, args.minutes * 60, args.episodes, args.seed, args.batch, args.lr)
    took = time.monotonic() - start
    print(f"trained on {episodes} smazzate in {took / 60:.1f} min (seed {args.seed})")
    rng = np.random.default_rng(args.seed + 1)
    trained = evaluate(envs, args.eval_pairs, lambda step: policy.act(step, None))
    rand = evaluate(envs, args.eval_pairs, lambda step: int(rng.choice(np.flatnonzero(step[1]))))
    print(
        f"evaluation against normale: {args.eval_pairs} unseen deals, each played from both"
        " seats; margin = agent's points - normale's, per smazzata, mean ± 95% interval"
    )
    print(f"  trained policy (greedy): {interval(trained)}")
    print(f"  random legal moves:      {interval(rand)}")
    print(f"  trained - random, paired by deal: {interval(trained - rand)}")
    result = {
        "episodes": float(episodes),
        "trained": float(trained.mean()),
        "random": float(rand.mean()),
        "difference": float((trained - rand).mean()),
        "difference_half_width": half_width(trained - rand),
    }
    if args.out is not None:
        _write(args, argv, result, trained, rand, took, load_before)
    return result


def _write(
    args: argparse.Namespace,
    argv: Sequence[str] | None,
    result: dict[str, float],
    trained: Array,
    rand: Array,
    took: float,
    load_before: tuple[float, float, float],
) -> None:
    """The run as JSON: what was asked, what came out, and the machine it ran on."""

    def summary(samples: Array) -> dict[str, float]:
        return {"mean": float(samples.mean()), "half_width_95": half_width(samples)}

    given = list(argv) if argv is not None else sys.argv[1:]
    run = {
        "command": " ".join(["python", "examples/train_policy.py", *given]),
        "seed": args.seed,
        "minutes_allowed": args.minutes,
        "episodes_allowed": args.episodes,
        "episodes": int(result["episodes"]),
        "training_minutes": round(took / 60, 2),
        "batch": args.batch,
        "lr": args.lr,
        "opponent": "normale",
        "eval_pairs": args.eval_pairs,
        "eval_seeds": [EVAL_SEED_BASE, EVAL_SEED_BASE + args.eval_pairs - 1],
        "margin_per_smazzata": {
            "trained_greedy": summary(trained),
            "random_legal": summary(rand),
            "trained_minus_random_paired": summary(trained - rand),
        },
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(run, indent=2) + "\n")


if __name__ == "__main__":
    main()
