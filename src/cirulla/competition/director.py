"""The actor that directs one tournament on the server.

Like a table (tables/actor.py), a tournament changes only through records appended
to its hash-chained log in one transaction BEFORE they are applied, so that a server
killed at any moment rebuilds it exactly from the log (tournament_log.py folds it and
lists the record types). The director makes each round's tables, hears when they
end, writes the results, the next round and the end, and tells the players.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import secrets as _secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..eventlog import LogRecord
from ..game import Game
from ..record import replay_game
from ..store import VersionConflict
from ..store.ledger import InsufficientChips
from ..tables.ids import new_id
from .fees import insufficient, tournament_movements
from .runner import match_entry, match_result
from .state import Tournament
from .tournament_log import (
    DirectorError,
    MatchState,
    TournamentState,
    now_ms,
    standings_view,
    summary,
)

if TYPE_CHECKING:
    from ..tables.manager import TableManager

__all__ = ["Director"]

log = logging.getLogger("cirulla.tournaments")


def _seats(players: int, side: int) -> tuple[int, ...]:
    """The seats of a match's side 0 / side 1 (partners opposite), as the runner's."""
    return (side, side + 2) if players == 4 else (side,)


def _add(work: TournamentState, new: list[LogRecord], kind: str, data: dict[str, Any]) -> None:
    prev = new[-1] if new else work.last
    assert prev is not None
    rec = prev.next(kind, data, max(now_ms(), prev.at))
    work.apply(rec)
    new.append(rec)


def _follow_on(st: TournamentState, new: list[LogRecord]) -> None:
    """What the tournament writes by itself: the next round once a round is over,
    and the end."""
    while st.status == "running" and st.t is not None:
        t = st.t
        if len(t.rounds) > len(t.results):
            return  # a round is being played
        if t.is_over:
            winner = t.winner
            assert winner is not None
            _add(st, new, "ended", {"winner": list(t.config.sides[winner])})
            return
        pairs = Tournament(t.config)  # a copy, so the pairing is asked once, in apply
        pairs.rounds = list(t.rounds)
        pairs.results = list(t.results)
        matches = [
            {"a": a, "b": b, "table": None if b is None else new_id()}
            for a, b in pairs.pair_next_round()
        ]
        _add(st, new, "paired", {"round": len(st.rounds) + 1, "matches": matches})


class Director:
    """Directs one tournament on this node (or, `directing=False`, only writes a
    command to its log for the node that directs it: see service.py)."""

    def __init__(
        self,
        state: TournamentState,
        records: list[LogRecord],
        tables: TableManager,
        *,
        directing: bool = True,
        on_change: Callable[[Director], None] | None = None,
    ) -> None:
        self.state = state
        self.records = records
        self.tables = tables
        self.store = tables.store.tournaments
        self.directing = directing
        self.on_change = on_change
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._timer: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def id(self) -> str:
        return self.state.id

    # ---- writing ------------------------------------------------------------------------
    async def command(self, decide: Callable[[], list[tuple[str, dict[str, Any]]]]) -> None:
        """Check `decide` against the state and write what it returns; if another node
        wrote first, read the log again and decide again (a few times)."""
        async with self._lock:
            for attempt in range(4):
                try:
                    await self._commit(decide())
                    return
                except VersionConflict:
                    if attempt == 3 or not await self._reload():
                        raise DirectorError(
                            "unavailable", "the tournament is busy: try again"
                        ) from None

    async def _commit(self, steps: list[tuple[str, dict[str, Any]]]) -> None:
        """Apply `steps` (and what follows from them) to a copy of the state, which
        becomes the state only once its records are stored: a reader never sees a
        result, an end or a prize whose records (and chips) are not committed yet."""
        new: list[LogRecord] = []
        entrants = dict(self.state.entrants)
        work = copy.deepcopy(self.state)
        try:
            for kind, data in steps:
                _add(work, new, kind, data)
            _follow_on(work, new)
            if not new:
                return
            # entry fees, refunds and prizes ride in the records' transaction (fees.py)
            ledger = tournament_movements(work, entrants, new)
            await self.store.append(
                self.id, new, status=work.status, summary=summary(work), ledger=ledger
            )
        except InsufficientChips as exc:
            raise insufficient(work, exc) from None
        self.state = work
        self.records.extend(new)
        self._after(new)

    async def _reload(self) -> bool:
        """Read the stored log again (another node wrote to it); True if it moved on."""
        stored = await self.store.load_log(self.id)
        if len(stored) <= len(self.records):
            return False
        new = stored[len(self.records) :]
        self.state = TournamentState.from_log(self.id, stored)
        self.records = stored
        self._after(new)
        return True

    # ---- after a write: tables, notices --------------------------------------------------
    def _after(self, new: list[LogRecord]) -> None:
        if self.on_change is not None:
            self.on_change(self)
        if not self.directing or self._closed:
            return
        for rec in new:
            if rec.type == "paired":
                self._spawn(self._round_started(int(rec.data["round"])))
            elif rec.type == "partita":
                self._spawn(self._partita_started(rec.data))
            elif rec.type == "ended":
                self._notify_all(
                    {
                        "type": "ended",
                        "winner": self.state.winner,
                        "standings": standings_view(self.state),
                    }
                )
            elif rec.type in ("cancelled", "started"):
                self._schedule()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _notify_all(self, event: dict[str, Any]) -> None:
        for e in self.state.entrants.values():
            if e.user is not None:
                self._notify(e.user, event)

    def _notify(self, user: str, event: dict[str, Any]) -> None:
        frame = {"type": "tournament", "tournament": self.id, "event": event}
        self.tables.notify_user(user, frame)

    async def _round_started(self, number: int) -> None:
        """Make the round's tables, then tell each person where to play (or of a bye)."""
        st = self.state
        matches = st.rounds[number - 1]
        for index, m in enumerate(matches):
            if m.tables:
                await self._ensure_table(number, index, m.tables[-1])
        for m in matches:
            table = m.tables[-1] if m.tables else None
            self._notify_sides(
                m, {"type": "round", "round": number, "table": table, "bye": m.b is None}
            )

    async def _partita_started(self, data: dict[str, Any]) -> None:
        """The next partita of a best of three: its table, then the notice."""
        number, index, table = int(data["round"]), int(data["match"]), str(data["table"])
        await self._ensure_table(number, index, table, data.get("dealer"))
        m = self.state.rounds[number - 1][index]
        self._notify_sides(m, {"type": "round", "round": number, "table": table, "bye": False})

    def _notify_sides(self, m: MatchState, event: dict[str, Any]) -> None:
        st = self.state
        sides = st.sides()
        for side in (m.a, m.b):
            if side is None:
                continue
            for eid in sides[side]:
                user = st.entrants[eid].user
                if user is not None:
                    self._notify(user, event)

    async def _ensure_table(
        self, number: int, index: int, table_id: str, dealer: int | None = None
    ) -> None:
        """Make the match's table if it is not made yet, and hear when it ends."""
        st = self.state
        m = st.rounds[number - 1][index]
        assert m.b is not None
        sides = st.sides()
        seats: list[dict[str, Any]] = [{} for _ in range(st.players)]
        for side, who in ((0, sides[m.a]), (1, sides[m.b])):
            for eid, seat in zip(who, _seats(st.players, side), strict=True):
                e = st.entrants[eid]
                seats[seat] = {
                    "seat": seat,
                    "user": e.user,
                    "name": e.name,
                    "bot": e.bot,
                    "auto_declare": True,
                    **({"bot_account": True} if e.bot_account else {}),
                }
        config = st.table_config().model_copy(
            update={"name": f"{st.name} {number}.{index + 1}"[:40]}
        )
        decks: list[list[str]] | None = None
        if number == 1 and table_id == m.tables[0]:
            # a tournament made in test mode: stacked decks for round 1's first partite
            made = self.records[0].data
            decks = made.get("decks")
            dealer = made.get("dealer", dealer)
        try:
            actor = await self.tables.opening.create_seated(
                table_id,
                config,
                seats,
                tournament={"id": self.id, "round": number, "match": index},
                dealer=dealer,
                decks=decks,
            )
        except Exception:
            log.exception("tournament %s: making table %s failed", self.id, table_id)
            return
        if actor is not None:
            self.tables.on_end(table_id, self._hook)
        else:
            await self._check_table(table_id)

    async def _check_table(self, table_id: str) -> None:
        """A table not played here (ended and put away, or on another node): its end
        is read from the store."""
        row = await self.tables.store.get_table(table_id)
        if row is not None and row.status == "finished":
            await self._table_ended(table_id)

    async def _game_of(self, table_id: str) -> Game | None:
        actor = self.tables.tables.get(table_id)
        if actor is not None and actor.state.status == "finished":
            game: Game = actor.state.game
            return game
        record = await self.tables.store.get_record(table_id)
        if record is None:
            return None
        return replay_game(record["game"])

    async def _table_ended(self, table_id: str) -> None:
        """A match's table finished: the match's result, or its next partita."""
        async with self._lock:
            st = self.state
            found = self._find(table_id)
            if found is None:
                return
            number, index, m = found
            if m.result is not None or m.tables[-1] != table_id or m.b is None:
                return
            games: list[Game] = []
            for t in m.tables:
                game = await self._game_of(t)
                if game is None:
                    return  # its record is not saved yet: the next check gets it
                games.append(game)
            wins = [0, 0]
            for g in games:
                if g.winner is not None:
                    wins[g.winner] += 1
            needed = (st.best_of + 1) // 2
            if max(wins) < needed:
                dealer = (games[-1].deal.dealer + 1) % st.players
                step = (
                    "partita",
                    {
                        "round": number,
                        "match": index,
                        "table": new_id(),
                        "dealer": dealer,
                    },
                )
            else:
                r = match_result(m.a, m.b, games, st.with_vp)
                step = (
                    "result",
                    {
                        "round": number,
                        "match": index,
                        "winner": r.winner,
                        "vp": list(r.vp),
                        "mp": list(r.mp),
                        "partite": list(r.partite),
                    },
                )
            try:
                await self._commit([step])
            except VersionConflict:
                await self._reload()
                self._spawn(self._check_table(table_id))
            except Exception:
                log.exception("tournament %s: recording table %s failed", self.id, table_id)

    def _find(self, table_id: str) -> tuple[int, int, MatchState] | None:
        for number, matches in enumerate(self.state.rounds, start=1):
            for index, m in enumerate(matches):
                if table_id in m.tables:
                    return number, index, m
        return None

    # ---- restoring, timers ----------------------------------------------------------------
    async def resume(self) -> None:
        """After a restart or adoption: make the tables the current round still lacks,
        record the ones that ended meanwhile, and start the timers."""
        self._schedule()
        st = self.state
        if st.status != "running" or not st.rounds:
            if st.status == "running":
                async with self._lock:
                    await self._commit([])
            return
        number = len(st.rounds)
        for index, m in enumerate(st.rounds[-1]):
            if m.result is None and m.tables:
                dealer = None
                if len(m.tables) > 1:
                    dealer = self._dealer_of(number, index, m.tables[-1])
                await self._ensure_table(number, index, m.tables[-1], dealer)

    def _dealer_of(self, number: int, index: int, table_id: str) -> int | None:
        for rec in self.records:
            if rec.type == "partita" and rec.data["table"] == table_id:
                dealer: int | None = rec.data.get("dealer")
                return dealer
        return None

    async def poll(self) -> None:
        """The periodic check: the log written by another node, and tables that ended
        where this node could not hear them."""
        if self._closed:
            return
        version = await self.store.version(self.id)
        if version is not None and version > self.state.version:
            async with self._lock:
                await self._reload()
        st = self.state
        if st.status == "running" and st.rounds and self.directing:
            for m in st.rounds[-1]:
                if m.result is None and m.tables:
                    table_id = m.tables[-1]
                    if table_id in self.tables.tables:  # (adopted here since it was made)
                        self.tables.on_end(table_id, self._hook)
                    else:
                        await self._check_table(table_id)

    def _hook(self, actor: Any) -> None:
        self._spawn(self._table_ended(actor.id))

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        st = self.state
        if self._closed or not self.directing or st.status != "registering":
            return
        if st.starts_at is None:
            return
        delay = max(0.0, (st.starts_at - now_ms()) / 1000)
        self._timer = asyncio.create_task(self._start_at(delay))

    async def _start_at(self, delay: float) -> None:
        await asyncio.sleep(delay)
        try:
            await self.command(self.start_steps)
        except DirectorError as exc:
            if exc.code == "too_few_entrants":
                await self.command(lambda: [("cancelled", {"reason": "too few entrants"})])
            else:
                log.warning("tournament %s: could not start: %s", self.id, exc.message)
        except Exception:
            log.exception("tournament %s: starting failed", self.id)

    def close(self) -> None:
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        for task in self._tasks:
            task.cancel()

    # ---- commands -----------------------------------------------------------------------
    def start_steps(self) -> list[tuple[str, dict[str, Any]]]:
        st = self.state
        if st.status != "registering":
            raise DirectorError("registration_closed", "the tournament has started or ended")
        sides, left = st.planned_sides()
        if len(sides) < 2:
            raise DirectorError(
                "too_few_entrants", f"a tournament needs at least 2 sides, not {len(sides)}"
            )
        order = [e for s in sides for e in s]
        return [
            (
                "started",
                {"seed": _secrets.randbits(62), "entrants": order, "withdrawn": left},
            )
        ]

    async def full_record(self) -> dict[str, Any]:
        """The tournament record of API.md ("Tournaments"), as `cirulla tournament run`
        writes it, with the game records of the finished tables; `deal_seeds` is
        "committed": each smazzata was shuffled from a seed the table committed to."""
        from .runner import tournament_record

        st = self.state
        if st.t is None:
            raise DirectorError("not_started", "the tournament has not started")
        t = st.t
        rounds = []
        for number, matches in enumerate(st.rounds, start=1):
            if number > len(t.results):
                break
            entries = []
            for m in matches:
                assert m.result is not None
                records = []
                for table_id in m.tables:
                    rec = await self.tables.store.get_record(table_id)
                    if rec is None:
                        raise DirectorError("unavailable", f"table {table_id} has no record yet")
                    records.append(rec["game"])
                entries.append(match_entry(t.config, m.result, records, st.with_vp))
            rounds.append({"round": number, "matches": entries})
        levels = {e.id: e.bot for e in st.entrants.values() if e.bot is not None}
        out = tournament_record(t, rounds)
        out["deal_seeds"] = "committed"
        out["tournament"] = self.id
        out["names"] = {e: st.entrants[e].name for e in st.order}
        out["levels"] = levels
        out["tables"] = [[m.tables for m in matches] for matches in st.rounds]
        return out
