"""What an arena run played, pair by pair, and the figures derived from it: margins with
their intervals, wins, speed and the --json document."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..stats import MeanEstimate, RunningMean, Tally, mean_estimate, wilson_interval, z_value
from .config import ArenaConfig

CONFIDENCE = 0.95


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
