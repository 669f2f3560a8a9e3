"""The store's finished partite: each record with its summary for the history lists,
and the users who played it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from .base import StoreBase, _now, players_t, records_t, tables
from .coach import hint_marks


@dataclass(frozen=True, slots=True)
class RecordPlayer:
    """A user who played a finished partita: their seat, side and result."""

    user_id: str
    seat: int
    side: int
    won: bool | None


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One line of a user's history: a finished partita seen from their seat."""

    table_id: str
    game: str
    finished_at: datetime
    seat: int
    side: int
    won: bool | None
    summary: dict[str, Any]


def record_summary(record: Mapping[str, Any]) -> dict[str, Any]:
    """What a history list shows of a finished partita, taken from its record.

    Tolerant: a field the record lacks is None (or empty), never an error, so that
    an odd record still lists.
    """
    game = record.get("game")
    game = game if isinstance(game, Mapping) else {}
    raw_seats = record.get("seats")
    seats = [s for s in raw_seats if isinstance(s, Mapping)] if isinstance(raw_seats, list) else []
    count = game.get("players")
    if not isinstance(count, int) or isinstance(count, bool) or not 0 < count <= 8:
        count = max((s["seat"] for s in seats if isinstance(s.get("seat"), int)), default=-1) + 1
    names: list[str | None] = [None] * count
    bots: list[str | None] = [None] * count
    accounts = [False] * count  # bot accounts (docs/bots.md), as opposed to people
    for s in seats:
        seat = s.get("seat")
        if isinstance(seat, int) and 0 <= seat < count:
            name = s.get("name")
            bot = s.get("bot")
            names[seat] = name if isinstance(name, str) else None
            bots[seat] = bot if isinstance(bot, str) else None
            accounts[seat] = s.get("bot_account") is True
    rules = game.get("rules")
    deals = game.get("deals")
    summary = {
        "players": names,
        "bots": bots,
        "totals": game.get("totals"),
        "winner": game.get("winner"),
        "end_reason": game.get("end_reason"),
        "target": rules.get("target") if isinstance(rules, Mapping) else None,
        "deals": len(deals) if isinstance(deals, list) else None,
    }
    if any(accounts):
        summary["bot_accounts"] = accounts
    if game.get("format") == "cirulla.cirulo/1":  # Cirulo keeps balances, not totals
        summary["game"] = "cirulo"
        summary["balances"] = game.get("balances")
    hinted = _hinted(record.get("coach"))
    if hinted:  # the seats that asked the coach for hints
        summary["hints"] = hinted
    return summary


def _hinted(coach: Any) -> list[int]:
    """The seats that asked the coach for hints (store/coach.py), from a record."""
    hints = coach.get("hints") if isinstance(coach, Mapping) else None
    if not isinstance(hints, list):
        return []
    seats = [h.get("seat") for h in hints if isinstance(h, Mapping)]
    return [s for s in seats if isinstance(s, int) and not isinstance(s, bool)]


class RecordQueries(StoreBase):
    """`Store`'s finished partite."""

    async def save_record(
        self,
        table_id: str,
        record: dict[str, Any],
        players: Sequence[RecordPlayer],
        *,
        finished_at: datetime | None = None,
    ) -> None:
        """Keep a finished partita's record and who played it. Idempotent: a second
        save of the same table changes nothing. LookupError if there is no such table."""
        finished_at = finished_at or _now()

        def body(conn: Connection) -> None:
            game = conn.scalar(select(tables.c.game).where(tables.c.id == table_id))
            if game is None:
                raise LookupError(f"no table {table_id!r}")
            if conn.scalar(select(records_t.c.table_id).where(records_t.c.table_id == table_id)):
                return
            saved = record
            hints = hint_marks(conn, table_id)  # the coach's hints: the record says so
            if hints:
                saved = {**record, "coach": {"hints": hints}}
            conn.execute(
                insert(records_t).values(
                    table_id=table_id,
                    game=game,
                    record=saved,
                    summary=record_summary(saved),
                    finished_at=finished_at,
                )
            )
            if players:
                conn.execute(
                    insert(players_t),
                    [
                        {
                            "table_id": table_id,
                            "user_id": p.user_id,
                            "seat": p.seat,
                            "side": p.side,
                            "won": p.won,
                            "finished_at": finished_at,
                        }
                        for p in players
                    ],
                )

        try:
            await self._write_sync(body)
        except IntegrityError:
            if await self.get_record(table_id) is None:  # not a racing twin save: a real fault
                raise
            return

    async def get_record(self, table_id: str) -> dict[str, Any] | None:
        async with self._read() as conn:
            value = await conn.scalar(
                select(records_t.c.record).where(records_t.c.table_id == table_id)
            )
        return None if value is None else dict(value)

    async def record_players(self, table_id: str) -> list[RecordPlayer]:
        """The users who played a finished partita, by seat."""
        async with self._read() as conn:
            rows = await conn.execute(
                select(players_t.c.user_id, players_t.c.seat, players_t.c.side, players_t.c.won)
                .where(players_t.c.table_id == table_id)
                .order_by(players_t.c.seat)
            )
            return [RecordPlayer(r.user_id, r.seat, r.side, r.won) for r in rows]

    async def history(
        self, user_id: str, *, limit: int = 50, before: datetime | None = None
    ) -> list[HistoryRow]:
        """The user's finished partite, newest first; `before` pages back in time."""
        query = (
            select(
                players_t.c.table_id,
                records_t.c.game,
                players_t.c.finished_at,
                players_t.c.seat,
                players_t.c.side,
                players_t.c.won,
                records_t.c.summary,
            )
            .join(records_t, records_t.c.table_id == players_t.c.table_id)
            .where(players_t.c.user_id == user_id)
            .order_by(players_t.c.finished_at.desc(), players_t.c.table_id.desc())
            .limit(limit)
        )
        if before is not None:
            query = query.where(players_t.c.finished_at < before)
        async with self._read() as conn:
            rows = await conn.execute(query)
            return [
                HistoryRow(
                    r.table_id, r.game, r.finished_at, r.seat, r.side, r.won, dict(r.summary)
                )
                for r in rows
            ]
