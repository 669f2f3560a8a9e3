"""The store's users and their sessions: accounts, guests and bot accounts, names unique
whatever their case, sessions kept by the hash of their token."""

from __future__ import annotations

import secrets as _secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from .base import StoreBase, _now, _Row, sessions, users
from .ledger import welcome_grant, write_movements


class NameTaken(ValueError):
    """Another user has this name (names are unique whatever their case)."""


@dataclass(frozen=True, slots=True)
class UserRow:
    id: str
    name: str
    guest: bool
    password_hash: str | None
    options: dict[str, Any]
    created_at: datetime
    #: A bot account (docs/bots.md): played by a program through API tokens, never logged in.
    bot: bool = False


def _name_key(name: str) -> str:
    return name.casefold()


def _user(row: _Row) -> UserRow:
    return UserRow(
        row.id,
        row.name,
        bool(row.guest),
        row.password_hash,
        dict(row.options),
        row.created_at,
        bool(row.bot),
    )


_USER_COLUMNS: Final = (
    users.c.id,
    users.c.name,
    users.c.guest,
    users.c.password_hash,
    users.c.options,
    users.c.created_at,
    users.c.bot,
)


class UserQueries(StoreBase):
    """`Store`'s users and sessions."""

    async def create_user(
        self,
        name: str,
        password_hash: str | None,
        *,
        guest: bool = False,
        options: dict[str, Any] | None = None,
        chips: int = 0,
        bot: bool = False,
    ) -> UserRow:
        """A new user with a random id; NameTaken if the name is, whatever its case.
        `chips` is the welcome grant, written with the user in one transaction."""
        row = UserRow(
            _secrets.token_hex(8), name, guest, password_hash, dict(options or {}), _now(), bot
        )
        try:
            async with self._write() as conn:
                await conn.execute(
                    insert(users).values(
                        id=row.id,
                        name=row.name,
                        name_key=_name_key(name),
                        guest=row.guest,
                        password_hash=row.password_hash,
                        options=row.options,
                        created_at=row.created_at,
                        bot=row.bot,
                    )
                )
                if chips > 0:
                    await conn.run_sync(
                        write_movements, [welcome_grant(row.id, chips)], row.created_at
                    )
        except IntegrityError:
            raise NameTaken(f"the name {name!r} is taken") from None
        return row

    async def get_user(self, user_id: str) -> UserRow | None:
        async with self._read() as conn:
            row = (await conn.execute(select(*_USER_COLUMNS).where(users.c.id == user_id))).first()
        return None if row is None else _user(row)

    async def find_user(self, name: str) -> UserRow | None:
        """The user called `name`, whatever its case."""
        async with self._read() as conn:
            row = (
                await conn.execute(
                    select(*_USER_COLUMNS).where(users.c.name_key == _name_key(name))
                )
            ).first()
        return None if row is None else _user(row)

    async def claim_guest(self, user_id: str, name: str, password_hash: str) -> UserRow:
        """The guest becomes a registered user with the same id (so its history stays).

        NameTaken if the name is someone else's; ValueError if the user is not a guest.
        """
        try:
            async with self._write() as conn:
                row = (
                    await conn.execute(
                        update(users)
                        .where(users.c.id == user_id, users.c.guest.is_(True))
                        .values(
                            name=name,
                            name_key=_name_key(name),
                            guest=False,
                            password_hash=password_hash,
                        )
                        .returning(*_USER_COLUMNS)
                    )
                ).first()
        except IntegrityError:
            raise NameTaken(f"the name {name!r} is taken") from None
        if row is None:
            if await self.get_user(user_id) is None:
                raise LookupError(f"no user {user_id!r}")
            raise ValueError(f"user {user_id!r} is not a guest")
        return _user(row)

    async def set_options(self, user_id: str, options: dict[str, Any]) -> UserRow:
        """Replace the user's options (the caller merges); LookupError if no such user."""
        return await self._update_user(user_id, options=dict(options))

    async def set_password_hash(self, user_id: str, password_hash: str) -> UserRow:
        """Store a new hash of the same password (argon2 parameters grew stronger)."""
        return await self._update_user(user_id, password_hash=password_hash)

    async def _update_user(self, user_id: str, **values: Any) -> UserRow:
        async with self._write() as conn:
            row = (
                await conn.execute(
                    update(users)
                    .where(users.c.id == user_id)
                    .values(**values)
                    .returning(*_USER_COLUMNS)
                )
            ).first()
        if row is None:
            raise LookupError(f"no user {user_id!r}")
        return _user(row)

    # ---- sessions ---------------------------------------------------------------------
    async def create_session(self, token_hash: str, user_id: str, expires_at: datetime) -> None:
        """A session for `user_id`; the caller keeps the token, the store only its hash."""
        try:
            async with self._write() as conn:
                await conn.execute(
                    insert(sessions).values(
                        token_hash=token_hash,
                        user_id=user_id,
                        created_at=_now(),
                        expires_at=expires_at,
                    )
                )
        except IntegrityError:
            raise LookupError(f"no user {user_id!r}, or the session exists") from None

    async def session_user(self, token_hash: str, now: datetime | None = None) -> UserRow | None:
        """The user of an unexpired session, else None (an expired one is deleted)."""
        now = now or _now()
        async with self._read() as conn:
            row = (
                await conn.execute(
                    select(*_USER_COLUMNS, sessions.c.expires_at)
                    .join(sessions, sessions.c.user_id == users.c.id)
                    .where(sessions.c.token_hash == token_hash)
                )
            ).first()
        if row is None:
            return None
        if row.expires_at <= now:
            await self.delete_session(token_hash)
            return None
        return _user(row)

    async def delete_session(self, token_hash: str) -> None:
        async with self._write() as conn:
            await conn.execute(delete(sessions).where(sessions.c.token_hash == token_hash))

    async def purge_sessions(self, now: datetime | None = None) -> int:
        """Delete every expired session; how many there were."""
        async with self._write() as conn:
            result = await conn.execute(
                delete(sessions).where(sessions.c.expires_at <= (now or _now()))
            )
        return int(result.rowcount)
