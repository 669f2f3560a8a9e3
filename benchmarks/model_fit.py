"""How well an opponent model's factors fit the way a bot really plays: a log score.

    python benchmarks/model_fit.py [--opponents normale,old] [--deals 30]
        [--players 4] [--redraws 200] [--seed 1] [--model NAME=C,S,B,G ...]
        [--json PATH]

Campione keeps determinizations by the product of the surprises the others' plays
imply (`bots/inference.PlayEvidence`; `benchmarks/play_rates.py` counts how often each
bot does what the model calls surprising). Whether a set of factors fits a kind of
player is measured here by the log score of the hands that player really held: at
every turn of seat 0 (normale, so that positions are cheap), for each hidden seat
with evidence, log(weight of its real hand) - log(mean weight of `--redraws` uniform
redraws of the hidden cards), the model's posterior of the real hand against the
uniform prior, in nats. The higher the mean, the better the model knows that
player's hands; 0 is what the uniform prior scores, below 0 the model misleads.
Seat 0's partner plays normale too; the other side plays each of `--opponents`
(`old`: the campione of 2026-11-21, `campione`: today's), and the score is given
for them apart from the partner. The factor sets (`missed_capture, missed_scopa,
missed_bonus, missed_greedy`) are those of `MODELS` and `--model`; a name ending
"+adapt" adds the search's `adapt` (`PlayEvidence(searcher=SEARCHER_FACTORS)`), one
ending "+mixture" its `mixture`.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from pathlib import Path
from typing import Any, Final

from _report import write_json
from play_rates import make

from cirulla import Deal, Rules
from cirulla.bots import level_bot
from cirulla.bots.base import SeatView
from cirulla.bots.inference import SEARCHER_FACTORS, PlayEvidence
from cirulla.determinize import determinize

Factors = tuple[float, float, float, float]

#: name: (missed_capture, missed_scopa, missed_bonus, missed_greedy)
MODELS: Final[dict[str, Factors]] = {
    "campione": (0.4, 0.1, 0.05, 0.05),  # levels.CAMPIONE_OPTIONS
    "greedy_only": (1.0, 1.0, 0.05, 0.05),  # greedy's score alone says what is surprising
    "searcher": (0.2, 0.4, 0.05, 0.3),  # play_rates.py's rates for the searchers
    "no_greedy": (0.4, 0.1, 1.0, 1.0),  # the campione of 2026-11-21's `infer` factors
    # campione's, but SEARCHER_FACTORS for a seat whose finished stages look a
    # searcher's (the ismcts option `adapt`): a name ending "+adapt" means that
    "campione+adapt": (0.4, 0.1, 0.05, 0.05),
    "campione+mixture": (0.4, 0.1, 0.05, 0.05),  # and "+mixture" the option `mixture`
}


def score(
    real: Deal,
    seat: int,
    view: SeatView,
    rng: random.Random,
    redraws: int,
    models: dict[str, Factors] = MODELS,
    soft: dict[str, tuple[float, float]] | None = None,
) -> dict[int, dict[str, float]]:
    """Per hidden seat that some model noted something about: each model's log score
    of its real hand (0 where that model noted nothing)."""
    base = determinize(view.raw, rng)
    hidden = [s for s in range(real.players) if s != seat and view.known_hand(s) is None]
    draws = []
    for _ in range(redraws):
        d = base.copy()
        d.redeal_unseen(seat, rng)
        draws.append(d)
    out: dict[int, dict[str, float]] = {s: {} for s in hidden}
    evidences = []
    for name, factors in models.items():
        mixture = name.endswith("+mixture")
        searcher = SEARCHER_FACTORS if mixture or name.endswith("+adapt") else None
        evidences.append(
            (name, PlayEvidence(base, hidden, *factors, searcher=searcher, mixture=mixture))
        )
    for name, (beta, eps) in (soft or {}).items():
        # campione's bonus factor; the softmax in place of the other three
        evidences.append(
            (name, PlayEvidence(base, hidden, *MODELS["campione"], beta=beta, eps=eps))
        )
    for name, evidence in evidences:
        for s in hidden:
            w_real = evidence.hand_weight(s, real.hand(s), real.declared(s))
            mean = statistics.fmean(
                evidence.hand_weight(s, d.hand(s), d.declared(s)) for d in draws
            )
            out[s][name] = math.log(w_real) - math.log(mean)
    return {s: by_model for s, by_model in out.items() if any(by_model.values())}


def _summary(values: list[float]) -> dict[str, Any]:
    if len(values) < 2:
        return {"n": len(values), "mean": None, "ci95": None}
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return {
        "n": len(values),
        "mean": round(mean, 4),
        "ci95": [round(mean - half, 4), round(mean + half, 4)],
    }


def run(
    opponent: str,
    deals: int,
    players: int,
    redraws: int,
    seed: int,
    models: dict[str, Factors] = MODELS,
    soft: dict[str, tuple[float, float]] | None = None,
) -> dict[str, Any]:
    """Each model's mean log score on the opponents' and the partner's hands, and its
    difference from campione's model on the same hands."""
    if "campione" not in models:
        raise ValueError("the models must include campione's, the one the others are set against")
    rules = Rules.preset("cirulla")
    rng = random.Random(seed)
    rows: dict[str, list[dict[str, float]]] = {"opponents": [], "partner": []}
    for n in range(deals):
        deal = Deal(rules, players=players, dealer=n % players, seed=seed * 1000 + n)
        bots = [
            level_bot("normale", seed + s) if deal.side_of(s) == 0 else make(opponent, seed + s)
            for s in range(players)
        ]
        while not deal.is_over:
            seat = deal.to_move
            assert seat is not None
            view = SeatView(deal.view(seat))
            if seat == 0 and len(deal.legal_moves()) > 1:
                for s, by_model in score(deal, 0, view, rng, redraws, models, soft).items():
                    rows["partner" if deal.side_of(s) == 0 else "opponents"].append(by_model)
            deal.play(bots[seat].choose(view))
    result: dict[str, Any] = {}
    for kind, kind_rows in rows.items():
        if not kind_rows:
            continue
        result[kind] = {
            name: {
                "score": _summary([r[name] for r in kind_rows]),
                "minus_campione": _summary([r[name] - r["campione"] for r in kind_rows]),
            }
            for name in [*models, *(soft or {})]
        }
    return result


