"""The ASGI application: HTTP API, the WebSocket, and the tables behind them."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from ..bus import RedisBus
from ..settings import Settings
from ..store import Store
from ..tables.cluster import Cluster
from ..tables.manager import TableManager
from . import accounts, history, lobby, socket
from .errors import install_error_handlers
from .ratelimit import RateLimiter
from .web import install_web

__all__ = ["create_app"]

log = logging.getLogger("cirulla.server")


def create_app(settings: Settings) -> FastAPI:
    """The server: open the store, rebuild the tables, then serve."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.database_url is None:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        store = await Store.open(settings.db_url)
        tables = TableManager(
            store,
            bot_delay=settings.bot_delay,
            grace=settings.grace,
            deal_pause=settings.deal_pause,
            test_mode=settings.test_mode,
        )
        app.state.store = store
        app.state.tables = tables
        if settings.redis_url:
            tables.cluster = Cluster(
                tables,
                RedisBus(
                    settings.redis_url,
                    cluster=settings.cluster,
                    lease_ms=int(settings.lease_seconds * 1000),
                ),
            )
            await tables.cluster.start()
        await tables.restore()
        log.info(
            "serving on %s:%s with %s", settings.host, settings.port, _safe_url(settings.db_url)
        )
        try:
            yield
        finally:
            tables.close()
            if tables.cluster is not None:
                await tables.cluster.close()
            await store.close()

    app = FastAPI(title="cirulla", lifespan=lifespan)
    app.state.settings = settings
    app.state.login_limiter = RateLimiter(settings.login_attempts, 60.0)
    app.state.actions = socket.ActionMemory()
    install_error_handlers(app)
    app.include_router(accounts.router)
    app.include_router(history.router)
    app.include_router(lobby.router)
    app.include_router(socket.router)
    install_web(app)
    return app


def _safe_url(url: str) -> str:
    """The database URL without its password, for the log."""
    head, sep, tail = url.rpartition("@")
    if not sep:
        return url
    scheme, _, cred = head.partition("://")
    return f"{scheme}://{cred.split(':')[0]}@{tail}"
