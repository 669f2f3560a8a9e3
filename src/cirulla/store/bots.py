"""The store's bot accounts and their API tokens.

A bot is made with its owner in one transaction (its `users` row, marked `bot`, with
no password, and its `bot_accounts` row); a token is kept as the SHA-256 of its
secret, so whoever reads the database cannot play as any bot. One transaction per
method, frozen dataclasses out, like the rest of the store.
"""

from __future__ import annotations

import secrets as _secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Final, cast

from sqlalchemy import Row, delete, func, insert, select, update
from sqlalchemy import Table as SqlTable
from sqlalchemy.exc import IntegrityError

from .base import users
from .ledger import welcome_grant, write_movements
from .models_bots import BotAccountModel, BotTokenModel
from .users import _USER_COLUMNS, NameTaken, UserRow, _user

if TYPE_CHECKING:
    from .db import Store

__all__ = ["BotStore", "TokenRow"]

bots_t: Final = cast(SqlTable, BotAccountModel.__table__)
tokens_t: Final = cast(SqlTable, BotTokenModel.__table__)


@dataclass(frozen=True, slots=True)
class TokenRow:
    """A token as listed: never its secret, nor its hash."""

    id: str
    bot_id: str
    name: str
    scopes: tuple[str, ...]
    created_at: datetime
    last_used_at: datetime | None


def _token(r: Row[tuple[object, ...]]) -> TokenRow:
    return TokenRow(
        str(r.id),
        str(r.bot_id),
        str(r.name),
        tuple(str(r.scopes).split()),
        _utc(r.created_at),
        None if r.last_used_at is None else _utc(r.last_used_at),
    )


def _utc(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


class BotStore:
    """Bot accounts and tokens on a `Store`'s engine."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def create_bot(self, owner_id: str, name: str, *, chips: int = 0) -> UserRow:
        """A new bot account owned by `owner_id`; NameTaken if the name is anyone's."""
        now = datetime.now(UTC)
        row = UserRow(_secrets.token_hex(8), name, False, None, {}, now, True)
        try:
            async with self._store._write() as conn:
                await conn.execute(
                    insert(users).values(
                        id=row.id,
                        name=name,
                        name_key=name.casefold(),
                        guest=False,
                        password_hash=None,
                        options={},
                        created_at=now,
                        bot=True,
                    )
                )
                await conn.execute(
                    insert(bots_t).values(user_id=row.id, owner_id=owner_id, created_at=now)
                )
                if chips > 0:
                    await conn.run_sync(write_movements, [welcome_grant(row.id, chips)], now)
        except IntegrityError:
            raise NameTaken(f"the name {name!r} is taken") from None
        return row

    async def bots_of(self, owner_id: str) -> list[UserRow]:
        """The owner's bots, oldest first."""
        query = (
            select(*_USER_COLUMNS)
            .join(bots_t, bots_t.c.user_id == users.c.id)
            .where(bots_t.c.owner_id == owner_id)
            .order_by(bots_t.c.created_at, users.c.id)
        )
        async with self._store._read() as conn:
            return [_user(r) for r in await conn.execute(query)]

    async def owner_of(self, bot_id: str) -> str | None:
        async with self._store._read() as conn:
            owner = (
                await conn.execute(select(bots_t.c.owner_id).where(bots_t.c.user_id == bot_id))
            ).scalar_one_or_none()
        return None if owner is None else str(owner)

    async def bots_among(self, user_ids: Iterable[str]) -> set[str]:
        """Which of these accounts are bots, in one query (for a list of chat messages)."""
        ids = sorted(set(user_ids))
        if not ids:
            return set()
        query = select(bots_t.c.user_id).where(bots_t.c.user_id.in_(ids))
        async with self._store._read() as conn:
            return {str(user_id) for user_id in (await conn.execute(query)).scalars()}

    async def count_of(self, owner_id: str) -> int:
        query = select(func.count()).select_from(bots_t).where(bots_t.c.owner_id == owner_id)
        async with self._store._read() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def create_token(
        self, bot_id: str, token_hash: str, name: str, scopes: tuple[str, ...]
    ) -> TokenRow:
        """Keep a new token of `bot_id` (its hash only); LookupError if no such bot."""
        row = TokenRow(
            _secrets.token_hex(8), bot_id, name, tuple(sorted(set(scopes))), datetime.now(UTC), None
        )
        try:
            async with self._store._write() as conn:
                await conn.execute(
                    insert(tokens_t).values(
                        id=row.id,
                        token_hash=token_hash,
                        bot_id=bot_id,
                        name=name,
                        scopes=" ".join(row.scopes),
                        created_at=row.created_at,
                        last_used_at=None,
                    )
                )
        except IntegrityError:
            raise LookupError(f"no bot {bot_id!r}, or the token exists") from None
        return row

    async def tokens_of(self, bot_id: str) -> list[TokenRow]:
        query = select(tokens_t).where(tokens_t.c.bot_id == bot_id).order_by(tokens_t.c.created_at)
        async with self._store._read() as conn:
            return [_token(r) for r in await conn.execute(query)]

    async def token_count(self, bot_id: str) -> int:
        query = select(func.count()).select_from(tokens_t).where(tokens_t.c.bot_id == bot_id)
        async with self._store._read() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def revoke(self, bot_id: str, token_id: str) -> str | None:
        """Delete the bot's token; its hash (to close what it opened), or None if none."""
        async with self._store._write() as conn:
            found = (
                await conn.execute(
                    select(tokens_t.c.token_hash).where(
                        tokens_t.c.id == token_id, tokens_t.c.bot_id == bot_id
                    )
                )
            ).scalar_one_or_none()
            if found is None:
                return None
            await conn.execute(delete(tokens_t).where(tokens_t.c.id == token_id))
        return str(found)

    async def token_user(self, token_hash: str) -> tuple[UserRow, TokenRow] | None:
        """The bot and the token with this hash, or None (a revoked or unknown token)."""
        query = (
            select(
                *_USER_COLUMNS,
                tokens_t.c.id.label("token_id"),
                tokens_t.c.name.label("token_name"),
                tokens_t.c.scopes.label("token_scopes"),
                tokens_t.c.created_at.label("token_created_at"),
                tokens_t.c.last_used_at.label("token_used_at"),
            )
            .join(tokens_t, tokens_t.c.bot_id == users.c.id)
            .where(tokens_t.c.token_hash == token_hash)
        )
        async with self._store._read() as conn:
            r = (await conn.execute(query)).first()
        if r is None:
            return None
        token = TokenRow(
            str(r.token_id),
            str(r.id),
            str(r.token_name),
            tuple(str(r.token_scopes).split()),
            _utc(r.token_created_at),
            None if r.token_used_at is None else _utc(r.token_used_at),
        )
        return _user(r), token

    async def touch(self, token_id: str) -> None:
        """Note that the token was used now (listed to its owner)."""
        async with self._store._write() as conn:
            await conn.execute(
                update(tokens_t)
                .where(tokens_t.c.id == token_id)
                .values(last_used_at=datetime.now(UTC))
            )
