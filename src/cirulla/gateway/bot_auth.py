"""Bot API tokens: `Authorization: Bearer <token>` on the bot API and on the WebSocket.

A token belongs to one bot account and carries scopes; the store keeps only its
SHA-256 (the same `token_hash` as sessions), so a token is looked up by its hash on
every request and a revoked one stops working at once. The sockets and streams a
token opened are counted in the same registry as the browsers' (gateway/connections.py),
under the token's hash as their "session": revoking it ends them with `end_session`,
and the registry's periodic re-check ends those of a token revoked on another node.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from fastapi import Request
from starlette.datastructures import Headers

from ..store import Store, UserRow
from ..store.bots import BotStore, TokenRow
from .errors import ApiError
from .security import new_token, token_hash

__all__ = [
    "SCOPES",
    "TOKEN_PREFIX",
    "BotAuth",
    "bearer_token",
    "bot_store",
    "identity_lookup",
    "new_bot_token",
    "require_scope",
    "token_identity",
]

#: What a token may be allowed: `play` (tables: the stream, moves, sitting, creating),
#: `tournament` (entering and leaving tournaments that allow bots), `read` (the account).
SCOPES: Final = ("play", "read", "tournament")
#: Every bot token starts with it: a token starting with "-" (one in 64 of them) was
#: read as an option by command lines such as `bot_client.py --token $TOKEN`, and the
#: prefix says what a leaked token is.
TOKEN_PREFIX: Final = "bot_"
#: Longer than any token we make: anything longer is not worth a query.
_MAX_TOKEN: Final = 128
_BEARER: Final = "bearer "


@dataclass(frozen=True, slots=True)
class BotAuth:
    """Who a request's token speaks for: the bot, the token, and the token's hash."""

    user: UserRow
    token: TokenRow
    key: str


def bot_store(store: Store) -> BotStore:
    """The bot queries on `store` (a light handle: it holds nothing else)."""
    return BotStore(store)


def new_bot_token() -> str:
    return TOKEN_PREFIX + new_token()


def bearer_token(headers: Headers) -> str | None:
    """The token of an `Authorization: Bearer ...` header, or None."""
    value = headers.get("authorization")
    if value is None or not value.lower().startswith(_BEARER):
        return None
    token = value[len(_BEARER) :].strip()
    return token or None


async def token_identity(store: Store, token: str | None) -> BotAuth | None:
    """The bot and token a bearer token stands for; None for a wrong or revoked one."""
    if not token or len(token) > _MAX_TOKEN:
        return None
    key = token_hash(token)
    found = await bot_store(store).token_user(key)
    if found is None:
        return None
    return BotAuth(found[0], found[1], key)


def identity_lookup(store: Store) -> Callable[[str], Awaitable[UserRow | None]]:
    """A session hash or a token hash to its user: what the socket registry re-checks
    its connections with, browsers' and bots' alike."""

    async def lookup(key: str) -> UserRow | None:
        user = await store.session_user(key)
        if user is not None:
            return user
        found = await bot_store(store).token_user(key)
        return None if found is None else found[0]

    return lookup


def require_scope(scope: str) -> Callable[[Request], Awaitable[BotAuth]]:
    """FastAPI dependency: the bot of the request's bearer token, which must carry
    `scope`; 401 invalid_token without a live token, 403 missing_scope without it."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}")

    async def dependency(request: Request) -> BotAuth:
        token = bearer_token(request.headers)
        auth = await token_identity(request.app.state.store, token)
        if auth is None:
            raise ApiError(
                401,
                "invalid_token",
                "No valid bot token: send 'Authorization: Bearer <token>' with a token"
                " that is not revoked.",
                headers={"WWW-Authenticate": "Bearer"},
            )
        if scope not in auth.token.scopes:
            raise ApiError(
                403,
                "missing_scope",
                f"This token lacks the '{scope}' scope (it has:"
                f" {', '.join(auth.token.scopes) or 'none'}).",
            )
        return auth

    return dependency
