"""The replay of a finished Cirulo partita: every card played, every hand open.

Same shape as the Cirulla replay (gateway/history.py) so that a client steps
through `deals` (each hand as dealt) and `steps` (the position after each card);
the views are Cirulo's spectator views (cirulo/views.py) with every hand shown.
"""

from __future__ import annotations

from typing import Any

from ..cirulo.deal import Deal
from ..cirulo.record import CIRULO_FORMAT, RecordError, replay_cirulo_game
from ..cirulo.settlement import amount_json

__all__ = ["build_cirulo_replay", "is_cirulo_record"]


def is_cirulo_record(record: dict[str, Any]) -> bool:
    """A table record whose partita is Cirulo (its game part says so)."""
    part = record.get("game")
    return isinstance(part, dict) and part.get("format") == CIRULO_FORMAT


def _open_view(deal: Deal, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The spectator's view with every hand shown: the partita is over, nothing is secret."""
    view = deal.view(None)
    del view["rules"]
    for entry in view["hands"]:
        entry["cards"] = [str(c) for c in deal.hand(entry["seat"])]
    view["events"] = events
    return view


def build_cirulo_replay(table_id: str, record: dict[str, Any]) -> dict[str, Any]:
    """Every card of the record's Cirulo partita with the position after it.

    The record is first checked by `replay_cirulo_game` (RecordError if it does not
    replay); then each hand is dealt again from its own dealer, seed and pot."""
    part = record.get("game")
    if not isinstance(part, dict):
        raise RecordError("the record has no game")
    game = replay_cirulo_game(part)
    deals: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    for k, played in enumerate(game.deals):
        deal = Deal(
            game.rules,
            game.players,
            played.dealer,
            deck=list(played.initial_deck) if played.stacked else None,
            seed=played.seed,
            pot=played.pot_in,
        )
        deals.append(
            {"deal": k, "dealer": deal.dealer, "view": _open_view(deal, deal.events_from(0))}
        )
        for index, card in enumerate(played.moves):
            seat = deal.to_move
            seen = deal.event_count
            deal.play(card)
            steps.append(
                {
                    "deal": k,
                    "index": index,
                    "seat": seat,
                    "move": str(card),
                    "view": _open_view(deal, deal.events_from(seen)),
                }
            )
    return {
        "table": table_id,
        "game": "cirulo",
        "rules": part["rules"],
        "players": game.players,
        "seats": record.get("seats"),
        "balances": [amount_json(b) for b in game.balances],
        "chips": [amount_json(c) for c in game.chips],
        "pot": amount_json(game.pot),
        "hands": game.hands,
        "over": game.is_over,
        "deals": deals,
        "steps": steps,
        "hints": [],
    }
