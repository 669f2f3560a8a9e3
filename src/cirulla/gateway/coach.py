"""The coach on the server: the analysis of a finished partita, and hints at practice tables.

Both think in the bot worker processes (tables/botpool.py), never on the event loop:
an analysis is sent to them one move at a time, so that the tables' bots, which share
the workers, wait at most one short job; at most all workers but one analyse at once.
An analysis runs once per partita (store/coach.py claims it) and is kept; its progress
is readable while it runs. A hint is the coach's best move from the asking seat's view
only; the table counts it, and the partita's record says hints were used.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import zlib
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse

from ..bots.coach import (
    DEFAULT_SAMPLES,
    LEAST_SAMPLES,
    Position,
    analyse_position,
    game_of,
    hint,
    positions,
)
from ..bots.coach import report as analysis_report
from ..record import RECORD_FORMAT, RecordError
from ..store import Store, UserRow
from ..store.coach import AnalysisRow, CoachStore
from ..tables.actor import TableActor
from ..tables.botpool import BotPool
from ..tables.state import TableError, TableState
from .errors import ApiError
from .history import _readable_record
from .security import current_user, optional_user

__all__ = ["CoachService", "close_coach", "router"]

log = logging.getLogger("cirulla.coach")

router = APIRouter(prefix="/api", tags=["coach"])

#: Draws of the hidden cards per move of an analysis, and at most this long a move,
#: but never fewer than LEAST_SAMPLES draws (a loaded server would judge on a handful).
ANALYSIS_SAMPLES: Final = DEFAULT_SAMPLES
ANALYSIS_SECONDS: Final = 1.0
#: A running analysis not moved on for this long was left by a server that stopped.
STALE_SECONDS: Final = 120.0
#: Tries of one position when the workers are busy or broken.
ATTEMPTS: Final = 3
#: Progress is written at most this often (and at the end).
PROGRESS_SECONDS: Final = 1.0
#: A hint's draws, always all of them: a hint is then the same for the same position
#: (and table) however busy the machine. A floor of 100 on a clock of half a second
#: named the wrong move on the obvious sweep of tests/test_web_coach.py for 2 seeds in
#: 150 on a loaded machine; 300 for none in 300. About 0.25 s compiled, 0.5 s in pure
#: Python, on one free core.
HINT_SAMPLES: Final = 300
#: How long a worker may take over a hint before the pool's grace (BotPool.call): far
#: more than the draws need on a free core, for a loaded server, where the workers'
#: lower priority (WORKER_NICE) leaves them a fraction of one.
HINT_SECONDS: Final = 3.0


class CoachService:
    """The analyses running in this server, and the hints being computed."""

    def __init__(self, store: Store, pool: BotPool | None) -> None:
        self.store = CoachStore(store)
        self.pool = pool
        self.tasks: dict[str, asyncio.Task[None]] = {}
        workers = pool.workers if pool is not None else 1
        # leave one worker to the tables' bots when there is more than one
        self.slots = asyncio.Semaphore(max(1, workers - 1))
        self.hinting: set[str] = set()  # users waiting for a hint

    def _pool(self) -> BotPool:
        if self.pool is None:
            raise ApiError(503, "unavailable", "The coach's worker processes are not running.")
        return self.pool

    async def start(
        self, table_id: str, record: dict[str, Any], user: UserRow
    ) -> tuple[AnalysisRow, bool]:
        """Start the analysis unless it runs or is done: (the row, whether this call
        started it)."""
        pool = self._pool()
        if table_id in self.tasks:  # running here (only waiting for a worker, if stale)
            row = await self.store.analysis(table_id)
            if row is not None:
                return row, False
        try:
            todo = await asyncio.to_thread(lambda: list(positions(game_of(record))))
        except RecordError as exc:
            raise ApiError(
                500, "broken_record", f"The record of '{table_id}' does not replay: {exc}."
            ) from None
        stale = datetime.now(UTC) - timedelta(seconds=STALE_SECONDS)
        row, mine = await self.store.claim(table_id, user.id, len(todo), stale)
        if mine:
            task = asyncio.create_task(self._run(pool, table_id, record, todo))
            self.tasks[table_id] = task
            task.add_done_callback(lambda _: self.tasks.pop(table_id, None))
        return row, mine

    async def _run(
        self, pool: BotPool, table_id: str, record: dict[str, Any], todo: list[Position]
    ) -> None:
        moves: list[dict[str, Any]] = []
        written = asyncio.get_running_loop().time()
        try:
            for pos in todo:
                job = partial(
                    analyse_position,
                    pos,
                    samples=ANALYSIS_SAMPLES,
                    seconds=ANALYSIS_SECONDS,
                    least=LEAST_SAMPLES,
                )
                moves.append(await self._judge(pool, job))
                now = asyncio.get_running_loop().time()
                if now - written >= PROGRESS_SECONDS:
                    await self.store.progress(table_id, len(moves))
                    written = now
            game = await asyncio.to_thread(game_of, record)
            result = analysis_report(
                game,
                moves,
                seed=0,
                samples=ANALYSIS_SAMPLES,
                seconds=ANALYSIS_SECONDS,
                least=LEAST_SAMPLES,
            )
            await self.store.finish(table_id, result)
            log.info("coach: analysed %s (%d moves)", table_id, len(moves))
        except asyncio.CancelledError:  # the server is stopping: another click restarts it
            with contextlib.suppress(Exception):
                await self.store.fail(table_id, "interrupted: the server stopped")
            raise
        except Exception as exc:
            log.warning("coach: the analysis of %s failed: %s", table_id, exc)
            with contextlib.suppress(Exception):
                await self.store.fail(table_id, str(exc) or type(exc).__name__)

    async def _judge(self, pool: BotPool, job: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """One position in a worker; a busy or broken pool is tried again a few times
        (the tables' bots come first) before the analysis gives up."""
        for attempt in range(ATTEMPTS):
            try:
                async with self.slots:
                    return await pool.call(job, ANALYSIS_SECONDS)
            except (TimeoutError, BrokenProcessPool):
                if attempt == ATTEMPTS - 1:
                    raise
                await asyncio.sleep(1.0 + attempt)
        raise AssertionError("unreachable")

    async def close(self) -> None:
        tasks = list(self.tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task


def coach_service(app: FastAPI) -> CoachService:
    """The app's coach, made on first use (after the store and the bot pool exist)."""
    service: CoachService | None = getattr(app.state, "coach", None)
    if service is None:
        tables = app.state.tables
        service = app.state.coach = CoachService(app.state.store, tables.bots)
    return service


async def close_coach(app: FastAPI) -> None:
    """Stop the analyses running here (at shutdown, before the bot pool stops)."""
    service: CoachService | None = getattr(app.state, "coach", None)
    if service is not None:
        await service.close()


# ---- the analysis ----------------------------------------------------------------------


async def _players(store: Store, table_id: str, record: dict[str, Any]) -> set[str]:
    """The users who played the partita."""
    players = {p.user_id for p in await store.record_players(table_id)}
    seats = record.get("seats")
    if isinstance(seats, list):
        players |= {
            s["user"] for s in seats if isinstance(s, dict) and isinstance(s.get("user"), str)
        }
    return players


def _cirulla(record: dict[str, Any]) -> bool:
    """Whether the coach can judge this partita (it knows Cirulla, not Cirulo)."""
    game = record.get("game")
    return isinstance(game, dict) and game.get("format") == RECORD_FORMAT


def _status(row: AnalysisRow | None) -> str:
    if row is None:
        return "none"
    stale = datetime.now(UTC) - timedelta(seconds=STALE_SECONDS)
    if row.status == "running" and row.updated_at < stale:
        return "stalled"
    return row.status


def _answer(table_id: str, row: AnalysisRow | None, can_start: bool) -> dict[str, Any]:
    status = _status(row)
    return {
        "table": table_id,
        "status": status,  # none, running, done, failed or stalled
        "done": 0 if row is None else row.done,
        "total": 0 if row is None else row.total,
        "can_start": can_start and status in ("none", "failed", "stalled"),
        "error": None if row is None else row.error,
        "analysis": None if row is None else row.result,
    }


@router.get("/history/{table_id}/analysis")
async def get_analysis(
    request: Request,
    table_id: str,
    user: Annotated[UserRow | None, Depends(optional_user)],
) -> dict[str, Any]:
    """The coach's analysis of a finished partita: its status and progress, and once
    done every move judged (`cirulla analyse --json`'s shape). Readable by whoever may
    replay the partita; `can_start` says whether this user may start it."""
    record = await _readable_record(request, table_id, user)
    service = coach_service(request.app)
    row = await service.store.analysis(table_id)
    store: Store = request.app.state.store
    player = user is not None and user.id in await _players(store, table_id, record)
    return _answer(table_id, row, player and _cirulla(record))


@router.post("/history/{table_id}/analysis", status_code=202)
async def start_analysis(
    request: Request,
    table_id: str,
    user: Annotated[UserRow, Depends(current_user)],
) -> JSONResponse:
    """Start the analysis of a finished partita (its players only). Answers 202 when
    this click started it, 200 with the analysis as it is when it runs or is done
    already: clicking twice never starts it twice."""
    record = await _readable_record(request, table_id, user)
    store: Store = request.app.state.store
    if user.id not in await _players(store, table_id, record):
        raise ApiError(403, "not_a_player", "Only the partita's players may ask for its analysis.")
    if not _cirulla(record):
        raise ApiError(409, "not_cirulla", "The coach analyses partite of Cirulla only.")
    service = coach_service(request.app)
    before = await service.store.analysis(table_id)
    if before is not None and _status(before) in ("running", "done"):
        return JSONResponse(_answer(table_id, before, True), status_code=200)
    row, started = await service.start(table_id, record, user)
    return JSONResponse(_answer(table_id, row, True), status_code=202 if started else 200)


# ---- hints ----------------------------------------------------------------------------


async def _table_state(request: Request, table_id: str) -> TableState:
    """The table as its log says now: the live actor's state here, else (a table another
    node runs) rebuilt from the stored log, off the event loop."""
    tables = request.app.state.tables
    actor = tables.tables.get(table_id)
    if isinstance(actor, TableActor):
        state: TableState = actor.state
        return state
    store: Store = request.app.state.store
    records = await store.load_log(table_id)
    if not records:
        raise ApiError(404, "unknown_table", f"There is no table '{table_id}'.")
    secrets = await store.load_secrets(table_id)
    return await asyncio.to_thread(TableState.from_log, table_id, records, secrets)


def _practice_seat(state: TableState, user: UserRow) -> int:
    """The user's seat at a practice table (every other seat a server bot, no chips at
    stake, a Cirulla partita on), where it is their turn; ApiError saying why not."""
    seat = state.seat_of(user.id)
    if seat is None:
        raise ApiError(403, "not_seated", "Only a player seated at this table may ask for hints.")
    others = [s for i, s in enumerate(state.seats) if i != seat]
    practice = all(s is not None and s.bot is not None and not s.bot_account for s in others)
    if not practice or state.config.stake or state.kind.name != "cirulla":
        raise ApiError(
            403, "not_practice", "Hints are for practice tables: Cirulla against bots only."
        )
    if state.to_move != seat:
        raise ApiError(409, "not_your_turn", "A hint is for your turn: wait for it.")
    return seat


@router.post("/tables/{table_id}/hint")
async def ask_hint(
    request: Request,
    table_id: str,
    user: Annotated[UserRow, Depends(current_user)],
) -> dict[str, Any]:
    """The coach's best move for the asking player's seat, from that seat's view only
    (a short search in the bot workers). The table counts the hint: the partita's
    record and history say hints were used."""
    service = coach_service(request.app)
    pool = service._pool()
    if user.id in service.hinting:
        raise ApiError(429, "hint_busy", "A hint is being worked out for you already.")
    service.hinting.add(user.id)
    try:
        try:
            state = await _table_state(request, table_id)
        except TableError as exc:
            raise ApiError(400, exc.code, exc.message) from None
        seat = _practice_seat(state, user)
        view = state.game.deal.view(seat)  # the seat's view: no other hand in it
        seed = zlib.crc32(f"{table_id}:{state.version}".encode())
        job = partial(hint, view, HINT_SAMPLES, None, seed)
        try:
            advice = await pool.call(job, HINT_SECONDS)
        except Exception as exc:
            log.warning("coach: a hint at %s failed: %s", table_id, exc)
            raise ApiError(503, "unavailable", "The coach is busy: try again shortly.") from None
        count = await service.store.add_hint(table_id, seat, user.id)
    finally:
        service.hinting.discard(user.id)
    return {"table": table_id, **advice, "hints": count}
