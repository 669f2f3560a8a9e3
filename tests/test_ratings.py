"""Ratings: the libraries against their published examples, which partite are rated,
and the store's updates on SQLite and PostgreSQL (idempotent, no update lost when two
stores rate one player's partite at once, the catch-up in end order, leaderboards)."""

from __future__ import annotations

import asyncio
import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import glicko2
import pytest
from openskill.models import PlackettLuce
from test_store import Backend
from test_store import backend as backend  # the fixture: SQLite and PostgreSQL

from cirulla.competition.ratings import (
    INITIAL,
    MIN_DEVIATION,
    RatingService,
    bot_level_ratings,
    bot_ratings,
    decide,
    glicko_1v1,
    glicko_period,
    idle_growth,
    is_provisional,
    pairs_update,
)
from cirulla.eventlog import LogRecord
from cirulla.store import RecordPlayer, Store
from cirulla.store.ratings import RatingValue


# ---- the libraries' own examples -----------------------------------------------------------
def test_glicko2_reproduces_glickmans_paper_example() -> None:
    """Glickman, "Example of the Glicko-2 system": 1500/200 beats 1400/30, loses to
    1550/100 and 1700/300 -> 1464.06 / 151.52 (volatility 0.05999)."""
    player = glicko2.Player(1500, 200, 0.06)
    player.update_player([1400, 1550, 1700], [30, 100, 300], [1, 0, 0])
    assert player.rating == pytest.approx(1464.06, abs=0.05)
    assert player.rd == pytest.approx(151.52, abs=0.05)
    # ... and through our wrapper, the same figures
    new = glicko_period(
        RatingValue(1500, 200, 0.06),
        [
            (RatingValue(1400, 30, 0.06), 1.0),
            (RatingValue(1550, 100, 0.06), 0.0),
            (RatingValue(1700, 300, 0.06), 0.0),
        ],
    )
    assert new.rating == pytest.approx(1464.06, abs=0.05)
    assert new.deviation == pytest.approx(151.52, abs=0.05)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)


def test_openskill_reproduces_its_documented_example() -> None:
    """openskill.py's README: four new players, [a, b] beat [x, y] -> a is
    mu 26.964294621803063, sigma 8.177962604389991 (x: 23.035705378196937)."""
    model = PlackettLuce()
    r = model.rating
    [[a, _b], [x, _y]] = model.rate([[r(), r()], [r(), r()]])
    assert a.mu == pytest.approx(26.964294621803063, rel=1e-12)
    assert a.sigma == pytest.approx(8.177962604389991, rel=1e-12)
    assert x.mu == pytest.approx(23.035705378196937, rel=1e-12)


def test_pairs_update_is_the_documented_example_on_the_glicko_scale() -> None:
    """Our pairs model is openskill's defaults times 42 (1500 / 350 to start): the same
    example, scaled, gives the same result scaled."""
    scale = 350 / (25 / 3)
    new_a, new_b = pairs_update([INITIAL, INITIAL], [INITIAL, INITIAL], 1.0)
    for v in new_a:
        assert v.rating == pytest.approx(1500 + (26.964294621803063 - 25) * scale, rel=1e-9)
        assert v.deviation == pytest.approx(8.177962604389991 * scale, rel=1e-9)
    for v in new_b:
        assert v.rating == pytest.approx(1500 + (23.035705378196937 - 25) * scale, rel=1e-9)
    draw_a, draw_b = pairs_update([INITIAL, INITIAL], [INITIAL, INITIAL], 0.5)
    assert draw_a[0].rating == pytest.approx(1500) and draw_b[0].rating == pytest.approx(1500)


def test_glicko_1v1_moves_both_players_from_their_ratings_before() -> None:
    strong, weak = RatingValue(1700, 80, 0.06), RatingValue(1400, 80, 0.06)
    s_after, w_after = glicko_1v1(strong, weak, 0.0)  # the upset
    assert s_after.rating < 1700 and w_after.rating > 1400
    expected = glicko_period(weak, [(strong, 1.0)])
    assert w_after.rating == pytest.approx(expected.rating)
    # a win against a much weaker player gains little, an upset much
    s_win, _ = glicko_1v1(strong, weak, 1.0)
    assert 0 < s_win.rating - 1700 < w_after.rating - 1400


