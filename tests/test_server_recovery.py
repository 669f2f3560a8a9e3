"""Crash recovery: a server killed with SIGKILL comes back with every table as it was.

Tables are folds of their event logs, and every accepted event is in the database
before anyone hears of it; so a server started again on the same database rebuilds
each table exactly, the seeds of smazzate in play included. Clients reconnect with
`join` and the version they last saw, and the partite go on to the end, where
`cirulla verify` accepts their records. On SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import copy
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serverutil import Player, throwaway_pg_database
from sqlalchemy.engine import make_url
from test_server_play import (
    assert_finished_consistently,
    assert_verifies,
    assert_versions_follow_on,
    catch_up,
    fetch_record,
    guests,
    last_view,
    open_table,
    play_until,
    reconnect,
    second_socket,
    start_server,
    table_frames,
)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """None (SQLite in the data directory), or a throwaway PostgreSQL database."""
    if request.param == "sqlite":
        yield None
        return
    with throwaway_pg_database() as url:
        yield url


def event_frames(player: Player, table: str, first: int, last: int) -> list[dict[str, Any]]:
    frames = [
        f for f in table_frames(player, table) if f["type"] == "event" and first <= f["version"]
    ]
    return [f for f in frames if f["version"] <= last]


def _no_history(view: dict[str, Any]) -> dict[str, Any]:
    """A table view without its deal's history, which a client builds from the events."""
    deal = view.get("deal")
    return {**view, "deal": None if deal is None else {**deal, "history": None}}


def _no_view(frame: dict[str, Any]) -> dict[str, Any]:
    """An event frame without its view or the view's changes (which only the last frame
    of a batch carries, as one or the other)."""
    return {k: v for k, v in frame.items() if k not in ("view", "changes")}


