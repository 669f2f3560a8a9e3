"""Would a learned evaluation make the search's leaves better judges? (issue 16)

    python benchmarks/value_fit.py play --deals 100 [--players 4] [--seed 1]
        [--bot cheater|campione] --json games.json
    python benchmarks/value_fit.py fit games.json [more.json ...] [--playouts 16]
        [--every] [--cards] [--judge N] [--json PATH]
    python benchmarks/value_fit.py weights games.json [more.json ...] --json PATH

The search scores each determinization by a greedy playout to the smazzata's end.
"Next" in docs/strength.md asked whether an evaluation learned from the cheater's games
(the strongest player here, who sees every card as a determinization does) would
score them better: a learned value in place of the playout, after a playout cut at the
stage's end, or added to it as a correction. This asks it offline, before any arena.

`play` records smazzate of the cheater (1,500 iterations, the yardstick's options) at
every seat, as deal seeds and moves, the file rewritten after each smazzata
(`value_games.py` records, reads and replays them). `fit`
replays them and takes the position at the first move of every stage after the first
(or, `--every`, at every move with a choice). For the side to move it scores the
position against what the cheater then made (that side's points minus the other's,
two sides only):

- `playout`: the mean of `--playouts` campione playouts (epsilon 0.1, threats judged
  from the unseen cards) from the real deal;
- `banked`: the score sheet as if the smazzata ended now, a floor any model must beat;
- `learned`: a ridge regression on features of the piles, the hands, the table and the
  deck left (`features`; `--cards` adds each card's place), fitted on the other games
  (5 folds by game, so no smazzata is scored by a model that saw it), the penalty
  chosen by the same cross-validation;
- `playout_corrected_by_features`: the playouts plus a ridge fitted to what they miss
  of the cheater's result; `residual_explained` is the share of that miss it predicts
  beyond a constant (a constant bias changes no decision).

With `--every` it also asks the question that matters to a search, `decisions`: at
each position, every legal move scored over re-drawn determinizations by each
evaluation, how often each changes the playouts' best move, and (`--judge N`) at N of
those positions, drawn at random, both moves played out on the real deal by the
cheater at every seat: whether the change gains points.

`weights` fits the value the search's cut playouts use (`ismcts` option `leaf="cut"`)
on every position with a choice of the games, one model for each player count, and
writes it where the engine reads it (`src/cirulla/data/leaf_value.json`; the games of
`play --bot campione` to `leaf_value_campione.json`, the option `value="campione"`;
with `--life`, reading `leafvalue.LIFE` too, to `leaf_value_life.json`, the option
`value="cheater_life"`).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np
from _report import write_json
from value_games import (
    BOTS,
    CHEATER_ITERATIONS,
    games_of,
    load_games,
    play,
    positions,
    read_records,
)

from cirulla import Deal
from cirulla.bots import get
from cirulla.bots.base import Budget, choose_move
from cirulla.bots.leafvalue import FEATURES, ITEMS, LIFE, LeafValue, life
from cirulla.bots.leafvalue import features as leaf_features
from cirulla.bots.leafvalue import groups as leaf_groups
from cirulla.bots.playouts import cut_playout, playout
from cirulla.bots.policies import UNSEEN
from cirulla.moves import parse_move

LAMBDAS = (0.1, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0)
FOLDS = 5


def features(deal: Deal, cards: bool = False) -> list[float]:
    """The search's leaf features (`leafvalue.features`: the score sheet as if the
    smazzata ended now, item by item, what each pile, each side's hands, the table and
    the deck hold, whose capture is last, the table's sum, the stages left, the mover's
    place); with `cards`, where each of the 40 cards is too (one of the six groups,
    one-hot)."""
    row = leaf_features(deal)
    if cards:
        seat = deal.to_move
        assert seat is not None
        groups = leaf_groups(deal, deal.side_of(seat))
        where = [0.0] * (40 * len(groups))
        for g, group in enumerate(groups):
            for c in group:
                where[c.id * len(groups) + g] = 1.0
        row.extend(where)
    return row


def _ridge(x: np.ndarray, y: np.ndarray, lam: float) -> tuple[np.ndarray, float]:
    mean, std = x.mean(axis=0), x.std(axis=0)
    std[std == 0] = 1.0
    z = (x - mean) / std
    w = np.linalg.solve(z.T @ z + lam * np.eye(z.shape[1]), z.T @ (y - y.mean()))
    coef = w / std
    return coef, float(y.mean() - mean @ coef)


def cross_validated(
    x: np.ndarray,
    y: np.ndarray,
    games: np.ndarray,
    lam: float,
    train: np.ndarray | None = None,
    ask: np.ndarray | None = None,
) -> np.ndarray:
    """Each position predicted by a ridge fitted on the other folds' games (only their
    `train` positions, if given), asked on `ask`'s features of it (default `x`'s)."""
    pred = np.empty_like(y)
    fold = games % FOLDS
    asked = x if ask is None else ask
    for f in range(FOLDS):
        test = fold == f
        fitted = ~test if train is None else ~test & train
        coef, icpt = _ridge(x[fitted], y[fitted], lam)
        pred[test] = asked[test] @ coef + icpt
    return pred


def _best_cv(x: np.ndarray, y: np.ndarray, games: np.ndarray) -> tuple[float, np.ndarray]:
    """The ridge's penalty with the least cross-validated error, and its predictions."""
    tried = {lam: cross_validated(x, y, games, lam) for lam in LAMBDAS}
    best = min(tried, key=lambda k: float(np.mean((tried[k] - y) ** 2)))
    return best, tried[best]


