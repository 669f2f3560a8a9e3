"""Check a tournament record without trusting who wrote it.

The record's configuration is rebuilt and the tournament is folded again round by
round: every round's pairing must be the one the pairing rules give from the seed
order and the results before it; every partita must replay (`replay_game`), be
shuffled from the seed its tournament, round and match give, and follow the one
before it in its match (E5); every match's winner, VP and MP must be what its
partite give; then the standings and the winner. The first thing that does not hold
is reported with its place ("round 2, match 3, partita 1: ...").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..game import Game, derived_seed
from ..record import RecordError, replay_game
from ..rules import Rules
from ..shuffle import SeededStream
from .runner import match_entry, match_result, tournament_record
from .standings import check_vp_length
from .state import FORMATS, TOURNAMENT_VERSION, Tournament, TournamentConfig, match_seed

__all__ = ["TournamentError", "VerifiedTournament", "is_tournament_record", "verify_tournament"]


class TournamentError(ValueError):
    """The record is not what the tournament's rules and partite give; says where."""


@dataclass(frozen=True, slots=True)
class VerifiedTournament:
    format: str
    entrants: int
    rounds: int
    matches: int
    partite: int
    winner: list[str]


def is_tournament_record(record: Any) -> bool:
    """A tournament record, told apart from a table record by its keys."""
    return (
        isinstance(record, dict)
        and record.get("format") in FORMATS
        and "rounds" in record
        and "entrants" in record
    )


def _config(record: dict[str, Any]) -> TournamentConfig:
    version = record.get("version", TOURNAMENT_VERSION)
    if version != TOURNAMENT_VERSION:
        raise TournamentError(f"unknown tournament record version {version!r}")
    entrants = record.get("entrants")
    if not isinstance(entrants, list) or not all(isinstance(e, str) for e in entrants):
        raise TournamentError("entrants: a list of names expected")
    try:
        rules = Rules.from_dict(record.get("rules"))  # type: ignore[arg-type]
        fmt = record["format"]
        swiss_rounds = record.get("swiss_rounds") if fmt == "swiss" else None
        return TournamentConfig(
            format=fmt,
            rules=rules,
            players=record.get("players"),  # type: ignore[arg-type]
            entrants=tuple(entrants),
            seed=record.get("seed"),  # type: ignore[arg-type]
            rounds=swiss_rounds,
            best_of=record.get("best_of", 1),
        )
    except (ValueError, TypeError) as exc:
        raise TournamentError(f"configuration: {exc}") from None


def _check_match_partite(
    config: TournamentConfig, seed: int, records: Any, where: str, derived: bool
) -> list[Game]:
    if not isinstance(records, list) or not records:
        raise TournamentError(f"{where}: no game records")
    games: list[Game] = []
    wins = [0, 0]
    for k, data in enumerate(records):
        here = f"{where}, partita {k + 1}"
        if max(wins) >= config.wins_needed:
            raise TournamentError(f"{here}: the match was already decided")
        try:
            game = replay_game(data)
        except RecordError as exc:
            raise TournamentError(f"{here}: {exc}") from None
        if game.rules != config.rules:
            raise TournamentError(f"{here}: played with other rules than the tournament's")
        if game.players != config.players:
            raise TournamentError(f"{here}: {game.players} players, not {config.players}")
        expected = derived_seed(seed, "game", k)
        if derived and game.seed != expected:
            raise TournamentError(
                f"{here}: seed {game.seed}, but the tournament's seed, round and match give"
                f" {expected}"
            )
        deal_seeds = [derived_seed(game.seed, "deal", i) for i in range(len(game.deals))]
        shuffled = [d.seed for d in game.deals] == deal_seeds and not any(
            d.stacked for d in game.deals
        )
        if derived and not shuffled:
            raise TournamentError(f"{here}: smazzate not shuffled from the partita's seed")
        if games:
            dealer = (games[-1].deal.dealer + 1) % config.players
            if game.first_dealer != dealer:
                raise TournamentError(
                    f"{here}: first dealer {game.first_dealer}, but the deal passes to {dealer}"
                )
        elif derived:
            drawn = SeededStream(derived_seed(game.seed, "dealer", 0)).randbelow(config.players)
            if game.first_dealer != drawn:
                raise TournamentError(
                    f"{here}: first dealer {game.first_dealer}, but the seed draws {drawn}"
                )
        if not game.is_over or game.winner is None:
            raise TournamentError(f"{here}: the partita did not finish")
        wins[game.winner] += 1
        games.append(game)
    if max(wins) < config.wins_needed:
        raise TournamentError(f"{where}: the match is not decided ({wins[0]}-{wins[1]})")
    return games


