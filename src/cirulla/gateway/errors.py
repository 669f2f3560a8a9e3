"""One error body for the whole API: ``{"error": {"code", "message"}}``.

Clients branch on `code` (snake_case, stable) and may show `message` (a readable
English sentence) as it is; FastAPI's own errors are rewritten to the same shape.
A database or Redis that is down, or a connection pool that is used up, is answered
503 `unavailable` with Retry-After, never 500: the client may simply try again.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any, Final

import redis.exceptions
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException as StarletteHTTPException

__all__ = [
    "UNAVAILABLE_ERRORS",
    "ApiError",
    "error_body",
    "install_error_handlers",
    "validation_message",
]

log = logging.getLogger("cirulla.server")

#: Errors that mean a dependency is down or saturated, not that the request is wrong:
#: the pool's timeout, a refused or lost database connection, a full disk, Redis.
UNAVAILABLE_ERRORS: Final[tuple[type[Exception], ...]] = (
    sa_exc.TimeoutError,
    sa_exc.DBAPIError,  # only OperationalError, InterfaceError or a lost connection
    OSError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
)
#: Seconds a client is told to wait before trying again.
RETRY_AFTER: Final = 2


class ApiError(Exception):
    """An error answered to the client: HTTP status, code and message."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})


def error_body(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def _sentence(text: str) -> str:
    text = text.strip() or "Something went wrong"
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _where(loc: Sequence[Any]) -> str:
    """Where a validation error is: "field 'name'", "query parameter 'limit'"..."""
    parts = [str(p) for p in loc]
    kind = parts[0] if parts else ""
    path = ".".join(parts[1:])
    if kind == "body":
        return f"field '{path}'" if path else "request body"
    if kind in ("query", "path", "header", "cookie"):
        noun = {"query": "query parameter", "path": "path parameter"}.get(kind, kind)
        return f"{noun} '{path}'"
    return f"'{'.'.join(parts)}'" if parts else "request"


def validation_message(errors: Sequence[Any]) -> str:
    """A sentence naming the first bad field and what is wrong with it."""
    if not errors:
        return "The request is not valid."
    first = errors[0]
    loc = first.get("loc", ()) if isinstance(first, Mapping) else ()
    msg = str(first.get("msg", "is not valid")) if isinstance(first, Mapping) else str(first)
    if isinstance(first, Mapping) and first.get("type") == "json_invalid":
        return "The request body is not valid JSON."
    text = f"Bad {_where(loc)}: {msg[:1].lower()}{msg[1:]}"
    if len(errors) > 1:
        text += f" (and {len(errors) - 1} more)"
    return _sentence(text)


def _code_of(status: int) -> str:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        return "error"
    return "_".join(phrase.lower().replace("-", " ").replace("'", "").split())


async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return JSONResponse(error_body(exc.code, exc.message), exc.status, headers=exc.headers)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return JSONResponse(error_body("invalid_request", validation_message(exc.errors())), 422)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    detail = exc.detail if isinstance(exc.detail, str) else ""
    try:
        phrase = HTTPStatus(exc.status_code).phrase
    except ValueError:
        phrase = "Error"
    message = _sentence(detail if detail and detail != phrase else phrase)
    return JSONResponse(
        error_body(_code_of(exc.status_code), message),
        exc.status_code,
        headers=dict(exc.headers or {}),
    )


async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
    if request.scope["type"] != "http":
        raise exc  # a WebSocket handles its own outages (gateway/socket.py)
    if isinstance(exc, sa_exc.DBAPIError) and not (
        isinstance(exc, sa_exc.OperationalError | sa_exc.InterfaceError)
        or exc.connection_invalidated
    ):
        raise exc  # a real bug (a constraint, bad SQL): a 500, and logged as one
    if isinstance(exc, sa_exc.TimeoutError):
        what = "the database's connections are all busy"
    else:
        what = "a service it needs is not answering"
    log.warning(
        "answered unavailable: %s",
        type(exc).__name__,
        extra={"path": request.url.path, "error": str(exc)[:500]},
    )
    return JSONResponse(
        error_body("unavailable", f"The server cannot answer now: {what}. Try again shortly."),
        503,
        headers={"Retry-After": str(RETRY_AFTER)},
    )


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    # Starlette raises the exception again after this answer, so the server logs it.
    return JSONResponse(
        error_body("internal_error", "The server failed to answer this request."), 500
    )


def install_error_handlers(app: FastAPI) -> None:
    """Answer ApiError, validation errors, HTTP errors, outages (503) and crashes with
    the one body."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    for unavailable in UNAVAILABLE_ERRORS:
        app.add_exception_handler(unavailable, _unavailable)
    app.add_exception_handler(Exception, _unexpected)