def _judge(pred: np.ndarray, y: np.ndarray) -> dict[str, float]:
    err = pred - y
    return {
        "mse": round(float(np.mean(err**2)), 3),
        "corr": round(float(np.corrcoef(pred, y)[0, 1]), 4) if np.std(pred) > 0 else 0.0,
        "bias": round(float(np.mean(err)), 3),
    }


def _mean_interval(x: np.ndarray, games: np.ndarray) -> list[float]:
    """A 95% interval of x's mean, positions of one game summed together (they share it)."""
    per_game = np.bincount(games, weights=x) / np.maximum(np.bincount(games), 1)
    counts = np.bincount(games)
    kept = counts > 0
    means = per_game[kept]
    w = counts[kept] / counts[kept].sum()
    m = float(np.sum(w * means))
    se = float(np.sqrt(np.sum(w**2 * (means - m) ** 2) * len(means) / max(len(means) - 1, 1)))
    return [round(m - 1.96 * se, 3), round(m + 1.96 * se, 3)]


def fit(
    paths: list[Path], playouts: int, seed: int, every: bool, cards: bool, judge: int = 0
) -> dict[str, Any]:
    games = load_games(paths)
    if any(g["players"] not in (2, 4) for g in games):
        raise SystemExit("value_fit scores two sides: games of 2 or 4 players only")
    rng = random.Random(seed)
    rows: list[list[float]] = []
    ys: list[float] = []
    ids: list[int] = []
    rolled: list[float] = []
    kept: list[tuple[Deal, str]] = []
    for n, game in enumerate(games):
        for deal, result, made in positions(game, every):
            kept.append((deal, made))
            seat = deal.to_move
            assert seat is not None
            us = deal.side_of(seat)
            rows.append(features(deal, cards))
            ys.append(result)
            ids.append(n)
            runs = []
            for _ in range(playouts):
                totals = playout(deal.copy(), rng, 0.1, UNSEEN, us)
                runs.append(float(totals[us] - totals[1 - us]))
            rolled.append(statistics.fmean(runs))
    x = np.array(rows)
    y = np.array(ys)
    g = np.array(ids)
    roll = np.array(rolled)
    banked = x[:, : len(ITEMS)].sum(axis=1)
    lam, learned = _best_cv(x, y, g)
    # what the playouts miss of the cheater's result, predicted from the position:
    # a constant (the playouts' bias, which changes no decision) or the features
    residual = y - roll
    lam_r, fixed = _best_cv(x, residual, g)
    constant = cross_validated(np.zeros((len(y), 1)), residual, g, 1.0)
    err_constant = (roll + constant - y) ** 2
    err_features = (roll + fixed - y) ** 2
    out: dict[str, Any] = {
        "benchmark": "value_fit.fit",
        "games": len(games),
        "positions": len(y),
        "seed": seed,
        "every": every,
        "cards": cards,
        "judge": judge,
        "features": x.shape[1],
        "playouts": playouts,
        "target_variance": round(float(np.var(y)), 3),
        "banked": _judge(banked, y),
        "playout": _judge(roll, y),
        "learned": {"lambda": lam, **_judge(learned, y)},
        "playout_bias_corrected": _judge(roll + constant, y),
        "playout_corrected_by_features": {"lambda": lam_r, **_judge(roll + fixed, y)},
        "residual_variance": round(float(np.var(residual)), 3),
        "residual_explained": round(
            1.0 - float(np.mean(err_features)) / float(np.mean(err_constant)), 4
        ),
        "mse_gain_interval": _mean_interval(err_constant - err_features, g),
    }
    if every:
        out["decisions"] = decisions(
            kept, x, y, residual, g, (lam, lam_r), playouts, cards, rng, judge
        )
    return out


