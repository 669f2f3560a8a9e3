"""One asyncio actor per table: it alone changes the table, one command at a time.

A command is checked against the state, written as log records, appended to the
store in one transaction, and only then folded into the state and sent to the
table's subscribers, each filtered for that subscriber's seat. What happens by
itself (dealing, revealing seeds, bots' moves, automatic declarations, clocks
running out) goes through the same path.
"""

from __future__ import annotations

import asyncio
import logging
import secrets as _secrets
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..eventlog import LogRecord
from ..game import derived_seed
from ..shuffle import SHUFFLE_VERSION
from ..store import VersionConflict
from ..store.ledger import InsufficientChips
from .audience import Audience, Subscriber
from .failures import FailureLog
from .state import Seat, TableError, TableState, commitment

if TYPE_CHECKING:
    from .botpool import BotPool

__all__ = ["Subscriber", "TableActor", "TableStore", "now_ms"]

log = logging.getLogger("cirulla.table")

#: Seconds before a failed automatic step (the store down) is tried again.
RETRY_SECONDS = 1.0

#: The automatic steps of every table here: while the store is down each table retries
#: every RETRY_SECONDS, and the log gets one traceback, then a line a minute.
AUTOMATIC = FailureLog(log, "automatic steps of tables (bots, clocks, deals)")


def now_ms() -> int:
    return int(time.time() * 1000)


class TableStore(Protocol):
    """What a table needs of the store (cirulla.store.Store has it)."""

    async def append(
        self,
        table_id: str,
        records: Any,
        *,
        status: str | None = None,
        seats: Any = None,
        secrets: Any = None,
        ledger: Any = (),
    ) -> None: ...

    async def save_record(self, table_id: str, record: dict[str, Any], players: Any) -> None: ...

    async def load_log(self, table_id: str) -> list[LogRecord]: ...

    async def load_secrets(self, table_id: str) -> dict[int, int]: ...


