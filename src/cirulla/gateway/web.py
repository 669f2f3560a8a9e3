"""Serving the web client: static ES modules, CSS and SVG decks, and index.html for every page.

Each page's HTML carries what the client would otherwise ask for first: the answer of
GET /api/me as a JSON data block (`#cirulla-bootstrap`, not code), and what
gateway/preload.py puts in it (the preloads, js/boot.js, the table's and the lobby's
stylesheets, and on the table pages the cards of the reader's deck style). On a phone
each request saved is a round trip saved. The page's policy is the one every answer
gets (middleware.content_security_policy) with the SHA-256 of its inline script and
style added: those texts run, and nothing else inline.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any, Final

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

from .accounts import me
from .errors import UNAVAILABLE_ERRORS, ApiError
from .middleware import (
    CompressedFiles,
    best_coding,
    compress,
    compressed,
    content_security_policy,
)
from .preload import (
    catalog_json,
    css_bundle_at,
    data_block,
    index_html,
    inline_hashes,
    page_module,
)
from .security import optional_user

__all__ = ["LANGUAGE_COOKIE", "PAGES", "install_web", "page_policy", "reader_language"]

log = logging.getLogger("cirulla.server")

WEB = Path(__file__).resolve().parent.parent / "web"

#: Paths the client routes itself (history API): the server answers each with index.html.
PAGES = (
    "/",
    "/login",
    "/register",
    "/lobby",
    "/profile",
    "/history",
    "/tournaments",
    "/wallet",
    "/leaderboards",
    "/score",
)

#: The language the client last chose (js/i18n.js writes it next to its localStorage).
LANGUAGE_COOKIE: Final = "cirulla_lang"
_LANGUAGES: Final = ("it", "en")


def reader_language(cookie: str | None, accept_language: str | None) -> str:
    """The language i18n.js will start in, as far as the server can tell: the one the
    reader chose, else the first of Italian and English the browser prefers, else English
    (the rule of i18n.js's preferredLanguage)."""
    if cookie in _LANGUAGES:
        return cookie
    ranked: list[tuple[float, int, str]] = []
    for i, item in enumerate((accept_language or "").split(",")):
        tag, _, params = item.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        ranked.append((-q, i, tag.strip().lower()[:2]))
    for neg_q, _, base in sorted(ranked):
        if base in _LANGUAGES and neg_q < 0:
            return base
    return "en"


async def _bootstrap(request: Request) -> dict[str, Any] | None:
    """What GET /api/me would answer ({"me": null} when logged out); None when the store
    cannot say now (the client then asks /api/me itself)."""
    try:
        user = await optional_user(request)
        return {"me": None if user is None else await me(request, user)}
    except UNAVAILABLE_ERRORS:
        log.warning("index.html without its bootstrap: the store is unavailable")
        return None


def _deck_style(boot: dict[str, Any] | None) -> str | None:
    """The reader's deck style (their `deck_style` option), whose cards the table pages
    carry: none when logged out or unknown."""
    user = ((boot or {}).get("me") or {}).get("user")
    if not isinstance(user, dict):
        return None
    style = (user.get("options") or {}).get("deck_style", "french")
    return style if isinstance(style, str) else None


def _encoded(body: bytes, accept_encoding: str | None) -> tuple[bytes, str | None]:
    """`body` (a stylesheet bundle, a catalog: the same bytes for everyone) compressed
    once at the best level, in the best coding the browser accepts (Brotli, gzip)."""
    coding = best_coding(accept_encoding)
    return (body, None) if coding is None else (compressed(body, coding), coding)


def page_policy(page: str | None) -> str:
    """The Content-Security-Policy of the HTML of `page`: every answer's, with the hashes
    of the inline script and style that HTML carries added to script-src and style-src."""
    scripts, styles = inline_hashes(WEB, page)
    policy = content_security_policy()
    for directive, sources in (("script-src", scripts), ("style-src", styles)):
        if sources:
            policy = policy.replace(
                f"{directive} 'self'", " ".join([f"{directive} 'self'", *sources]), 1
            )
    return policy


def install_web(app: FastAPI) -> None:
    router = APIRouter(include_in_schema=False)

    async def index(request: Request) -> Response:
        lang = reader_language(
            request.cookies.get(LANGUAGE_COOKIE), request.headers.get("accept-language")
        )
        boot = await _bootstrap(request)
        page = page_module(request.url.path)
        html = index_html(WEB, page, lang, _deck_style(boot))
        if boot is not None:
            block = data_block("cirulla-bootstrap", json.dumps(boot, separators=(",", ":")))
            html = html.replace("</title>\n", "</title>\n" + block, 1)
        body = html.encode("utf-8")
        # no-cache: a new release is picked up at once; private: it holds the user's data
        headers = {
            "Cache-Control": "private, no-cache",
            "Vary": "Accept-Encoding, Cookie",
            "Content-Security-Policy": page_policy(page),
        }
        # made for each reader: a level fast enough for each answer (a few ms)
        coding = best_coding(request.headers.get("accept-encoding"))
        if coding is not None:
            body = compress(body, coding, 6)
            headers["Content-Encoding"] = coding
        return Response(body, media_type="text/html; charset=utf-8", headers=headers)

    for path in PAGES:
        router.add_api_route(path, index, methods=["GET"])
    router.add_api_route("/table/{table_id}", index, methods=["GET"])
    router.add_api_route("/replay/{table_id}", index, methods=["GET"])
    router.add_api_route("/tournament/{tournament_id}", index, methods=["GET"])
    router.add_api_route("/player/{name}", index, methods=["GET"])

    async def favicon() -> FileResponse:
        # browsers ask for /favicon.ico on their own (index.html links the SVG)
        return FileResponse(WEB / "favicon.ico", headers={"Cache-Control": "max-age=86400"})

    async def stylesheets(request: Request, name: str) -> Response:
        # the address names the content: cached for good, a new release gets a new one
        bundle = css_bundle_at(WEB, f"/static/bundle/{name}")
        if bundle is None:
            raise ApiError(404, "not_found", "No such stylesheet bundle.")
        headers = {
            "Cache-Control": "public, max-age=31536000, immutable",
            "ETag": f'"{name.removesuffix(".css")}"',
            "Vary": "Accept-Encoding",
        }
        body, coding = _encoded(bundle.body, request.headers.get("accept-encoding"))
        if coding is not None:
            headers["Content-Encoding"] = coding
        return Response(body, media_type="text/css; charset=utf-8", headers=headers)

    async def catalog(request: Request, lang: str) -> Response:
        # revalidated each time (ETag): the address stays, the content follows the files
        body = catalog_json(WEB, lang) if lang in _LANGUAGES else None
        if body is None:
            raise ApiError(404, "not_found", "No such catalog.")
        tag = f'"{hashlib.sha256(body).hexdigest()[:16]}"'
        headers = {"Cache-Control": "no-cache", "ETag": tag, "Vary": "Accept-Encoding"}
        if request.headers.get("if-none-match") == tag:
            return Response(status_code=304, headers=headers)
        body, coding = _encoded(body, request.headers.get("accept-encoding"))
        if coding is not None:
            headers["Content-Encoding"] = coding
        return Response(body, media_type="application/json", headers=headers)

    router.add_api_route("/favicon.ico", favicon, methods=["GET"])
    router.add_api_route("/static/i18n/{lang}.json", catalog, methods=["GET"])
    router.add_api_route("/static/bundle/{name}", stylesheets, methods=["GET"])
    app.include_router(router)
    # the modules, catalogs and decks are text, a third of their size or less compressed
    app.mount("/static", CompressedFiles(StaticFiles(directory=WEB)), name="static")
