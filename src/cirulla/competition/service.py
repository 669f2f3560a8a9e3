"""Every tournament of this server: creating them, the commands of players and
organisers, restoring them at start-up, starting them on time, listing them.

In a cluster (`--redis-url`) one node directs each tournament: the holder of its
lease (key "tournament:" + id, beside the tables' leases). A node that does not
direct a tournament still answers for it: it folds the stored log, and writes a
command (a registration, the start) to the log by compare-and-set; the directing
node reads the log again at its next check (every POLL_SECONDS) and acts on it
(making the tables of a round that was paired elsewhere). When a node dies its
leases lapse, and a sweep on the other nodes adopts its tournaments.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets as _secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from pydantic import ValidationError

from ..bots.levels import LEVELS
from ..eventlog import LogRecord
from ..tables.config import TableConfig
from ..tables.ids import new_id
from .director import Director
from .fees import DEFAULT_PRIZES, check_prizes
from .state import FORMATS
from .tournament_log import DirectorError, TournamentState, now_ms, summary

if TYPE_CHECKING:
    from ..tables.manager import TableManager

__all__ = ["MAX_ENTRANTS", "POLL_SECONDS", "TournamentService", "lease_key"]

log = logging.getLogger("cirulla.tournaments")

#: The most entrants a tournament may have.
MAX_ENTRANTS: Final = 256
#: How often a directing node checks its tournaments' logs and tables it cannot hear.
POLL_SECONDS: Final = 2.0
#: Finished tournaments stay in the list this long.
LISTED_DAYS: Final = 7
_STATUS_ORDER: Final = {"registering": 0, "running": 1, "finished": 2, "cancelled": 3}


def lease_key(tournament_id: str) -> str:
    """The tournament's lease in the cluster: cannot clash with a table id (no colon)."""
    return f"tournament:{tournament_id}"


def _invite_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _bad(field: str, message: str) -> DirectorError:
    return DirectorError("bad_config", f"{field}: {message}")


def check_spec(
    raw: dict[str, Any], *, private_default: bool, max_entry_fee: int = 10_000
) -> dict[str, Any]:
    """The `created` record's data from a POST /api/tournaments body; DirectorError
    `bad_config` naming the field otherwise (nothing is made)."""
    known = {
        "entry_fee",
        "prizes",
        "name",
        "format",
        "config",
        "rounds",
        "best_of",
        "starts_at",
        "max_entrants",
        "private",
        "allow_bots",
    }
    for key in raw:
        if key not in known:
            raise _bad(key, "unknown field")
    name = raw.get("name")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 40:
        raise _bad("name", "a name of 1 to 40 characters")
    fmt = raw.get("format")
    if fmt not in FORMATS:
        raise _bad("format", f"one of {', '.join(FORMATS)}")
    config = raw.get("config", {})
    if not isinstance(config, dict):
        raise _bad("config", "an object")
    for key in ("bots", "private"):
        if key in config:
            raise _bad(f"config.{key}", "not for tournaments (entrants and privacy are set apart)")
    for key in ("stake", "max_loss"):
        if config.get(key):
            raise _bad(f"config.{key}", "tournament tables are not cash tables")
    if config.get("game", "cirulla") != "cirulla":
        raise _bad("config.game", "tournaments are of the Cirulla family (any preset)")
    players = config.get("players", 2)
    if players not in (2, 4) or isinstance(players, bool):
        raise _bad("config.players", "2 (one against one) or 4 (fixed pairs)")
    move_seconds = config.get("move_seconds", 60.0)
    if move_seconds is None:
        raise _bad("config.move_seconds", "a tournament's tables need a move clock")
    options = config.get("options", {})
    if not isinstance(options, dict):
        raise _bad("config.options", "an object")
    table = {**config, "players": players, "move_seconds": move_seconds}
    table["options"] = {**options, "knockout": fmt == "knockout"}
    try:
        checked = TableConfig.for_new_table(table)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = str(first.get("ctx", {}).get("error", first["msg"]))
        raise _bad(f"config{'.' + where if where else ''}", message) from None
    rounds = raw.get("rounds")
    if rounds is not None:
        if fmt != "swiss":
            raise _bad("rounds", "only a Swiss has a chosen number of rounds")
        if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= 64:
            raise _bad("rounds", "a whole number from 1 to 64 (or null)")
    best_of = raw.get("best_of", 1)
    if best_of not in (1, 3) or isinstance(best_of, bool):
        raise _bad("best_of", "1 or 3")
    if best_of == 3 and fmt != "knockout":
        raise _bad("best_of", "a best of three is for knockouts (E5)")
    max_entrants = raw.get("max_entrants", 64)
    if (
        not isinstance(max_entrants, int)
        or isinstance(max_entrants, bool)
        or not 2 <= max_entrants <= MAX_ENTRANTS
    ):
        raise _bad("max_entrants", f"a whole number from 2 to {MAX_ENTRANTS}")
    starts_at = raw.get("starts_at")
    if starts_at is not None:
        now = now_ms()
        if (
            not isinstance(starts_at, int)
            or isinstance(starts_at, bool)
            or not now - 60_000 <= starts_at <= now + 366 * 86_400_000
        ):
            raise _bad("starts_at", "ms since the epoch, from now to a year ahead (or null)")
    private = raw.get("private", private_default)
    if not isinstance(private, bool):
        raise _bad("private", "true or false")
    allow_bots = raw.get("allow_bots", False)  # bot accounts (docs/bots.md): people only by default
    if not isinstance(allow_bots, bool):
        raise _bad("allow_bots", "true or false")
    entry_fee = raw.get("entry_fee", 0)
    if (
        not isinstance(entry_fee, int)
        or isinstance(entry_fee, bool)
        or not 0 <= entry_fee <= max_entry_fee
    ):
        raise _bad("entry_fee", f"chips from 0 (free) to {max_entry_fee}")
    try:
        prizes = check_prizes(raw.get("prizes", list(DEFAULT_PRIZES)))
    except ValueError as exc:
        raise _bad("prizes", str(exc)) from None
    stored = checked.model_dump(mode="json", exclude={"bots", "private", "name"})
    stored["options"] = {k: v for k, v in stored["options"].items() if k != "knockout"}
    state = TournamentState(
        "check", format=fmt, config=stored, best_of=best_of, rounds_wanted=rounds
    )
    try:  # the format and the rules agree (a VP length, knockout on...)
        entrants = ["a", "b", "c", "d"][: 4 if players == 4 else 2]
        state.tournament_config(entrants)
    except ValueError as exc:
        raise _bad("config.options", str(exc)) from None
    return {
        "name": name.strip(),
        "format": fmt,
        "config": stored,
        "rounds": rounds,
        "best_of": best_of,
        "max_entrants": max_entrants,
        "private": private,
        "starts_at": starts_at,
        "entry_fee": entry_fee,
        "prizes": prizes,
        **({"allow_bots": True} if allow_bots else {}),
    }


