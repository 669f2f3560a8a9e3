"""What one seat may know of a smazzata (P9, B7, O1, O2), and nothing more.

Bots and clients only ever get these views, so the hidden-information rule
lives in one place: the hands a viewer sees, and the events filtered for it.
The seed and the order of the undealt cards never appear in a view.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .deal import Deal
    from .rules import Rules

__all__ = ["deal_view", "deal_views", "filter_event", "visible_hands"]


def visible_hands(deal: Deal, viewer: int | None) -> set[int]:
    """The seats whose hand `viewer` sees now (None: a spectator, who sees none)."""
    if viewer is None:
        return set()
    seen = {viewer}
    rules = deal.rules
    if rules.carte_scoperte and deal.players == 4:  # O2: partners' hands
        seen.add((viewer + 2) % 4)
    if (  # O1: in 2-player games the last mano is played face up
        rules.carte_viste
        and deal.players == 2
        and not deal.is_over
        and deal.stage == len(deal.stages) - 1
        and deal.mano == deal.stages[-1] - 1
    ):
        seen.update(range(deal.players))
    return seen


def _hand_owners(deal: Deal, viewer: int | None) -> set[int]:
    """Seats whose dealt cards `viewer` may see in the history (own, partner's in O2)."""
    if viewer is None:
        return set()
    owners = {viewer}
    if deal.rules.carte_scoperte and deal.players == 4:
        owners.add((viewer + 2) % 4)
    return owners


def filter_event(event: dict[str, Any], deal: Deal, viewer: int | None) -> dict[str, Any]:
    """The event as `viewer` may see it: other seats' dealt cards become counts."""
    if event["type"] != "deal":
        return event
    owners = _hand_owners(deal, viewer)
    out = dict(event)
    out["hands"] = [h if s in owners else None for s, h in enumerate(event["hands"])]
    out["counts"] = [len(h) for h in event["hands"]]
    return out


# A deal's events only ever grow, and how each one is filtered for a viewer never
# changes (_hand_owners depends on the rules alone), so a server sending views after
# every move keeps both lists per deal instead of rebuilding them each time.
_CACHE: weakref.WeakKeyDictionary[Deal, tuple[list[dict[str, Any]], dict[Any, list[Any]]]] = (
    weakref.WeakKeyDictionary()
)


@functools.lru_cache(maxsize=256)
def _rules_json(rules: Rules) -> dict[str, Any]:
    """rules.to_dict(), made once per set of rules: every view carries it."""
    return rules.to_dict()


def _events(deal: Deal) -> list[dict[str, Any]]:
    entry = _CACHE.get(deal)
    if entry is None:
        entry = _CACHE[deal] = ([], {})
    raw = entry[0]
    if len(raw) < deal.event_count:
        raw.extend(deal.events_from(len(raw)))
    return raw


def _history(deal: Deal, viewer: int | None, events: list[dict[str, Any]]) -> list[Any]:
    filtered = _CACHE[deal][1].setdefault(viewer, [])
    for e in events[len(filtered) :]:
        filtered.append(filter_event(e, deal, viewer))
    return list(filtered)


def deal_view(deal: Deal, viewer: int | None) -> dict[str, Any]:
    return deal_views(deal, (viewer,))[viewer]


def deal_views(
    deal: Deal, viewers: Iterable[int | None], *, history: bool = True
) -> dict[int | None, dict[str, Any]]:
    """`deal_view` for several viewers at once, the part they share made once (a server
    sends a view to every seat after each move). The views of one call share nested
    objects: read them, do not change them. Without `history`, it is left out."""
    rules = deal.rules
    n = deal.players
    events = _events(deal)
    base_hands = [
        {
            "seat": s,
            "side": deal.side_of(s),
            "count": len(deal._hands[s]),
            "declared": [str(c) for c in deal._pending[s]],
        }
        for s in range(n)
    ]
    matta = deal._matta
    shared: dict[str, Any] = {
        "game": rules.game,
        "rules": _rules_json(rules),
        "players": n,
        "seat": None,
        "side": None,
        "dealer": deal.dealer,
        "to_move": deal.to_move,
        "stage": deal.stage,
        "stages": list(deal.stages),
        "mano": deal.mano,
        "deck": deal.deck_left,
        "table": [{"card": str(c), "value": deal.value_of(c)} for c in deal._table],
        "hand": None,
        "hands": base_hands,
        "piles": [
            {
                "side": i,
                "count": len(deal._piles[i]),
                "scope": deal._scope[i],
                "bonus": deal._bonus[i],
            }
            for i in range(deal.sides)
        ],
        "last_capture": deal.last_capture,
        "matta": None if matta is None else {"card": str(matta), "value": deal.matta_value},
        "declarations": [dict(d) for d in deal._declarations],
        "misdeals": deal.misdeals,
        "history": None,
        "is_over": deal.is_over,
        "score": deal._score.to_dict() if deal._score is not None else None,
        "instant_winner": deal.instant_winner,
    }
    if not history:
        del shared["history"]
    legal: list[str] | None = None
    seen_cards = _cards_seen(events) if rules.carte_viste else None  # O1
    out: dict[int | None, dict[str, Any]] = {}
    for viewer in viewers:
        if viewer in out:
            continue
        view = dict(shared)
        if viewer is not None:
            seen = visible_hands(deal, viewer)
            view["seat"] = viewer
            view["side"] = deal.side_of(viewer)
            view["hand"] = [str(c) for c in deal._hands[viewer]]
            view["hands"] = [
                {**h, "cards": [str(c) for c in deal._hands[s]]} if s in seen else h
                for s, h in enumerate(base_hands)
            ]
            if viewer == deal.to_move:
                if legal is None:
                    legal = [str(m) for m in deal.legal_moves()]
                view["legal_moves"] = legal
        if history:
            view["history"] = _history(deal, viewer, events)
        if seen_cards is not None:
            view["carte_viste"] = seen_cards
        out[viewer] = view
    return out


def _cards_seen(events: list[dict[str, Any]]) -> list[str]:
    seen: list[str] = []
    for event in events:
        if event["type"] in ("deal", "instant_win") and "table" in event:
            seen.extend(event["table"])
        elif event["type"] == "play":
            seen.append(event["card"])
    return seen
