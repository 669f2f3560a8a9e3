"""The arena: bot A against bot B on paired decks, so the luck of the cards cancels.

Every deck is played once per seating and the seatings mirror each other:

- 2 players: A at seat 0, B at seat 1; then swapped.
- 4 players: A (both partners) at seats 0 and 2, B at 1 and 3; then swapped.
- 3 players: each side alone against two of the other, in every seat: A alone at
  seat 0, 1, 2, then B alone at seat 0, 1, 2 (six plays; play i and play 3 + i are
  mirror images). This keeps the result antisymmetric: swapping A and B negates
  the margin, as with 2 and 4 players, and every seat is played by both bots.

A play's margin is the mean of A's seats' points minus the mean of B's seats'
points (with 2 and 4 players simply A's side minus B's side); a deck's margin is
the mean over its plays. Deck k is shuffled from `deck_seed(seed, k)` and dealt by
seat k % players in all its plays. Each play gets fresh bots, seeded from the
pair, the play and the seat, so a run is reproducible for a seed (unless a bot
has a budget in seconds) and the same with any number of processes: work is
assigned by pair index and results are gathered in pair order.

Paired partite work the same way: partita j is a `cirulla.Game` seeded with
`partita_seed(seed, j)`, first dealer j % players, played once per seating. A Game
shuffles its k-th smazzata from (game seed, k), so every play of the partita sees
the same decks at the same indexes however long it lasts (checked as it runs).

Cirulo (`game="cirulo"`, 4 to 6 players, no sides) uses the 3-player design for
any number of players: A alone in each seat against B everywhere else, then B
alone in each seat (2 * players plays of every deck, play i and play players + i
mirror images). A play's margin is A's mean balance for the hand minus B's
(points: share of the pot less coins paid in, CI5); every hand starts with an
empty pot. Paired partite are not offered for Cirulo.

A budget in seconds makes a bot depend on the machine's speed and load: such a
run is not reproducible, and it should use no more processes than free cores.
Statistics (normal intervals, Wilson for win rates) are in `stats.py`. The
command: `cirulla arena A B [--players 4 --preset cirulla --pairs 100 ...]`, or
`cirulla arena heuristic random --game cirulo --players 5 --deck poker52`.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal, TypeVar

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from ..cirulo import CiruloRules
from ..cirulo import Deal as CiruloDeal
from ..cirulo import bots as cirulo_bots
from ..deal import Deal
from ..game import Game, derived_seed
from ..moves import IllegalMove
from ..rules import Rules
from . import get, names
from .base import Bot, Budget, choose_move
from .stats import MeanEstimate, RunningMean, Tally, mean_estimate, wilson_interval, z_value

__all__ = [
    "ArenaConfig",
    "ArenaProgress",
    "ArenaResult",
    "BotSpec",
    "PairResult",
    "PartitaPairResult",
    "PartitaPlay",
    "PlayResult",
    "add_cli",
    "deck_seed",
    "main",
    "parse_budget",
    "partita_seed",
    "play_pair",
    "play_partita_pair",
    "plot_running",
    "result_table",
    "run_arena",
    "seatings",
]

CONFIDENCE = 0.95
_R = TypeVar("_R")


# ---- configuration ------------------------------------------------------------------
@dataclass(frozen=True)
class BotSpec:
    """How to make one side's bots: a registered name (or a `factory` taking
    seed=, budget= and the options), a budget per move and options.

    With several processes a factory must pickle (a module-level class or function).
    """

    name: str
    budget: Budget | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    factory: Callable[..., Bot] | None = None

    def make(self, seed: int) -> Bot:
        if self.factory is None:
            return get(self.name, seed=seed, budget=self.budget, **self.options)
        return self.factory(seed=seed, budget=self.budget, **self.options)

    def make_cirulo(self, seed: int) -> cirulo_bots.CiruloBot:
        """The same, from the Cirulo bots (`cirulla.cirulo.bots`)."""
        if self.factory is None:
            return cirulo_bots.get(self.name, seed=seed, budget=self.budget, **self.options)
        bot = self.factory(seed=seed, budget=self.budget, **self.options)
        if not isinstance(bot, cirulo_bots.CiruloBot):
            raise ValueError(f"bot {self.name!r} is not a Cirulo bot")
        return bot

    def to_dict(self) -> dict[str, Any]:
        budget = self.budget
        return {
            "name": self.name,
            "budget": None
            if budget is None
            else {"iterations": budget.iterations, "seconds": budget.seconds},
            "options": dict(self.options),
        }


def _spec(bot: BotSpec | str) -> BotSpec:
    return bot if isinstance(bot, BotSpec) else BotSpec(bot)


@dataclass(frozen=True)
class ArenaConfig:
    """An arena run. `a` and `b` are bot names or `BotSpec`s; `pairs` is the number of
    decks (each played by every seating, see `seatings`); `partite` the number of
    paired partite; `preset` a `Rules.presets()` name or a `Rules`. `game="cirulo"`
    plays Cirulo hands with `cirulo` rules (default `CiruloRules()`), no partite."""

    a: BotSpec | str
    b: BotSpec | str
    players: int = 4
    preset: str | Rules = "cirulla"
    pairs: int = 100
    partite: int = 0
    seed: int = 0
    processes: int = 1
    game: str = "cirulla"
    cirulo: CiruloRules | None = None

    @property
    def cirulo_rules(self) -> CiruloRules:
        return self.cirulo if self.cirulo is not None else CiruloRules()

    @property
    def bot_a(self) -> BotSpec:
        return _spec(self.a)

    @property
    def bot_b(self) -> BotSpec:
        return _spec(self.b)

    @property
    def rules(self) -> Rules:
        return self.preset if isinstance(self.preset, Rules) else Rules.preset(self.preset)

    def check(self) -> None:
        """ValueError naming the problem: bad counts, preset, players or bots."""
        for name in ("pairs", "partite", "seed"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, not {value!r}")
        if self.pairs == 0 and self.partite == 0:
            raise ValueError("nothing to play: pairs and partite are both 0")
        if (
            not isinstance(self.processes, int)
            or isinstance(self.processes, bool)
            or self.processes < 1
        ):
            raise ValueError(f"processes must be a positive integer, not {self.processes!r}")
        if self.game == "cirulo":
            self.cirulo_rules.check_players(self.players)
            if self.partite:
                raise ValueError("paired partite are not offered for Cirulo: use pairs")
            for spec in (self.bot_a, self.bot_b):
                spec.make_cirulo(0)  # an unknown name or a bad option fails here
            return
        if self.game != "cirulla":
            raise ValueError(f"game must be 'cirulla' or 'cirulo', not {self.game!r}")
        if self.players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, not {self.players!r}")
        self.rules.check_players(self.players)
        for spec in (self.bot_a, self.bot_b):
            spec.make(0)  # an unknown name or a bad option fails here, not in a worker

    def to_dict(self) -> dict[str, Any]:
        if self.game == "cirulo":
            preset: str | None = None
            rules_dict = self.cirulo_rules.to_dict()
        else:
            rules = self.rules
            preset = self.preset if isinstance(self.preset, str) else rules.preset_name()
            rules_dict = rules.to_dict()
        return {
            "a": self.bot_a.to_dict(),
            "b": self.bot_b.to_dict(),
            "game": self.game,
            "players": self.players,
            "preset": preset,
            "rules": rules_dict,
            "pairs": self.pairs,
            "partite": self.partite,
            "seed": self.seed,
            "processes": self.processes,
            "seatings": [list(s) for s in seatings(self.players, self.game)],
        }


def seatings(players: int, game: str = "cirulla") -> tuple[tuple[int, ...], ...]:
    """A's seats in each play of a deck (B has the others); see the module doc."""
    if game == "cirulo":  # A alone in each seat, then B alone in each seat
        CiruloRules().check_players(players)
        alone = tuple((s,) for s in range(players))
        return alone + tuple(tuple(t for t in range(players) if t != s) for s in range(players))
    if players == 2:
        return ((0,), (1,))
    if players == 4:
        return ((0, 2), (1, 3))
    if players == 3:
        return ((0,), (1,), (2,), (1, 2), (0, 2), (0, 1))
    raise ValueError(f"players must be 2, 3 or 4, not {players!r}")


