"""Ratings: which partite count, the updates (libraries, not hand-rolled maths), and
the service that rates every partita as it ends and catches up at start-up.

- 1 against 1: Glicko-2 (the `glicko2` package), each partita its own rating period,
  as lichess does; the deviation grows again by one Glicko-2 "did not compete"
  period per idle week.
- Pairs (2 against 2, seats 0+2 against 1+3): openskill's Plackett-Luce model, its
  defaults scaled by 42 so that a new player starts at 1500 with deviation 350, as on
  the Glicko-2 scale.
- One rating per game family (cirulla: every Cirulla preset; scopa; cirullone: every
  Cirullone preset) and mode. Cirulo and 3-player partite are not rated.
- A timeout or an abandon (E6) is rated as the partita's result: the offending side
  lost it. A draw (no winner) is a draw.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Final

import glicko2  # type: ignore[import-untyped]
from openskill.models import PlackettLuce

from ..bots.levels import LEVELS
from ..store.ratings import RatingRow, RatingStore, RatingValue, Unseen, Updater

if TYPE_CHECKING:
    from ..store import Store
    from ..tables.actor import TableActor

__all__ = [
    "FAMILIES",
    "INITIAL",
    "MODES",
    "Decision",
    "RatingService",
    "bot_ratings",
    "decide",
    "glicko_1v1",
    "glicko_period",
    "is_provisional",
    "pairs_update",
]

log = logging.getLogger("cirulla.ratings")

#: The game family each Cirulla preset is rated in.
FAMILIES: Final = {
    "cirulla": "cirulla",
    "pagat": "cirulla",
    "luzzati": "cirulla",
    "dossena": "cirulla",
    "scopa": "scopa",
    "cirullone": "cirullone",
    "cirullone-6-3": "cirullone",
    "cirullone-3-6": "cirullone",
}
GAMES: Final = ("cirulla", "scopa", "cirullone")
#: Seats at the table -> mode.
MODES: Final = {2: "1v1", 4: "pairs"}

#: A new player: Glicko-2's defaults (and openskill's, scaled to them).
INITIAL: Final = RatingValue(1500.0, 350.0, 0.06)
MAX_DEVIATION: Final = 350.0
#: Lichess keeps a deviation of at least 45 so that a rating never stops moving.
MIN_DEVIATION: Final = 45.0
#: A rating is provisional for its first partite and while its deviation is high.
PROVISIONAL_PARTITE: Final = 10
PROVISIONAL_DEVIATION: Final = {"1v1": 110.0, "pairs": 230.0}
#: Idle time after which a 1v1 deviation grows by one Glicko-2 period.
IDLE_PERIOD: Final = timedelta(days=7)

#: openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300) times this.
_SCALE: Final = INITIAL.deviation / (25.0 / 3.0)
_PAIRS: Final = PlackettLuce(
    mu=INITIAL.rating,
    sigma=INITIAL.deviation,
    beta=25.0 / 6.0 * _SCALE,
    tau=25.0 / 300.0 * _SCALE,
    kappa=0.0001 * _SCALE * _SCALE,
)


def _clamp(deviation: float) -> float:
    return min(MAX_DEVIATION, max(MIN_DEVIATION, deviation))


def idle_growth(value: RatingValue, idle: timedelta) -> RatingValue:
    """The deviation after `idle` time without a rated partita (Glicko-2 step 6 once
    per whole idle period, by the library)."""
    periods = min(52, int(idle / IDLE_PERIOD)) if idle > timedelta(0) else 0
    if periods == 0:
        return value
    player = glicko2.Player(value.rating, value.deviation, value.volatility)
    for _ in range(periods):
        player.did_not_compete()
    return RatingValue(value.rating, _clamp(player.rd), value.volatility)


def glicko_period(me: RatingValue, results: Sequence[tuple[RatingValue, float]]) -> RatingValue:
    """`me` after one Glicko-2 rating period with these (opponent, score) results, by
    the library (the deviation unclamped)."""
    player = glicko2.Player(me.rating, me.deviation, me.volatility)
    player.update_player(
        [o.rating for o, _ in results], [o.deviation for o, _ in results], [s for _, s in results]
    )
    return RatingValue(float(player.rating), float(player.rd), float(player.vol))


def glicko_1v1(a: RatingValue, b: RatingValue, score_a: float) -> tuple[RatingValue, RatingValue]:
    """Both players' ratings after one partita (score 1 = A won, 0.5 a draw), each
    updated from the other's rating before it: one partita, one rating period."""

    def one(me: RatingValue, other: RatingValue, score: float) -> RatingValue:
        new = glicko_period(me, [(other, score)])
        return RatingValue(new.rating, _clamp(new.deviation), new.volatility)

    return one(a, b, score_a), one(b, a, 1.0 - score_a)