def test_every_table_is_rebuilt_exactly_after_a_crash(
    tmp_path: Path, database_url: str | None
) -> None:
    with start_server(tmp_path, database_url=database_url) as server:
        anna, bruno, carla, dario, elena, spectator = guests(server, 6)
        rng = random.Random(11)
        # A: two people and two bots, four seats, stopped in the middle of a hand
        bots = {"1": "normale", "3": "facile"}
        a, a_people = open_table(
            anna, [bruno], {"options": {"hands": 2}, "bots": bots}, [spectator]
        )
        play_until(
            a,
            a_people,
            [spectator],
            rng=rng,
            stop=lambda v: v["deal"]["to_move"] in a_people and len(v["deal"]["history"]) > 6,
        )
        # B: two people face to face, a few moves in
        b, b_people = open_table(carla, [dario], {"players": 2, "options": {"hands": 1}})
        play_until(b, b_people, rng=rng, stop=lambda v: len(v["deal"]["history"]) > 5)
        # C: open, one seat of three taken
        c, _ = open_table(elena, [], {"players": 3, "options": {"hands": 1}})
        watchers = {
            a: [anna, bruno, spectator],
            b: [carla, dario],
            c: [elena],
        }
        before = {
            (t, i): (p.version[t], copy.deepcopy(last_view(p, t)))
            for t, ps in watchers.items()
            for i, p in enumerate(ps)
        }
        assert last_view(anna, a)["status"] == "playing"
        assert last_view(anna, a)["commitments"].keys() == {"0"}
        assert last_view(anna, a)["revealed"] == {}
        assert last_view(elena, c)["status"] == "open"

        server.kill()
        server.start()

        for t, ps in watchers.items():
            for i, p in enumerate(ps):
                version, view = before[(t, i)]
                reconnect(p)
                mark = len(p.frames)
                # nothing was missed: the table is at the version seen before the crash
                assert p.join(t, since=version) == {
                    "type": "ack",
                    "action": p.frames[-1]["action"],
                    "version": version,
                }
                assert [f for f in p.frames[mark:] if f.get("table") == t] == []
                # a connection that asks for the last events gets them again, the same as
                # before the crash, and the last one's view is the view of then
                first = max(1, version - 2)
                again = second_socket(p)
                assert again.join(t, since=first - 1)["version"] == version
                resent = [f for f in again.frames if f.get("table") == t]
                assert [f["version"] for f in resent] == list(range(first, version + 1))
                # (all but the deal's history: this connection heard only the last events)
                assert _no_history(resent[-1]["view"]) == _no_history(view)
                # and a connection that asks for everything gets the view of then, whole
                fresh = second_socket(p)
                fresh.join(t)
                assert fresh.views[t] == view
                fresh.close()
                heard = event_frames(p, t, first, version)
                if len(heard) == len(resent):  # p heard them as events, not in a sync
                    assert [_no_view(f) for f in resent] == [_no_view(f) for f in heard]
                # and one that asks for everything gets the same view in a sync
                fresh = second_socket(p)
                assert fresh.join(t)["version"] == version
                synced = [f for f in fresh.frames if f.get("table") == t]
                assert [f["type"] for f in synced] == ["sync"]
                assert synced[0]["view"] == view
                again.close()
                fresh.close()

        # the partite go on where they were, versions following on
        records = {}
        for t, people in ((a, a_people), (b, b_people)):
            version = before[(t, 0)][0]
            play_until(t, people, [spectator] if t == a else [], rng=rng)
            for p in watchers[t]:
                after_crash = [f for f in table_frames(p, t) if f["version"] > version]
                assert after_crash[0]["version"] == version + 1
                assert_versions_follow_on(p, t)
            records[t] = fetch_record(watchers[t][0], t)
            assert_finished_consistently(t, people.values(), records[t])
            assert_verifies(records[t], tmp_path)
        # the smazzata in play at the crash kept its seed: the one revealed after it
        # matches the commitment published before (cirulla verify checked the match)
        commitment = before[(a, 0)][1]["commitments"]["0"]
        first_commit = next(r for r in records[a]["log"] if r["type"] == "committed")
        assert first_commit["data"]["commitment"] == commitment
        assert first_commit["version"] < before[(a, 0)][0]
        # the open table still takes players, and its partita is played
        filippo, giulia = guests(server, 2)
        for p in (filippo, giulia):
            assert p.join(c)["type"] == "ack"
            assert p.sit(c)["type"] == "ack"
        c_people = {0: elena, 1: filippo, 2: giulia}
        for seat, p in c_people.items():
            catch_up(p, c, giulia.version[c])
            assert last_view(p, c)["you"] == seat
        play_until(c, c_people, rng=rng)
        record = fetch_record(elena, c)
        assert_finished_consistently(c, c_people.values(), record)
        assert_verifies(record, tmp_path)
        assert_versions_follow_on(elena, c)


def test_a_crash_in_the_pause_between_two_smazzate(
    tmp_path: Path, database_url: str | None
) -> None:
    """Killed after a smazzata was revealed and before the next was committed: the
    restarted server deals the next one itself, after its pause, and the partita ends."""
    with start_server(tmp_path, database_url=database_url, deal_pause=3.0) as server:
        config = {"players": 2, "options": {"hands": 2}, "bots": {"1": "normale"}}
        for _ in range(5):  # a first smazzata may end the partita (cappotto): play another
            (anna,) = guests(server, 1)
            table, people = open_table(anna, [], config)
            play_until(table, people, stop=lambda v: v["deal"]["is_over"])
            if last_view(anna, table)["status"] == "playing":
                break
        view = copy.deepcopy(last_view(anna, table))
        assert view["revealed"].keys() == {"0"} and view["commitments"].keys() == {"0"}
        version = anna.version[table]
        server.kill()
        server.start()
        reconnect(anna)
        assert anna.join(table, since=version)["version"] == version
        fresh = second_socket(anna)
        fresh.join(table)
        assert fresh.views[table] == view
        fresh.close()
        # the next smazzata is committed by the restarted server, then played out
        committed = anna.recv_until(
            lambda f: f.get("type") == "event" and f["event"]["type"] == "committed", timeout=10
        )
        assert committed["version"] == version + 1 and committed["event"]["deal"] == 1
        play_until(table, people)
        record = fetch_record(anna, table)
        assert_finished_consistently(table, [anna], record)
        assert_versions_follow_on(anna, table)
        assert len(record["game"]["deals"]) >= 2
        assert_verifies(record, tmp_path)