def verify_tournament(record: Any) -> VerifiedTournament:
    """Check a tournament record; TournamentError says where it fails."""
    if not is_tournament_record(record):
        raise TournamentError(
            f"not a tournament record (format one of {', '.join(FORMATS)}, rounds, entrants)"
        )
    config = _config(record)
    sides = config.sides
    try:
        check_vp_length(config.rules)
        with_vp = True
    except ValueError:
        with_vp = False
    derived = record.get("deal_seeds", "derived") == "derived"
    t = Tournament(config)
    rounds = record.get("rounds")
    if not isinstance(rounds, list):
        raise TournamentError("rounds: a list expected")
    matches = partite = 0
    checked_rounds: list[dict[str, Any]] = []
    for r, rnd in enumerate(rounds, start=1):
        if t.is_over:
            raise TournamentError(f"round {r}: the tournament was over after round {r - 1}")
        pairs = t.pair_next_round()
        if not isinstance(rnd, dict) or rnd.get("round") != r:
            raise TournamentError(f"round {r}: not numbered {r}")
        got = rnd.get("matches")
        if not isinstance(got, list) or len(got) != len(pairs):
            raise TournamentError(
                f"round {r}: {len(got) if isinstance(got, list) else 'no'} matches, but the"
                f" pairing gives {len(pairs)}"
            )
        results = []
        entries = []
        for m, ((a, b), entry) in enumerate(zip(pairs, got, strict=True), start=1):
            where = f"round {r}, match {m}"
            if not isinstance(entry, dict):
                raise TournamentError(f"{where}: not an object")
            want_sides = [list(sides[a]), [] if b is None else list(sides[b])]
            if entry.get("sides") != want_sides or entry.get("bye") != (b is None):
                raise TournamentError(
                    f"{where}: sides {entry.get('sides')}, but the pairing gives {want_sides}"
                    + (" (a bye)" if b is None else "")
                )
            if b is None:
                result = t.bye_result(a)
                records: list[dict[str, Any]] = []
            else:
                seed = match_seed(config.seed, r, m - 1)
                records = entry.get("records")  # type: ignore[assignment]
                games = _check_match_partite(config, seed, records, where, derived)
                result = match_result(a, b, games, with_vp)
                partite += len(games)
            want = match_entry(config, result, records, with_vp)
            for key in ("winner", "vp", "mp"):
                if entry.get(key) != want[key]:
                    raise TournamentError(
                        f"{where}: {key} {entry.get(key)!r}, but its partite give {want[key]!r}"
                    )
            results.append(result)
            entries.append(want)
            matches += 1
        t.record_round(results)
        checked_rounds.append({"round": r, "matches": entries})
    if not t.is_over:
        raise TournamentError(
            f"the tournament has {config.total_rounds} rounds, the record only {len(rounds)}"
        )
    want_record = tournament_record(t, checked_rounds)
    for i, (got_row, want_row) in enumerate(
        zip(record.get("standings") or [], want_record["standings"], strict=False), start=1
    ):
        if not isinstance(got_row, dict) or any(got_row.get(k) != v for k, v in want_row.items()):
            raise TournamentError(
                f"standings, row {i}: {got_row!r}, but the results give {want_row!r}"
            )
    if len(record.get("standings") or []) != len(want_record["standings"]):
        raise TournamentError(
            f"standings: {len(record.get('standings') or [])} rows, expected"
            f" {len(want_record['standings'])}"
        )
    if record.get("winner") != want_record["winner"]:
        raise TournamentError(
            f"winner {record.get('winner')!r}, but the results give {want_record['winner']!r}"
        )
    return VerifiedTournament(
        format=config.format,
        entrants=len(config.entrants),
        rounds=len(rounds),
        matches=matches,
        partite=partite,
        winner=want_record["winner"],
    )