def pairs_update(
    side_a: Sequence[RatingValue], side_b: Sequence[RatingValue], score_a: float
) -> tuple[list[RatingValue], list[RatingValue]]:
    """Both pairs' ratings after one partita, by openskill's Plackett-Luce model."""
    teams = [
        [_PAIRS.rating(mu=v.rating, sigma=v.deviation) for v in side_a],
        [_PAIRS.rating(mu=v.rating, sigma=v.deviation) for v in side_b],
    ]
    ranks = [1.0, 1.0] if score_a == 0.5 else ([1.0, 2.0] if score_a > 0.5 else [2.0, 1.0])
    new_a, new_b = _PAIRS.rate(teams, ranks=ranks)
    return (
        [RatingValue(float(r.mu), _clamp(float(r.sigma)), 0.0) for r in new_a],
        [RatingValue(float(r.mu), _clamp(float(r.sigma)), 0.0) for r in new_b],
    )


def is_provisional(mode: str, partite: int, deviation: float) -> bool:
    """Marked provisional until PROVISIONAL_PARTITE partite and a low enough deviation."""
    return partite < PROVISIONAL_PARTITE or deviation > PROVISIONAL_DEVIATION.get(mode, 110.0)


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether a finished partita is rated; if so where, who and how it went."""

    rated: bool
    reason: str = ""  # why not
    game: str = ""
    mode: str = ""
    #: The users on each side (side 0 first).
    sides: tuple[tuple[str, ...], ...] = ()
    #: Side 0's score: 1 won, 0 lost, 0.5 drawn.
    score: float = 0.5


def _no(reason: str) -> Decision:
    return Decision(False, reason)


def decide(
    config: Mapping[str, Any],
    summary: Mapping[str, Any],
    players: Sequence[tuple[str, int, int]],
) -> Decision:
    """Rated iff the table's `rated` is true, it is a Cirulla/Scopa/Cirullone partita of
    2 or 4 seats, and every seat is a person (no bot, nobody twice)."""
    if config.get("rated", True) is not True:
        return _no("unrated")
    if config.get("game", "cirulla") != "cirulla":
        return _no("game")
    game = FAMILIES.get(str(config.get("preset", "cirulla")))
    count = config.get("players")
    if game is None:
        return _no("game")
    if not isinstance(count, int) or count not in MODES:
        return _no("players")
    bots = summary.get("bots")
    if config.get("bots") or (isinstance(bots, list) and any(b is not None for b in bots)):
        return _no("bot")
    seats = {seat for _, seat, _ in players}
    users = {user for user, _, _ in players}
    if len(players) != count or seats != set(range(count)) or len(users) != count:
        return _no("players")
    winner = summary.get("winner")
    if winner is not None and winner not in (0, 1):
        return _no("result")
    score = 0.5 if winner is None else (1.0 if winner == 0 else 0.0)
    sides = tuple(
        tuple(user for user, _, side in sorted(players, key=lambda p: p[1]) if side == s)
        for s in (0, 1)
    )
    if len(sides[0]) != count // 2 or len(sides[1]) != count // 2:
        return _no("players")
    return Decision(True, "", game, MODES[count], sides, score)


def _updater(decision: Decision, at: datetime) -> Updater:
    """The function the store calls with the locked rows: the new rating of each user."""

    def update(current: Mapping[str, RatingRow]) -> dict[str, RatingValue]:
        def now(user: str) -> RatingValue:
            row = current[user]
            if decision.mode != "1v1" or row.partite == 0:
                return row.value
            return idle_growth(row.value, at - row.updated_at)

        side_a = [now(u) for u in decision.sides[0]]
        side_b = [now(u) for u in decision.sides[1]]
        if decision.mode == "1v1":
            new_a, new_b = glicko_1v1(side_a[0], side_b[0], decision.score)
            return {decision.sides[0][0]: new_a, decision.sides[1][0]: new_b}
        pairs_a, pairs_b = pairs_update(side_a, side_b, decision.score)
        return dict(zip(decision.sides[0] + decision.sides[1], pairs_a + pairs_b, strict=True))

    return update


@cache
def bot_ratings() -> dict[str, Any]:
    """The bots' measured ratings (benchmarks/bot_ratings.py writes the file)."""
    try:
        text = resources.files("cirulla").joinpath("data/bot_ratings.json").read_text()
    except (FileNotFoundError, OSError):
        return {}
    data = json.loads(text)
    return data if isinstance(data, dict) else {}


