"""The store's chat: messages said at tables and in the lobby, hidden ones, silences.

One transaction per method, frozen dataclasses out (like the rest of the store).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, cast

from sqlalchemy import Row, delete, insert, select, update
from sqlalchemy import Table as SqlTable

from .models_chat import ChatMessageModel, ChatSilenceModel

if TYPE_CHECKING:
    from .db import Store

__all__ = ["ChatRow", "ChatStore"]

messages_t: Final = cast(SqlTable, ChatMessageModel.__table__)
silences_t: Final = cast(SqlTable, ChatSilenceModel.__table__)


@dataclass(frozen=True, slots=True)
class ChatRow:
    """One message as stored."""

    id: int
    table_id: str | None
    user_id: str
    name: str
    text: str | None
    phrase: str | None
    audience: str  # "all" or "spectators"
    at: datetime
    hidden: bool

    def frame(self) -> dict[str, Any]:
        """The message as clients get it (without the table: the frame says which chat)."""
        out: dict[str, Any] = {
            "id": self.id,
            "from": self.name,
            "at": int(self.at.timestamp() * 1000),
            "audience": self.audience,
        }
        if self.phrase is not None:
            out["phrase"] = self.phrase
        else:
            out["text"] = self.text
        return out


def _row(r: Row[Any]) -> ChatRow:
    at = r.at if r.at.tzinfo is not None else r.at.replace(tzinfo=UTC)
    return ChatRow(
        r.id, r.table_id, r.user_id, r.name, r.text, r.phrase, r.audience, at, bool(r.hidden)
    )


def _where_table(table_id: str | None) -> Any:
    col = messages_t.c.table_id
    return col.is_(None) if table_id is None else col == table_id


class ChatStore:
    """Chat queries on a `Store`'s engine."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def add(
        self,
        table_id: str | None,
        user_id: str,
        name: str,
        *,
        text: str | None,
        phrase: str | None,
        audience: str,
    ) -> ChatRow:
        at = datetime.now(UTC)
        values = {
            "table_id": table_id,
            "user_id": user_id,
            "name": name,
            "text": text,
            "phrase": phrase,
            "audience": audience,
            "at": at,
            "hidden": False,
        }
        async with self._store._write() as conn:
            result = await conn.execute(insert(messages_t).values(**values))
            key = result.inserted_primary_key
        assert key is not None
        return ChatRow(int(key[0]), table_id, user_id, name, text, phrase, audience, at, False)

    async def recent(
        self, table_id: str | None, *, spectators: bool, limit: int | None = 50
    ) -> list[ChatRow]:
        """The last `limit` visible messages (all when None), oldest first; the
        spectators' own ones only if `spectators`."""
        query = select(messages_t).where(_where_table(table_id), messages_t.c.hidden.is_(False))
        if not spectators:
            query = query.where(messages_t.c.audience == "all")
        query = query.order_by(messages_t.c.id.desc())
        if limit is not None:
            query = query.limit(limit)
        async with self._store._read() as conn:
            rows = [_row(r) for r in await conn.execute(query)]
        rows.reverse()
        return rows

    async def hide(self, message_id: int) -> ChatRow | None:
        """Hide a message; the message (now hidden), or None if there is none."""
        async with self._store._write() as conn:
            await conn.execute(
                update(messages_t).where(messages_t.c.id == message_id).values(hidden=True)
            )
            row = (
                await conn.execute(select(messages_t).where(messages_t.c.id == message_id))
            ).first()
        return None if row is None else _row(row)

    async def silence(self, user_id: str, until: datetime | None) -> None:
        """Silence the account until `until`; None lifts it."""
        async with self._store._write() as conn:
            await conn.execute(delete(silences_t).where(silences_t.c.user_id == user_id))
            if until is not None:
                await conn.execute(insert(silences_t).values(user_id=user_id, until=until))

    async def silenced_until(self, user_id: str) -> datetime | None:
        """When the account's silence ends, if it is silenced now."""
        query = select(silences_t.c.until).where(silences_t.c.user_id == user_id)
        async with self._store._read() as conn:
            until = (await conn.execute(query)).scalar_one_or_none()
        if until is None:
            return None
        if until.tzinfo is None:
            until = until.replace(tzinfo=UTC)
        return until if until > datetime.now(UTC) else None
