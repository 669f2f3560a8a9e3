"""Accounts: register, log in and out, play as a guest and later keep the guest's
account, and the player's options.

A guest is a real user without a password, so that everything it played is
kept under its id; claiming it adds a name and password to the same id.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Final

from fastapi import APIRouter, Body, Depends, Request, Response
from pydantic import BaseModel, StrictStr

from ..cards import STYLES
from ..settings import Settings
from ..store import NameTaken, Store, UserRow
from .errors import ApiError
from .ratelimit import account_attempt, account_succeeded, login_limit, registration_limit
from .security import (
    SESSION_COOKIE,
    check_password,
    clear_session_cookie,
    current_user,
    forget_session,
    forget_user,
    hash_password_async,
    start_session,
    token_hash,
)

__all__ = [
    "OPTION_DEFAULTS",
    "check_name",
    "check_new_password",
    "check_options",
    "public_user",
    "router",
]

router = APIRouter(prefix="/api", tags=["accounts"])

NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9_.-]{3,20}")
GUEST_PREFIX: Final = "ospite-"
PASSWORD_MIN: Final = 8
PASSWORD_MAX: Final = 200
LANGUAGES: Final = ("it", "en")
#: Every option a player may set, with its default (auto_declare: RULES.md B8).
OPTION_DEFAULTS: Final[Mapping[str, Any]] = {
    "auto_declare": True,
    "deck_style": "french",
    "language": "it",
    "sound": True,  # the table's sounds (docs/sound.md)
    "volume": 70,  # 0-100
}


def _one_of(choices: tuple[str, ...]) -> Callable[[str, Any], str | None]:
    def check(name: str, value: Any) -> str | None:
        if isinstance(value, str) and value in choices:
            return None
        return f"Option '{name}' must be one of {', '.join(choices)}, not {value!r}."

    return check


def _boolean(name: str, value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    return f"Option '{name}' must be true or false, not {value!r}."


def _volume(name: str, value: Any) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 100:
        return None
    return f"Option '{name}' must be a whole number from 0 to 100, not {value!r}."


_OPTION_CHECKS: Final[Mapping[str, Callable[[str, Any], str | None]]] = {
    "auto_declare": _boolean,
    "deck_style": _one_of(tuple(STYLES)),
    "language": _one_of(LANGUAGES),
    "sound": _boolean,
    "volume": _volume,
}


class Credentials(BaseModel):
    name: StrictStr
    password: StrictStr


def check_name(name: str) -> str:
    """The name, or 422 invalid_name saying what a name may be."""
    if not NAME_PATTERN.fullmatch(name):
        raise ApiError(
            422,
            "invalid_name",
            "A name is 3 to 20 characters: letters, digits, '_', '-' or '.'.",
        )
    if name.lower().startswith(GUEST_PREFIX):
        raise ApiError(422, "invalid_name", f"Names starting with '{GUEST_PREFIX}' are for guests.")
    return name


def check_new_password(password: str) -> None:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise ApiError(
            422,
            "invalid_password",
            f"A password is {PASSWORD_MIN} to {PASSWORD_MAX} characters long.",
        )


def check_options(options: Mapping[str, Any]) -> None:
    """422 invalid_option naming the first unknown option or bad value."""
    for name, value in options.items():
        check = _OPTION_CHECKS.get(name)
        if check is None:
            known = ", ".join(OPTION_DEFAULTS)
            raise ApiError(
                422, "invalid_option", f"There is no option '{name}': the options are {known}."
            )
        problem = check(name, value)
        if problem is not None:
            raise ApiError(422, "invalid_option", problem)


def effective_options(user: UserRow) -> dict[str, Any]:
    """The user's options over the defaults (stored values that no longer check are
    left out)."""
    out = dict(OPTION_DEFAULTS)
    for name, value in user.options.items():
        check = _OPTION_CHECKS.get(name)
        if check is not None and check(name, value) is None:
            out[name] = value
    return out


def public_user(user: UserRow) -> dict[str, Any]:
    """What the client may know of an account: never the password hash."""
    return {
        "id": user.id,
        "name": user.name,
        "guest": user.guest,
        "bot": user.bot,
        "options": effective_options(user),
    }


def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def _end_current_session(request: Request) -> None:
    token = request.cookies.get(SESSION_COOKIE)
    if token and len(token) <= 128:
        session = token_hash(token)
        await _store(request).delete_session(session)
        forget_session(session)
        request.app.state.connections.end_session(session)  # its sockets close (4000)


async def _new_session(request: Request, response: Response, user: UserRow) -> None:
    """Log `user` in on this browser, ending the session it had (if any)."""
    await _end_current_session(request)
    await start_session(_store(request), _settings(request), response, user, request)


def _name_taken(name: str) -> ApiError:
    return ApiError(409, "name_taken", f"The name '{name}' is taken: choose another.")


@router.post(
    "/register",
    status_code=201,
    dependencies=[Depends(login_limit), Depends(registration_limit)],
)
async def register(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    """A new account, logged in at once."""
    name = check_name(body.name)
    check_new_password(body.password)
    store = _store(request)
    if await store.find_user(name) is not None:  # spare argon2 the work
        raise _name_taken(name)
    password_hash = await hash_password_async(body.password)
    try:
        user = await store.create_user(name, password_hash, chips=_settings(request).welcome_chips)
    except NameTaken:
        raise _name_taken(name) from None
    await _new_session(request, response, user)
    return {"user": public_user(user)}


@router.post("/login", dependencies=[Depends(login_limit)])
async def login(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    store = _store(request)
    account_attempt(request, body.name)  # 429 while this name must wait (a slow-down)
    user = await store.find_user(body.name) if len(body.name) <= 64 else None
    password = body.password[: PASSWORD_MAX + 1]  # longer is wrong anyway: bound the hashing
    if not await check_password(store, user, password) or user is None:
        raise ApiError(401, "wrong_credentials", "Wrong name or password.")
    account_succeeded(request, body.name)
    await _new_session(request, response, user)
    return {"user": public_user(user)}


@router.post("/logout", status_code=204)
async def logout(request: Request) -> Response:
    """End this browser's session; answered 204 whether or not there was one."""
    await _end_current_session(request)
    response = Response(status_code=204)
    clear_session_cookie(_settings(request), response)
    return response