def deck_seed(seed: int, index: int) -> int:
    """The shuffle seed of deck `index` (the same for all its plays)."""
    return derived_seed(seed, "arena:deck", index)


def partita_seed(seed: int, index: int) -> int:
    """The Game seed of paired partita `index` (the same for all its plays)."""
    return derived_seed(seed, "arena:partita", index)


def _bot_seed(seed: int, what: str, index: int, play: int, seat: int) -> int:
    return derived_seed(seed, f"arena:{what}-bot:{play}:{seat}", index)


# ---- results ------------------------------------------------------------------------
def _margin(points: Sequence[float], a_seats: Sequence[int]) -> float:
    a = [points[s] for s in a_seats]
    b = [points[s] for s in range(len(points)) if s not in a_seats]
    return sum(a) / len(a) - sum(b) / len(b)


@dataclass(frozen=True)
class PlayResult:
    """One play of a deck: A's seats, the points of each seat (its side's total for
    the smazzata; a Cirulo hand's balance) and the work done. Timings are left out
    of comparisons."""

    a_seats: tuple[int, ...]
    points: tuple[float, ...]
    moves_a: int
    moves_b: int
    seconds_a: float = field(default=0.0, compare=False)
    seconds_b: float = field(default=0.0, compare=False)

    @property
    def margin(self) -> float:
        return _margin(self.points, self.a_seats)

    @property
    def outcome(self) -> int:
        """+1 when A holds the top score alone, -1 when B does, 0 when they share it
        (with 2 and 4 players: A's side has more points, fewer, the same)."""
        top = max(self.points)
        leaders = {s in self.a_seats for s, p in enumerate(self.points) if p == top}
        return 0 if len(leaders) == 2 else (1 if True in leaders else -1)


