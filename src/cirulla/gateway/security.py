"""Passwords, session tokens and the session cookie.

Passwords are hashed with argon2id; the hashing is deliberately slow and
memory-hungry, so it runs in a worker thread, never on the event loop. A
session token is 32 random bytes given to the browser in an HttpOnly cookie;
the store keeps only its SHA-256, so the database alone logs nobody in.

Every request looks its session up, so the answers are kept for a few seconds
(`session_cache_seconds`) in a bounded cache; whatever ends a session or changes a
user calls `forget_session` or `forget_user`, so on this node a logout is at once.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Annotated, Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import Depends, Request, Response

from ..settings import Settings
from ..store import Store, UserRow
from .errors import ApiError

__all__ = [
    "SESSION_COOKIE",
    "SessionCache",
    "check_password",
    "clear_session_cookie",
    "current_user",
    "forget_session",
    "forget_user",
    "hash_password",
    "hash_password_async",
    "needs_rehash",
    "new_token",
    "optional_user",
    "session_cache",
    "start_session",
    "token_hash",
    "user_from_token",
    "verify_password",
]

SESSION_COOKIE: Final = "cirulla_session"
#: Longer than any token new_token makes: anything else in the cookie is not worth a query.
_MAX_TOKEN: Final = 128

_hasher: Final = PasswordHasher()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


async def hash_password_async(password: str) -> str:
    """hash_password in a worker thread: argon2 takes tens of milliseconds of CPU."""
    return await asyncio.to_thread(_hasher.hash, password)


def verify_password(password_hash: str, password: str) -> bool:
    """True if `password` matches; False (never an exception) if not, or if the
    stored hash is unreadable."""
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    """True if the hash was made with weaker parameters than today's."""
    try:
        return _hasher.check_needs_rehash(password_hash)
    except (InvalidHashError, ValueError):
        return True


@cache
def _dummy_hash() -> str:
    return _hasher.hash("not anyone's password")


async def check_password(store: Store, user: UserRow | None, password: str) -> bool:
    """Whether `password` is `user`'s, taking as long when there is no such user (or it
    is a guest) so that the time does not tell which names exist. Rehashes a correct
    password whose hash is out of date."""
    stored = user.password_hash if user is not None else None
    if user is None or stored is None:
        await asyncio.to_thread(verify_password, await asyncio.to_thread(_dummy_hash), password)
        return False
    if not await asyncio.to_thread(verify_password, stored, password):
        return False
    if needs_rehash(stored):
        await store.set_password_hash(user.id, await hash_password_async(password))
    return True


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What the store keeps of a session token."""
    return hashlib.sha256(token.encode()).hexdigest()


class SessionCache:
    """Token hash -> its user, each answer trusted for `ttl` seconds; at most `size`
    of them, the least recently used going first. Only live sessions are kept, so
    garbage tokens cannot push real ones out."""

    def __init__(
        self, ttl: float = 10.0, size: int = 20_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self.size = size
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, UserRow]] = OrderedDict()
        self._by_user: dict[str, set[str]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> UserRow | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry[0] <= self._clock():
            self.forget(key)
            return None
        self._entries.move_to_end(key)
        return entry[1]

    def put(self, key: str, user: UserRow) -> None:
        self.forget(key)
        self._entries[key] = (self._clock() + self.ttl, user)
        self._by_user.setdefault(user.id, set()).add(key)
        while len(self._entries) > self.size:
            self.forget(next(iter(self._entries)))

    def forget(self, key: str) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            keys = self._by_user.get(entry[1].id)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._by_user[entry[1].id]

    def forget_user(self, user_id: str) -> None:
        for key in list(self._by_user.get(user_id, ())):
            self.forget(key)

    def clear(self) -> None:
        self._entries.clear()
        self._by_user.clear()


#: The process's session cache (create_app sets its ttl from the settings).
session_cache: Final = SessionCache()


def forget_session(token_hash: str) -> None:
    """Call when a session ends (logout, a new login on the browser): the cache must
    not go on serving it."""
    session_cache.forget(token_hash)


def forget_user(user_id: str) -> None:
    """Call when a user's row changes (options, a claim): their sessions are looked
    up afresh."""
    session_cache.forget_user(user_id)


async def user_from_token(store: Store, token: str | None) -> UserRow | None:
    """The user of a live session token; None for a missing, stale or garbage one."""
    if not token or len(token) > _MAX_TOKEN:
        return None
    key = token_hash(token)
    user = session_cache.get(key)
    if user is None:
        user = await store.session_user(key)
        if user is not None:
            session_cache.put(key, user)
    return user


def _secure(settings: Settings, request: Request | None) -> bool:
    """Secure cookies when the settings say so or the request came over https (behind
    a trusted proxy, uvicorn takes the scheme from X-Forwarded-Proto)."""
    return settings.secure_cookies or (request is not None and request.url.scheme == "https")


async def start_session(
    store: Store,
    settings: Settings,
    response: Response,
    user: UserRow,
    request: Request | None = None,
) -> str:
    """A new session for `user`, its cookie set on `response`; returns the token."""
    token = new_token()
    expires = datetime.now(UTC) + timedelta(days=settings.session_days)
    await store.create_session(token_hash(token), user.id, expires)
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=settings.session_days * 86_400,
        path="/",
        secure=_secure(settings, request),
        httponly=True,
        samesite="lax",
    )
    return token


def clear_session_cookie(
    settings: Settings, response: Response, request: Request | None = None
) -> None:
    response.delete_cookie(
        SESSION_COOKIE,
        path="/",
        secure=_secure(settings, request),
        httponly=True,
        samesite="lax",
    )


async def optional_user(request: Request) -> UserRow | None:
    """FastAPI dependency: the logged-in user, or None."""
    store: Store = request.app.state.store
    return await user_from_token(store, request.cookies.get(SESSION_COOKIE))


async def current_user(user: Annotated[UserRow | None, Depends(optional_user)]) -> UserRow:
    """FastAPI dependency: the logged-in user; 401 not_logged_in if there is none."""
    if user is None:
        raise ApiError(401, "not_logged_in", "You are not logged in.")
    return user