def test_idle_weeks_grow_the_deviation_up_to_its_cap() -> None:
    settled = RatingValue(1600, 60, 0.06)
    assert idle_growth(settled, timedelta(days=6)) == settled
    grown = idle_growth(settled, timedelta(days=70))
    assert 60 < grown.deviation < 350 and grown.rating == 1600
    assert idle_growth(settled, timedelta(days=10_000)).deviation <= 350
    assert glicko_1v1(RatingValue(1500, 45, 0.01), RatingValue(1500, 45, 0.01), 1)[
        0
    ].deviation == pytest.approx(MIN_DEVIATION)


def test_provisional_until_ten_partite_and_a_low_deviation() -> None:
    assert is_provisional("1v1", 3, 80)
    assert is_provisional("1v1", 30, 150)
    assert not is_provisional("1v1", 10, 100)
    assert not is_provisional("pairs", 40, 200)
    assert is_provisional("pairs", 40, 260)


# ---- which partite are rated ------------------------------------------------------------------
def _summary(players: int, winner: int | None = 0, bots: list[str | None] | None = None) -> dict:
    return {"winner": winner, "bots": bots or [None] * players, "players": ["x"] * players}


def _config(players: int = 2, **kw: Any) -> dict[str, Any]:
    return {"game": "cirulla", "preset": "cirulla", "players": players, "rated": True, **kw}


PAIRS = [("u0", 0, 0), ("u1", 1, 1), ("u2", 2, 0), ("u3", 3, 1)]


def test_decide_rates_1v1_and_pairs_of_people_by_family() -> None:
    one = decide(_config(2), _summary(2, winner=1), [("a", 0, 0), ("b", 1, 1)])
    assert (one.rated, one.game, one.mode, one.sides, one.score) == (
        True,
        "cirulla",
        "1v1",
        (("a",), ("b",)),
        0.0,
    )
    pairs = decide(_config(4, preset="cirullone"), _summary(4, winner=0), PAIRS)
    assert (pairs.game, pairs.mode, pairs.sides, pairs.score) == (
        "cirullone",
        "pairs",
        (("u0", "u2"), ("u1", "u3")),
        1.0,
    )
    scopa = decide(_config(2, preset="scopa"), _summary(2, 0), [("a", 0, 0), ("b", 1, 1)])
    assert (scopa.game, scopa.mode, scopa.score) == ("scopa", "1v1", 1.0)
    draw = decide(_config(2, preset="luzzati"), _summary(2, None), [("a", 0, 0), ("b", 1, 1)])
    assert (draw.game, draw.score) == ("cirulla", 0.5)


@pytest.mark.parametrize(
    ("config", "summary", "players", "reason"),
    [
        (_config(2, rated=False), _summary(2), [("a", 0, 0), ("b", 1, 1)], "unrated"),
        (_config(2, bots={"1": "facile"}), _summary(2), [("a", 0, 0)], "bot"),
        (_config(2), _summary(2, bots=[None, "normale"]), [("a", 0, 0)], "bot"),
        (_config(3), _summary(3), [("a", 0, 0), ("b", 1, 1), ("c", 2, 2)], "players"),
        (_config(2, game="cirulo"), _summary(2), [("a", 0, 0), ("b", 1, 1)], "game"),
        (_config(2), _summary(2), [("a", 0, 0), ("a", 1, 1)], "players"),
        (_config(4), _summary(4), PAIRS[:3], "players"),
    ],
)
def test_decide_leaves_out_unrated_bots_three_players_and_cirulo(
    config: dict[str, Any], summary: dict[str, Any], players: list[Any], reason: str
) -> None:
    decision = decide(config, summary, players)
    assert not decision.rated and decision.reason == reason


def test_bot_ratings_are_shipped_and_ordered_by_strength() -> None:
    data = bot_ratings()
    levels = data["levels"]
    assert data["anchor"]["level"] in levels
    assert levels[data["anchor"]["level"]]["rating"] == data["anchor"]["rating"]
    assert levels["random"]["rating"] < levels["facile"]["rating"] < levels["normale"]["rating"]
    assert (
        levels["normale"]["rating"] < levels["difficile"]["rating"] < levels["campione"]["rating"]
    )
    assert set(bot_level_ratings()) == {"facile", "normale", "difficile", "campione"}