def test_a_command_repeated_after_a_crash_is_not_applied_twice(tmp_path: Path) -> None:
    """A client that sent a move and lost the server before it knew the answer sends the
    same action again: the move is not made twice (the answer is the first one repeated,
    or `stale` and a sync showing the move made)."""
    with start_server(tmp_path) as server:
        anna, bruno = guests(server, 2)
        table, people = open_table(anna, [bruno], {"players": 2, "options": {"hands": 1}})
        seat = last_view(anna, table)["deal"]["to_move"]
        mover, waiter = people[seat], people[1 - seat]
        before = mover.version[table]
        move = last_view(mover, table)["deal"]["legal_moves"][0]
        frame = {"type": "play", "table": table, "version": before, "move": move, "action": "m1"}
        first = mover.command(dict(frame))
        assert first["type"] == "ack"
        after = first["version"]
        catch_up(waiter, table, after)
        server.kill()
        server.start()
        for p in (mover, waiter):
            reconnect(p)
            assert p.join(table, since=after)["version"] == after
        again = mover.command(dict(frame))
        if again["type"] == "ack":
            assert again == {**first, "repeated": True}
        else:
            assert again["code"] == "stale", again
            sync = mover.recv_until(lambda f: f["type"] == "sync")
            assert sync["version"] == after
            assert [e["move"] for e in sync["view"]["deal"]["history"] if e["type"] == "play"] == [
                move
            ]
        for p in (mover, waiter):
            p.drain(0.3)
            assert p.version[table] == after
        record_moves = [
            f["event"]["move"]
            for f in table_frames(waiter, table)
            if f["type"] == "event" and f["event"]["type"] == "move"
        ]
        assert record_moves.count(move) == 1


# ---- what a crash must not lose at the end of a partita ------------------------------------


def test_a_finished_table_can_still_be_joined_after_a_restart(tmp_path: Path) -> None:
    """A client that missed the end of its partita (its socket dropped, then the server
    restarted) reconnects with `since` and hears how it ended, as it would have had
    the server not restarted (finished tables stay reachable for a while)."""
    with start_server(tmp_path) as server:
        anna, bruno = guests(server, 2)
        table, people = open_table(anna, [bruno], {"players": 2, "options": {"hands": 1}})
        play_until(table, people, stop=lambda v: len(v["deal"]["history"]) > 3)
        version = anna.version[table]
        anna.close()
        # anna's other device plays on to the end while this one is away
        other = second_socket(anna)
        assert other.join(table)["type"] == "ack"
        seat = last_view(other, table)["you"]
        play_until(table, {seat: other, 1 - seat: bruno})
        server.kill()
        server.start()
        reconnect(anna)
        answer = anna.join(table, since=version)
        assert answer["type"] == "ack", answer
        assert last_view(anna, table)["status"] == "finished"


class HeldLock:
    """A PostgreSQL transaction, in a thread of its own, holding a lock until released."""

    def __init__(self, url: str, sql: str) -> None:
        self.url = make_url(url).set(drivername="postgresql").render_as_string(False)
        self.sql = sql
        self.locked = threading.Event()
        self.release = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._hold()), daemon=True)

    async def _hold(self) -> None:
        import asyncpg

        try:
            conn = await asyncpg.connect(self.url, timeout=5)
            try:
                async with conn.transaction():
                    await conn.execute(self.sql)
                    self.locked.set()
                    while not self.release.is_set():
                        await asyncio.sleep(0.05)
            finally:
                await conn.close()
        except BaseException as exc:
            self.error = exc
            self.locked.set()

    def __enter__(self) -> HeldLock:
        self.thread.start()
        assert self.locked.wait(10) and self.error is None, self.error
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.thread.join(10)