@router.post(
    "/guest",
    status_code=201,
    dependencies=[Depends(login_limit), Depends(registration_limit)],
)
async def guest(request: Request, response: Response) -> dict[str, Any]:
    """A temporary account named like ospite-4821, logged in at once."""
    store = _store(request)
    for attempt in range(30):
        digits = 4 + attempt // 10  # widen the number when the four-digit ones run short
        name = f"{GUEST_PREFIX}{secrets.randbelow(9 * 10 ** (digits - 1)) + 10 ** (digits - 1)}"
        try:
            user = await store.create_user(
                name, None, guest=True, chips=_settings(request).guest_chips
            )
        except NameTaken:
            continue
        await _new_session(request, response, user)
        return {"user": public_user(user)}
    raise ApiError(503, "no_guest_name", "No free guest name was found: try again.")


@router.post("/claim", dependencies=[Depends(login_limit)])
async def claim(
    body: Credentials,
    request: Request,
    response: Response,
    user: Annotated[UserRow, Depends(current_user)],
) -> dict[str, Any]:
    """The logged-in guest becomes a registered user: same id, so its history stays."""
    if not user.guest:
        raise ApiError(409, "not_a_guest", "Only a guest account can be claimed.")
    name = check_name(body.name)
    check_new_password(body.password)
    store = _store(request)
    password_hash = await hash_password_async(body.password)
    try:
        claimed = await store.claim_guest(user.id, name, password_hash)
    except NameTaken:
        raise _name_taken(name) from None
    except ValueError:  # claimed meanwhile in another tab
        raise ApiError(409, "not_a_guest", "Only a guest account can be claimed.") from None
    forget_user(user.id)  # its other sessions must see the new name at once
    await _new_session(request, response, claimed)  # a new token for the new rights
    return {"user": public_user(claimed)}


@router.get("/me")
async def me(request: Request, user: Annotated[UserRow, Depends(current_user)]) -> dict[str, Any]:
    """The user, with their chips: free in the wallet, and held in escrow at cash tables
    (at the top level and in "user", for the header)."""
    chips, held = await _store(request).ledger.balances(user.id)
    out = {**public_user(user), "chips": chips, "escrow": held}
    return {"user": out, "chips": chips, "escrow": held}


@router.put("/me/options")
async def set_options(
    request: Request,
    changes: Annotated[dict[str, Any], Body()],
    user: Annotated[UserRow, Depends(current_user)],
) -> dict[str, Any]:
    """Change some options, keeping the others; all or nothing."""
    check_options(changes)
    stored = {k: v for k, v in user.options.items() if k in OPTION_DEFAULTS}
    updated = await _store(request).set_options(user.id, {**stored, **changes})
    forget_user(user.id)
    return {"user": public_user(updated)}
