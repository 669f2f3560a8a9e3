"""The coach: what each legal move is worth to the seat that makes it, from its view only.

Method (docs/coach.md): the hidden cards are drawn many times (`determinize`, then
`Deal.redeal_unseen`), each draw consistent with everything the seat's view shows and
nothing else. Every legal move is played on EVERY draw and the smazzata played out by
the search bots' own playout policy (greedy with a little randomness), the random
choices of a draw shared by every move: common random numbers, so that the
difference between two moves is measured on the same cards and the same replies.

A move's value is the expected smazzata margin of the mover's side: its points minus
the mean of the other sides' points (the search bots' reward, in points). The best
move has the highest value; a move's loss is the best value minus its own (>= 0).

At 2 players, once the deck is dealt out, nothing is hidden: each hand is every card
the other has not seen, and a move's value is exact, the minimax of the score sheet
with both players at their best (`endgame.solve`), not a playout's greedy replies.

The coach reads a view and never a `Deal`, so it cannot see a hidden card: two deals
that show a seat the same view get the same advice (tests/test_coach.py).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ..deal import Deal
from ..determinize import determinize
from ..game import Game
from ..moves import Move, parse_move
from ..record import RECORD_FORMAT, replay_game
from .base import SeatView
from .endgame import known_deal, solve, worth
from .playouts import playout

__all__ = [
    "CLASSES",
    "DEFAULT_SAMPLES",
    "LEAST_SAMPLES",
    "PLAYOUT_EPSILON",
    "THRESHOLDS",
    "Advice",
    "Position",
    "advise",
    "analyse_position",
    "classify",
    "game_of",
    "hint",
    "position_seed",
    "positions",
    "report",
    "summarise",
]

#: The marks of a move, from best to worst.
CLASSES: Final = ("good", "inaccuracy", "mistake", "blunder")
#: A loss (points of expected smazzata margin) below THRESHOLDS[i] gets CLASSES[i];
#: from the last threshold on, a blunder. A point is a scopa, or the settebello.
THRESHOLDS: Final = (0.25, 0.75, 1.5)
#: Draws of the hidden cards per position when no budget is given.
DEFAULT_SAMPLES: Final = 400
#: The fewest draws a timed verdict rests on, however slow the machine: on an obvious
#: sweep, 20 draws name it 3 times in 4, 100 draws 99 times in 100 (tests/test_coach.py).
LEAST_SAMPLES: Final = 100
#: The share of random moves in the playouts: a little noise, so that a line does not
#: hinge on one greedy tie-break, far less than the search's 0.3 (its playouts
#: explore; these judge).
PLAYOUT_EPSILON: Final = 0.1


def classify(loss: float) -> str:
    """The mark of a move that lost `loss` points against the best one."""
    for name, limit in zip(CLASSES, THRESHOLDS, strict=False):
        if loss < limit:
            return name
    return CLASSES[-1]


@dataclass(frozen=True, slots=True)
class Advice:
    """The coach's estimate for one position: `values[move]` is the move's expected
    margin for the mover's side, `totals[move]` each side's expected points for the
    smazzata after it (move texts are the canonical notation of `legal_moves`); `exact`
    when they are the rest's minimax, not an average over `samples` draws."""

    seat: int
    side: int
    values: dict[str, float]
    totals: dict[str, list[float]]
    samples: int
    exact: bool = False  # solved (2 players, the deck dealt out), not sampled

    @property
    def best(self) -> str:
        """The move with the highest value (the first in notation order among equals)."""
        return max(sorted(self.values), key=lambda m: self.values[m])

    def move_text(self, move: Move | str) -> str:
        """The canonical text of one of the legal moves (captures in any order on input);
        ValueError for a move that is not legal here."""
        key = (parse_move(move) if isinstance(move, str) else move).key
        for text in self.values:
            if parse_move(text).key == key:
                return text
        raise ValueError(f"{move} is not a legal move here (legal: {', '.join(self.values)})")

    def loss(self, move: Move | str) -> float:
        """Points of expected margin the move gives away against the best one (>= 0)."""
        return max(0.0, self.values[self.best] - self.values[self.move_text(move)])

    def mark(self, move: Move | str) -> str:
        return classify(self.loss(move))

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "side": self.side,
            "best": self.best,
            "values": {m: round(v, 3) for m, v in self.values.items()},
            "totals": {m: [round(x, 3) for x in t] for m, t in self.totals.items()},
            "samples": self.samples,
            "exact": self.exact,
        }