def weights(paths: list[Path], out: Path | None, with_life: bool = False) -> dict[str, Any]:
    """The search's leaf values (`leafvalue.leaf_model`): for each player count in the
    games, the ridge on every position with a choice, its penalty chosen by
    cross-validation by game, refitted on all of them; `with_life`: on `LIFE` too."""
    records = read_records(paths)
    players_of = {
        (r.get("bot", "cheater"), r.get("iterations", CHEATER_ITERATIONS)) for r in records
    }
    if len(players_of) != 1:
        raise SystemExit(f"one value is fitted to one player's games, not {sorted(players_of)}")
    ((bot, iterations),) = players_of
    games = games_of(records)
    if any(g["players"] not in (2, 4) for g in games):
        raise SystemExit("value_fit scores two sides: games of 2 or 4 players only")
    models: dict[str, Any] = {}
    for players in sorted({g["players"] for g in games}):
        rows: list[list[float]] = []
        ys: list[float] = []
        ids: list[int] = []
        chosen = [g for g in games if g["players"] == players]
        for n, game in enumerate(chosen):
            for deal, result, _ in positions(game, every=True):
                rows.append(features(deal) + (life(deal) if with_life else []))
                ys.append(result)
                ids.append(n)
        x, y, g_arr = np.array(rows), np.array(ys), np.array(ids)
        lam, cv = _best_cv(x, y, g_arr)
        coef, icpt = _ridge(x, y, lam)
        models[str(players)] = {
            "games": len(chosen),
            "positions": len(y),
            "lambda": lam,
            "target_variance": round(float(np.var(y)), 3),
            "cv": _judge(cv, y),
            "intercept": float(icpt),
            "weights": [float(w) for w in coef],
        }
    fitted: dict[str, Any] = {
        "benchmark": "value_fit.weights",
        "preset": "cirulla",
        "bot": bot,
        "iterations": iterations,
        "sources": [p.name for p in paths],
        "features": list(FEATURES) + (list(LIFE) if with_life else []),
        "models": models,
    }
    write_json(fitted, out)
    return fitted


