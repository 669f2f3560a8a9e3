"""Player profiles: the rows written when a partita ends, and what a profile shows.

A row per user per finished partita (store/players.py) is written by an end
listener (`TableManager.end_listeners`) and, for partite whose node died before it
ran, by `catch_up` at start-up; both may try, the row's key keeps one. A profile
sums the rows: partite, statistics, the luck index and the playban.

A row per entrant per finished tournament (store/player_tournaments.py) gives the
profile's tournaments by an index, never by reading logs: written by the first
profile view after the tournament ends, or by the catch-up at start-up and every
minute, whichever comes first.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from ..record import RecordError
from ..store import RecordPlayer
from ..store.player_tournaments import PlayerTournamentRow, PlayerTournamentStore
from ..store.players import PartitaRow, PlayerStore
from .luck import luck
from .playban import WINDOW, Playban, check_sit, needs_clean_record, playban
from .stats import Stats, add, partita_stats
from .tournament_log import TournamentState, standings_view

if TYPE_CHECKING:
    from ..store import Store
    from ..tables.actor import TableActor

__all__ = [
    "ProfileService",
    "aggregate",
    "catch_up",
    "catch_up_tournaments",
    "current_playban",
    "partita_rows",
    "playban_guard",
    "record_partita",
    "record_tournament",
    "tournament_rows",
    "tournaments_of",
]

log = logging.getLogger("cirulla.profiles")

#: A profile view writes the rows of at most VIEW_TOURNAMENTS tournaments finished
#: within RECENT_TOURNAMENTS (so it stays quick); the rest are written by the
#: catch-up at start-up and every CATCH_UP_SECONDS (an anti-join on two indexes).
RECENT_TOURNAMENTS: Final = timedelta(days=2)
VIEW_TOURNAMENTS: Final = 20
CATCH_UP_SECONDS: Final = 60.0


def _forfeits_by_seat(record: Mapping[str, Any]) -> dict[int, str]:
    out: dict[int, str] = {}
    for rec in record.get("log") or []:
        if isinstance(rec, Mapping) and rec.get("type") == "forfeit":
            data = rec.get("data") or {}
            if isinstance(data.get("seat"), int):
                out[data["seat"]] = str(data.get("reason"))
    return out


def _score(totals: object, side: int) -> str:
    if not isinstance(totals, list) or not 0 <= side < len(totals):
        return ""
    ordered = [totals[side], *(t for i, t in enumerate(totals) if i != side)]
    return "-".join(str(t) for t in ordered)


def partita_rows(
    table_id: str, record: Mapping[str, Any], players: Sequence[RecordPlayer], ended: datetime
) -> list[PartitaRow]:
    """The rows of a saved record's players (pure). A record whose game does not
    replay still gives rows, with empty statistics, so it is not tried again."""
    game = record.get("game") if isinstance(record.get("game"), Mapping) else {}
    assert isinstance(game, Mapping)
    config = record.get("config") if isinstance(record.get("config"), Mapping) else {}
    assert isinstance(config, Mapping)
    seats = [s for s in record.get("seats") or [None]]
    people = bool(seats) and all(isinstance(s, Mapping) and not s.get("bot") for s in seats)
    try:
        stats: list[Stats] = partita_stats(game)
    except (RecordError, KeyError, TypeError, ValueError) as exc:
        log.warning("table %s: no statistics, the record does not replay: %s", table_id, exc)
        stats = []
    forfeits = _forfeits_by_seat(record)
    count = game.get("players")
    count = count if isinstance(count, int) else len(seats)
    return [
        PartitaRow(
            table_id=table_id,
            user_id=p.user_id,
            seat=p.seat,
            game=str(config.get("game", "cirulla")),
            preset=str(config.get("preset", "cirulla")),
            players=count,
            result="drawn" if p.won is None else ("won" if p.won else "lost"),
            people=people,
            private=bool(config.get("private", False)),
            forfeit=forfeits.get(p.seat),
            score=_score(game.get("totals"), p.side),
            stats=dict(stats[p.seat]) if p.seat < len(stats) else {},
            ended=ended,
        )
        for p in players
    ]


async def record_partita(store: Store, table_id: str) -> int:
    """Write the rows of one finished partita (those missing); how many were new."""
    players_store = PlayerStore(store)
    found = await players_store.record(table_id)
    if found is None:
        return 0
    record, ended = found
    players = await store.record_players(table_id)
    return await players_store.save(partita_rows(table_id, record, players, ended))


async def catch_up(store: Store, batch: int = 500) -> int:
    """Rows for every saved record that lacks them; how many were written."""
    players_store = PlayerStore(store)
    done: set[str] = set()
    written = 0
    while True:
        todo = [t for t in await players_store.missing(batch) if t not in done]
        if not todo:
            return written
        for table_id in todo:
            done.add(table_id)
            written += await record_partita(store, table_id)


class ProfileService:
    """Writes the rows: a partita's as it ends here (`on_table_end`, an end listener),
    and in the background (`start`) those no listener saw at start-up, and the
    finished tournaments' at start-up and every CATCH_UP_SECONDS."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._catch_up: asyncio.Task[int] | None = None
        self._tournaments: asyncio.Task[None] | None = None

    async def on_table_end(self, actor: TableActor) -> None:
        if actor.state.status == "finished":
            await record_partita(self.store, actor.id)

    def start(self) -> None:
        async def run() -> int:
            try:
                count = await catch_up(self.store)
            except Exception:
                log.exception("the profiles' catch-up failed; it runs again at the next start")
                return 0
            if count:
                log.info("wrote %d players' partite that no listener saw", count)
            return count

        async def tournaments() -> None:
            while True:
                try:
                    count = await catch_up_tournaments(self.store)
                except Exception:
                    log.exception("the tournaments' catch-up failed; it runs again later")
                else:
                    if count:
                        log.info("wrote %d entrants' tournament results", count)
                await asyncio.sleep(CATCH_UP_SECONDS)

        self._catch_up = asyncio.create_task(run())
        self._tournaments = asyncio.create_task(tournaments())

    async def wait(self) -> int:
        """(tests) The partite catch-up's count, once it is over."""
        return 0 if self._catch_up is None else await self._catch_up

    def close(self) -> None:
        for task in (self._catch_up, self._tournaments):
            if task is not None:
                task.cancel()


