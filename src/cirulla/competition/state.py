"""A tournament as the fold of its results: the next round's pairings, the
standings, the winner.

The runner feeds it the results it plays; the server will feed it the results of
tables; `cirulla verify` feeds it a record's results and checks that every round it
pairs is the round the record holds. Nothing here plays a card or draws a random
number: pairings depend only on the configuration and the results so far.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..game import derived_seed
from ..rules import Rules
from .pairing import (
    Pair,
    default_swiss_rounds,
    knockout_first_round,
    knockout_next_round,
    max_swiss_rounds,
    round_robin_rounds,
    round_robin_schedule,
    swiss_pairing,
)
from .standings import Format, MatchResult, Standing, bye_points, check_vp_length, standings

__all__ = [
    "FORMATS",
    "TOURNAMENT_VERSION",
    "Tournament",
    "TournamentConfig",
    "match_seed",
]

FORMATS: Final[tuple[Format, ...]] = ("knockout", "swiss", "round-robin")
TOURNAMENT_VERSION: Final = "cirulla.tournament/1"


def match_seed(seed: int, round_number: int, match: int) -> int:
    """The seed of match `match` (0-based) of round `round_number` (1-based): its
    partite are `Match(rules, players, seed=match_seed(...))`'s, so their decks derive
    from the tournament's seed, the round and the match."""
    return derived_seed(seed, f"tournament-round-{round_number}-match", match)


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """What fixes a tournament before its first card: format, rules, field, seed.

    `entrants` are in seed order (the first is the top seed); with 4 players each
    consecutive two are a side (partners), e1+e2, e3+e4, ...
    """

    format: Format
    rules: Rules
    players: int
    entrants: tuple[str, ...]
    seed: int = 0
    rounds: int | None = None  # Swiss only; None: default_swiss_rounds
    best_of: int = 1  # knockout only: 1 or 3 (E5)

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {self.format!r}")
        if self.players not in (2, 4):
            raise ValueError(f"tournament tables have 2 or 4 players, not {self.players!r}")
        self.rules.check_players(self.players)
        if len(set(self.entrants)) != len(self.entrants):
            raise ValueError("entrant names must differ")
        if self.players == 4 and len(self.entrants) % 2:
            raise ValueError(
                f"with 4 players the entrants make pairs, so their number is even,"
                f" not {len(self.entrants)}"
            )
        if len(self.sides) < 2:
            raise ValueError(f"a tournament needs at least 2 sides, not {len(self.sides)}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, not {self.seed!r}")
        if self.best_of not in (1, 3):
            raise ValueError(f"best of must be 1 or 3, not {self.best_of!r}")
        if self.format == "knockout":
            if not self.rules.knockout:
                raise ValueError("a knockout's partite are played with the knockout option (E3)")
            if self.rounds is not None:
                raise ValueError("a knockout has as many rounds as its bracket: no --rounds")
            return
        if self.rules.knockout:
            raise ValueError(f"a {self.format} is scored in VP: no knockout option")
        if self.best_of != 1:
            raise ValueError(f"a {self.format}'s matches are single partite: no best of three")
        check_vp_length(self.rules)
        if self.format == "round-robin" and self.rounds is not None:
            raise ValueError("a round robin plays every round: no --rounds")
        if self.format == "swiss" and self.rounds is not None:
            most = max_swiss_rounds(len(self.sides))
            if isinstance(self.rounds, bool) or not isinstance(self.rounds, int):
                raise ValueError(f"rounds must be a whole number, not {self.rounds!r}")
            if not 1 <= self.rounds <= most:
                raise ValueError(
                    f"a Swiss of {len(self.sides)} sides has 1 to {most} rounds so that no"
                    f" pair meets twice, not {self.rounds} (a round robin plays them all)"
                )

    @property
    def sides(self) -> list[tuple[str, ...]]:
        per = 2 if self.players == 4 else 1
        return [tuple(self.entrants[i : i + per]) for i in range(0, len(self.entrants), per)]

    @property
    def total_rounds(self) -> int:
        n = len(self.sides)
        if self.format == "knockout":
            return max(1, (n - 1).bit_length())
        if self.format == "round-robin":
            return round_robin_rounds(n)
        return self.rounds if self.rounds is not None else default_swiss_rounds(n)

    @property
    def wins_needed(self) -> int:
        return (self.best_of + 1) // 2

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": TOURNAMENT_VERSION,
            "format": self.format,
            "rules": self.rules.to_dict(),
            "players": self.players,
            "seed": self.seed,
            "best_of": self.best_of,
            "swiss_rounds": self.total_rounds if self.format == "swiss" else None,
            "entrants": list(self.entrants),
            # every partita's seed derives from the tournament's (match_seed); a server
            # that commits to fresh seeds at its tables will say "committed"
            "deal_seeds": "derived",
        }


