"""The operator's tournaments: a JSON file (`CIRULLA_TOURNAMENTS_FILE`) of one-off and
recurring tournaments that the server creates by itself (README, "Tournaments").

Each entry makes at most one instance registering at a time: its next occurrence,
once that occurrence's registration window opens. The instance's id is its entry's
key and its start ("sera-20261201T200000Z") and its `created` record carries
`"schedule": {"key", "at"}`, so an occurrence is made once only: the store is asked
first, and of two nodes racing, the database's primary key lets one win. In a
cluster only the holder of the lease "tournament-schedule:<key>" tries at all.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..bots.levels import LEVELS
from ..store import VersionConflict
from .service import MAX_ENTRANTS, check_spec
from .tournament_log import DirectorError, now_ms

if TYPE_CHECKING:
    from .service import TournamentService

__all__ = [
    "CHECK_SECONDS",
    "ScheduleEntry",
    "ScheduleError",
    "Scheduler",
    "instance_id",
    "load_schedule",
]

log = logging.getLogger("cirulla.tournaments")

#: The longest the scheduler sleeps between two checks of its entries.
CHECK_SECONDS: Final = 30.0
#: ... and the shortest (it wakes at each window's opening and each start).
_MIN_SLEEP: Final = 0.5
_WEEKDAYS: Final = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NAMED: Final = re.compile(r"^([a-z_]+(?:\.\w+)*): ")
Every = Literal["day", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


class ScheduleError(ValueError):
    """The tournaments file cannot be used: one line naming the entry and the field."""


class ScheduleEntry(BaseModel):
    """One entry of the tournaments file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,31}$")
    name: str = Field(min_length=1, max_length=40)
    format: str
    config: dict[str, Any] = Field(default_factory=dict)
    rounds: int | None = None
    best_of: int = 1
    max_entrants: int = 64
    private: bool = False
    # a one-off: the local start ("2026-12-01T21:00") in `timezone` ...
    starts_at: datetime | None = None
    # ... or a recurring one: every day (or a weekday) at `at` ("21:00") in `timezone`
    every: Every | None = None
    at: time | None = None
    timezone: str = "UTC"
    registration_minutes: int = Field(60, ge=1, le=7 * 24 * 60)
    bots: dict[str, int] = Field(default_factory=dict)  # level: count, registered at creation
    entry_fee: int = 0  # chips (docs/chips.md "Tournament fees and prizes")
    prizes: list[int] | None = None  # % of the pool by place; None: fees.DEFAULT_PRIZES

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{value!r} is not a time zone (e.g. Europe/Rome, UTC)") from None
        return value

    @field_validator("bots")
    @classmethod
    def _bots(cls, value: dict[str, int]) -> dict[str, int]:
        for level, count in value.items():
            if level not in LEVELS:
                raise ValueError(f"{level!r} is not a level: one of {', '.join(LEVELS)}")
            if not 1 <= count <= MAX_ENTRANTS:
                raise ValueError(f"{level}: a count from 1 to {MAX_ENTRANTS}")
        return value

    @model_validator(mode="after")
    def _when_and_what(self) -> ScheduleEntry:
        if (self.starts_at is None) == (self.every is None):
            raise ValueError("give either starts_at (one-off) or every and at (recurring)")
        if self.every is not None and self.at is None:
            raise ValueError("at: the time of day, such as 21:00, is needed with every")
        if self.starts_at is not None and self.at is not None:
            raise ValueError("at: only with every (a one-off has starts_at)")
        if self.at is not None and self.at.tzinfo is not None:
            raise ValueError("at: a time of day without an offset (the zone is timezone)")
        try:
            check_spec(self.spec(None), private_default=False)
        except DirectorError as exc:
            raise ValueError(exc.message) from None
        if sum(self.bots.values()) > self.max_entrants:
            raise ValueError(f"bots: more than max_entrants ({self.max_entrants})")
        return self

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def spec(self, starts_at: int | None) -> dict[str, Any]:
        """The body of a POST /api/tournaments for the occurrence starting at `starts_at`."""
        return {
            "name": self.name,
            "format": self.format,
            "config": dict(self.config),
            "rounds": self.rounds,
            "best_of": self.best_of,
            "max_entrants": self.max_entrants,
            "private": self.private,
            "starts_at": starts_at,
            "entry_fee": self.entry_fee,
            **({} if self.prizes is None else {"prizes": list(self.prizes)}),
        }

    def next_start(self, now: datetime) -> datetime | None:
        """The first occurrence after `now` (aware); None when a one-off is past."""
        if self.starts_at is not None:
            start = self.starts_at
            if start.tzinfo is None:
                start = start.replace(tzinfo=self.zone)
            return start if start > now else None
        assert self.at is not None
        local = now.astimezone(self.zone).date()
        for offset in range(9):  # today, or within the week (a day in hand for DST)
            day: date = local + timedelta(days=offset)
            if self.every != "day" and _WEEKDAYS[day.weekday()] != self.every:
                continue
            start = datetime.combine(day, self.at.replace(tzinfo=None), tzinfo=self.zone)
            if start > now:
                return start
        raise AssertionError("an occurrence every week is found within 9 days")

    def window(self) -> timedelta:
        return timedelta(minutes=self.registration_minutes)