def _child_values(
    deal: Deal,
    samples: int,
    cards: bool,
    rng: random.Random,
    learned: tuple[np.ndarray, float],
    fix: tuple[np.ndarray, float],
) -> tuple[list[Any], list[float], list[float], list[float], list[float]]:
    """Each legal move scored for the side to move over `samples` determinizations (every
    card the mover cannot see drawn again, uniformly, as the search's plain sampler
    does): by a playout, by the learned evaluation alone, by the playout plus the
    learned correction, and by a playout cut where the stage ends, the learned
    evaluation scoring the rest; a finished smazzata by its score."""
    seat = deal.to_move
    assert seat is not None
    us = deal.side_of(seat)
    legal = deal.legal_moves()
    n = len(legal)
    rolled, alone, fixed, cut = [0.0] * n, [0.0] * n, [0.0] * n, [0.0] * n
    for _ in range(samples):
        det = deal.copy()
        det.redeal_unseen(seat, rng)
        for i, move in enumerate(legal):
            child = det.copy()
            child.play(move)
            if child.is_over:
                t = child.score().totals
                exact = float(t[us] - t[1 - us])
                rolled[i] += exact
                alone[i] += exact
                fixed[i] += exact
                cut[i] += exact
                continue
            mover = child.to_move
            assert mover is not None
            sign = 1.0 if child.side_of(mover) == us else -1.0
            f = np.array(features(child, cards))
            if not cards:  # the search's value takes no card places
                cut[i] += _cut_playout(child.copy(), us, rng, learned)
            t = playout(child, rng, 0.1, UNSEEN, us)
            roll = float(t[us] - t[1 - us])
            rolled[i] += roll
            alone[i] += sign * (float(f @ learned[0]) + learned[1])
            fixed[i] += roll + sign * (float(f @ fix[0]) + fix[1])
    return legal, rolled, alone, fixed, cut


def _cut_playout(
    deal: Deal, us: int, rng: random.Random, learned: tuple[np.ndarray, float]
) -> float:
    """The search's cut playout (campione's: epsilon 0.1, threats from the unseen cards)
    to the end of the stage, then the learned evaluation; `us`'s points minus the other
    side's."""
    leaf = LeafValue([float(w) for w in learned[0]], learned[1])
    return cut_playout(deal, rng, leaf, 0.1, UNSEEN, us)


def decisions(
    kept: list[tuple[Deal, str]],
    x: np.ndarray,
    y: np.ndarray,
    residual: np.ndarray,
    games: np.ndarray,
    lams: tuple[float, float],
    samples: int,
    cards: bool,
    rng: random.Random,
    judge: int = 0,
) -> dict[str, Any]:
    """Would a learned evaluation change a move, and for the better? At every position
    each legal move is scored over re-drawn determinizations by the playouts, by the
    learned evaluation alone, by the playouts with the learned correction and by
    playouts cut at the stage's end (the models fitted on the other folds' games); how
    often each's best move differs from the playouts', and how often each agrees with
    the cheater's move (which leans to the playouts: the cheater's search runs them).
    With `judge` > 0, at up to that many positions drawn at random from those where a
    model's best differs from the playouts', both moves are played out on the real deal
    by the cheater at every seat: which leads to more points, as the strongest player
    here would go on."""
    fold = games % FOLDS
    learned = [_ridge(x[fold != f], y[fold != f], lams[0]) for f in range(FOLDS)]
    fixes = [_ridge(x[fold != f], residual[fold != f], lams[1]) for f in range(FOLDS)]
    # the cut scores by the search's value, which takes no card places
    names = ("learned", "corrected") if cards else ("learned", "corrected", "cut")
    agree: dict[str, list[float]] = {"playout": [], **{k: [] for k in names}}
    changed = dict.fromkeys(names, 0)
    differ: dict[str, list[tuple[Deal, Any, Any, int]]] = {k: [] for k in names}
    for (deal, made), f, game in zip(kept, fold, games, strict=True):
        legal, rolled, alone, fixed, cut = _child_values(
            deal, samples, cards, rng, learned[int(f)], fixes[int(f)]
        )
        played = parse_move(made)
        a = max(range(len(legal)), key=lambda i: rolled[i])
        agree["playout"].append(float(legal[a] == played))
        judged = (alone, fixed) if cards else (alone, fixed, cut)
        for name, values in zip(names, judged, strict=True):
            b = max(range(len(legal)), key=lambda i: values[i])
            agree[name].append(float(legal[b] == played))
            if a == b:
                continue
            changed[name] += 1
            differ[name].append((deal, legal[b], legal[a], int(game)))
    out: dict[str, Any] = {
        "positions": len(kept),
        "agrees_with_cheater": {k: round(float(np.mean(v)), 4) for k, v in agree.items()},
    }
    base = np.array(agree["playout"])
    for name in names:
        row: dict[str, Any] = {
            "best_changed": round(changed[name] / len(kept), 4),
            "agreement_gain_interval": _mean_interval(np.array(agree[name]) - base, games),
        }
        picked = rng.sample(differ[name], min(judge, len(differ[name])))
        if picked:
            g_arr = np.array([_played_out(d, b) - _played_out(d, a) for d, b, a, _ in picked])
            row["judged"] = len(g_arr)
            row["minus_playout_points"] = round(float(g_arr.mean()), 3)
            row["points_interval"] = _mean_interval(g_arr, np.array([p[3] for p in picked]))
        out[name] = row
    return out