def _named_numbers(spec: str) -> tuple[str, tuple[float, ...]]:
    """NAME=X,Y,... as the name and its numbers (none if one is not a number)."""
    name, _, numbers = spec.partition("=")
    try:
        return name, tuple(float(x) for x in numbers.split(","))
    except ValueError:
        return name, ()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--opponents", default="normale,old")
    p.add_argument("--deals", type=int, default=30)
    p.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--redraws", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="NAME=C,S,B,G",
        help="another factor set to score: missed_capture, _scopa, _bonus, _greedy "
        "(a NAME ending +adapt or +mixture: with that option of the search)",
    )
    p.add_argument(
        "--softmax",
        action="append",
        default=[],
        metavar="NAME=BETA,EPS",
        help="a softmax model of play to score (`PlayEvidence(beta=, eps=)`)",
    )
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    soft: dict[str, tuple[float, float]] = {}
    for spec in args.softmax:
        name, pair = _named_numbers(spec)
        if not name or len(pair) != 2 or not 0.0 <= pair[0] <= 20.0 or not 0.0 <= pair[1] < 1.0:
            p.error(f"--softmax takes NAME=BETA,EPS, beta in [0, 20], eps in [0, 1); got {spec!r}")
        soft[name] = (pair[0], pair[1])
    models = dict(MODELS)
    for spec in args.model:
        name, factors = _named_numbers(spec)
        if not name or len(factors) != 4 or not all(0.0 < f <= 1.0 for f in factors):
            p.error(f"--model takes NAME=C,S,B,G with four factors in (0, 1]; got {spec!r}")
        models[name] = (factors[0], factors[1], factors[2], factors[3])
    names = [n for n in args.opponents.split(",") if n]
    known = ("facile", "normale", "difficile", "old", "campione")
    if not names or any(n not in known for n in names):
        p.error(f"--opponents takes some of {', '.join(known)}; got {args.opponents!r}")
    if args.deals < 1 or args.redraws < 1:
        p.error("--deals and --redraws must be at least 1")
    result = {
        "benchmark": "model_fit",
        "players": args.players,
        "deals": args.deals,
        "redraws": args.redraws,
        "seed": args.seed,
        "models": {
            k: dict(
                zip(
                    ("missed_capture", "missed_scopa", "missed_bonus", "missed_greedy"),
                    v,
                    strict=True,
                )
            )
            for k, v in models.items()
        },
        "softmax": {k: {"beta": b, "eps": e} for k, (b, e) in soft.items()},
        "opponents": {
            n: run(n, args.deals, args.players, args.redraws, args.seed, models, soft)
            for n in names
        },
    }
    write_json(result, args.json, echo=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