# ---- the store, on SQLite and PostgreSQL ------------------------------------------------------


async def _users(store: Store, *names: str, guest: bool = False) -> list[str]:
    return [(await store.create_user(n, None if guest else "h", guest=guest)).id for n in names]


async def _finished(
    store: Store,
    table_id: str,
    users: list[str | None],
    *,
    winner: int | None = 0,
    at: datetime | None = None,
    bots: dict[int, str] | None = None,
    **config: Any,
) -> None:
    """A finished partita at `table_id`: table row, record and players, as a table saves."""
    n = len(users)
    cfg = {"game": "cirulla", "preset": "cirulla", "players": n, **config}
    if bots:
        cfg["bots"] = {str(k): v for k, v in bots.items()}
    first = LogRecord.first("created", {"config": cfg, "owner": None}, 1000)
    await store.create_table(
        table_id,
        game="cirulla",
        config=cfg,
        private=False,
        invite_hash=None,
        owner=None,
        first=first,
    )
    seats = [
        {"seat": i, "name": f"p{i}", "user": u, "bot": (bots or {}).get(i)}
        for i, u in enumerate(users)
    ]
    record = {"table": table_id, "seats": seats, "game": {"players": n, "winner": winner}}
    side = (lambda s: s % 2) if n == 4 else (lambda s: s)
    players = [
        RecordPlayer(u, i, side(i), None if winner is None else side(i) == winner)
        for i, u in enumerate(users)
        if u is not None
    ]
    await store.save_record(table_id, record, players, finished_at=at or datetime.now(UTC))


def test_a_partita_is_rated_once_whoever_rates_it(backend: Backend) -> None:
    async def check(store: Store) -> None:
        a, b = await _users(store, "Anna", "Bruno")
        await _finished(store, "t1", [a, b], winner=0)
        service = RatingService(store)
        assert await service.rate("t1") is True
        assert await service.rate("t1") is False  # the listener again, or the catch-up
        assert await service.catch_up() == 0
        expected_a, expected_b = glicko_1v1(INITIAL, INITIAL, 1.0)
        ra = (await service.store.of_user(a, "cirulla"))["1v1"]
        rb = (await service.store.of_user(b, "cirulla"))["1v1"]
        assert ra.rating == pytest.approx(expected_a.rating) and ra.rating > 1500
        assert rb.rating == pytest.approx(expected_b.rating) and rb.rating < 1500
        assert (ra.partite, rb.partite) == (1, 1)
        history = await service.store.history(a, "cirulla")
        assert [(h.table_id, h.mode, h.rating_before) for h in history] == [("t1", "1v1", 1500)]

    backend.run(check)


def test_unrated_partite_change_nothing_and_are_not_looked_at_again(backend: Backend) -> None:
    async def check(store: Store) -> None:
        a, b, c = await _users(store, "Anna", "Bruno", "Carla")
        await _finished(store, "bot", [a, None], bots={1: "facile"})
        await _finished(store, "private", [a, b], rated=False, private=True)
        await _finished(store, "three", [a, b, c])
        await _finished(store, "cirulo", [a, b], game="cirulo")
        service = RatingService(store)
        assert await service.catch_up() == 0
        assert await service.store.unseen() == []
        for user in (a, b, c):
            assert await service.store.of_user(user, "cirulla") == {}
        assert (await service.store.leaderboard("cirulla", "1v1")) == []

    backend.run(check)


def test_the_catch_up_rates_in_the_order_partite_ended(backend: Backend) -> None:
    async def check(store: Store) -> None:
        a, b = await _users(store, "Anna", "Bruno")
        start = datetime.now(UTC) - timedelta(hours=1)
        # made in another order than they ended
        for i, table in enumerate(["t3", "t1", "t2"]):
            at = start + timedelta(minutes=int(table[1]))
            await _finished(store, table, [a, b], winner=i % 2, at=at)
        service = RatingService(store)
        assert await service.catch_up() == 3
        history = await service.store.history(a, "cirulla")
        assert [h.table_id for h in history] == ["t1", "t2", "t3"]
        # each update started from the one before it
        assert history[0].rating_before == 1500
        for before, after in itertools.pairwise(history):
            assert after.rating_before == pytest.approx(before.rating)
        assert (await service.store.of_user(a, "cirulla"))["1v1"].partite == 3

    backend.run(check)