@dataclass(frozen=True)
class PairResult:
    """Deck `index`: its seed, dealer and one play per seating."""

    index: int
    seed: int
    dealer: int
    plays: tuple[PlayResult, ...]

    @property
    def margin(self) -> float:
        return sum(p.margin for p in self.plays) / len(self.plays)

    def margin_dealing(self, a_dealt: bool) -> float:
        """The margin over the plays where A's side dealt (or did not)."""
        plays = [p for p in self.plays if (self.dealer in p.a_seats) == a_dealt]
        return sum(p.margin for p in plays) / len(plays)


@dataclass(frozen=True)
class PartitaPlay:
    """One play of a paired partita: final points per seat, who won, and the decks."""

    a_seats: tuple[int, ...]
    points: tuple[int, ...]
    a_won: bool
    end_reason: str | None
    deal_seeds: tuple[int, ...]
    dealers: tuple[int, ...]
    moves_a: int
    moves_b: int
    seconds_a: float = field(default=0.0, compare=False)
    seconds_b: float = field(default=0.0, compare=False)

    @property
    def margin(self) -> float:
        return _margin(self.points, self.a_seats)

    @property
    def smazzate(self) -> int:
        return len(self.deal_seeds)


@dataclass(frozen=True)
class PartitaPairResult:
    index: int
    seed: int
    dealer: int
    plays: tuple[PartitaPlay, ...]

    @property
    def a_wins(self) -> int:
        return sum(p.a_won for p in self.plays)

    @property
    def margin(self) -> float:
        return sum(p.margin for p in self.plays) / len(self.plays)


@dataclass(frozen=True)
class ArenaProgress:
    """What `run_arena` reports after each pair: the phase ("smazzate" or
    "partite"), pairs done of total, the running margin (points per smazzata, or
    final points per partita), and A's partite won of played so far."""

    phase: Literal["smazzate", "partite"]
    done: int
    total: int
    margin: MeanEstimate
    wins: tuple[int, int] | None = None


def _speed(moves: int, seconds: float) -> dict[str, Any]:
    return {
        "moves": moves,
        "seconds": seconds,
        "moves_per_second": moves / seconds if seconds > 0 else None,
    }


