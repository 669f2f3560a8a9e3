"""Would the cut's value judge better if fitted where the cut asks it? (issue 16)

    python benchmarks/value_starts.py games.json [more.json ...] [--json PATH]

The search's averaged cut (`ismcts` option `leaf="cut_mean"`) asks the learned value
only where a stage's hands have just been dealt, and on features averaged over those
hands; the shipped value (`value_fit.py weights`) is fitted on every position with a
choice, on the real hands. For each player count of the cheater's games this scores,
at the stage starts only and against what the cheater then made, the squared error of:

- `every_raw`: the shipped recipe (a ridge on every position, real hands), asked on the
  averaged features, as the search asks it;
- `starts_mean`: a ridge fitted on the stage starts alone, averaged features;
- `every_starts_mean`: a ridge on every position, the stage starts averaged;

each cross-validated by game (5 folds, the penalty with the least error), and the
shipped weights on the averaged and on the real features (`shipped_mean`,
`shipped_raw`: fitted on these games, so in-sample; the real hands are what the
search cannot see, so `shipped_raw` bounds what the hands are worth).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from _report import write_json
from value_fit import FOLDS, LAMBDAS, _ridge

from cirulla import Deal, Rules
from cirulla.bots.leafvalue import features
from cirulla.moves import parse_move

SHIPPED = Path(__file__).resolve().parent.parent / "src/cirulla/data/leaf_value.json"


def rows(games: list[dict[str, Any]]) -> tuple[np.ndarray, ...]:
    """Every position with a choice: real and averaged features, the side to move's
    result, the game's index, and whether a stage's hands were just dealt."""
    raw, mean, ys, ids, starts = [], [], [], [], []
    rules = Rules.preset("cirulla")
    for n, game in enumerate(games):
        deal = Deal(rules, players=game["players"], dealer=game["dealer"], seed=game["seed"])
        totals = game["totals"]
        stage = deal._stage
        for text in game["moves"]:
            first = deal._stage != stage
            stage = deal._stage
            if len(deal.legal_moves()) > 1:
                seat = deal.to_move
                assert seat is not None
                us = deal.side_of(seat)
                raw.append(features(deal))
                mean.append(features(deal, True))
                ys.append(float(totals[us] - totals[1 - us]))
                ids.append(n)
                starts.append(first)
            deal.play(parse_move(text))
    return np.array(raw), np.array(mean), np.array(ys), np.array(ids), np.array(starts)


def _best(
    fit_on: np.ndarray,
    ask: np.ndarray,
    y: np.ndarray,
    g: np.ndarray,
    train: np.ndarray,
    judged: np.ndarray,
) -> dict[str, float]:
    """The least cross-validated error at the `judged` positions of a ridge fitted on
    `fit_on`'s `train` rows and asked on `ask`, over the penalties."""
    best: dict[str, float] = {}
    fold = g % FOLDS
    for lam in LAMBDAS:
        pred = np.empty_like(y)
        for f in range(FOLDS):
            test = fold == f
            keep = ~test & train
            coef, icpt = _ridge(fit_on[keep], y[keep], lam)
            pred[test] = ask[test] @ coef + icpt
        mse = float(np.mean((pred[judged] - y[judged]) ** 2))
        if not best or mse < best["mse"]:
            best = {"lambda": lam, "mse": round(mse, 3)}
    return best


def judge(paths: list[Path], shipped: Path = SHIPPED) -> dict[str, Any]:
    games = [g for p in paths for g in json.loads(p.read_text())["games"]]
    counts = sorted({g["players"] for g in games} & {2, 4})
    if not counts:
        raise SystemExit("value_starts scores two sides: games of 2 or 4 players only")
    models = json.loads(shipped.read_text())["models"]
    out: dict[str, Any] = {"benchmark": "value_starts", "sources": [p.name for p in paths]}
    for players in counts:
        chosen = [g for g in games if g["players"] == players]
        x, m, y, g, s = rows(chosen)
        every = np.ones_like(s)
        fig: dict[str, Any] = {
            "games": len(chosen),
            "positions": len(y),
            "stage_starts": int(s.sum()),
            "variance_at_starts": round(float(np.var(y[s])), 3),
            "every_raw": _best(x, m, y, g, every, s),
            "starts_mean": _best(m, m, y, g, s, s),
            "every_starts_mean": _best(np.where(s[:, None], m, x), m, y, g, every, s),
        }
        if str(players) in models:
            w = np.array(models[str(players)]["weights"])
            b = float(models[str(players)]["intercept"])
            for name, feats in (("shipped_mean", m), ("shipped_raw", x)):
                fig[name] = round(float(np.mean((feats[s] @ w + b - y[s]) ** 2)), 3)
        out[f"{players}p"] = fig
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("games", type=Path, nargs="+")
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    write_json(judge(args.games), args.json, echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