def test_two_stores_rating_one_players_partite_at_once_lose_no_update(backend: Backend) -> None:
    """Two nodes (two stores on one database) rate the same 12 partite of one player
    concurrently, each partita by both: every partita counts once and every update
    builds on another one (the chain of ratings has no fork)."""

    async def check(store: Store) -> None:
        other = await backend.open()
        try:
            hub, *rivals = await _users(store, "Hub", *(f"R{i}" for i in range(12)))
            tables = [f"t{i}" for i in range(12)]
            for i, (table, rival) in enumerate(zip(tables, rivals, strict=True)):
                await _finished(store, table, [hub, rival], winner=i % 2)
            one, two = RatingService(store), RatingService(other)
            done = await asyncio.gather(
                *(one.rate(t) for t in tables), *(two.rate(t) for t in reversed(tables))
            )
            assert sum(done) == 12
            row = (await one.store.of_user(hub, "cirulla"))["1v1"]
            assert row.partite == 12
            history = await one.store.history(hub, "cirulla")
            assert sorted(h.table_id for h in history) == sorted(tables)
            befores = sorted(h.rating_before for h in history)
            afters = sorted([1500.0] + [h.rating for h in history if h.rating != row.rating])
            assert befores == pytest.approx(afters)
        finally:
            await other.close()

    backend.run(check)


def test_pairs_and_the_leaderboards_weekly_and_all_time(backend: Backend) -> None:
    async def check(store: Store) -> None:
        a, b, c, d = await _users(store, "Anna", "Bruno", "Carla", "Dario")
        (g,) = await _users(store, "guest-1", guest=True)
        now = datetime.now(UTC)
        await _finished(store, "old", [a, b], winner=0, at=now - timedelta(days=10))
        await _finished(store, "new", [a, c], winner=1, at=now - timedelta(days=1))
        await _finished(store, "guest", [g, d], winner=0, at=now - timedelta(days=1))
        await _finished(store, "p", [a, b, c, d], winner=0, at=now - timedelta(hours=1))
        service = RatingService(store)
        assert await service.catch_up() == 4
        # seats 0 and 2 (Anna, Carla) beat seats 1 and 3 (Bruno, Dario)
        pairs = {u: (await service.store.of_user(u, "cirulla"))["pairs"] for u in (a, b, c, d)}
        assert pairs[a].rating == pytest.approx(pairs[c].rating) and pairs[a].rating > 1500
        assert pairs[b].rating == pytest.approx(pairs[d].rating) and pairs[b].rating < 1500
        assert all(p.volatility == 0 and p.partite == 1 for p in pairs.values())

        board = {r.name: r for r in await service.store.leaderboard("cirulla", "1v1")}
        assert set(board) == {"Anna", "Bruno", "Carla", "Dario"}  # not the guest
        assert all(r.rating_before is None for r in board.values())
        week = {
            r.name: r
            for r in await service.store.leaderboard(
                "cirulla", "1v1", since=now - timedelta(days=7)
            )
        }
        assert set(week) == {"Anna", "Carla", "Dario"}  # Bruno played 10 days ago only
        anna = await service.store.history(a, "cirulla")
        first_this_week = next(h for h in anna if h.table_id == "new")
        assert week["Anna"].rating_before == pytest.approx(first_this_week.rating_before)
        assert week["Anna"].row.rating < week["Anna"].rating_before  # she lost to Carla

        # best first; established ratings (here: 2 partite or more) before provisional ones
        ranked = [r.name for r in await service.store.leaderboard("cirulla", "1v1")]
        ratings = [board[n].row.rating for n in ranked]
        assert ratings == sorted(ratings, reverse=True)
        established = await service.store.leaderboard(
            "cirulla", "1v1", provisional=(2, 350.0), limit=2
        )
        assert established[0].name == "Anna"  # 2 partite, below Carla (1 partita)
        assert board["Anna"].row.rating < board["Carla"].row.rating and len(established) == 2

    backend.run(check)