async def _pg_fetch(url: str, sql: str, *args: Any) -> list[Any]:
    import asyncpg

    conn = await asyncpg.connect(make_url(url).set(drivername="postgresql").render_as_string(False))
    try:
        return list(await conn.fetch(sql, *args))
    finally:
        await conn.close()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_partita_that_ended_just_before_a_crash_keeps_its_record(
    tmp_path: Path, database_url: str | None
) -> None:
    """The `ended` event is written, then the record: a crash between the two must not
    lose the record (nor the partita from its players' history). The window is held open
    by locking the records table in PostgreSQL while the partita ends."""
    assert database_url is not None
    with start_server(tmp_path, database_url=database_url) as server:
        (anna,) = guests(server, 1)
        config = {"players": 2, "options": {"hands": 1}, "bots": {"1": "normale"}}
        table, people = open_table(anna, [], config)
        with HeldLock(database_url, "LOCK TABLE records IN ACCESS EXCLUSIVE MODE"):
            # the record cannot be written now: the last batch (and its ack) never comes
            with pytest.raises(TimeoutError):
                play_until(table, people, timeout=3)
            ended = asyncio.run(
                _pg_fetch(
                    database_url,
                    "SELECT version FROM table_events WHERE table_id = $1 AND type = 'ended'",
                    table,
                )
            )
            assert len(ended) == 1, "the partita has ended in the log"
            server.kill()
        server.start()
        r = anna.http.get(f"/api/records/{table}")
        assert r.status_code == 200, f"the record of the partita is lost: {r.text}"
        assert_verifies(r.json(), tmp_path)
        history = anna.http.get("/api/history").json()["history"]
        assert [h["table"] for h in history] == [table]


# ---- a join while a write is in flight -------------------------------------------------------


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_join_while_a_move_is_being_written_sees_each_version_once(
    tmp_path: Path, database_url: str | None
) -> None:
    """A client that joins while a move is being written (the database is slow) must not
    see that move twice, nor a view of another version than its frame's: it gets the
    table as stored, then the move's event once stored. The write is held up by locking
    the events table in PostgreSQL."""
    assert database_url is not None
    with start_server(tmp_path, database_url=database_url) as server:
        anna, bruno, carla = guests(server, 3)
        table, people = open_table(anna, [bruno], {"players": 2, "options": {"hands": 1}})
        seat = last_view(anna, table)["deal"]["to_move"]
        mover = people[seat]
        before = mover.version[table]
        move = last_view(mover, table)["deal"]["legal_moves"][0]
        late = second_socket(anna)  # anna's other tab, which missed the last event
        with HeldLock(database_url, "LOCK TABLE table_events IN EXCLUSIVE MODE"):
            played = mover.send({"type": "play", "table": table, "version": before, "move": move})
            time.sleep(0.5)  # the move is being written, held up by the lock
            joins = [
                (carla, carla.send({"type": "join", "table": table, "since": None})),
                (late, late.send({"type": "join", "table": table, "since": before - 1})),
            ]
            time.sleep(0.5)
        for p, action in [(mover, played), *joins]:
            answer = p.recv_until(lambda f, a=action: f.get("action") == a)
            assert answer["type"] == "ack", answer
        for p in (carla, late):
            catch_up(p, table, before + 1)
            p.drain(0.3)
            frames = table_frames(p, table)
            versions = [f["version"] for f in frames]
            assert len(versions) == len(set(versions)), f"a version came twice: {versions}"
            for f in frames:
                if "view" in f:
                    assert f["view"]["version"] == f["version"], (
                        f"frame {f['version']} carries the view of {f['view']['version']}"
                    )
            # the move, and whatever it set off by itself (an automatic declaration)
            assert versions[-1] >= before + 1 and versions == sorted(versions)
