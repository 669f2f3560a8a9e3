"""Fit a softmax model of how the searchers play, for campione's opponent model.

    python benchmarks/policy_fit.py play --deals 30 [--players 4] [--seed 1]
        [--bots campione,old] --json games.json
    python benchmarks/policy_fit.py fit games.json [games2.json ...] [--json PATH]

Campione's opponent model (`bots/inference.PlayEvidence`) fits greedy players: a play
that greedy's score (`evaluate.greedy_score`) rates below another card's best play is a
surprise of factor 0.05. Searchers skip greedy's play in about a quarter of their plays
(`play_rates.py`), so against them that model misleads (`model_fit.py`). The softmax
model says instead that a player makes the play m with probability proportional to
exp(beta * greedy_score(m)) among every play of its hand, mixed with a uniform choice
of weight `eps`: a hand that made the play likely weighs more, one that made it
unlikely less, by how much less greedy's score liked it, never to nothing.

`play` records smazzate of the searchers in `--bots` (seats in turn; `old` the
campione of 2026-11-21, `campione` today's; no 1 s cap, so that the machine's load
cannot change a move) as deal seeds and moves. `fit` replays them and, at every play
of a seat holding more than one card, scores every play of the mover's real hand as
an observer would (sweep threats from every card not public), then prints, per
(beta, eps) of a grid, the mean log-likelihood of the plays made against a uniform
choice among the hand's plays, in nats a play, per bot and over all.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any

from _report import write_json
from play_rates import make

from cirulla import Deal, Rules
from cirulla.bots.base import SeatView
from cirulla.bots.inference import last_play, play_scores
from cirulla.moves import parse_move

BETAS = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 10.0)
EPSILONS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)


def play(deals: int, players: int, seed: int, bots: list[str]) -> dict[str, Any]:
    """`deals` smazzate of the bots in `bots`, seat by seat in turn, as replays."""
    rules = Rules.preset("cirulla")
    games = []
    for n in range(deals):
        deal = Deal(rules, players=players, dealer=n % players, seed=seed * 1000 + n)
        names = [bots[s % len(bots)] for s in range(players)]
        seated = [make(name, seed * 1000 + n * 10 + s) for s, name in enumerate(names)]
        while not deal.is_over:
            seat = deal.to_move
            assert seat is not None
            deal.play(seated[seat].choose(SeatView(deal.view(seat))))
        games.append(
            {
                "seed": seed * 1000 + n,
                "dealer": n % players,
                "players": players,
                "bots": names,
                "moves": [str(m) for m in deal.moves],
            }
        )
        print(f"deal {n + 1}/{deals}", file=sys.stderr, flush=True)
    return {"benchmark": "policy_fit.play", "preset": "cirulla", "games": games}


def observations(games: list[dict[str, Any]]) -> list[tuple[str, bool, list[float], float]]:
    """Per play of a seat holding more than one card: its bot, whether the table held
    cards, every play's greedy score over the real hand, and the play made's score."""
    rules = Rules.preset("cirulla")
    out = []
    for game in games:
        deal = Deal(rules, players=game["players"], dealer=game["dealer"], seed=game["seed"])
        for text in game["moves"]:
            move = parse_move(text)
            seat = deal.to_move
            assert seat is not None
            hand = deal.hand(seat)
            if move.is_play and len(hand) > 1:
                scores = play_scores(deal, hand, last_play(deal))
                made = [s for m, s in scores if m == move]
                assert len(made) == 1, (text, scores)
                out.append((game["bots"][seat], bool(deal.table), [s for _, s in scores], made[0]))
            deal.play(move)
    return out


def loglik(obs: list[tuple[str, bool, list[float], float]], beta: float, eps: float) -> float:
    """Mean log-likelihood ratio of the plays made, the model against a uniform choice."""
    total = 0.0
    for _, _, scores, made in obs:
        top = max(scores)
        z = sum(math.exp(beta * (s - top)) for s in scores)
        p = (1.0 - eps) * math.exp(beta * (made - top)) / z + eps / len(scores)
        total += math.log(p * len(scores))
    return total / len(obs)


def fit(paths: list[Path]) -> dict[str, Any]:
    games = [g for p in paths for g in json.loads(p.read_text())["games"]]
    obs = observations(games)
    groups: dict[str, list[tuple[str, bool, list[float], float]]] = {"all": obs}
    for o in obs:
        groups.setdefault(o[0], []).append(o)
        groups.setdefault(f"{o[0]}, table {'full' if o[1] else 'empty'}", []).append(o)
    result: dict[str, Any] = {"benchmark": "policy_fit.fit", "games": len(games)}
    for name, rows in groups.items():
        grid = {f"{b},{e}": round(loglik(rows, b, e), 4) for b in BETAS for e in EPSILONS}
        best = max(grid, key=lambda k: grid[k])
        greedy = [1.0 if made == max(scores) else 0.0 for _, _, scores, made in rows]
        result[name] = {
            "plays": len(rows),
            "greedy_top_share": round(statistics.fmean(greedy), 4),
            "best": best,
            "best_nats": grid[best],
            "grid": grid,
        }
    return result


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("play")
    pp.add_argument("--deals", type=int, default=30)
    pp.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    pp.add_argument("--seed", type=int, default=1)
    pp.add_argument("--bots", default="campione,old")
    pp.add_argument("--json", type=Path)
    pf = sub.add_parser("fit")
    pf.add_argument("games", type=Path, nargs="+")
    pf.add_argument("--json", type=Path)
    args = p.parse_args()
    if args.cmd == "play":
        bots = [b for b in args.bots.split(",") if b]
        known = ("facile", "normale", "difficile", "old", "campione")
        if not bots or any(b not in known for b in bots):
            p.error(f"--bots takes some of {', '.join(known)}; got {args.bots!r}")
        if args.deals < 1:
            p.error("--deals must be at least 1")
        write_json(play(args.deals, args.players, args.seed, bots), args.json)
        return 0
    write_json(fit(args.games), args.json, echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