class TournamentService:
    """The tournaments of this node (see the module docstring)."""

    def __init__(self, tables: TableManager) -> None:
        self.tables = tables
        self.store = tables.store.tournaments
        self.directors: dict[str, Director] = {}
        self._loops: list[asyncio.Task[None]] = []
        self._closed = False

    # ---- finding ------------------------------------------------------------------------
    def _director(
        self, state: TournamentState, records: list[LogRecord], directing: bool
    ) -> Director:
        d = Director(state, records, self.tables, directing=directing)
        if directing:
            self.directors[state.id] = d
        return d

    async def get(self, tournament_id: str) -> Director:
        """The director of a tournament: this node's, or (another node directs it, or it
        is over) one folded from the stored log that directs nothing."""
        d = self.directors.get(tournament_id)
        if d is not None:
            return d
        records = await self.store.load_log(tournament_id)
        if not records:
            raise DirectorError("unknown_tournament", f"there is no tournament {tournament_id!r}")
        return self._director(TournamentState.from_log(tournament_id, records), records, False)

    async def may_see(self, d: Director, user: str | None, invite: str | None) -> bool:
        st = d.state
        if not st.private:
            return True
        if user is not None and (
            (st.organiser is not None and st.organiser["id"] == user)
            or st.entrant_of(user) is not None
            or any(e.user == user for e in st.entrants.values())
        ):
            return True
        if invite is None:
            return False
        row = await self.store.get(st.id)
        expected = row.invite_hash if row is not None else None
        return expected is not None and _secrets.compare_digest(_invite_hash(invite), expected)

    async def listing(self, user: str | None) -> list[dict[str, Any]]:
        since = datetime.now(UTC) - timedelta(days=LISTED_DAYS)
        out = []
        for row in await self.store.listed(since):
            s = row.summary
            if row.private:
                mine = user is not None and (
                    row.organiser == user or any(e.get("user") == user for e in s["entrants"])
                )
                if not mine:
                    continue
            out.append(s)
        out.sort(key=lambda s: (_STATUS_ORDER.get(s["status"], 9), -s["created"], s["id"]))
        return out

    # ---- creating -----------------------------------------------------------------------
    async def create(
        self,
        organiser: dict[str, Any] | None,
        raw: dict[str, Any],
        *,
        decks: list[list[str]] | None = None,
        dealer: int | None = None,
        tournament_id: str | None = None,
        schedule: dict[str, Any] | None = None,
    ) -> tuple[Director, str | None]:
        """A new tournament from a POST body (organiser None: the operator's); `decks`
        and `dealer` (test mode only) go to round 1's first tables."""
        data = check_spec(
            raw,
            private_default=organiser is not None,
            max_entry_fee=self.tables.limits.max_entry_fee,
        )
        data["organiser"] = organiser
        if decks is not None or dealer is not None:
            self._check_test_deal(data, decks, dealer)
        if schedule is not None:  # an instance of the operator's schedule (schedule.py)
            data["schedule"] = schedule
        tournament_id = tournament_id or new_id()
        cluster = self.tables.cluster
        if cluster is not None and not await cluster.bus.claim(lease_key(tournament_id)):
            raise DirectorError("unavailable", "could not reserve a tournament id: try again")
        token = _secrets.token_urlsafe(16) if data["private"] else None
        first = LogRecord.first("created", data, now_ms())
        state = TournamentState.from_log(tournament_id, [first])
        starts = data["starts_at"]
        await self.store.create(
            tournament_id,
            name=data["name"],
            format=data["format"],
            config=data["config"],
            organiser=None if organiser is None else organiser["id"],
            private=data["private"],
            invite_hash=None if token is None else _invite_hash(token),
            starts_at=None if starts is None else datetime.fromtimestamp(starts / 1000, UTC),
            summary=summary(state),
            first=first,
        )
        d = self._director(state, [first], True)
        await d.resume()
        return d, token

    def _check_test_deal(
        self, data: dict[str, Any], decks: list[list[str]] | None, dealer: int | None
    ) -> None:
        """Kept in the `created` record, so that round 1's tables are made the same
        after a crash (director.py `_ensure_table`)."""
        if not self.tables.test_mode:
            raise DirectorError("test_mode_only", "stacked decks are only for test mode")
        check = TournamentState("check", format=data["format"], config=data["config"])
        config = check.table_config()
        for deck in [None, *(decks or [])]:  # the dealer alone, then each deck
            try:
                config.kind.new_game(config.rules(), config.players, 0, dealer, deck)
            except ValueError as exc:
                raise _bad("decks" if deck is not None else "dealer", str(exc)) from None
        if decks is not None:
            data["decks"] = decks
        if dealer is not None:
            data["dealer"] = dealer

    # ---- commands -----------------------------------------------------------------------
    async def register(
        self,
        d: Director,
        user: dict[str, Any],
        partner: dict[str, Any] | None,
    ) -> None:
        """Register `user` (and `partner`, with 4 players, as one side)."""

        def decide() -> list[tuple[str, dict[str, Any]]]:
            st = d.state
            if st.status != "registering":
                raise DirectorError("registration_closed", "registration is closed")
            who = [user] if partner is None else [user, partner]
            for u in who:
                if st.entrant_of(u["id"]) is not None:
                    raise DirectorError("already_registered", f"{u['name']} is registered already")
            if len(st.entrants) + len(who) > st.max_entrants:
                raise DirectorError(
                    "tournament_full", f"the tournament is full ({st.max_entrants} entrants)"
                )
            # who registers pays for the side: naming a partner must never spend the
            # partner's chips without asking (fees.py)
            entrants = [
                {
                    "id": f"e{st.numbered + i + 1}",
                    "name": u["name"],
                    "user": u["id"],
                    "bot": None,
                    "fee": st.entry_fee * len(who) if i == 0 else 0,
                    **({"bot_account": True} if u.get("bot_account") else {}),
                }
                for i, u in enumerate(who)
            ]
            return [("registered", {"entrants": entrants})]

        if partner is not None:
            if d.state.players != 4:
                raise DirectorError("bad_request", "partners are for tournaments of 4 players")
            if partner["id"] == user["id"]:
                raise DirectorError("bad_request", "your partner is someone else")
        await d.command(decide)

    async def unregister(self, d: Director, user: str) -> None:
        def decide() -> list[tuple[str, dict[str, Any]]]:
            st = d.state
            if st.status != "registering":
                raise DirectorError("registration_closed", "the tournament has started or ended")
            e = st.entrant_of(user)
            if e is None:
                raise DirectorError("not_registered", "you are not registered")
            gone = [e.id] + ([e.partner] if e.partner is not None else [])
            return [("unregistered", {"entrants": gone})]

        await d.command(decide)

    async def add_bots(self, d: Director, level: Any, count: Any) -> None:
        if level not in LEVELS:
            raise DirectorError("bad_request", f"level: one of {', '.join(LEVELS)}")
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_ENTRANTS:
            raise DirectorError("bad_request", f"count: a whole number from 1 to {MAX_ENTRANTS}")

        def decide() -> list[tuple[str, dict[str, Any]]]:
            st = d.state
            if st.status != "registering":
                raise DirectorError("registration_closed", "registration is closed")
            if len(st.entrants) + count > st.max_entrants:
                raise DirectorError(
                    "tournament_full", f"the tournament is full ({st.max_entrants} entrants)"
                )
            same = sum(1 for e in st.entrants.values() if e.bot == level)
            return [
                (
                    "registered",
                    {
                        "entrants": [
                            {
                                "id": f"e{st.numbered + i + 1}",
                                "name": f"bot {level} {same + i + 1}",
                                "user": None,
                                "bot": level,
                            }
                        ]
                    },
                )
                for i in range(count)
            ]

        await d.command(decide)

    async def start(self, d: Director) -> None:
        await d.command(d.start_steps)

    async def cancel(self, d: Director) -> None:
        def decide() -> list[tuple[str, dict[str, Any]]]:
            if d.state.status != "registering":
                raise DirectorError("registration_closed", "the tournament has started or ended")
            return [("cancelled", {"reason": "cancelled by the organiser"})]

        await d.command(decide)

    # ---- restoring and the periodic check ---------------------------------------------------
    async def restore(self) -> int:
        """Direct again every tournament registering or running (after the tables are
        restored: a round's tables are found, not made twice)."""
        count = 0
        for row in await self.store.live():
            if await self._adopt(row.id):
                count += 1
        log.info("restored %d tournaments", count)
        self._loops.append(asyncio.create_task(self._every(POLL_SECONDS, self._poll)))
        cluster = self.tables.cluster
        if cluster is not None:
            lease = cluster.bus.lease_ms / 1000
            self._loops.append(asyncio.create_task(self._every(lease / 3, self._renew)))
            self._loops.append(asyncio.create_task(self._every(lease, self._sweep)))
        return count

    async def _adopt(self, tournament_id: str, wary: bool = False) -> bool:
        cluster = self.tables.cluster
        if cluster is not None and not await cluster.bus.claim(lease_key(tournament_id), wary=wary):
            return False
        records = await self.store.load_log(tournament_id)
        try:
            state = TournamentState.from_log(tournament_id, records)
        except (DirectorError, ValueError) as exc:
            log.error("tournament %s cannot be rebuilt from its log: %s", tournament_id, exc)
            return False
        d = self._director(state, records, True)
        await d.resume()
        return True

    async def _every(self, seconds: float, job: Callable[[], Any]) -> None:
        while not self._closed:
            await asyncio.sleep(seconds)
            try:
                await job()
            except Exception as exc:  # the store or Redis is down: the next round tries again
                log.warning("tournaments: %s failed: %s", getattr(job, "__name__", job), exc)

    async def _poll(self) -> None:
        for tid, d in list(self.directors.items()):
            if d.state.status in ("finished", "cancelled"):
                d.close()
                del self.directors[tid]
                cluster = self.tables.cluster
                if cluster is not None:
                    with contextlib.suppress(Exception):
                        await cluster.bus.release(lease_key(tid))
                continue
            await d.poll()

    async def _renew(self) -> None:
        cluster = self.tables.cluster
        assert cluster is not None
        keys = {lease_key(t): t for t in self.directors}
        lost, missing = await cluster.bus.renew_leases(list(keys))
        for key in sorted(missing):
            if not await cluster.bus.claim(key):
                lost.add(key)
        for key in lost:
            d = self.directors.pop(keys[key], None)
            if d is not None:
                log.warning("lost the lease of tournament %s: another node directs it", d.id)
                d.close()

    async def _sweep(self) -> None:
        """Adopt the live tournaments nobody directs (their node died)."""
        cluster = self.tables.cluster
        assert cluster is not None
        others = [r.id for r in await self.store.live() if r.id not in self.directors]
        if not others:
            return
        owners = await cluster.bus.owners([lease_key(t) for t in others])
        for tid in others:
            if owners[lease_key(tid)] is None and await self._adopt(tid, wary=True):
                log.info("adopted tournament %s", tid)

    def close(self) -> None:
        self._closed = True
        for task in self._loops:
            task.cancel()
        for d in self.directors.values():
            d.close()
