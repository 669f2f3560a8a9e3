"""What one seat may know of a Cirulo hand, and nothing more.

Only the deal hides anything: every card played is seen by all, and so are
the removed cards (CI2). A seat sees its own hand; a spectator sees no hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .settlement import amount_json

if TYPE_CHECKING:
    from .deal import Deal

__all__ = ["deal_view", "filter_event"]


def filter_event(event: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """The event as `viewer` may see it: other seats' dealt cards become counts."""
    if event["type"] != "deal":
        return event
    out = dict(event)
    out["hands"] = [h if s == viewer else None for s, h in enumerate(event["hands"])]
    out["counts"] = [len(h) for h in event["hands"]]
    return out


def deal_view(deal: Deal, viewer: int | None) -> dict[str, Any]:
    n = deal.players
    settlement = deal._settlement
    hands = []
    for s in range(n):
        entry: dict[str, Any] = {"seat": s, "count": len(deal._hands[s])}
        if s == viewer:
            entry["cards"] = [str(c) for c in deal._hands[s]]
        hands.append(entry)
    view: dict[str, Any] = {
        "game": "cirulo",
        "rules": deal.rules.to_dict(),
        "players": n,
        "seat": viewer,
        "dealer": deal.dealer,
        "leader": deal.leader,
        "to_move": deal.to_move,
        "trick_number": deal.trick_number,
        "tricks_per_hand": deal.tricks_per_hand,
        "hand": None if viewer is None else [str(c) for c in deal._hands[viewer]],
        "hands": hands,
        "trick": [{"seat": s, "card": str(c)} for s, c in deal.trick],
        "led": deal.led_suit,
        "tricks": list(deal._won),
        "encirculated": list(deal._encirculated),
        "coins": list(deal._coins),
        "center": len(deal._center) // n,
        "pot": amount_json(deal.pot_in),
        "removed": [str(c) for c in deal.removed],
        "history": [filter_event(e, viewer) for e in deal.events],
        "is_over": deal.is_over,
        "settlement": None if settlement is None else settlement.to_dict(),
    }
    if viewer is not None and viewer == deal.to_move:
        view["legal_moves"] = [str(c) for c in deal.legal_moves()]
    return view
