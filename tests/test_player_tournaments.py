"""The players' tournaments rows (store/player_tournaments.py, competition/profiles.py) on
SQLite and PostgreSQL: written once per entrant, found missing by an anti-join (and
by the updated_at range a profile view asks), read per user newest first with the
private ones left out of the public list, and a log that cannot be folded still
gives its entrants rows, without a rank, so that it is not read again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import text
from test_store import Backend
from test_store import backend as backend  # the fixture

from cirulla.competition.profiles import catch_up_tournaments, tournaments_of
from cirulla.eventlog import LogRecord
from cirulla.store import Store
from cirulla.store.player_tournaments import PlayerTournamentRow, PlayerTournamentStore

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


async def _tournament(
    store: Store, tid: str, *, private: bool, entrants: list[dict[str, object]]
) -> None:
    """A tournament row and a log this version cannot fold (the profile's fallback)."""
    await store.tournaments.create(
        tid,
        name=f"Coppa {tid}",
        format="swiss",
        config={},
        organiser=None,
        private=private,
        invite_hash=None,
        starts_at=None,
        summary={"entrants": entrants},
        first=LogRecord.first("created", {"not": "a tournament"}, 1000),
    )


async def _finish(store: Store, tid: str, at: datetime) -> None:
    async with store._write() as conn:
        await conn.execute(
            text("UPDATE tournaments SET status = 'finished', updated_at = :at WHERE id = :id"),
            {"at": at if store.dialect == "postgresql" else at.replace(tzinfo=None), "id": tid},
        )


def _row(
    tid: str, entrant: str, user: str | None, rank: int, private: bool, at: datetime
) -> PlayerTournamentRow:
    return PlayerTournamentRow(tid, entrant, user, f"Coppa {tid}", "swiss", private, rank, 3, at)


def test_rows_are_written_once_found_missing_and_read_per_user(backend: Backend) -> None:
    async def check(store: Store) -> None:
        anna = await store.create_user("anna", None)
        rows = PlayerTournamentStore(store)
        for tid, private in (("old", False), ("new", False), ("secret", True), ("live", False)):
            await _tournament(store, tid, private=private, entrants=[])
        await _finish(store, "old", NOW - timedelta(days=30))
        await _finish(store, "new", NOW - timedelta(hours=1))
        await _finish(store, "secret", NOW)
        assert await rows.missing() == ["old", "new", "secret"]  # oldest first; not "live"
        assert await rows.missing(since=NOW - timedelta(days=2)) == ["new", "secret"]

        old = [
            _row("old", "e1", anna.id, 2, False, NOW - timedelta(days=30)),
            _row("old", "e2", None, 1, False, NOW - timedelta(days=30)),  # a bot
        ]
        assert await rows.save(old) == 2
        assert await rows.save(old) == 0  # once
        assert await rows.missing() == ["new", "secret"]
        await rows.save([_row("secret", "e4", anna.id, 1, True, NOW)])
        await rows.save([_row("new", "e3", anna.id, 3, False, NOW - timedelta(hours=1))])
        assert [r.tournament_id for r in await rows.of_user(anna.id)] == ["new", "old"]
        mine = await rows.of_user(anna.id, private=True)
        assert [(r.tournament_id, r.rank) for r in mine] == [("secret", 1), ("new", 3), ("old", 2)]
        assert await rows.missing() == []

    backend.run(check)


def test_a_log_that_cannot_be_folded_gives_rows_without_a_rank(backend: Backend) -> None:
    async def check(store: Store) -> None:
        anna = await store.create_user("anna", None)
        entrants: list[dict[str, object]] = [
            {"id": "e1", "user": anna.id, "name": "anna", "bot": None},
            {"id": "e2", "user": None, "name": "Robot", "bot": "facile"},
        ]
        await _tournament(store, "odd", private=False, entrants=entrants)
        await _finish(store, "odd", datetime.now(UTC))
        # the profile view writes the rows of tournaments finished lately, once
        [shown] = await tournaments_of(store, anna.id)
        assert (shown["id"], shown["rank"], shown["entrants"]) == ("odd", None, 2)
        assert await catch_up_tournaments(store) == 0  # nothing left to read
        assert await PlayerTournamentStore(store).missing() == []

    backend.run(check)
