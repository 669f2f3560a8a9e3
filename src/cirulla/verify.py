"""`cirulla verify`: check a finished table's (or tournament's) record without trusting
the server.

A record ("cirulla.table/1") holds the table's whole event log. Verifying it:
the hash chain is unbroken; every smazzata's seed, revealed after it ended,
matches the SHA-256 commitment published before it was dealt; every move is
legal in the deal that seed shuffles; the partita ends as the log says; and the
game record beside the log is exactly the partita the log replays.

A tournament record (`cirulla tournament run --json`, told apart by its keys) is
checked by `cirulla.competition.verify`: every pairing, partita, standing and the
winner.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .competition.verify import (
    TournamentError,
    VerifiedTournament,
    is_tournament_record,
    verify_tournament,
)
from .eventlog import ChainError, LogRecord, verify_chain
from .tables.state import TableError, TableState

__all__ = [
    "TABLE_RECORD_FORMAT",
    "Verified",
    "VerifyError",
    "verify_file",
    "verify_record",
    "verify_tournament_file",
]

TABLE_RECORD_FORMAT = "cirulla.table/1"


class VerifyError(ValueError):
    """The record is not what an honest server would have written; says where."""


@dataclass(frozen=True, slots=True)
class Verified:
    table: str
    records: int
    deals: int
    moves: int
    winner: int | None
    totals: list[Any]  # points per side; Cirulo balances may be fractions ("85/3")
    last_hash: str


def verify_record(record: Any) -> Verified:
    if not isinstance(record, dict) or record.get("format") != TABLE_RECORD_FORMAT:
        raise VerifyError(f"not a table record (format {TABLE_RECORD_FORMAT!r} expected)")
    table = record.get("table")
    raw_log = record.get("log")
    if not isinstance(table, str) or not isinstance(raw_log, list) or not raw_log:
        raise VerifyError("a table record needs a table id and a non-empty log")
    try:
        records = [LogRecord.from_dict(r) for r in raw_log]
        verify_chain(records)
    except ChainError as exc:
        raise VerifyError(f"hash chain: {exc}") from None
    committed = {int(r.data["deal"]) for r in records if r.type == "committed"}
    revealed = {int(r.data["deal"]) for r in records if r.type == "revealed"}
    if committed - revealed:
        raise VerifyError(f"the seed of deal(s) {sorted(committed - revealed)} was never revealed")
    try:
        state = TableState.from_log(table, records)
    except (TableError, ValueError, KeyError, TypeError) as exc:
        raise VerifyError(f"the log does not replay: {exc}") from None
    if state.status != "finished" or state.game is None or state.result is None:
        raise VerifyError("the partita in this record did not finish")
    game = state.game
    ended = state.result
    if ended.get("winner") != state.winner or ended.get("totals") != state.totals:
        raise VerifyError(
            f"the log says side {ended.get('winner')} won with {ended.get('totals')},"
            f" but its moves give side {state.winner} with {state.totals}"
        )
    if record.get("game") != json.loads(json.dumps(state.kind.record(game))):
        raise VerifyError("the game record does not match the partita its log replays")
    moves = sum(len(d.moves) for d in game.deals)
    return Verified(
        table,
        len(records),
        len(game.deals),
        moves,
        state.winner,
        state.totals or [],
        records[-1].hash,
    )


def _read(path: str | Path) -> Any:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise VerifyError(f"{path}: cannot read a JSON record: {exc}") from None


def verify_file(path: str | Path) -> Verified:
    return verify_record(_read(path))


def verify_tournament_file(path: str | Path) -> VerifiedTournament:
    """A tournament record's file; VerifyError (with the place) when it does not hold."""
    try:
        return verify_tournament(_read(path))
    except TournamentError as exc:
        raise VerifyError(str(exc)) from None


def add_cli(sub: Any) -> None:
    p = sub.add_parser(
        "verify",
        help="check a finished table's record: hash chain, committed seeds, every move",
    )
    p.add_argument(
        "records",
        nargs="+",
        help="table record files (JSON, from /api/records/ID) or tournament records",
    )
    p.set_defaults(func=_cmd_verify)


def _cmd_verify(args: Any) -> int:
    failed = 0
    for path in args.records:
        try:
            record = _read(path)
            if is_tournament_record(record):
                t = verify_tournament_file(path)
                print(
                    f"{path}: OK: {t.format} tournament, {t.entrants} entrants, {t.rounds}"
                    f" rounds, {t.matches} matches, {t.partite} partite replayed; every"
                    f" pairing, result and standing holds; winner {' + '.join(t.winner)}"
                )
                continue
            v = verify_record(record)
        except VerifyError as exc:
            failed += 1
            print(f"{path}: REJECTED: {exc}")
            continue
        print(
            f"{path}: OK: table {v.table}, {v.records} log records, {v.deals} smazzate,"
            f" {v.moves} moves, every seed matches its commitment;"
            f" side {v.winner} won {v.totals}; last hash {v.last_hash[:16]}"
        )
    return 1 if failed else 0
