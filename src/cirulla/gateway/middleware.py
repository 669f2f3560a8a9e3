"""Pure ASGI middlewares: a cap on request bodies, the browser's security headers, and the
static files minified and compressed.

They are plain ASGI (no BaseHTTPMiddleware) so that they see the body as it arrives
and add nothing to the cost of a WebSocket, which they pass through untouched.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Final

import brotli  # type: ignore[import-untyped]
import orjson
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import error_body
from .minify import KINDS, minified

__all__ = [
    "BodyLimit",
    "CompressedFiles",
    "SecurityHeaders",
    "accepts",
    "best_coding",
    "compress",
    "compressed",
    "content_security_policy",
]


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value)
    return None


class BodyLimit:
    """Refuse a request body over `max_body` bytes with 413 body_too_large, reading no
    more of it than needed.

    A Content-Length over the limit is answered before the application runs; a body
    without one (chunked) is counted as it arrives, and the moment it passes the
    limit the client gets the 413 and the application a disconnect, so nothing
    larger than the limit is ever held in memory. Starlette's own body limit would
    let the application start first and answer in another shape, hence this one.
    """

    def __init__(self, app: ASGIApp, *, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                declared = 0  # the HTTP parser refuses a malformed one before us
            if declared > self.max_body:
                await self._refuse(send)
                return
        received = 0
        refused = False

        async def limited_receive() -> Message:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    refused = True
                    await self._refuse(send)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            if not refused:  # after a refusal the client has had its answer
                await send(message)

        await self.app(scope, limited_receive, guarded_send)

    async def _refuse(self, send: Send) -> None:
        body = orjson.dumps(
            error_body(
                "body_too_large",
                f"The request body is larger than the server's limit of {self.max_body} bytes.",
            )
        )
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    # the rest of the body is not read: close rather than parse it
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def content_security_policy(extra_connect: Iterable[str] = ()) -> str:
    """The pages' policy: everything from this origin only, no inline code, no framing.

    'self' in connect-src also covers ws:// and wss:// to the same host and port
    (CSP level 3), which is all the web client opens.
    """
    connect = " ".join(["'self'", *extra_connect])
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self'",
            "font-src 'self'",
            f"connect-src {connect}",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


#: FastAPI's interactive API pages load Swagger UI from a CDN with an inline script: they
#: get only the anti-framing part of the policy (they show no player's data).
_DOCS_POLICY: Final = "frame-ancestors 'none'"


class SecurityHeaders:
    """Add the browser hardening headers to every HTTP response: a Content-Security-
    Policy, no framing, no MIME sniffing, and no Referer to other sites."""

    def __init__(self, app: ASGIApp, *, policy: str, relaxed_paths: Iterable[str] = ()) -> None:
        self.app = app
        self.relaxed = frozenset(relaxed_paths)
        self.headers: Final = [
            (b"x-frame-options", b"DENY"),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"same-origin"),
        ]
        self.policy = policy.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = _DOCS_POLICY.encode() if scope.get("path") in self.relaxed else self.policy

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {bytes(k).lower() for k, _ in headers}
                for name, value in [(b"content-security-policy", policy), *self.headers]:
                    if name not in present:
                        headers.append((name, value))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


# ---- compression ------------------------------------------------------------------------------

_CODING = re.compile(r"^\s*([a-z*-]+)\s*(?:;\s*q\s*=\s*([0-9.]+))?\s*$", re.IGNORECASE)


def accepts(accept_encoding: str | None, coding: str) -> bool:
    """Whether an Accept-Encoding header accepts `coding` ("br", "gzip"): named (or "*")
    with a weight above 0."""
    for item in (accept_encoding or "").split(","):
        found = _CODING.match(item)
        if found and found.group(1).lower() in (coding, "*"):
            try:
                return float(found.group(2) or 1) > 0
            except ValueError:
                return False
    return False


def compress(body: bytes, coding: str, level: int | None = None) -> bytes:
    """`body` in `coding` ("br" or "gzip"): Brotli at `level` (11, its best, by default),
    gzip at 9."""
    if coding == "br":
        data: bytes = brotli.compress(body, quality=11 if level is None else level)
        return data
    return gzip.compress(body, 9 if level is None else level)


def best_coding(accept_encoding: str | None) -> str | None:
    """The coding to answer in: Brotli if accepted, else gzip, else None."""
    for coding in ("br", "gzip"):
        if accepts(accept_encoding, coding):
            return coding
    return None


@lru_cache(maxsize=256)
def compressed(body: bytes, coding: str) -> bytes:
    """`body` compressed at the best level, once: the same bytes for every reader (a
    static file's version, a stylesheet bundle, a catalog)."""
    return compress(body, coding)


class CompressedFiles:
    """Serve the static files (StaticFiles) made small: scripts and stylesheets without
    comments and spare white space (minify.py), then compressed in Brotli when the
    browser accepts it, else gzip; each file's version (path and ETag) made once, at
    the best level.

    The modules a page needs first are small files, where Brotli (its built-in
    dictionary of web text) saves a sixth more than gzip; at its best level it is too
    slow to run per request, hence once per file. Only whole text answers (200, not a
    range) are changed; a 304 or a HEAD passes as it is. The ETag stays the file's:
    the smaller body follows from the file, so it names the same version.
    """

    TYPES: Final = ("text/", "application/javascript", "application/json", "image/svg+xml")

    def __init__(self, app: ASGIApp, *, minimum_size: int = 512) -> None:
        self.app = app
        self.minimum_size = minimum_size

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        offered = _header(scope, b"accept-encoding")
        coding = best_coding(offered.decode("latin-1") if offered else None)
        start: Message | None = None
        parts: list[bytes] = []

        async def collect(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = MutableHeaders(raw=list(message.get("headers", ())))
                kind = headers.get("content-type", "")
                if (
                    message["status"] == 200
                    and "content-encoding" not in headers
                    and kind.startswith(self.TYPES)
                    and (coding is not None or kind.startswith(tuple(KINDS)))
                ):
                    start = message  # held until the body is whole
                    return
                await send(message)
            elif start is None:
                await send(message)
            else:
                parts.append(message.get("body", b""))
                if not message.get("more_body", False):
                    await self._send(start, b"".join(parts), coding, send)

        await self.app(scope, receive, collect)

    async def _send(self, start: Message, body: bytes, coding: str | None, send: Send) -> None:
        headers = MutableHeaders(raw=list(start.get("headers", ())))
        body = minified(body, headers.get("content-type", ""))
        if coding is not None and len(body) >= self.minimum_size:
            body = compressed(body, coding)
            headers["content-encoding"] = coding
        headers["content-length"] = str(len(body))
        headers.add_vary_header("Accept-Encoding")
        await send({**start, "headers": headers.raw})
        await send({"type": "http.response.body", "body": body})
