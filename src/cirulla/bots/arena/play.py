"""Playing an arena run: each deck and partita once per seating, with fresh seeded bots
that see only their seat's view, in this process or on a pool of workers."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any, TypeVar

from ...cirulo import Deal as CiruloDeal
from ...cirulo import bots as cirulo_bots
from ...deal import Deal
from ...game import Game
from ...moves import IllegalMove
from ..base import Bot, choose_move
from ..stats import RunningMean
from .config import ArenaConfig, _bot_seed, deck_seed, partita_seed, seatings
from .results import (
    CONFIDENCE,
    ArenaProgress,
    ArenaResult,
    PairResult,
    PartitaPairResult,
    PartitaPlay,
    PlayResult,
)

_R = TypeVar("_R")


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