def _played_out(deal: Deal, move: Any) -> float:
    """The side to move's points minus the other side's after `move`, the rest played by
    the cheater at every seat (seeded by the position, so both moves meet the same bots)."""
    seat = deal.to_move
    assert seat is not None
    us = deal.side_of(seat)
    child = deal.copy()
    child.play(move)
    key = len(child.moves) * 7919 + sum(c.id for c in child._table)
    bots = [
        get("cheater", seed=key * 10 + s, budget=Budget(iterations=CHEATER_ITERATIONS))
        for s in range(deal.players)
    ]
    while not child.is_over:
        mover = child.to_move
        assert mover is not None
        child.play(choose_move(bots[mover], child))
    t = child.score().totals
    return float(t[us] - t[1 - us])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("play")
    pp.add_argument("--deals", type=int, default=100)
    pp.add_argument("--players", type=int, default=4, choices=(2, 4), help="two sides")
    pp.add_argument("--seed", type=int, default=1)
    pp.add_argument("--bot", choices=tuple(BOTS), default="cheater", help="who plays every seat")
    pp.add_argument("--json", type=Path)
    pw = sub.add_parser("weights")
    pw.add_argument("games", type=Path, nargs="+")
    pw.add_argument("--json", type=Path)
    pw.add_argument("--life", action="store_true", help="read leafvalue.LIFE too")
    pf = sub.add_parser("fit")
    pf.add_argument("games", type=Path, nargs="+")
    pf.add_argument("--playouts", type=int, default=16)
    pf.add_argument("--seed", type=int, default=1)
    pf.add_argument("--every", action="store_true", help="every move with a choice")
    pf.add_argument("--cards", action="store_true", help="each card's place as features")
    pf.add_argument("--judge", type=int, default=0, help="positions to play out (--every)")
    pf.add_argument("--json", type=Path)
    args = p.parse_args()
    if args.cmd == "play":
        if args.deals < 1:
            p.error("--deals must be at least 1")
        play(args.deals, args.players, args.seed, args.json, BOTS[args.bot], args.bot)
        return 0
    if args.cmd == "weights":
        result = weights(args.games, args.json, with_life=args.life)
        print(
            json.dumps(
                {k: {**m, "weights": len(m["weights"])} for k, m in result["models"].items()}
            )
        )
        return 0
    if args.playouts < 1:
        p.error("--playouts must be at least 1")
    if args.judge < 0 or (args.judge and not args.every):
        p.error("--judge takes a count of positions, and needs --every")
    result = fit(args.games, args.playouts, args.seed, args.every, args.cards, args.judge)
    write_json(result, args.json, echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