def bot_level_ratings() -> dict[str, float]:
    """Each player-facing level's fixed rating (1 against 1, Cirulla), rounded."""
    levels = bot_ratings().get("levels", {})
    return {
        name: round(float(levels[name]["rating"]), 1)
        for name in LEVELS
        if isinstance(levels.get(name), dict)
    }


class RatingService:
    """Rates each partita as it ends (a `TableManager` end listener), and at start-up
    every finished partita not looked at yet, in the order they ended."""

    def __init__(self, store: Store) -> None:
        self.store = RatingStore(store)
        self._catch_up: asyncio.Task[int] | None = None

    async def on_table_end(self, actor: TableActor) -> None:
        """The end listener: after the start-up catch-up, so that order holds."""
        if self._catch_up is not None and not self._catch_up.done():
            await asyncio.shield(self._catch_up)
        await self.rate(actor.id)

    async def rate(self, table_id: str) -> bool:
        """Rate the finished partita at `table_id` unless done; True if it was now."""
        unseen = await self.store.unseen_one(table_id)
        return False if unseen is None else await self._rate(unseen)

    async def _rate(self, partita: Unseen) -> bool:
        decision = decide(partita.config, partita.summary, partita.players)
        if not decision.rated:
            await self.store.mark_unrated(partita.table_id, decision.reason, partita.finished_at)
            return False
        return await self.store.apply(
            partita.table_id,
            game=decision.game,
            mode=decision.mode,
            users=[u for side in decision.sides for u in side],
            at=partita.finished_at,
            initial=INITIAL,
            updater=_updater(decision, partita.finished_at),
        )

    async def catch_up(self) -> int:
        """Look at every finished partita not looked at yet, oldest first; how many
        were rated."""
        rated = 0
        while True:
            batch = await self.store.unseen()
            if not batch:
                return rated
            for partita in batch:
                rated += await self._rate(partita)

    def start(self) -> None:
        """Run the catch-up in the background (a large old database takes a while)."""

        async def run() -> int:
            try:
                count = await self.catch_up()
            except Exception:
                log.exception("the ratings' catch-up failed; it runs again at the next start")
                return 0
            if count:
                log.info("rated %d partite finished while no listener ran", count)
            return count

        self._catch_up = asyncio.create_task(run())

    async def caught_up(self) -> None:
        if self._catch_up is not None:
            await asyncio.shield(self._catch_up)

    def close(self) -> None:
        if self._catch_up is not None:
            self._catch_up.cancel()
