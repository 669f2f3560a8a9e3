"""Game records: a partita as JSON that replays move by move to the same state.

A record holds the rules, each smazzata's dealer, seed (and stacked deck, if
any) and moves, and what they led to. `replay_game` plays it all again and
rejects, with `RecordError` saying where, any record that does not replay:
an illegal move, a score, total or winner that differs, a wrong format.
"""

from __future__ import annotations

from typing import Any, Final

from .deal import Deal
from .game import Game
from .moves import IllegalMove
from .rules import Rules
from .shuffle import SHUFFLE_VERSION

__all__ = [
    "RECORD_FORMAT",
    "RecordError",
    "deal_record",
    "game_record",
    "replay_deal",
    "replay_game",
]

RECORD_FORMAT: Final = "cirulla.game/1"


class RecordError(ValueError):
    """A record that does not replay to what it says."""


def deal_record(deal: Deal) -> dict[str, Any]:
    """One smazzata: enough to replay it, and what it led to."""
    out: dict[str, Any] = {
        "dealer": deal.dealer,
        "seed": deal.seed,
        "moves": [str(m) for m in deal.moves],
        "over": deal.is_over,
    }
    if deal.stacked:
        out["deck"] = [str(c) for c in deal.initial_deck]
    if deal.is_over:
        out["score"] = [dict(s) for s in deal.score().sides]
        out["instant_winner"] = deal.instant_winner
    return out


def game_record(game: Game) -> dict[str, Any]:
    """The whole partita as a JSON-ready dict."""
    forfeit = game.forfeit_result
    return {
        "format": RECORD_FORMAT,
        "shuffle": SHUFFLE_VERSION,
        "rules": game.rules.to_dict(),
        "players": game.players,
        "seed": game.seed,
        "deals": [deal_record(d) for d in game.deals],
        "totals": game.totals,
        "over": game.is_over,
        "winner": game.winner,
        "end_reason": game.end_reason,
        "forfeit": forfeit.to_dict() if forfeit is not None else None,
    }


def _field(data: dict[str, Any], name: str, kind: type | tuple[type, ...], where: str) -> Any:
    if name not in data:
        raise RecordError(f"{where}: missing {name!r}")
    value = data[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise RecordError(f"{where}: {name!r} has the wrong type ({type(value).__name__})")
    return value


def replay_deal(rules: Rules, players: int, data: dict[str, Any], where: str = "deal") -> Deal:
    """Rebuild one smazzata from its record, checking every move and the result."""
    if not isinstance(data, dict):
        raise RecordError(f"{where}: not an object")
    dealer = _field(data, "dealer", int, where)
    seed = _field(data, "seed", int, where)
    moves = _field(data, "moves", list, where)
    try:
        deal = Deal(rules, players, dealer, deck=data.get("deck"), seed=seed)
    except ValueError as exc:
        raise RecordError(f"{where}: {exc}") from None
    for i, move in enumerate(moves, start=1):
        if not isinstance(move, str):
            raise RecordError(f"{where}, move {i}: not a move string")
        try:
            deal.play(move)
        except IllegalMove as exc:
            raise RecordError(f"{where}, move {i} {move!r}: {exc}") from None
    over = _field(data, "over", bool, where)
    if over != deal.is_over:
        raise RecordError(f"{where}: recorded over={over}, the replay gives {deal.is_over}")
    if deal.is_over:
        replayed = [dict(s) for s in deal.score().sides]
        if _field(data, "score", list, where) != replayed:
            raise RecordError(
                f"{where}: recorded score {data['score']} but the replay gives {replayed}"
            )
        if data.get("instant_winner", "missing") != deal.instant_winner:
            raise RecordError(
                f"{where}: recorded instant winner {data.get('instant_winner')}, "
                f"the replay gives {deal.instant_winner}"
            )
    return deal


def replay_game(record: dict[str, Any]) -> Game:
    """Replay a game record; RecordError says where it does not hold."""
    if not isinstance(record, dict):
        raise RecordError("a game record is a JSON object")
    fmt = record.get("format")
    if fmt != RECORD_FORMAT:
        raise RecordError(f"unknown record format {fmt!r} (expected {RECORD_FORMAT!r})")
    if _field(record, "shuffle", str, "record") != SHUFFLE_VERSION:
        raise RecordError(
            f"record shuffled with {record.get('shuffle')!r}; this engine has {SHUFFLE_VERSION!r}"
        )
    try:
        rules = Rules.from_dict(_field(record, "rules", dict, "record"))
    except ValueError as exc:
        raise RecordError(f"record rules: {exc}") from None
    players = _field(record, "players", int, "record")
    deals = _field(record, "deals", list, "record")
    if not deals:
        raise RecordError("record: no smazzate")
    try:
        rules.check_players(players)
    except ValueError as exc:
        raise RecordError(f"record: {exc}") from None
    first = replay_deal(rules, players, deals[0], "deal 1")  # its errors name deal 1
    try:
        game = Game(
            rules,
            players,
            seed=_field(record, "seed", int, "record"),
            dealer=first.dealer,
            deck=list(first.initial_deck) if first.stacked else None,
            deal_seed=first.seed,
        )
    except ValueError as exc:
        raise RecordError(f"record: {exc}") from None
    game.deals[0] = first
    for number, data in enumerate(deals[1:], start=2):
        where = f"deal {number}"
        if not isinstance(data, dict):
            raise RecordError(f"{where}: not an object")
        expected_dealer = (game.deal.dealer + 1) % players
        if data.get("dealer") != expected_dealer:
            raise RecordError(
                f"{where}: dealer {data.get('dealer')}, but the deal passes to"
                f" {expected_dealer} (D3)"
            )
        if not game.deal.is_over or game.is_over:
            raise RecordError(f"{where}: no further smazzata can follow here")
        game.deals.append(replay_deal(rules, players, data, where))
    forfeit = record.get("forfeit")
    if forfeit is not None:
        try:
            replayed = game.forfeit(forfeit["loser"], forfeit["reason"])
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"record forfeit: {exc}") from None
        if replayed.to_dict() != forfeit:
            raise RecordError(f"record forfeit {forfeit} but the replay gives {replayed.to_dict()}")
    for name in ("totals", "over", "winner", "end_reason"):
        if name not in record:
            raise RecordError(f"record: missing {name!r}")
        if record[name] != getattr(game, "is_over" if name == "over" else name):
            raise RecordError(
                f"record {name} {record[name]!r} but the replay gives "
                f"{getattr(game, 'is_over' if name == 'over' else name)!r}"
            )
    return game