@dataclass(frozen=True)
class ArenaResult:
    """Everything a run played, in pair order, with the figures derived from it."""

    config: ArenaConfig
    pairs: tuple[PairResult, ...]
    partite: tuple[PartitaPairResult, ...]
    seconds: float = field(default=0.0, compare=False)

    # smazzate
    def margin(self) -> MeanEstimate:
        """Points per smazzata, A's side minus B's, over the paired decks."""
        return mean_estimate((p.margin for p in self.pairs), CONFIDENCE)

    def margin_dealing(self, a_dealt: bool) -> MeanEstimate:
        return mean_estimate((p.margin_dealing(a_dealt) for p in self.pairs), CONFIDENCE)

    def running(self) -> list[MeanEstimate]:
        """The running margin after each pair (the plot's line and band)."""
        running = RunningMean(CONFIDENCE)
        out = []
        for pair in self.pairs:
            running.add(pair.margin)
            out.append(running.estimate())
        return out

    def smazzate(self) -> Tally:
        outcomes = [play.outcome for pair in self.pairs for play in pair.plays]
        return Tally(outcomes.count(1), outcomes.count(-1), outcomes.count(0))

    # partite
    def partite_tally(self) -> Tally:
        plays = [play for pair in self.partite for play in pair.plays]
        won = sum(p.a_won for p in plays)
        return Tally(won, len(plays) - won, 0)

    def partite_wilson(self) -> tuple[float, float] | None:
        tally = self.partite_tally()
        return wilson_interval(tally.won, tally.played, CONFIDENCE)

    def partite_pairs(self) -> Tally:
        """Paired partite A won more plays of, fewer, as many (split)."""
        won = lost = tied = 0
        for pair in self.partite:
            half = len(pair.plays) / 2
            if pair.a_wins > half:
                won += 1
            elif pair.a_wins < half:
                lost += 1
            else:
                tied += 1
        return Tally(won, lost, tied)

    def partite_margin(self) -> MeanEstimate:
        """Final points per partita, A's side minus B's, over the paired partite."""
        return mean_estimate((p.margin for p in self.partite), CONFIDENCE)

    # speed
    def speed(self) -> dict[str, Any]:
        """Moves per second: the whole run's (`seconds` is wall-clock time, all
        processes together), and each bot's own (its thinking time, views included)."""
        plays: list[PlayResult | PartitaPlay] = [p for pair in self.pairs for p in pair.plays]
        plays += [p for pair in self.partite for p in pair.plays]
        moves_a = sum(p.moves_a for p in plays)
        moves_b = sum(p.moves_b for p in plays)
        return {
            **_speed(moves_a + moves_b, self.seconds),
            "a": _speed(moves_a, sum(p.seconds_a for p in plays)),
            "b": _speed(moves_b, sum(p.seconds_b for p in plays)),
        }

    def to_dict(self) -> dict[str, Any]:
        """Every figure, with the config: the --json output."""
        plays = [play for pair in self.pairs for play in pair.plays]
        a_points = [p.points[s] for p in plays for s in p.a_seats]
        b_points = [p.points[s] for p in plays for s in range(len(p.points)) if s not in p.a_seats]
        partita_plays = [play for pair in self.partite for play in pair.plays]
        wilson = self.partite_wilson()
        return {
            "format": "cirulla.arena/1",
            "config": self.config.to_dict(),
            "statistics": {
                "confidence": CONFIDENCE,
                "mean_interval": "normal: mean -+ z * sd / sqrt(n) over pairs",
                "z": z_value(CONFIDENCE),
                "proportion_interval": "wilson",
            },
            "smazzate": {
                "pairs": len(self.pairs),
                "plays": len(plays),
                "margin": self.margin().to_dict(),
                "margin_a_dealing": self.margin_dealing(True).to_dict(),
                "margin_a_not_dealing": self.margin_dealing(False).to_dict(),
                "a_points_per_seat": sum(a_points) / len(a_points) if a_points else None,
                "b_points_per_seat": sum(b_points) / len(b_points) if b_points else None,
                "won_lost_tied": self.smazzate().to_dict(),
                "pair_margins": [p.margin for p in self.pairs],
            },
            "partite": {
                "pairs": len(self.partite),
                "plays": len(partita_plays),
                "won_lost": self.partite_tally().to_dict(),
                "won_rate": self.partite_tally().to_dict()["won_rate"],
                "wilson95": None if wilson is None else list(wilson),
                "paired": self.partite_pairs().to_dict(),
                "margin": self.partite_margin().to_dict(),
                "smazzate_per_partita": (
                    sum(p.smazzate for p in partita_plays) / len(partita_plays)
                    if partita_plays
                    else None
                ),
                "pair_margins": [p.margin for p in self.partite],
                "pair_a_wins": [p.a_wins for p in self.partite],
            },
            "speed": self.speed(),
        }


# ---- playing ------------------------------------------------------------------------
class _Clock:
    """Moves and thinking time per side of one play."""

    def __init__(self) -> None:
        self.moves = [0, 0]  # A, B
        self.seconds = [0.0, 0.0]


def _play_out(deal: Deal, bots: Sequence[Bot], a_seats: Sequence[int], clock: _Clock) -> None:
    """Play the smazzata to its end through `choose_move` (bots see only views)."""
    while not deal.is_over:
        seat = deal.to_move
        assert seat is not None
        bot = bots[seat]
        who = 0 if seat in a_seats else 1
        start = time.perf_counter()
        move = choose_move(bot, deal, seat)
        clock.seconds[who] += time.perf_counter() - start
        clock.moves[who] += 1
        try:
            deal.play(move)
        except IllegalMove as exc:
            raise RuntimeError(f"bot {bot!r} at seat {seat} chose an illegal move: {exc}") from exc


