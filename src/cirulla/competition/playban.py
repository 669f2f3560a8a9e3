"""Playban: repeated abandons cost a short ban from rated and cash tables (lichess style).

Pure: the ban is a function of the player's forfeits (a timeout or an abandon that
lost a partita between people, E6) and the time now, so nothing is stored but the
partite themselves and a ban can never drift from them.

Each forfeit is a strike. Strikes decay: one is forgiven for every DECAY of clean
play before the next forfeit. The n-th standing strike bans the player for
DURATIONS[n - 1] from the time of that forfeit (the first costs nothing, then 10
minutes, 30 minutes, 1 hour, 3 hours, and 24 hours from the sixth on). Only
forfeits of the last WINDOW are read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from ..tables.errors import TableError

__all__ = [
    "DECAY",
    "DURATIONS",
    "WINDOW",
    "Playban",
    "check_sit",
    "forfeits_of",
    "needs_clean_record",
    "playban",
]

#: The ban of the 1st, 2nd, ... standing strike; the last repeats.
DURATIONS: Final = (
    timedelta(0),
    timedelta(minutes=10),
    timedelta(minutes=30),
    timedelta(hours=1),
    timedelta(hours=3),
    timedelta(hours=24),
)
#: Clean time that forgives one strike.
DECAY: Final = timedelta(hours=24)
#: How far back forfeits are read (long enough for six strikes to stand).
WINDOW: Final = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class Playban:
    until: datetime
    strikes: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"until": self.until.isoformat(), "strikes": self.strikes, "reason": self.reason}


def playban(forfeits: Iterable[tuple[datetime, str]], now: datetime) -> Playban | None:
    """The ban in force at `now`, given the player's forfeits as (time, "timeout" |
    "abandon"), in any order; None if there is none."""
    strikes = 0
    last: datetime | None = None
    reason = ""
    for at, why in sorted(f for f in forfeits if now - WINDOW <= f[0] <= now):
        if last is not None:
            strikes = max(0, strikes - int((at - last) / DECAY))
        strikes += 1
        last, reason = at, why
    if last is None:
        return None
    until = last + DURATIONS[min(strikes, len(DURATIONS)) - 1]
    if until <= now:
        return None
    last_one = "an abandon" if reason == "abandon" else "a timeout"
    return Playban(until, strikes, f"{strikes} forfeits standing, the last {last_one}")


def needs_clean_record(config: Any) -> bool:
    """Whether a table is one a playban keeps the player from: rated (the default,
    also when the config predates the option) or cash (a stake above 0)."""
    return bool(getattr(config, "rated", True)) or int(getattr(config, "stake", 0) or 0) > 0


def check_sit(ban: Playban | None, config: Any) -> None:
    """TableError "playban" if `ban` keeps the player from sitting at this table."""
    if ban is None or not needs_clean_record(config):
        return
    raise TableError(
        "playban",
        f"you may not sit at rated or cash tables until {ban.until.isoformat()}: {ban.reason}."
        " Unrated tables without stakes are open to you.",
    )


def forfeits_of(rows: Iterable[Mapping[str, Any]]) -> list[tuple[datetime, str]]:
    """The (ended, reason) of the rows whose player forfeited (rows of store/players.py)."""
    return [(r["ended"], r["forfeit"]) for r in rows if r.get("forfeit")]
