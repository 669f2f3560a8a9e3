"""Finished partite: a player's history, the stored records, and replays.

A finished partita is public (anyone may replay it, every hand open) unless it
was played at a private table: then only its players may see it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from datetime import UTC, datetime
from typing import Annotated, Any, Final
from weakref import WeakKeyDictionary

from fastapi import APIRouter, Depends, Query, Request

from ..deal import Deal
from ..record import RecordError, replay_game
from ..store import Store, UserRow
from .cirulo_replay import build_cirulo_replay, is_cirulo_record
from .errors import ApiError
from .security import current_user, optional_user

__all__ = ["build_replay", "router"]

router = APIRouter(prefix="/api", tags=["history"])

#: Replays are pure functions of immutable records, and take a while to build:
#: the last few are kept, per store (so that two apps in one process never mix).
_REPLAY_CACHE_SIZE: Final = 16
_replays: WeakKeyDictionary[Store, OrderedDict[str, dict[str, Any]]] = WeakKeyDictionary()


def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


@router.get("/history")
async def history(
    request: Request,
    user: Annotated[UserRow, Depends(current_user)],
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    before: Annotated[datetime | None, Query()] = None,
) -> dict[str, Any]:
    """The user's finished partite, newest first. `next` is the `before` that asks
    for the page after this one (None on the last page)."""
    if before is not None and before.tzinfo is None:
        before = before.replace(tzinfo=UTC)
    rows = await _store(request).history(user.id, limit=limit, before=before)
    items = [
        {
            "table": r.table_id,
            "game": "cirulo" if r.summary.get("game") == "cirulo" else r.game,
            "finished_at": r.finished_at.isoformat(),
            "seat": r.seat,
            "side": r.side,
            "won": r.won,
            "summary": r.summary,
        }
        for r in rows
    ]
    return {"history": items, "next": items[-1]["finished_at"] if len(items) == limit else None}


def _tournament_of(record: dict[str, Any]) -> str | None:
    """The tournament a partita was played for (its table's first record says so)."""
    log = record.get("log")
    first = log[0] if isinstance(log, list) and log else None
    data = first.get("data") if isinstance(first, dict) else None
    tournament = data.get("tournament") if isinstance(data, dict) else None
    tid = tournament.get("id") if isinstance(tournament, dict) else None
    return tid if isinstance(tid, str) else None


async def _tournament_shows(store: Store, record: dict[str, Any], user: UserRow | None) -> bool:
    """A tournament's tables are private (only the entrants sit), but its finished
    partite are for everyone who may see the tournament: anyone for a public one, its
    organiser and entrants for a private one."""
    tid = _tournament_of(record)
    if tid is None:
        return False
    row = await store.tournaments.get(tid)
    if row is None:
        return False
    if not row.private:
        return True
    if user is None:
        return False
    entrants = row.summary.get("entrants") if isinstance(row.summary, dict) else None
    users = {e.get("user") for e in entrants or () if isinstance(e, dict)}
    return user.id == row.organiser or user.id in users


async def _readable_record(request: Request, table_id: str, user: UserRow | None) -> dict[str, Any]:
    """The finished partita's record if `user` may see it; else the error why not."""
    store = _store(request)
    record = await store.get_record(table_id)
    if record is None:
        raise ApiError(404, "unknown_table", f"No finished partita was played at '{table_id}'.")
    table = await store.get_table(table_id)
    if table is not None and table.private and not await _tournament_shows(store, record, user):
        if user is None:
            raise ApiError(
                401,
                "not_logged_in",
                "This partita was played at a private table: log in as one of its players.",
            )
        players = {p.user_id for p in await store.record_players(table_id)}
        seats = record.get("seats")
        if isinstance(seats, list):
            players |= {
                s["user"] for s in seats if isinstance(s, dict) and isinstance(s.get("user"), str)
            }
        if user.id not in players:
            raise ApiError(
                403,
                "private_table",
                "This partita was played at a private table: only its players may see it.",
            )
    return record


@router.get("/records/{table_id}")
async def get_record(
    request: Request,
    table_id: str,
    user: Annotated[UserRow | None, Depends(optional_user)],
) -> dict[str, Any]:
    """The stored record of a finished partita, as it was saved."""
    return await _readable_record(request, table_id, user)


@router.get("/replay/{table_id}")
async def get_replay(
    request: Request,
    table_id: str,
    user: Annotated[UserRow | None, Depends(optional_user)],
) -> dict[str, Any]:
    """The finished partita move by move, every hand open."""
    record = await _readable_record(request, table_id, user)
    cache = _replays.setdefault(_store(request), OrderedDict())
    cached = cache.get(table_id)
    if cached is not None:
        cache.move_to_end(table_id)
        return cached
    try:
        build = build_cirulo_replay if is_cirulo_record(record) else build_replay
        replay = await asyncio.to_thread(build, table_id, record)
    except RecordError as exc:
        raise ApiError(
            500, "broken_record", f"The record of '{table_id}' does not replay: {exc}."
        ) from None
    cache[table_id] = replay
    while len(cache) > _REPLAY_CACHE_SIZE:
        cache.popitem(last=False)
    return replay


def _open_view(deal: Deal, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The spectator's view with every hand shown (the partita is over, nothing is
    secret any more). The rules and the running history are left out: the replay
    gives the rules once and each step's own events."""
    view = deal.view(None)
    del view["history"], view["rules"]
    for entry in view["hands"]:
        entry["cards"] = [str(c) for c in deal.hand(entry["seat"])]
    view["events"] = events
    return view


def build_replay(table_id: str, record: dict[str, Any]) -> dict[str, Any]:
    """Every move of the record's partita with the state after it.

    The partita is first checked by `replay_game` (RecordError if it does not
    replay), then each smazzata is dealt again and played move by move.
    """
    part = record.get("game")
    if not isinstance(part, dict):
        raise RecordError("the record has no game")
    game = replay_game(part)
    deals: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    for k, played in enumerate(game.deals):
        deal = Deal(
            game.rules,
            game.players,
            played.dealer,
            deck=list(played.initial_deck) if played.stacked else None,
            seed=played.seed,
        )
        deals.append(
            {"deal": k, "dealer": deal.dealer, "view": _open_view(deal, deal.events_from(0))}
        )
        for index, move in enumerate(played.moves):
            seat = deal.to_move
            seen = deal.event_count
            deal.play(move)
            steps.append(
                {
                    "deal": k,
                    "index": index,
                    "seat": seat,
                    "move": str(move),
                    "view": _open_view(deal, deal.events_from(seen)),
                }
            )
    return {
        "table": table_id,
        "rules": part["rules"],
        "players": game.players,
        "seats": record.get("seats"),
        "totals": game.totals,
        "winner": game.winner,
        "end_reason": game.end_reason,
        "deals": deals,
        "steps": steps,
        "hints": _hints(record),
    }


def _hints(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The seats that asked the coach for hints, and how many (gateway/coach.py)."""
    coach = record.get("coach")
    hints = coach.get("hints") if isinstance(coach, dict) else None
    return [h for h in hints if isinstance(h, dict)] if isinstance(hints, list) else []