def _make_bots(
    config: ArenaConfig, what: str, index: int, play: int, a_seats: Sequence[int]
) -> list[Bot]:
    a, b = config.bot_a, config.bot_b
    return [
        (a if seat in a_seats else b).make(_bot_seed(config.seed, what, index, play, seat))
        for seat in range(config.players)
    ]


def _play_cirulo_pair(config: ArenaConfig, index: int) -> PairResult:
    """Play Cirulo deck `index` once per seating: each seat's balance for the hand."""
    rules = config.cirulo_rules
    seed = deck_seed(config.seed, index)
    dealer = index % config.players
    plays = []
    for play, a_seats in enumerate(seatings(config.players, "cirulo")):
        deal = CiruloDeal(rules, config.players, dealer, seed=seed)
        bots = [
            (config.bot_a if seat in a_seats else config.bot_b).make_cirulo(
                _bot_seed(config.seed, "cirulo", index, play, seat)
            )
            for seat in range(config.players)
        ]
        clock = _Clock()
        while not deal.is_over:
            seat = deal.to_move
            assert seat is not None
            who = 0 if seat in a_seats else 1
            start = time.perf_counter()
            card = cirulo_bots.choose_card(bots[seat], deal, seat)
            clock.seconds[who] += time.perf_counter() - start
            clock.moves[who] += 1
            try:
                deal.play(card, seat)
            except IllegalMove as exc:
                raise RuntimeError(
                    f"bot {bots[seat]!r} at seat {seat} chose an illegal card: {exc}"
                ) from exc
        plays.append(
            PlayResult(
                a_seats=a_seats,
                points=tuple(float(b) for b in deal.settlement().balances),
                moves_a=clock.moves[0],
                moves_b=clock.moves[1],
                seconds_a=clock.seconds[0],
                seconds_b=clock.seconds[1],
            )
        )
    return PairResult(index, seed, dealer, tuple(plays))


def play_pair(config: ArenaConfig, index: int) -> PairResult:
    """Play deck `index` once per seating (the unit of work given to a process)."""
    if config.game == "cirulo":
        return _play_cirulo_pair(config, index)
    rules = config.rules
    seed = deck_seed(config.seed, index)
    dealer = index % config.players
    plays = []
    for play, a_seats in enumerate(seatings(config.players)):
        deal = Deal(rules, config.players, dealer, seed=seed)
        clock = _Clock()
        _play_out(deal, _make_bots(config, "deal", index, play, a_seats), a_seats, clock)
        totals = deal.score().totals
        plays.append(
            PlayResult(
                a_seats=a_seats,
                points=tuple(totals[deal.side_of(s)] for s in range(config.players)),
                moves_a=clock.moves[0],
                moves_b=clock.moves[1],
                seconds_a=clock.seconds[0],
                seconds_b=clock.seconds[1],
            )
        )
    return PairResult(index, seed, dealer, tuple(plays))


def play_partita_pair(config: ArenaConfig, index: int) -> PartitaPairResult:
    """Play partita `index` once per seating, each to its end with the preset's
    target; RuntimeError if two plays ever see different decks at the same index."""
    rules = config.rules
    seed = partita_seed(config.seed, index)
    dealer = index % config.players
    plays: list[PartitaPlay] = []
    decks: list[list[tuple[Any, ...]]] = []
    for play, a_seats in enumerate(seatings(config.players)):
        game = Game(rules, config.players, seed=seed, dealer=dealer)
        bots = _make_bots(config, "partita", index, play, a_seats)
        clock = _Clock()
        while True:
            _play_out(game.deal, bots, a_seats, clock)
            if game.is_over:
                break
            game.next_deal()
        decks.append([d.initial_deck for d in game.deals])
        totals = game.totals
        winner = game.winner
        assert winner is not None
        side_of = game.deal.side_of
        plays.append(
            PartitaPlay(
                a_seats=a_seats,
                points=tuple(totals[side_of(s)] for s in range(config.players)),
                a_won=all(s in a_seats for s in range(config.players) if side_of(s) == winner),
                end_reason=game.end_reason,
                deal_seeds=tuple(d.seed for d in game.deals),
                dealers=tuple(d.dealer for d in game.deals),
                moves_a=clock.moves[0],
                moves_b=clock.moves[1],
                seconds_a=clock.seconds[0],
                seconds_b=clock.seconds[1],
            )
        )
    for other in decks[1:]:
        common = min(len(other), len(decks[0]))
        if other[:common] != decks[0][:common]:
            raise RuntimeError(f"paired partita {index}: the plays saw different decks")
    return PartitaPairResult(index, seed, dealer, tuple(plays))