def _margin(totals: list[int], side: int) -> float:
    others = [t for s, t in enumerate(totals) if s != side]
    return totals[side] - sum(others) / len(others)


def advise(
    view: SeatView | Mapping[str, Any],
    *,
    samples: int | None = DEFAULT_SAMPLES,
    seconds: float | None = None,
    seed: int = 0,
    epsilon: float = PLAYOUT_EPSILON,
    least: int = 1,
) -> Advice:
    """Every legal move's value for the seat to move, from that seat's view only.

    Budget: at most `samples` draws of the hidden cards and at most `seconds` (checked
    between draws, so every move is always judged on the same draws), but at least
    `least` draws whatever the clock says (on a slow or busy machine a few draws would
    be a coin toss). With `samples` binding, the result is a function of the view and
    `seed`. At 2 players once the deck is dealt out every card is known to both, and
    the values are exact: the minimax of the rest (`endgame.solve`), on the one deal
    that fits the view (`samples` 1), not playouts that reply as greedy would.
    ValueError for a spectator's view, a finished smazzata or another seat's turn.
    """
    seat_view = view if isinstance(view, SeatView) else SeatView(view)
    if samples is None and seconds is None:
        raise ValueError("the coach needs a budget: samples, seconds or both")
    if samples is not None and (not isinstance(samples, int) or samples < 1):
        raise ValueError(f"samples must be a positive whole number, not {samples!r}")
    if seconds is not None and not seconds > 0:
        raise ValueError(f"seconds must be positive, not {seconds!r}")
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must be between 0 and 1, not {epsilon!r}")
    if not isinstance(least, int) or isinstance(least, bool) or least < 1:
        raise ValueError(f"least must be a positive whole number, not {least!r}")
    raw = seat_view.raw
    if raw.get("is_over") or seat_view.to_move != seat_view.seat:
        raise ValueError("the coach advises the seat to move, in a smazzata not over")
    legal = seat_view.legal
    seat, side = seat_view.seat, seat_view.side
    known = known_deal(seat_view)
    if known is not None:  # every card known: the values are exact, no draw to make
        outcomes = solve(known, legal)
        return Advice(
            seat=seat,
            side=side,
            values={str(m): float(worth(o, side)) for m, o in zip(legal, outcomes, strict=True)},
            totals={str(m): [float(x) for x in o] for m, o in zip(legal, outcomes, strict=True)},
            samples=1,
            exact=True,
        )
    rng = random.Random(seed)
    base = determinize(raw, rng)
    texts = [str(m) for m in legal]
    sums = [0.0] * len(legal)
    side_sums = [[0.0] * seat_view.sides for _ in legal]
    deadline = None if seconds is None else time.perf_counter() + seconds
    done = 0
    while samples is None or done < samples:
        draw = base.copy()
        draw.redeal_unseen(seat, rng)
        stream = rng.getrandbits(64)  # the draw's random choices, shared by every move
        for i, move in enumerate(legal):
            deal = draw.copy()
            deal.play(move)
            totals = playout(deal, random.Random(stream), epsilon)
            sums[i] += _margin(totals, side)
            for s, t in enumerate(totals):
                side_sums[i][s] += t
        done += 1
        if deadline is not None and done >= least and time.perf_counter() > deadline:
            break
    return Advice(
        seat=seat,
        side=side,
        values={t: sums[i] / done for i, t in enumerate(texts)},
        totals={t: [x / done for x in side_sums[i]] for i, t in enumerate(texts)},
        samples=done,
    )


# ---- a whole partita -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Position:
    """One move of a partita: where it was made, by whom, from what view."""

    deal: int
    index: int
    seat: int
    side: int
    played: str
    view: dict[str, Any]
    before: list[int]  # each side's partita total before this smazzata