async def current_playban(
    store: Store, user_id: str, now: datetime | None = None
) -> Playban | None:
    """The playban in force for `user_id` now, if any (competition/playban.py)."""
    now = now or datetime.now(UTC)
    return playban(await PlayerStore(store).forfeits(user_id, now - WINDOW), now)


def playban_guard(store: Store) -> Callable[[str, Any], Awaitable[None]]:
    """A sit guard for `TableManager.sit_guards`: TableError "playban" when a banned
    player would sit at a rated or cash table."""

    async def guard(user_id: str, config: Any) -> None:
        if needs_clean_record(config):
            check_sit(await current_playban(store, user_id), config)

    return guard


def _rate(part: float, whole: float) -> float | None:
    return round(part / whole, 4) if whole else None


def aggregate(rows: Sequence[PartitaRow]) -> dict[str, Any]:
    """What a profile shows of its rows: partite, statistics and the luck index."""
    partite = {
        "played": len(rows),
        "won": sum(r.result == "won" for r in rows),
        "lost": sum(r.result == "lost" for r in rows),
        "drawn": sum(r.result == "drawn" for r in rows),
    }
    total: Stats = {}
    for r in rows:
        total = add(total, r.stats)
    g = total.get
    n = g("smazzate", 0)
    stats: dict[str, Any] = {}
    if total:
        stats = {
            "smazzate": int(n),
            "scope": int(g("scope", 0)),
            "scope_per_smazzata": _rate(g("scope", 0), n),
            "points_per_smazzata": _rate(g("points", 0), n),
            "primiera_rate": _rate(g("won_primiera", 0), n),
            "settebello_rate": _rate(g("won_settebello", 0), n),
            "denari_rate": _rate(g("won_diamonds", 0), n),
            "carte_rate": _rate(g("won_cards", 0), n),
            "accusi_declared": {
                "count": int(g("declared", 0)),
                "points": int(g("declared_points", 0)),
                "cirulla": int(g("declared_cirulla", 0)),
                "decino": int(g("declared_decino", 0)),
            },
            "accusi_received": {
                "hands": int(g("hands", 0)),
                "qualifying": int(g("hand_bonus", 0)),
                "cirulla": int(g("hand_cirulla", 0)),
                "decino": int(g("hand_decino", 0)),
                "qualifying_rate": _rate(g("hand_bonus", 0), g("hands", 0)),
            },
            "dealer_bonus": {
                "dealt": int(g("dealt", 0)),
                "count": int(g("dealer_bonus", 0)),
                "points": int(g("dealer_points", 0)),
                "quindici": int(g("dealer_quindici", 0)),
                "trenta": int(g("dealer_trenta", 0)),
                "scoring_rate": _rate(g("dealer_bonus", 0), g("dealt", 0)),
            },
        }
    return {"partite": partite, "stats": stats, "luck": _luck(total) if total else {}}