def instance_id(key: str, start: datetime) -> str:
    """The id of an entry's occurrence: the same on every node and after any restart."""
    return f"{key}-{start.astimezone(UTC):%Y%m%dT%H%M%SZ}"


def load_schedule(file: str | Path | None) -> list[ScheduleEntry]:
    """The entries of the tournaments file (none without one); ScheduleError otherwise."""
    if not file:
        return []
    path = Path(file)
    where = f"CIRULLA_TOURNAMENTS_FILE {str(path)!r}"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScheduleError(f"{where} cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise ScheduleError(f"{where} is not JSON ({exc})") from None
    if not isinstance(raw, list):
        raise ScheduleError(f"{where}: a JSON list of tournaments, [{{...}}, ...]")
    entries: list[ScheduleEntry] = []
    seen: set[str] = set()
    for index, item in enumerate(raw, start=1):
        label = f"entry {index}"
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            label += f" ({item['key']!r})"
        try:
            # strict: a count is a number, not "3" or true (JSON's strings still give
            # the dates and times)
            entry = ScheduleEntry.model_validate_json(json.dumps(item), strict=True)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"])
            message = str(first.get("ctx", {}).get("error", first["msg"]))
            message = message.removeprefix("Value error, ")
            named = _NAMED.match(message)  # "config.players: ..." from a check of the whole
            if not field and named is not None:
                field, message = named.group(1), message[named.end() :]
            at = f", field {field!r}" if field else ""
            raise ScheduleError(f"{where}, {label}{at}: {message}") from None
        if entry.key in seen:
            raise ScheduleError(f"{where}, {label}, field 'key': used by an earlier entry")
        seen.add(entry.key)
        entries.append(entry)
    return entries


def schedule_lease(key: str) -> str:
    return f"tournament-schedule:{key}"


class Scheduler:
    """Creates the entries' instances as their registration windows open (see the
    module docstring); the directors start them at `starts_at`, or cancel them."""

    def __init__(self, service: TournamentService, entries: Sequence[ScheduleEntry]) -> None:
        self.service = service
        self.entries = list(entries)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.entries:
            self._task = asyncio.create_task(self._loop())

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _loop(self) -> None:
        await self.check()
        log.info("tournament schedule: %d entries, first check done", len(self.entries))
        while True:
            await asyncio.sleep(self.sleep_seconds(datetime.now(UTC)))
            await self.check()

    def sleep_seconds(self, now: datetime) -> float:
        """Until the next check: at most CHECK_SECONDS, and no later than a window's
        opening or an occurrence's start (when the next occurrence becomes the one due)."""
        wait = CHECK_SECONDS
        for entry in self.entries:
            start = entry.next_start(now)
            if start is None:
                continue
            for moment in (start - entry.window(), start):
                ahead = (moment - now).total_seconds()
                if ahead > 0:
                    wait = min(wait, ahead + 0.05)
        return max(_MIN_SLEEP, wait)

    async def check(self) -> None:
        """Make each entry's next occurrence whose window is open, once."""
        now = datetime.now(UTC)
        for entry in self.entries:
            start = entry.next_start(now)
            if start is None or now < start - entry.window():
                continue
            try:
                await self._ensure(entry, start)
            except DirectorError as exc:
                log.warning("tournament schedule %s: %s", entry.key, exc.message)
            except Exception as exc:  # the store or Redis: the next check tries again
                log.warning("tournament schedule %s: the check failed: %s", entry.key, exc)

    async def _ensure(self, entry: ScheduleEntry, start: datetime) -> None:
        cluster = self.service.tables.cluster
        if cluster is not None and not await cluster.bus.claim(schedule_lease(entry.key)):
            return  # another node makes this entry's tournaments
        tid = instance_id(entry.key, start)
        if await self.service.store.get(tid) is None:
            at = int(start.timestamp() * 1000)
            if at <= now_ms():
                return
            try:
                _, invite = await self.service.create(
                    None,
                    entry.spec(at),
                    tournament_id=tid,
                    schedule={"key": entry.key, "at": at},
                )
            except VersionConflict:
                return  # another node made it a moment ago
            log.info("tournament schedule %s: made %s, starting %s", entry.key, tid, start)
            if invite is not None:
                log.info(
                    "tournament %s is private: its link is /tournament/%s?invite=%s",
                    tid,
                    tid,
                    invite,
                )
        await self._fill(entry, tid)

    async def _fill(self, entry: ScheduleEntry, tid: str) -> None:
        """Register the entry's bots (again after a crash between the creation and
        the registration: the count is what the log lacks, so none is added twice)."""
        if not entry.bots:
            return
        d = await self.service.get(tid)
        if d.state.status != "registering":
            return
        for level, wanted in entry.bots.items():
            have = sum(1 for e in d.state.entrants.values() if e.bot == level)
            if have < wanted:
                await self.service.add_bots(d, level, wanted - have)
