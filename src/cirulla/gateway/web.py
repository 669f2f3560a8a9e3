"""Serving the web client: static ES modules, CSS and SVG decks, and index.html for every page."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.middleware.gzip import GZipMiddleware

from .preload import index_html, page_module

__all__ = ["PAGES", "install_web"]

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


def install_web(app: FastAPI) -> None:
    router = APIRouter(include_in_schema=False)

    async def index(request: Request) -> HTMLResponse:
        # no-cache: a new release is picked up at once; the modules are revalidated too.
        # The page's modules are preloaded all at once (gateway/preload.py).
        html = index_html(WEB, page_module(request.url.path))
        return HTMLResponse(html, headers={"Cache-Control": "no-cache"})

    for path in PAGES:
        router.add_api_route(path, index, methods=["GET"])
    router.add_api_route("/table/{table_id}", index, methods=["GET"])
    router.add_api_route("/replay/{table_id}", index, methods=["GET"])
    router.add_api_route("/tournament/{tournament_id}", index, methods=["GET"])
    router.add_api_route("/player/{name}", index, methods=["GET"])

    async def favicon() -> FileResponse:
        # browsers ask for /favicon.ico on their own (index.html links the SVG)
        return FileResponse(WEB / "favicon.ico", headers={"Cache-Control": "max-age=86400"})

    router.add_api_route("/favicon.ico", favicon, methods=["GET"])
    app.include_router(router)
    # gzip: the modules, catalogs and decks are text, a third of their size compressed
    static = GZipMiddleware(StaticFiles(directory=WEB), minimum_size=1024)
    app.mount("/static", static, name="static")