def _luck(total: Stats) -> dict[str, Any]:
    g = total.get
    received = g("hand_points", 0) + g("dealer_points", 0)
    expected = g("exp_hand_points", 0) + g("exp_dealer_points", 0)
    variance = g("var_hand_points", 0) + g("var_dealer_points", 0)
    out: dict[str, Any] = {
        "hands": int(g("hands", 0)),
        "hand_bonus": {
            "received": int(g("hand_bonus", 0)),
            "expected": round(g("exp_hand_bonus", 0), 2),
        },
        "decino": {"received": int(g("hand_decino", 0)), "expected": round(g("exp_decino", 0), 2)},
        "dealer_bonus": {
            "received": int(g("dealer_bonus", 0)),
            "expected": round(g("exp_dealer_bonus", 0), 2),
        },
    }
    out.update(luck(received, expected, variance).to_dict())
    return out


def tournament_rows(state: TournamentState, finished: datetime) -> list[PlayerTournamentRow]:
    """A finished tournament's rows (pure): each entrant who played, with the final
    rank of their side, bots included (with no user)."""
    standings = standings_view(state)
    rows = []
    for s in standings:
        for eid in s["side"]:
            e = state.entrants.get(eid)
            rows.append(
                PlayerTournamentRow(
                    tournament_id=state.id,
                    entrant=eid,
                    user_id=None if e is None else e.user,
                    name=state.name,
                    format=state.format,
                    private=state.private,
                    rank=s["rank"],
                    entrants=len(standings),
                    finished=finished,
                )
            )
    return rows


async def record_tournament(store: Store, tournament_id: str) -> int:
    """Write the rows of one finished tournament (those missing); how many were new.
    A log this version cannot fold gives rows without a rank, from the summary, so
    that it is not read again."""
    row = await store.tournaments.get(tournament_id)
    if row is None or row.status != "finished":
        return 0
    rows: list[PlayerTournamentRow] = []
    try:
        state = TournamentState.from_log(tournament_id, await store.tournaments.load_log(row.id))
        rows = tournament_rows(state, row.updated_at)
    except Exception:
        log.exception("tournament %s: no standings for the profiles", tournament_id)
    if not rows:
        entrants = [e for e in row.summary.get("entrants") or [] if isinstance(e, Mapping)]
        rows = [
            PlayerTournamentRow(
                row.id,
                str(e.get("id")),
                e.get("user"),
                row.name,
                row.format,
                row.private,
                None,
                len(entrants),
                row.updated_at,
            )
            for e in entrants
        ]
    return await PlayerTournamentStore(store).save(rows)


async def catch_up_tournaments(
    store: Store, since: datetime | None = None, most: int | None = None
) -> int:
    """Rows for every finished tournament without them (only those finished since
    `since`, if given: an index range; at most `most` tournaments, if given); how
    many rows were written."""
    tournaments = PlayerTournamentStore(store)
    done: set[str] = set()
    written = 0
    while most is None or len(done) < most:
        batch = 100 if most is None else min(100, most - len(done))
        todo = [t for t in await tournaments.missing(since, batch) if t not in done]
        if not todo:
            break
        for tid in todo:
            done.add(tid)
            written += await record_tournament(store, tid)
    return written


async def tournaments_of(store: Store, user_id: str, limit: int = 20) -> list[dict[str, Any]]:
    """The user's finished public tournaments, newest first, with their rank. A few
    of those finished lately are written first if no one has yet (the periodic
    catch-up writes the rest: `ProfileService`)."""
    await catch_up_tournaments(store, datetime.now(UTC) - RECENT_TOURNAMENTS, VIEW_TOURNAMENTS)
    return [
        {
            "id": r.tournament_id,
            "name": r.name,
            "format": r.format,
            "rank": r.rank,
            "entrants": r.entrants,
            "finished": r.finished.isoformat(),
        }
        for r in await PlayerTournamentStore(store).of_user(user_id, limit)
    ]
