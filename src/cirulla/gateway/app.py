"""The ASGI application: HTTP API, the WebSocket, and the tables behind them."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from ..bus import RedisBus
from ..competition.cash import table_movements
from ..competition.profiles import ProfileService, playban_guard
from ..competition.ratings import RatingService
from ..competition.schedule import Scheduler, load_schedule
from ..competition.service import TournamentService
from ..settings import Settings
from ..store import Store
from ..tables.botpool import BotPool
from ..tables.cluster import Cluster
from ..tables.manager import TableManager
from . import (
    accounts,
    admin,
    bots,
    chat,
    coach,
    history,
    lobby,
    players,
    ratings,
    scorekeeper,
    socket,
    tournaments,
    wallet,
)
from .actions import ActionMemory
from .connections import Connections, DropConnection
from .errors import install_error_handlers
from .middleware import BodyLimit, SecurityHeaders, content_security_policy
from .ratelimit import Limiters
from .security import session_cache
from .web import install_web

__all__ = ["create_app"]

log = logging.getLogger("cirulla.server")


def create_app(settings: Settings) -> FastAPI:
    """The server: open the store, rebuild the tables, then serve."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.database_url is None:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        store = await Store.open(
            settings.db_url,
            pool_size=settings.db_pool_size,
            pool_overflow=settings.db_pool_overflow,
            pool_timeout=settings.db_pool_timeout,
        )
        # the search bots think in worker processes, not in this one's event loop
        bots = BotPool(settings.bot_workers, settings.bot_move_seconds)
        tables = TableManager(
            store,
            bot_delay=settings.bot_delay,
            grace=settings.grace,
            deal_pause=settings.deal_pause,
            test_mode=settings.test_mode,
            settings=settings,
            bots=bots,
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
            chat.chat_service(app)  # its calls and broadcasts, before messages arrive
            await tables.cluster.start()
        await bots.start()
        tables.movements = table_movements  # chips move with a cash table's records
        # accounts older than the ledger get the welcome grant a new one gets, once
        granted = await store.ledger.grant_missing_welcome(
            settings.welcome_chips, settings.guest_chips
        )
        if granted:
            log.info("granted the welcome chips to %d accounts older than the ledger", granted)
        # the ratings: every partita as it ends, and (in the background, oldest first)
        # those that ended while no listener ran
        app.state.ratings = RatingService(store)
        tables.end_listeners.append(app.state.ratings.on_table_end)
        # profiles: a row per player per partita, and the playban read from them
        app.state.profiles = ProfileService(store)
        tables.end_listeners.append(app.state.profiles.on_table_end)
        tables.sit_guards.append(playban_guard(store))
        await tables.restore()
        app.state.ratings.start()
        app.state.profiles.start()
        app.state.tournaments = TournamentService(tables)
        await app.state.tournaments.restore()  # after the tables: a round's tables are found
        # the operator's tournaments (the file was checked before the server started)
        app.state.schedule = Scheduler(
            app.state.tournaments, load_schedule(settings.tournaments_file)
        )
        app.state.schedule.start()
        log.info(
            "serving on %s:%s with %s", settings.host, settings.port, _safe_url(settings.db_url)
        )
        try:
            yield
        finally:
            app.state.connections.close()
            app.state.schedule.close()
            app.state.tournaments.close()
            app.state.ratings.close()
            app.state.profiles.close()
            tables.close()
            await coach.close_coach(app)  # its analyses think in the bot workers
            await bots.close()
            if tables.cluster is not None:
                await tables.cluster.close()
            await store.close()

    app = FastAPI(title="cirulla", lifespan=lifespan)
    app.state.settings = settings
    app.state.limiters = Limiters.from_settings(settings)
    session_cache.ttl = settings.session_cache_seconds
    session_cache.clear()
    app.state.actions = ActionMemory()
    app.state.connections = Connections(
        settings.sockets_per_user, settings.sockets_per_address, settings.session_cache_seconds
    )
    install_error_handlers(app)
    app.include_router(accounts.router)
    app.include_router(history.router)
    app.include_router(lobby.router)
    app.include_router(tournaments.router)
    app.include_router(wallet.router)
    app.include_router(ratings.router)
    app.include_router(players.router)
    app.include_router(scorekeeper.router)
    app.include_router(chat.router)
    app.include_router(coach.router)
    app.include_router(admin.router)
    app.include_router(bots.router)
    app.include_router(socket.router)
    install_web(app)
    # the last added runs first: the headers go on every answer, the 413 included
    app.add_middleware(BodyLimit, max_body=settings.max_body)
    app.add_middleware(
        SecurityHeaders,
        policy=content_security_policy(),
        relaxed_paths=[
            p for p in (app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url) if p
        ],
    )
    app.add_middleware(DropConnection)  # outermost: it needs uvicorn's own `send`
    return app


def _safe_url(url: str) -> str:
    """The database URL without its password, for the log."""
    head, sep, tail = url.rpartition("@")
    if not sep:
        return url
    scheme, _, cred = head.partition("://")
    return f"{scheme}://{cred.split(':')[0]}@{tail}"