class Tournament:
    """The state of one tournament: rounds paired and results recorded so far."""

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.n = len(config.sides)
        self.rounds: list[list[Pair]] = []
        self.results: list[list[MatchResult]] = []
        self._schedule = round_robin_schedule(self.n) if config.format == "round-robin" else None

    # ---- pairing ---------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return len(self.results) >= self.config.total_rounds

    def pair_next_round(self) -> list[Pair]:
        """Pair the next round (once: asking again returns the same pairs)."""
        if len(self.rounds) > len(self.results):
            return self.rounds[-1]
        if self.is_over:
            raise ValueError("the tournament is over")
        fmt = self.config.format
        if fmt == "knockout":
            if not self.results:
                pairs = knockout_first_round(self.n)
            else:
                pairs = knockout_next_round([self._winner_of(r) for r in self.results[-1]])
        elif fmt == "round-robin":
            assert self._schedule is not None
            pairs = self._schedule[len(self.results)]
        else:
            pairs = self._swiss_round()
        self.rounds.append(pairs)
        return pairs

    def _swiss_round(self) -> list[Pair]:
        table = self.standings()
        ranking = [s.side for s in sorted(table, key=lambda s: (-s.vp, -s.mp, s.side))]
        vp = {s.side: s.vp for s in table}
        played = {frozenset((r.a, r.b)) for rnd in self.results for r in rnd if r.b is not None}
        had_bye = {r.a for rnd in self.results for r in rnd if r.b is None}
        pairs, bye = swiss_pairing(ranking, vp.__getitem__, played, had_bye)
        return pairs + ([(bye, None)] if bye is not None else [])

    @staticmethod
    def _winner_of(result: MatchResult) -> int:
        if result.b is None:
            return result.a
        assert result.winner is not None
        return result.a if result.winner == 0 else result.b

    def bye_result(self, side: int) -> MatchResult:
        """A bye: in a knockout the side goes on; in VP tournaments it scores
        `bye_points` (V3, a forfeit win over an absent side)."""
        if self.config.format == "knockout":
            return MatchResult(side, None, None, (0, 0), (0, 0))
        vp, mp = bye_points(self.config.rules)
        return MatchResult(side, None, None, (vp, 0), (mp, 0))

    def record_round(self, results: Sequence[MatchResult]) -> None:
        """The results of the round just paired, in the order of its pairs."""
        if len(self.rounds) != len(self.results) + 1:
            raise ValueError("no round is waiting for its results")
        pairs = self.rounds[-1]
        if [(r.a, r.b) for r in results] != list(pairs):
            raise ValueError("the results are not those of the round's pairs")
        self.results.append(list(results))

    # ---- standings and winner ---------------------------------------------------------
    def standings(self) -> list[Standing]:
        flat = [r for rnd in self.results for r in rnd]
        if self.config.format != "knockout":
            return standings(self.config.format, self.n, flat)
        return self._knockout_standings(flat)

    def _knockout_standings(self, flat: list[MatchResult]) -> list[Standing]:
        """By the round each side went out in (the winner last of all), then seed;
        sides out in the same round share a rank."""
        out_in = {s: len(self.results) + 1 for s in range(self.n)}
        for number, rnd in enumerate(self.results, start=1):
            for r in rnd:
                if r.b is not None:
                    loser = r.b if r.winner == 0 else r.a
                    out_in[loser] = number
        base = standings("knockout", self.n, flat)
        by_side = {s.side: s for s in base}
        order = sorted(range(self.n), key=lambda s: (-out_in[s], s))
        table: list[Standing] = []
        for i, s in enumerate(order):
            same = i > 0 and out_in[order[i - 1]] == out_in[s]
            rank = table[-1].rank if same else i + 1
            b = by_side[s]
            table.append(
                Standing(s, rank, b.vp, b.mp, b.played, b.won, b.partite_won, b.byes, 0, 0)
            )
        return table

    @property
    def winner(self) -> int | None:
        if not self.is_over:
            return None
        if self.config.format == "knockout":
            return self._winner_of(self.results[-1][0])
        return self.standings()[0].side
