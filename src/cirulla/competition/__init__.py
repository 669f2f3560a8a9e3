"""Tournaments: knockout (with spareggi, E3, or best of three, E5), round robin and
Swiss scored in victory points (RULES.md section 7).

The pairing, standings and tie-break code here is shared by `cirulla tournament
run` (bots, offline), `cirulla verify` (tournament records) and the server. It uses
the engine and the bots, never the gateway. The rules of each format are in
docs/tournaments.md.
"""

from __future__ import annotations

from .pairing import (
    PairingError,
    bracket_order,
    default_swiss_rounds,
    has_perfect_matching,
    knockout_first_round,
    max_swiss_rounds,
    round_robin_schedule,
    swiss_pairing,
)
from .runner import TournamentRun, run_tournament
from .standings import MatchResult, Standing, bye_points, partita_points, standings
from .state import FORMATS, TOURNAMENT_VERSION, Tournament, TournamentConfig, match_seed
from .verify import TournamentError, VerifiedTournament, is_tournament_record, verify_tournament

__all__ = [
    "FORMATS",
    "TOURNAMENT_VERSION",
    "MatchResult",
    "PairingError",
    "Standing",
    "Tournament",
    "TournamentConfig",
    "TournamentError",
    "TournamentRun",
    "VerifiedTournament",
    "bracket_order",
    "bye_points",
    "default_swiss_rounds",
    "has_perfect_matching",
    "is_tournament_record",
    "knockout_first_round",
    "match_seed",
    "max_swiss_rounds",
    "partita_points",
    "round_robin_schedule",
    "run_tournament",
    "standings",
    "swiss_pairing",
    "verify_tournament",
]
