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

`--reach` adds features of the table's reach to the three fits (`reach`): whether the
table is empty or holds two cards or fewer, how many card values sweep it (its sum,
fifteen less its sum, an ace on a table without one: the rules' sweeps, read roughly),
how many such cards each side's hands and the deck hold, and those of the hands again
when the side to move leads the round.

`--life` adds `leafvalue.LIFE` instead or as well (`life`): whether each side's grande
and piccola are still alive, and the majorities won; what the option
`value="cheater_life"` reads.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
from _report import write_json
from value_fit import LAMBDAS, cross_validated
from value_games import load_games, replay

from cirulla import Deal, Rules
from cirulla.bots.leafvalue import features, groups, leaf_model, life

#: The features `--reach` adds, in `reach`'s order.
REACH = (
    "table_empty",
    "sweeping_values",
    "our_sweepers",
    "their_sweepers",
    "deck_sweepers",
    "our_sweepers_leading",
    "their_sweepers_leading",
    "table_short",
)


def reach(deal: Deal, mean: bool) -> list[float]:
    """The table's reach for the side to move (`REACH`); `mean`: the hands' and the
    deck's counts averaged over their deal, as `features(deal, True)` does."""
    seat = deal.to_move
    assert seat is not None
    _, _, ours, theirs, table, deck = groups(deal, deal.side_of(seat))
    total = sum(c.value for c in table)
    values: set[int] = set()
    if table:
        if total <= 10:
            values.add(total)
        if 5 <= total <= 14:
            values.add(15 - total)
        if not any(c.value == 1 for c in table):
            values.add(1)
    counts = [float(sum(c.value in values for c in cards)) for cards in (ours, theirs, deck)]
    if mean:
        pool = sum(counts)
        size = len(ours) + len(theirs) + len(deck)
        counts = [pool * len(cards) / size if size else 0.0 for cards in (ours, theirs, deck)]
    leading = 1.0 if (seat - deal._first) % deal.players == 0 else 0.0
    return [
        float(not table),
        float(len(values)),
        *counts,
        counts[0] * leading,
        counts[1] * leading,
        float(len(table) <= 2),
    ]


def rows(
    games: list[dict[str, Any]], with_reach: bool = False, with_life: bool = False
) -> tuple[np.ndarray, ...]:
    """Every position with a choice: its features (`with_reach`: and the table's reach;
    `with_life`: and `LIFE`, the same at every position's averaged form: the piles),
    the same averaged over the hands at the stage starts (as the cut asks them; real
    elsewhere), the side to move's result, the game's index, and whether a stage's
    hands were just dealt."""
    raw, mean, ys, ids, starts = [], [], [], [], []
    for n, game in enumerate(games):
        for deal, result, _, first in replay(game):
            if len(deal.legal_moves()) > 1:
                alive = life(deal) if with_life else []
                row = features(deal) + (reach(deal, False) if with_reach else []) + alive
                raw.append(row)
                if first:
                    row = features(deal, True) + (reach(deal, True) if with_reach else [])
                    row += alive
                mean.append(row)
                ys.append(result)
                ids.append(n)
                starts.append(first)
    return np.array(raw), np.array(mean), np.array(ys), np.array(ids), np.array(starts)


def _best(
    fit_on: np.ndarray,
    ask: np.ndarray,
    y: np.ndarray,
    g: np.ndarray,
    train: np.ndarray | None,
    judged: np.ndarray,
) -> dict[str, float]:
    """The least cross-validated error at the `judged` positions of a ridge fitted on
    `fit_on`'s `train` rows (all if None) and asked on `ask`, over the penalties."""
    best: dict[str, float] = {}
    for lam in LAMBDAS:
        pred = cross_validated(fit_on, y, g, lam, train=train, ask=ask)
        mse = float(np.mean((pred[judged] - y[judged]) ** 2))
        if not best or mse < best["mse"]:
            best = {"lambda": lam, "mse": round(mse, 3)}
    return best


def judge(paths: list[Path], with_reach: bool = False, with_life: bool = False) -> dict[str, Any]:
    games = load_games(paths)
    counts = sorted({g["players"] for g in games} & {2, 4})
    if not counts:
        raise SystemExit("value_starts scores two sides: games of 2 or 4 players only")
    out: dict[str, Any] = {
        "benchmark": "value_starts",
        "sources": [p.name for p in paths],
        "reach": with_reach,
        "life": with_life,
    }
    for players in counts:
        chosen = [g for g in games if g["players"] == players]
        x, m, y, g, s = rows(chosen, with_reach, with_life)
        fig: dict[str, Any] = {
            "games": len(chosen),
            "positions": len(y),
            "stage_starts": int(s.sum()),
            "variance_at_starts": round(float(np.var(y[s])), 3),
            "every_raw": _best(x, m, y, g, None, s),
            "starts_mean": _best(m, m, y, g, s, s),
            "every_starts_mean": _best(m, m, y, g, None, s),
        }
        # the value the search asks (`leafvalue.leaf_model`), not a copy of its file
        shipped = leaf_model(Rules.preset("cirulla"), players)
        if shipped is not None:
            w, b = np.array(shipped.weights), shipped.intercept
            for name, feats in (("shipped_mean", m), ("shipped_raw", x)):
                shown = feats[s][:, : len(w)]  # the shipped features, without the others
                fig[name] = round(float(np.mean((shown @ w + b - y[s]) ** 2)), 3)
        out[f"{players}p"] = fig
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("games", type=Path, nargs="+")
    p.add_argument("--reach", action="store_true", help="add the table's reach (REACH)")
    p.add_argument("--life", action="store_true", help="add leafvalue.LIFE")
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    write_json(judge(args.games, with_reach=args.reach, with_life=args.life), args.json, echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
