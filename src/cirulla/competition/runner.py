"""Play a whole tournament of bots in one process and write its record.

The same `Tournament` (pairings, standings, tie-breaks) the server and `cirulla
verify` use; the runner only adds the partite, played by bots that see their seat's
view and nothing else. Every partita's decks derive from the tournament's seed, the
round and the match (`match_seed`), every bot's seed likewise, so the same
configuration gives the same record, byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from ..bots import LEVELS, Bot, choose_move, names
from ..bots.arena import BotSpec, spec_for
from ..bots.base import Budget
from ..game import Game, Match, derived_seed
from ..record import game_record
from .standings import MatchResult, match_points
from .state import Tournament, TournamentConfig, match_seed

__all__ = [
    "BOT_CHOICES",
    "TournamentRun",
    "bot_spec",
    "match_result",
    "play_match",
    "run_tournament",
    "tournament_record",
]

# Levels, and the registered bots that play fair (the cheater sees every card).
BOT_CHOICES: Final[tuple[str, ...]] = tuple(
    dict.fromkeys([*LEVELS, *(n for n in names() if n != "cheater")])
)


def bot_spec(level: str) -> BotSpec:
    """The bot of a level or name. A budget in seconds would make the run depend on
    the machine's speed, so only its iterations are kept (campione: 3,000 a move)."""
    if level not in BOT_CHOICES:
        raise ValueError(f"unknown level {level!r} (levels and bots: {', '.join(BOT_CHOICES)})")
    spec = spec_for(level)
    budget = spec.budget
    if budget is not None and budget.seconds is not None:
        spec = replace(spec, budget=Budget(iterations=budget.iterations or 1000))
    return spec


@dataclass(frozen=True, slots=True)
class TournamentRun:
    """A finished tournament: its state and the record of every match."""

    tournament: Tournament
    record: dict[str, Any]


def _seats(players: int, side: int) -> tuple[int, ...]:
    """The seats of a match's side 0 / side 1 (the game's sides: partners opposite)."""
    return (side, side + 2) if players == 4 else (side,)


def play_match(
    config: TournamentConfig,
    round_number: int,
    index: int,
    sides: tuple[tuple[str, ...], tuple[str, ...]],
    levels: Mapping[str, str],
) -> list[Game]:
    """Play one match (one partita, or a best of three) and return its partite.

    Side 0 of the match is side 0 of every partita (seats 0 and 2 with 4 players,
    the first entrant of a pair at the lower seat); the first dealer is drawn from
    the match's seed, so no side has the deal by right."""
    seed = match_seed(config.seed, round_number, index)
    match = Match(config.rules, config.players, seed=seed, wins_needed=config.wins_needed)
    specs: dict[str, BotSpec] = {}
    while True:
        game = match.game
        number = len(match.games) - 1
        bots: dict[int, Bot] = {}
        for side in (0, 1):
            for entrant, place in zip(sides[side], _seats(config.players, side), strict=True):
                spec = specs.get(entrant) or specs.setdefault(entrant, bot_spec(levels[entrant]))
                bots[place] = spec.make(derived_seed(seed, f"bot-partita-{number}", place))
        while True:
            deal = game.deal
            while not deal.is_over:
                seat = deal.to_move
                assert seat is not None
                deal.play(choose_move(bots[seat], deal, seat))
            if game.is_over:
                break
            game.next_deal()
        if match.is_over:
            return list(match.games)
        match.next_game()


def match_result(a: int, b: int, games: Sequence[Game], with_vp: bool) -> MatchResult:
    """The result of a played match between sides `a` (side 0) and `b`."""
    wins = [0, 0]
    for game in games:
        if game.winner is not None:
            wins[game.winner] += 1
    winner = 0 if wins[0] > wins[1] else 1
    vp, mp, partite = match_points(games, winner, with_vp)
    return MatchResult(a, b, winner, vp, mp, partite)


def _has_vp(config: TournamentConfig) -> bool:
    from .standings import check_vp_length

    try:
        check_vp_length(config.rules)
    except ValueError:
        return False
    return True


def run_tournament(
    config: TournamentConfig,
    levels: Mapping[str, str],
    progress: Callable[[int, int, int], None] | None = None,
) -> TournamentRun:
    """Play every round; `levels` maps each entrant to its level (or bot name).

    `progress(round, matches done, matches in round)` is called after each match."""
    for entrant in config.entrants:
        bot_spec(levels[entrant])  # an unknown level fails before the first card
    t = Tournament(config)
    sides = config.sides
    with_vp = _has_vp(config)
    rounds: list[dict[str, Any]] = []
    while not t.is_over:
        number = len(t.results) + 1
        pairs = t.pair_next_round()
        results: list[MatchResult] = []
        matches: list[dict[str, Any]] = []
        for index, (a, b) in enumerate(pairs):
            if b is None:
                result = t.bye_result(a)
                games: list[Game] = []
            else:
                games = play_match(config, number, index, (sides[a], sides[b]), levels)
                result = match_result(a, b, games, with_vp)
            results.append(result)
            matches.append(match_entry(config, result, [game_record(g) for g in games], with_vp))
            if progress is not None:
                progress(number, index + 1, len(pairs))
        t.record_round(results)
        rounds.append({"round": number, "matches": matches})
    return TournamentRun(t, tournament_record(t, rounds, levels))


def match_entry(
    config: TournamentConfig,
    result: MatchResult,
    records: list[dict[str, Any]],
    with_vp: bool,
) -> dict[str, Any]:
    """A match as the record holds it (API.md, "Tournaments")."""
    sides = config.sides
    bye = result.b is None
    vp: list[int] | None = list(result.vp)
    mp: list[int] | None = list(result.mp)
    if config.format == "knockout" and (bye or not with_vp):
        vp = None  # a knockout of a length with no VP column, or a bye: no VP
        if bye:
            mp = None
    return {
        "sides": [list(sides[result.a]), [] if result.b is None else list(sides[result.b])],
        "bye": bye,
        "records": records,
        "winner": result.winner,
        "partite": list(result.partite),
        "vp": vp,
        "mp": mp,
    }


def tournament_record(
    t: Tournament, rounds: list[dict[str, Any]], levels: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The whole record: configuration, rounds, standings and the winner."""
    config = t.config
    sides = config.sides
    vp_format = config.format != "knockout"
    table = []
    for s in t.standings():
        for entrant in sides[s.side]:
            row: dict[str, Any] = {
                "entrant": entrant,
                "side": list(sides[s.side]),
                "rank": s.rank,
            }
            if vp_format:
                row.update(vp=s.vp, mp=s.mp)
            row.update(
                played=s.played,
                won=s.won,
                partite_won=s.partite_won,
                byes=s.byes,
            )
            if config.format == "swiss":
                row["buchholz"] = s.buchholz
            if config.format == "round-robin":
                row["head_to_head"] = s.head_to_head
            table.append(row)
    winner = t.winner
    out = config.to_dict()
    if levels is not None:
        out["levels"] = {e: levels[e] for e in config.entrants}
    if vp_format:
        from .standings import bye_points

        vp, mp = bye_points(config.rules)
        out["bye_points"] = {"vp": vp, "mp": mp}
    out.update(
        rounds=rounds,
        standings=table,
        winner=None if winner is None else list(sides[winner]),
    )
    return out