@contextmanager
def _mapper(
    processes: int,
) -> Iterator[Callable[[Callable[[int], _R], Sequence[int]], Iterable[_R]]]:
    """An ordered map over pair indexes: in this process, or on a pool."""
    if processes == 1:
        yield lambda fn, items: map(fn, items)
        return
    with multiprocessing.get_context().Pool(processes) as pool:

        def imap(fn: Callable[[int], _R], items: Sequence[int]) -> Iterable[_R]:
            chunk = max(1, min(16, len(items) // (processes * 8)))
            return pool.imap(fn, items, chunksize=chunk)

        yield imap


def run_arena(
    config: ArenaConfig, progress: Callable[[ArenaProgress], None] | None = None
) -> ArenaResult:
    """Play `config`'s paired decks, then its paired partite; `progress` is called
    after each pair. ValueError (before anything is played) for a bad config."""
    config.check()
    start = time.perf_counter()
    pairs: list[PairResult] = []
    partite: list[PartitaPairResult] = []
    with _mapper(config.processes) as imap:
        running = RunningMean(CONFIDENCE)
        for pair in imap(partial(play_pair, config), range(config.pairs)):
            pairs.append(pair)
            running.add(pair.margin)
            if progress is not None:
                progress(ArenaProgress("smazzate", len(pairs), config.pairs, running.estimate()))
        running = RunningMean(CONFIDENCE)
        wins = played = 0
        for partita in imap(partial(play_partita_pair, config), range(config.partite)):
            partite.append(partita)
            running.add(partita.margin)
            wins += partita.a_wins
            played += len(partita.plays)
            if progress is not None:
                progress(
                    ArenaProgress(
                        "partite", len(partite), config.partite, running.estimate(), (wins, played)
                    )
                )
    return ArenaResult(config, tuple(pairs), tuple(partite), time.perf_counter() - start)


# ---- output -------------------------------------------------------------------------
def plot_running(result: ArenaResult, path: str | Path) -> None:
    """A PNG of the running margin per smazzata with its 95% band, over the pairs."""
    from matplotlib.figure import Figure  # only --plot needs matplotlib (Agg, no pyplot)

    running = result.running()
    xs = list(range(1, len(running) + 1))
    means = [e.mean if e.mean is not None else 0.0 for e in running]
    band_x: list[int] = []
    band_low: list[float] = []
    band_high: list[float] = []
    for x, e in zip(xs, running, strict=True):
        if e.low is not None and e.high is not None:
            band_x.append(x)
            band_low.append(e.low)
            band_high.append(e.high)
    fig = Figure(figsize=(8, 4.5), layout="constrained")
    ax = fig.add_subplot()
    ax.axhline(0.0, color="grey", linewidth=0.8)
    if band_x:
        ax.fill_between(
            band_x,
            band_low,
            band_high,
            alpha=0.3,
            label=f"{round(CONFIDENCE * 100)}% interval",
        )
    ax.plot(xs, means, label="running mean")
    config = result.config
    preset = _rules_label(config)
    ax.set_title(f"{config.bot_a.name} vs {config.bot_b.name}: {config.players} players, {preset}")
    ax.set_xlabel("paired decks")
    ax.set_ylabel(f"A - B points per {_unit(config)}")
    ax.legend(loc="best")
    fig.savefig(path, dpi=110, format="png")


def _fmt(value: float | None, digits: int = 3, sign: bool = True) -> str:
    if value is None:
        return "-"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _fmt_estimate(e: MeanEstimate) -> str:
    if e.mean is None:
        return "-"
    if e.se is None:
        return _fmt(e.mean)
    return f"{_fmt(e.mean)} ± {_fmt(e.se, sign=False)} [{_fmt(e.low)}, {_fmt(e.high)}]"


def _unit(config: ArenaConfig) -> str:
    return "hand" if config.game == "cirulo" else "smazzata"


def _rules_label(config: ArenaConfig) -> str:
    if config.game == "cirulo":
        return f"cirulo, {config.cirulo_rules.deck}"
    return str(config.to_dict()["preset"] or "custom rules")


def result_table(result: ArenaResult) -> Table:
    """The final figures as a rich table."""
    config = result.config
    data = result.to_dict()
    table = Table(title=f"Arena: A = {config.bot_a.name}, B = {config.bot_b.name}")
    table.add_column("figure (A's point of view)")
    table.add_column("value: mean ± se [95% interval]", justify="right", no_wrap=True)
    table.add_row("players, rules", f"{config.players}, {_rules_label(config)}")
    unit = _unit(config)
    if result.pairs:
        s = data["smazzate"]
        table.add_row("paired decks (plays)", f"{s['pairs']} ({s['plays']})")
        table.add_row(f"A - B points per {unit}", _fmt_estimate(result.margin()))
        table.add_row("  A's side dealing", _fmt_estimate(result.margin_dealing(True)))
        table.add_row("  A's side not dealing", _fmt_estimate(result.margin_dealing(False)))
        table.add_row(
            f"points per {unit} A / B",
            f"{_fmt(s['a_points_per_seat'], 2, False)} / {_fmt(s['b_points_per_seat'], 2, False)}",
        )
        t = result.smazzate()
        rate = t.won / t.played if t.played else 0.0
        table.add_row(
            f"{'hands' if unit == 'hand' else 'smazzate'} won / lost / tied",
            f"{t.won} / {t.lost} / {t.tied} ({rate:.1%})",
        )
    if result.partite:
        t = result.partite_tally()
        wilson = result.partite_wilson()
        assert wilson is not None
        table.add_row(
            "partite won by A (Wilson 95%)",
            f"{t.won} of {t.played}: {t.won / t.played:.1%} [{wilson[0]:.1%}, {wilson[1]:.1%}]",
        )
        pp = result.partite_pairs()
        table.add_row("paired partite ahead / split / behind", f"{pp.won} / {pp.tied} / {pp.lost}")
        table.add_row("A - B points per partita", _fmt_estimate(result.partite_margin()))
    speed = result.speed()
    table.add_row(
        "moves per second (run)",
        f"{_fmt(speed['moves_per_second'], 0, False)} ({speed['moves']} in {result.seconds:.1f} s)",
    )
    table.add_row(
        "moves per second A / B (own time)",
        f"{_fmt(speed['a']['moves_per_second'], 0, False)}"
        f" / {_fmt(speed['b']['moves_per_second'], 0, False)}",
    )
    return table


# ---- command line -------------------------------------------------------------------
def parse_budget(text: str) -> Budget:
    """'200' -> 200 iterations per move, '0.2s' -> 0.2 seconds per move."""
    text = text.strip().lower()
    try:
        if text.endswith("s"):
            return Budget(seconds=float(text[:-1]))
        return Budget(iterations=int(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"bad budget {text!r}: iterations (e.g. 200) or seconds with 's' (e.g. 0.2s): {exc}"
        ) from None


def _count(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {value}")
        return value

    return parse


def add_cli(subparsers: Any) -> argparse.ArgumentParser:
    """Add `arena` to a `cirulla` subparsers object; its handler is `args.func`."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "arena",
        help="bot A against bot B on paired decks",
        description="Play bot A against bot B: every deck twice with the sides swapped "
        "(six times with 3 players), so the luck of the cards cancels.",
    )
    p.add_argument("a", help="bot A: a registered name (e.g. greedy) or a level (e.g. campione)")
    p.add_argument("b", help="bot B")
    p.add_argument(
        "--game",
        choices=("cirulla", "cirulo"),
        default="cirulla",
        help="cirulla (with --preset) or cirulo, the Spanish trick game (4-6 players)",
    )
    p.add_argument("--players", type=int, choices=(2, 3, 4, 5, 6), default=4)
    p.add_argument("--preset", choices=Rules.presets(), default="cirulla")
    p.add_argument(
        "--deck",
        choices=("spanish48", "poker52"),
        default="spanish48",
        help="Cirulo's deck (only with --game cirulo)",
    )
    p.add_argument("--pairs", type=_count(0), default=100, help="paired decks (default 100)")
    p.add_argument(
        "--partite", type=_count(0), default=0, help="paired partite to the target (default 0)"
    )
    for side in ("a", "b"):
        p.add_argument(
            f"--budget-{side}",
            type=parse_budget,
            default=None,
            metavar="BUDGET",
            help=f"bot {side.upper()}'s budget per move: iterations (200) or seconds (0.2s)",
        )
    p.add_argument("--seed", type=_count(0), default=0, help="base seed (default 0)")
    p.add_argument("--processes", type=_count(1), default=1, help="worker processes (default 1)")
    p.add_argument("--json", metavar="PATH", help="write every figure and the config as JSON")
    p.add_argument("--plot", metavar="PATH", help="write a PNG of the running margin")
    p.add_argument("--quiet", action="store_true", help="no progress bar or table: one line")
    p.set_defaults(func=_cmd_arena, arena_parser=p)
    return p


def _progress_text(update: ArenaProgress) -> str:
    e = update.margin
    text = f"{update.phase}: A-B {_fmt(e.mean)}"
    if e.low is not None:
        text += f" [{_fmt(e.low)} .. {_fmt(e.high)}]"
    if update.wins is not None:
        text += f", won {update.wins[0]}/{update.wins[1]}"
    return escape(text)


def spec_for(name: str, budget: Budget | None = None) -> BotSpec:
    """A bot name, or a player level (facile, normale, difficile, campione) with its
    bot, options and budget; `budget` overrides the level's."""
    from .levels import LEVELS

    level = LEVELS.get(name)
    if level is None or name in names():
        return BotSpec(name, budget)
    return BotSpec(level.bot, budget or level.budget, dict(level.options))


def _cmd_arena(args: argparse.Namespace) -> int:
    err = Console(stderr=True)
    allowed = (4, 5, 6) if args.game == "cirulo" else (2, 3, 4)
    if args.players not in allowed:  # a usage error, as argparse's choices would give
        parser: argparse.ArgumentParser = args.arena_parser
        parser.error(
            f"argument --players: {args.game} is for {', '.join(map(str, allowed))} players,"
            f" not {args.players}"
        )
    for option in ("json", "plot"):
        path = getattr(args, option)
        if path is not None and not Path(path).resolve().parent.is_dir():
            err.print(f"[red]error: --{option}: no directory for {escape(path)}[/red]")
            return 2
    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        err.print("[red]error: --plot needs matplotlib (pip install matplotlib)[/red]")
        return 2
    cirulo = args.game == "cirulo"
    config = ArenaConfig(
        a=BotSpec(args.a, args.budget_a) if cirulo else spec_for(args.a, args.budget_a),
        b=BotSpec(args.b, args.budget_b) if cirulo else spec_for(args.b, args.budget_b),
        players=args.players,
        preset=args.preset,
        pairs=args.pairs,
        partite=args.partite,
        seed=args.seed,
        processes=args.processes,
        game=args.game,
        cirulo=CiruloRules(deck=args.deck) if cirulo else None,
    )
    try:
        config.check()
    except ValueError as exc:
        err.print(f"[red]error: {escape(str(exc))}[/red]")
        return 2
    if args.quiet:
        result = run_arena(config)
    else:
        # No auto-refresh thread: the pool forks while the bar is shown.
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=err,
            auto_refresh=False,
            transient=False,
        ) as bar:
            tasks = {
                phase: bar.add_task(phase, total=total)
                for phase, total in (("smazzate", config.pairs), ("partite", config.partite))
                if total
            }
            shown = [0.0]

            def report(update: ArenaProgress) -> None:
                bar.update(
                    tasks[update.phase], completed=update.done, description=_progress_text(update)
                )
                now = time.monotonic()
                if now - shown[0] > 0.1 or update.done == update.total:
                    shown[0] = now
                    bar.refresh()

            result = run_arena(config, report)
    data = result.to_dict()
    if args.json is not None:
        Path(args.json).write_text(json.dumps(data, indent=1) + "\n")
    if args.plot is not None and result.pairs:
        plot_running(result, args.plot)
    out = Console()
    if args.quiet:
        m = result.margin()
        line = f"A-B per {_unit(config)} {_fmt(m.mean)}" if result.pairs else "no smazzate"
        if m.low is not None:
            line += f" (95% {_fmt(m.low)} .. {_fmt(m.high)})"
        if result.partite:
            t = result.partite_tally()
            line += f"; partite won by A {t.won}/{t.played}"
        out.print(escape(line))
    else:
        out.print(result_table(result))
        for option, what in (("json", "JSON"), ("plot", "plot")):
            path = getattr(args, option)
            if path is not None and (option == "json" or result.pairs):
                out.print(f"{what} written to {escape(path)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m cirulla.bots.arena A B ...`: the subcommand without the rest of the CLI."""
    parser = argparse.ArgumentParser(prog="cirulla")
    add_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["arena", *(sys.argv[1:] if argv is None else argv)])
    handler: Callable[[argparse.Namespace], int] = args.func
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
