"""Cirulo game records (format "cirulla.cirulo/1"): a game as JSON that replays
card by card to the same hands, settlements and balances.

A record holds the rules, the players, the game seed, the draw for the first
dealer, and each hand's dealer, seed (and stacked deck, if any), pot carried
in, cards played and settlement. `replay_cirulo_game` plays it all again and
raises `RecordError` (the Cirulla records' error) saying where it does not hold.
"""

from __future__ import annotations

from typing import Any, Final

from ..moves import IllegalMove
from ..record import RecordError
from ..shuffle import SHUFFLE_VERSION
from .deal import Deal
from .game import Game
from .rules import CiruloRules
from .settlement import Amount, amount_json, parse_amount

__all__ = [
    "CIRULO_FORMAT",
    "RecordError",
    "cirulo_deal_record",
    "cirulo_game_record",
    "replay_cirulo_game",
]

CIRULO_FORMAT: Final = "cirulla.cirulo/1"


def cirulo_deal_record(deal: Deal) -> dict[str, Any]:
    """One hand: enough to replay it, and what it led to."""
    out: dict[str, Any] = {
        "dealer": deal.dealer,
        "seed": deal.seed,
        "pot_in": amount_json(deal.pot_in),
        "moves": [str(c) for c in deal.moves],
        "over": deal.is_over,
    }
    if deal.stacked:
        out["deck"] = [str(c) for c in deal.initial_deck]
    if deal.is_over:
        out["settlement"] = deal.settlement().to_dict()
    return out


def cirulo_game_record(game: Game) -> dict[str, Any]:
    """The whole game as a JSON-ready dict."""
    return {
        "format": CIRULO_FORMAT,
        "shuffle": SHUFFLE_VERSION,
        "rules": game.rules.to_dict(),
        "players": game.players,
        "seed": game.seed,
        "first_dealer": game.first_dealer,
        "draw": game.draw,
        "deals": [cirulo_deal_record(d) for d in game.deals],
        "balances": [amount_json(b) for b in game.balances],
        "chips": [amount_json(c) for c in game.chips],
        "pot": amount_json(game.pot),
        "over": game.is_over,
    }


def _field(data: dict[str, Any], name: str, kind: type | tuple[type, ...], where: str) -> Any:
    if name not in data:
        raise RecordError(f"{where}: missing {name!r}")
    value = data[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise RecordError(f"{where}: {name!r} has the wrong type ({type(value).__name__})")
    return value


def _replay_deal(game: Game, data: Any, where: str) -> None:
    """Check hand `data` against `game.deal` (already built) by playing its moves."""
    deal = game.deal
    moves = _field(data, "moves", list, where)
    for i, move in enumerate(moves, start=1):
        if not isinstance(move, str):
            raise RecordError(f"{where}, move {i}: not a card code")
        try:
            deal.play(move)
        except IllegalMove as exc:
            raise RecordError(f"{where}, move {i} {move!r}: {exc}") from None
    over = _field(data, "over", bool, where)
    if over != deal.is_over:
        raise RecordError(f"{where}: recorded over={over}, the replay gives {deal.is_over}")
    if deal.is_over:
        replayed = deal.settlement().to_dict()
        if _field(data, "settlement", dict, where) != replayed:
            raise RecordError(
                f"{where}: recorded settlement {data['settlement']} but the replay gives {replayed}"
            )


def _deal_args(data: Any, where: str) -> tuple[int, int, list[Any] | None, Amount]:
    if not isinstance(data, dict):
        raise RecordError(f"{where}: not an object")
    dealer = _field(data, "dealer", int, where)
    seed = _field(data, "seed", int, where)
    deck = data.get("deck")
    try:
        pot = parse_amount(data.get("pot_in"))
    except ValueError as exc:
        raise RecordError(f"{where}: pot_in: {exc}") from None
    return dealer, seed, deck, pot


def replay_cirulo_game(record: dict[str, Any]) -> Game:
    """Replay a Cirulo game record; RecordError says where it does not hold."""
    if not isinstance(record, dict):
        raise RecordError("a game record is a JSON object")
    fmt = record.get("format")
    if fmt != CIRULO_FORMAT:
        raise RecordError(f"unknown record format {fmt!r} (expected {CIRULO_FORMAT!r})")
    if _field(record, "shuffle", str, "record") != SHUFFLE_VERSION:
        raise RecordError(
            f"record shuffled with {record.get('shuffle')!r}; this engine has {SHUFFLE_VERSION!r}"
        )
    try:
        rules = CiruloRules.from_dict(_field(record, "rules", dict, "record"))
        players = rules.check_players(_field(record, "players", int, "record"))
    except ValueError as exc:
        raise RecordError(f"record: {exc}") from None
    deals = _field(record, "deals", list, "record")
    if not deals:
        raise RecordError("record: no hands")
    dealer, seed, deck, pot = _deal_args(deals[0], "hand 1")
    drawn = record.get("draw") is not None
    try:
        game = Game(
            rules,
            players,
            seed=_field(record, "seed", int, "record"),
            dealer=None if drawn else dealer,
            deck=deck,
            deal_seed=seed,
        )
    except ValueError as exc:
        raise RecordError(f"record: {exc}") from None
    if game.draw != record.get("draw"):
        raise RecordError(f"record: the draw for the dealer {record.get('draw')} does not replay")
    if game.first_dealer != dealer or game.deal.pot_in != pot:
        raise RecordError("hand 1: its dealer or pot is not the game's first")
    _replay_deal(game, deals[0], "hand 1")
    for number, data in enumerate(deals[1:], start=2):
        where = f"hand {number}"
        dealer, seed, deck, pot = _deal_args(data, where)
        if not game.deal.is_over or game.is_over:
            raise RecordError(f"{where}: no further hand can follow here")
        expected = (game.deal.dealer + 1) % players
        if dealer != expected:
            raise RecordError(f"{where}: dealer {dealer}, but the deal passes to {expected} (CI2)")
        try:
            game.next_deal(deck=deck, seed=seed)
        except ValueError as exc:
            raise RecordError(f"{where}: {exc}") from None
        if game.deal.pot_in != pot:
            raise RecordError(
                f"{where}: recorded pot {amount_json(pot)} but the hand before left"
                f" {amount_json(game.deal.pot_in)}"
            )
        _replay_deal(game, data, where)
    for name, value in (
        ("balances", [amount_json(b) for b in game.balances]),
        ("chips", [amount_json(c) for c in game.chips]),
        ("pot", amount_json(game.pot)),
        ("over", game.is_over),
        ("first_dealer", game.first_dealer),
    ):
        if name not in record:
            raise RecordError(f"record: missing {name!r}")
        if record[name] != value:
            raise RecordError(f"record {name} {record[name]!r} but the replay gives {value!r}")
    return game