class TableActor:
    """Owns one table's state; see the module docstring."""

    def __init__(
        self,
        state: TableState,
        records: list[LogRecord],
        store: TableStore,
        *,
        bot_delay: float = 0.8,
        grace: float = 1.0,
        deal_pause: float = 2.0,
        on_change: Callable[[TableActor, list[LogRecord]], None] | None = None,
        seat_rows: Callable[[TableState], Any] | None = None,
        players_of: Callable[[TableState], Any] | None = None,
        bots: BotPool | None = None,
        movements: Callable[[TableState, list[Seat | None], list[LogRecord]], Any] | None = None,
    ) -> None:
        self.state = state
        self.records = records
        self.store = store
        self.bot_delay = bot_delay
        self.grace_ms = int(grace * 1000)
        self.deal_pause = deal_pause
        self.on_change = on_change
        self._seat_rows = seat_rows
        self._players_of = players_of
        #: The chips the new records move (competition/cash.py), written with them.
        self._movements = movements
        self.audience = Audience()
        self._lock = asyncio.Lock()
        self.bots = bots  # worker processes for the search bots (None: a thread here)
        self._timer: asyncio.Task[None] | None = None
        self._turn_started = now_ms()  # when the seat to move began (restarted on restore)
        self._closed = False
        #: The move a bot chose, for the version and last hash it was chosen at: a write
        #: that failed is retried with it rather than with a new search.
        self._bot_choice: tuple[int, str, str] | None = None

    @property
    def id(self) -> str:
        return self.state.id

    # ---- subscribers (tables/audience.py) -------------------------------------------
    @property
    def subscribers(self) -> set[Subscriber]:
        return self.audience.subscribers

    def subscribe(self, sub: Subscriber, since: int | None) -> None:
        """Watch the table; send what `sub` missed since version `since` (or a full view)."""
        self.audience.add(sub, since, self.state, self.records)

    async def join(self, sub: Subscriber, since: int | None) -> int:
        """`subscribe` in turn with the table's writes, so nobody sees a version being written."""
        async with self._lock:
            self.subscribe(sub, since)
            return self.state.version

    async def resync(self, sub: Subscriber) -> None:
        async with self._lock:
            self.audience.sync(sub, self.state)

    def unsubscribe(self, sub: Subscriber) -> None:
        self.audience.remove(sub, self.state)

    async def leave(self, sub: Subscriber) -> int:
        """Stop watching; a player seated at a table not yet started gives up the seat."""
        self.unsubscribe(sub)
        st = self.state
        if sub.user is not None and st.status == "open" and st.seat_of(sub.user) is not None:
            return await self.stand(sub.user)
        return st.version

    def _expect(self, version: int | None) -> None:
        """A command sent against another version than the table's is stale (the
        client's picture of the table is out of date): refused, never applied."""
        if version is not None and version != self.state.version:
            raise TableError(
                "stale", f"the table is at version {self.state.version}, not {version}: resyncing"
            )

    # ---- commands from players --------------------------------------------------------
    async def sit(
        self,
        user: str,
        name: str,
        seat: int | None,
        auto_declare: bool,
        expected: int | None = None,
        bot_account: bool = False,
    ) -> int:
        async with self._lock:
            self._expect(expected)
            st = self._open_table()
            if st.seat_of(user) is not None:
                raise TableError("already_seated", "you already have a seat at this table")
            free = [i for i, s in enumerate(st.seats) if s is None]
            if not free:
                raise TableError("table_full", "every seat at this table is taken")
            if seat is None:
                seat = free[0]
            elif (
                not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(st.seats)
            ):
                raise TableError("bad_seat", f"seat must be 0 to {len(st.seats) - 1}")
            elif st.seats[seat] is not None:
                raise TableError("seat_taken", f"seat {seat} is taken")
            data = {
                "seat": seat,
                "user": user,
                "name": name,
                "bot": None,
                "auto_declare": auto_declare,
            }
            if bot_account:
                data["bot_account"] = True
            return await self._commit([("sat", data)])

    async def stand(self, user: str, expected: int | None = None) -> int:
        async with self._lock:
            self._expect(expected)
            st = self._open_table()
            seat = st.seat_of(user)
            if seat is None:
                raise TableError("not_seated", "you have no seat at this table")
            steps: list[tuple[str, dict[str, Any]]] = [("stood", {"seat": seat})]
            if all(s is None or s.bot is not None or i == seat for i, s in enumerate(st.seats)):
                steps.append(("closed", {"reason": "no players left"}))
            return await self._commit(steps)

    async def play(self, user: str, notation: Any, expected: int | None = None) -> int:
        async with self._lock:
            st = self.state
            seat = st.seat_of(user)
            if seat is None:
                raise TableError("not_seated", "you have no seat at this table")
            if st.timed_out(seat):
                raise TableError("timeout", "your time ran out before the move arrived")
            self._expect(expected)
            if st.status != "playing":
                raise TableError("not_playing", "the partita is not being played")
            if st.to_move == seat and self._overdue(seat):
                await self._forfeit(seat, "timeout")
                raise TableError("timeout", "your time ran out before the move arrived")
            move = st.check_move(seat, notation)
            clock = self._charge(seat)
            data = {"deal": st.deals_started - 1, "seat": seat, "move": str(move), "by": "player"}
            return await self._commit([("move", {**data, "clock": clock})])

    async def abandon(self, user: str, expected: int | None = None) -> int:
        async with self._lock:
            self._expect(expected)
            seat = self.state.seat_of(user)
            if seat is None:
                raise TableError("not_seated", "you have no seat at this table")
            if self.state.status != "playing":
                raise TableError("not_playing", "the partita is not being played")
            return await self._forfeit(seat, "abandon")

    async def set_auto_declare(self, user: str, on: bool) -> None:
        """A player's option changes in the middle of a partita (not logged: it moves nothing)."""
        async with self._lock:
            seat = self.state.seat_of(user)
            if seat is not None:
                s = self.state.seats[seat]
                assert s is not None
                s.auto_declare = on

    # ---- helpers of commands ------------------------------------------------------------
    def _open_table(self) -> TableState:
        st = self.state
        if st.status != "open":
            raise TableError("table_started", "the partita at this table has begun or ended")
        return st

    def _deadline(self, seat: int) -> int | None:
        """When the seat to move runs out of time (ms since the epoch), or None for no clock."""
        cfg = self.state.config
        limits = []
        if cfg.move_seconds is not None:
            limits.append(int(cfg.move_seconds * 1000))
        left = self.state.clocks[seat]
        if left is not None:
            limits.append(left)
        if not limits:
            return None
        return self._turn_started + min(limits) + self.grace_ms

    def _overdue(self, seat: int) -> bool:
        deadline = self._deadline(seat)
        return deadline is not None and now_ms() > deadline

    def _charge(self, seat: int) -> int | None:
        """The seat's partita clock after this move: network lag up to the grace is free."""
        left = self.state.clocks[seat]
        if left is None:
            return None
        used = max(0, now_ms() - self._turn_started - self.grace_ms)
        return max(0, left - used)

    async def _forfeit(self, seat: int, reason: str) -> int:
        side = self.state.side_of(seat)
        return await self._commit([("forfeit", {"seat": seat, "side": side, "reason": reason})])

    # ---- writing ------------------------------------------------------------------------
    async def _commit(
        self, steps: list[tuple[str, dict[str, Any]]], pause_over: bool = False
    ) -> int:
        """Write `steps` and whatever follows from them by itself, in one transaction."""
        st = self.state
        before = (st.to_move, st.deals_started)
        seats_before = list(st.seats)
        new: list[LogRecord] = []
        secrets: dict[int, int] = {}
        try:
            for kind, data in steps:
                self._add(new, kind, data)
            self._follow_on(new, secrets, pause_over)
            if not new:
                return st.version
            status = st.status
            seated = any(r.type in ("sat", "stood") for r in new)
            seats = self._seat_rows(st) if seated and self._seat_rows is not None else None
            ledger = self._movements(st, seats_before, new) if self._movements else ()
            if ledger:
                await self.store.append(
                    st.id, new, status=status, seats=seats, secrets=secrets, ledger=ledger
                )
            else:
                await self.store.append(st.id, new, status=status, seats=seats, secrets=secrets)
        except BaseException as exc:
            self._rollback()
            if isinstance(exc, InsufficientChips):
                raise TableError(
                    "insufficient_chips",
                    f"this cash table needs {exc.needed} chips in your wallet (its maximum"
                    f" loss, held until the partita ends); you have {exc.available}",
                ) from None
            if isinstance(exc, VersionConflict) and await self._reload():
                raise TableError(
                    "stale", f"the table is at version {self.state.version}: resyncing"
                ) from None
            raise
        self.records.extend(new)
        for rec in new if log.isEnabledFor(logging.INFO) else ():
            log.info(
                "table event",
                extra={
                    "table": st.id,
                    "version": rec.version,
                    "event": rec.type,
                    **_log_fields(rec),
                },
            )
        if st.status == "finished":
            try:
                await self.save_record()
            except Exception:  # the log has the end; the next start-up saves the record
                log.exception("table %s: saving the record failed", st.id)
        if (st.to_move, st.deals_started) != before:
            self._turn_started = now_ms()
        self.audience.broadcast(new, self.state)
        self._schedule()
        if self.on_change is not None:
            self.on_change(self, new)
        return st.version

    def _add(self, new: list[LogRecord], kind: str, data: dict[str, Any]) -> None:
        prev = new[-1] if new else self.state.last
        assert prev is not None
        rec = prev.next(kind, data, max(now_ms(), prev.at))
        self.state.apply(rec)
        new.append(rec)

    def _follow_on(
        self, new: list[LogRecord], secrets: dict[int, int], pause_over: bool = False
    ) -> None:
        """Records the table writes by itself after `new`: start, deal, reveal, end,
        and automatic declarations of players who want them."""
        st = self.state
        for _ in range(64):
            need = st.needs()
            if need == "start":
                self._add(new, "started", {})
                self._commit_deal(new, secrets)
            elif need == "reveal":
                k = st.deals_started - 1
                # a string: 128-bit integers do not survive JSON readers such as JavaScript's
                self._add(new, "revealed", {"deal": k, "seed": str(st.secrets[k])})
            elif need == "end":
                result = {"winner": st.winner, "totals": st.totals, "reason": st.end_reason}
                self._add(new, "ended", result)
            elif need == "commit" and (pause_over or self.deal_pause <= 0):
                self._commit_deal(new, secrets)
                pause_over = False
            elif (auto := self._auto_declaration()) is not None:
                seat, move = auto
                data = {"deal": st.deals_started - 1, "seat": seat, "move": move, "by": "auto"}
                self._add(new, "move", {**data, "clock": st.clocks[seat]})
            else:
                return

    def _commit_deal(self, new: list[LogRecord], secrets: dict[int, int]) -> None:
        st = self.state
        k = st.deals_started
        seed = _secrets.randbits(128)
        st.secrets[k] = seed
        secrets[k] = seed
        data = {"deal": k, "commitment": commitment(seed), "shuffle": SHUFFLE_VERSION}
        self._add(new, "committed", data)

    def _auto_declaration(self) -> tuple[int, str] | None:
        """The declaration the server makes for a player with automatic declaration (B8)."""
        st = self.state
        seat = st.to_move
        if seat is None:
            return None
        who = st.seats[seat]
        if who is None or who.bot is not None or not who.auto_declare:
            return None
        move = st.kind.auto_move(st.game.deal, seat)
        return None if move is None else (seat, move)

    def _rollback(self) -> None:
        """Back to what the stored log says (after a failed write)."""
        secrets = dict(self.state.secrets)
        seats = {i: s.auto_declare for i, s in enumerate(self.state.seats) if s is not None}
        self.state = TableState.from_log(self.state.id, self.records, secrets)
        for i, on in seats.items():
            s = self.state.seats[i]
            if s is not None:
                s.auto_declare = on

    async def _reload(self) -> bool:
        """The stored log is ahead of this actor: a write whose answer was lost had in
        fact committed (a connection dropped during COMMIT), or another node wrote.
        Fold what was stored and send it on, so that the table is not stuck refusing
        every write; True if the log moved on. The command being written was checked
        against the old state, so the caller refuses it as stale."""
        try:
            stored = await self.store.load_log(self.id)
            secrets = await self.store.load_secrets(self.id)
        except Exception as exc:  # still down: the next write tries again
            log.warning("table %s: cannot read its log again: %s", self.id, exc)
            return False
        mine = len(self.records)
        if len(stored) <= mine or stored[mine - 1].hash != self.records[-1].hash:
            if len(stored) > mine:
                log.error("table %s: the stored log has forked from this actor's", self.id)
            return False
        new = stored[mine:]
        before = (self.state.to_move, self.state.deals_started)
        auto = {i: s.auto_declare for i, s in enumerate(self.state.seats) if s is not None}
        self.state = TableState.from_log(self.id, stored, {**self.state.secrets, **secrets})
        for i, on in auto.items():
            seat = self.state.seats[i]
            if seat is not None and seat.user is not None:
                seat.auto_declare = on
        self.records = stored
        log.warning("table %s: read %d stored records it had not applied", self.id, len(new))
        if (self.state.to_move, self.state.deals_started) != before:
            self._turn_started = now_ms()
        self.audience.broadcast(new, self.state)
        self._schedule()
        if self.on_change is not None:
            self.on_change(self, new)
        return True

    async def save_record(self) -> None:
        st = self.state
        assert st.game is not None
        record = {
            "format": "cirulla.table/1",
            "table": st.id,
            "config": st.config.model_dump(mode="json"),
            "seats": [
                None if s is None else {"seat": i, **s.public()} for i, s in enumerate(st.seats)
            ],
            "game": st.kind.record(st.game),
            "log": [r.to_dict() for r in self.records],
        }
        players = self._players_of(st) if self._players_of is not None else []
        await self.store.save_record(st.id, record, players)

    # ---- what happens by itself: bots, clocks, the pause between deals -------------------
    def _schedule(self) -> None:
        if self._timer is not None and self._timer is not asyncio.current_task():
            self._timer.cancel()
        self._timer = None
        if self._closed:
            return
        st = self.state
        version = st.version
        if st.needs() == "commit":
            self._timer = asyncio.create_task(
                self._later(self.deal_pause, version, self._next_deal)
            )
            return
        seat = st.to_move
        if seat is None:
            return
        who = st.seats[seat]
        assert who is not None
        if who.bot is not None:
            self._timer = asyncio.create_task(self._later(self.bot_delay, version, self._bot_move))
            return
        deadline = self._deadline(seat)
        if deadline is not None:
            delay = max(0.0, (deadline - now_ms()) / 1000 + 0.01)
            self._timer = asyncio.create_task(self._later(delay, version, self._time_out))

    async def _later(
        self, delay: float, version: int, action: Callable[[], Awaitable[None]]
    ) -> None:
        await asyncio.sleep(delay)
        async with self._lock:
            if self.state.version != version or self._closed:
                return
            try:
                await action()
            except TableError:
                log.exception("table %s: automatic step failed", self.state.id)
            except Exception as exc:
                AUTOMATIC.failed(f"table {self.id}", exc)
                self._retry(version)
            else:
                AUTOMATIC.succeeded(f"table {self.id}")

    def _retry(self, version: int) -> None:
        """A failed write (database down): try the same step again a little later."""
        self._timer = asyncio.create_task(self._again(version))

    async def _again(self, version: int) -> None:
        await asyncio.sleep(RETRY_SECONDS)
        async with self._lock:
            if self.state.version == version:
                self._schedule()

    async def _next_deal(self) -> None:
        await self._commit([], pause_over=True)

    async def _bot_move(self) -> None:
        st = self.state
        seat = st.to_move
        assert seat is not None and st.game is not None
        who = st.seats[seat]
        assert who is not None and who.bot is not None
        # a bot is made for each move, from a seed of the table, the seat and the version:
        # its moves do not depend on where the ones before it were played (tables/botpool.py)
        seed = derived_seed(int(st.id.encode().hex(), 16) % (1 << 63), "bot", seat)
        seed = derived_seed(seed, "move", st.version)
        view = st.game.deal.view(seat)  # a bot sees a seat's view, nothing more
        kind = st.kind
        last = st.last.hash if st.last is not None else ""
        chosen = self._bot_choice
        if chosen is not None and chosen[:2] == (st.version, last):
            move = chosen[2]  # its write failed: the same table, the same move, no search
        elif not kind.searches(who.bot):  # well under a millisecond: here, in the event loop
            move = kind.bot_move(kind.bot(who.bot, seed), view)
        elif self.bots is not None:  # a search holds the GIL: in a worker process
            move = await self.bots.move(kind.name, who.bot, seed, view)
        else:
            move = await asyncio.to_thread(kind.bot_move, kind.bot(who.bot, seed), view)
        self._bot_choice = (st.version, last, move)
        data = {"deal": st.deals_started - 1, "seat": seat, "move": move, "by": "bot"}
        await self._commit([("move", {**data, "clock": None})])

    async def _time_out(self) -> None:
        seat = self.state.to_move
        if seat is not None and self._overdue(seat):
            await self._forfeit(seat, "timeout")
        else:
            self._schedule()

    def resume(self) -> None:
        """Start the timers of a table rebuilt from its log (the turn's clock restarts now)."""
        self._turn_started = now_ms()
        self._schedule()

    async def catch_up(self) -> None:
        """Write what a table rebuilt after a crash still owed (a reveal, the end, a deal)."""
        async with self._lock:
            if self.state.needs() in ("start", "reveal", "end"):
                await self._commit([])
            self.resume()

    def close(self) -> None:
        self._closed = True
        AUTOMATIC.forget(f"table {self.id}")
        if self._timer is not None:
            self._timer.cancel()

    def seat_for(self, seat: int) -> Seat | None:
        return self.state.seats[seat]


def _log_fields(rec: LogRecord) -> dict[str, Any]:
    data = rec.data
    out: dict[str, Any] = {}
    for key in ("seat", "move", "deal", "reason", "winner"):
        if key in data:
            out[f"ev_{key}"] = data[key]
    return out