def game_of(record: Mapping[str, Any]) -> Game:
    """The partita of a record: a game record (`cirulla.game_record`) or a record of the
    server (its "game" holds one). RecordError (a ValueError) if it does not replay."""
    data: Any = record
    if isinstance(record, Mapping) and record.get("format") != RECORD_FORMAT:
        inner = record.get("game")
        if isinstance(inner, Mapping):
            data = inner
    return replay_game(dict(data) if isinstance(data, Mapping) else data)


def positions(game: Game, seat: int | None = None) -> Iterator[Position]:
    """Every move of the partita (or of `seat`), with the mover's view before it."""
    if seat is not None and not 0 <= seat < game.players:
        raise ValueError(f"seat must be 0..{game.players - 1}, not {seat}")
    before = [0] * len(game.totals)
    for k, played in enumerate(game.deals):
        deal = Deal(
            game.rules,
            game.players,
            played.dealer,
            deck=list(played.initial_deck) if played.stacked else None,
            seed=played.seed,
        )
        for index, move in enumerate(played.moves):
            mover = deal.to_move
            assert mover is not None
            if seat is None or mover == seat:
                yield Position(
                    k, index, mover, deal.side_of(mover), str(move), deal.view(mover), list(before)
                )
            deal.play(move)
        if deal.is_over:
            for s, t in enumerate(deal.score().totals):
                before[s] += t


def position_seed(seed: int, deal: int, index: int) -> int:
    """Each position's own seed: its result does not depend on which process ran it."""
    return (seed * 1_000_003 + deal * 10_007 + index) & 0xFFFFFFFF


def analyse_position(
    pos: Position,
    *,
    samples: int | None = DEFAULT_SAMPLES,
    seconds: float | None = None,
    seed: int = 0,
    least: int = 1,
) -> dict[str, Any]:
    """One move judged: the JSON-ready entry of `cirulla analyse --json`."""
    advice = advise(
        pos.view,
        samples=samples,
        seconds=seconds,
        seed=position_seed(seed, pos.deal, pos.index),
        least=least,
    )
    played = advice.move_text(pos.played)
    loss = advice.loss(played)
    return {
        "deal": pos.deal,
        "index": pos.index,
        "seat": pos.seat,
        "side": pos.side,
        "played": played,
        "best": advice.best,
        "loss": round(loss, 3),
        "class": classify(loss),
        "forced": len(advice.values) == 1,
        "values": {m: round(v, 3) for m, v in advice.values.items()},
        "expected": round(advice.values[played], 3),
        "expected_totals": [
            round(b + t, 3) for b, t in zip(pos.before, advice.totals[played], strict=True)
        ],
        "samples": advice.samples,
        "exact": advice.exact,
    }


def summarise(moves: list[dict[str, Any]], players: int) -> list[dict[str, Any]]:
    """Per seat: the moves with a choice, their mean loss, and how many of each mark.
    Forced moves (one legal move) are left out: they would dilute the mean."""
    out = []
    for seat in range(players):
        mine = [m for m in moves if m["seat"] == seat and not m["forced"]]
        counts = {c: sum(1 for m in mine if m["class"] == c) for c in CLASSES}
        total = sum(m["loss"] for m in mine)
        out.append(
            {
                "seat": seat,
                "moves": len(mine),
                "mean_loss": round(total / len(mine), 3) if mine else 0.0,
                "total_loss": round(total, 3),
                **counts,
            }
        )
    return out


def report(game: Game, moves: list[dict[str, Any]], **meta: Any) -> dict[str, Any]:
    """The whole analysis of a partita as JSON (what `cirulla analyse --json` writes and
    the server keeps): the judged moves, a summary per seat, the thresholds used."""
    return {
        "format": "cirulla.analysis/1",
        "players": game.players,
        **meta,
        "thresholds": dict(zip(CLASSES, (0.0, *THRESHOLDS), strict=True)),
        "totals": game.totals,
        "moves": moves,
        "summary": summarise(moves, game.players),
    }


def hint(
    view: dict[str, Any], samples: int | None, seconds: float | None, seed: int, least: int = 1
) -> dict[str, Any]:
    """The coach's advice for the seat to move, JSON-ready (the server's hint button:
    this runs in a bot worker process)."""
    return advise(view, samples=samples, seconds=seconds, seed=seed, least=least).to_dict()
