"""The chips ledger: movements, idempotency, balances, the cash settlement (M1, E6) as
pure functions, and `LedgerStore.check` catching corrupted rows, on SQLite and PostgreSQL,
also through `cirulla ledger check` run as a command (exit 0, 1 naming the rows, 2)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from serverutil import throwaway_pg_database
from sqlalchemy import text
from test_store import Backend, new_table
from test_store import backend as backend  # the fixture

from cirulla.competition.cash import table_movements
from cirulla.eventlog import LogRecord
from cirulla.store import NameTaken, Store
from cirulla.store.ledger import (
    MINT,
    DuplicateMovement,
    InsufficientChips,
    Movement,
    NoTopup,
    Posting,
    escrow,
    wallet,
    welcome_grant,
)
from cirulla.tables.config import TableConfig
from cirulla.tables.state import Seat, TableState

# ---- pure: movements and the cash table's settlement ----------------------------------------


def test_a_movement_must_sum_to_zero() -> None:
    with pytest.raises(ValueError, match="sum to zero"):
        Movement("k", (Posting(MINT, -5, "welcome"), Posting(wallet("u"), 4, "welcome")))
    with pytest.raises(ValueError, match="unknown entry kind"):
        Movement("k", (Posting(MINT, -5, "gift"), Posting(wallet("u"), 5, "gift")))


def _cash_table(players: int = 2, stake: int = 10, max_loss: int = 100) -> TableState:
    config = TableConfig(
        players=players, stake=stake, max_loss=max_loss, options={"target": 11}
    ).model_dump(mode="json")
    first = LogRecord.first("created", {"config": config, "owner": "u0"}, 1000)
    return TableState.from_log("T", [first])


def _sat(state: TableState, seat: int, user: str) -> list[LogRecord]:
    assert state.last is not None
    rec = state.last.next(
        "sat", {"seat": seat, "user": user, "name": user, "bot": None, "auto_declare": True}, 1
    )
    state.apply(rec)
    return [rec]


def test_sitting_escrows_the_max_loss_and_standing_releases_it() -> None:
    st = _cash_table()
    before = list(st.seats)
    [m] = table_movements(st, before, _sat(st, 0, "u0"))
    assert m.key == "escrow:T:u0:2"
    assert {(p.account.id, p.amount, p.kind) for p in m.postings} == {
        ("wallet:u0", -100, "escrow"),
        ("escrow:T:u0", 100, "escrow"),
    }
    before = list(st.seats)
    assert st.last is not None
    stood = st.last.next("stood", {"seat": 0}, 2)
    closed = stood.next("closed", {"reason": "no players left"}, 3)
    st.apply(stood)
    st.apply(closed)
    [release] = table_movements(st, before, [stood, closed])  # closing finds nobody left
    assert release.key == "release:T:3"
    assert {(p.account.id, p.amount) for p in release.postings} == {
        ("escrow:T:u0", -100),
        ("wallet:u0", 100),
    }


def test_a_table_without_stake_moves_no_chips() -> None:
    config = TableConfig(players=2).model_dump(mode="json")
    st = TableState.from_log("T", [LogRecord.first("created", {"config": config}, 1)])
    assert table_movements(st, list(st.seats), _sat(st, 0, "u0")) == []


def _ended(players: int, result: dict[str, object], forfeit: dict[str, object] | None = None):
    """A finished cash table's settlement postings, as (account, amount, kind)."""
    from cirulla.competition.cash import settlement_postings

    st = _cash_table(players=players)
    st.seats = [Seat(f"u{i}", f"u{i}") for i in range(players)]
    st.forfeit = forfeit
    users = [f"u{i}" for i in range(players)]
    postings = settlement_postings(st, users, result)
    assert sum(p.amount for p in postings) == 0
    return [(p.account.id, p.amount, p.kind) for p in postings if p.kind != "release"]


def test_m1_the_loser_pays_difference_times_stake_capped_at_max_loss() -> None:
    assert _ended(2, {"winner": 1, "totals": [8, 12], "reason": "target"}) == [
        ("wallet:u0", -40, "loss"),
        ("wallet:u1", 40, "win"),
    ]
    assert _ended(2, {"winner": 0, "totals": [30, 2], "reason": "target"}) == [
        ("wallet:u1", -100, "loss"),
        ("wallet:u0", 100, "win"),
    ]


def test_m1_a_cappotto_pays_the_max_loss() -> None:
    assert _ended(2, {"winner": 0, "totals": [11, 10], "reason": "cappotto"}) == [
        ("wallet:u1", -100, "loss"),
        ("wallet:u0", 100, "win"),
    ]


def test_e6_only_the_side_that_forfeited_pays_by_e6s_difference() -> None:
    forfeit = {"seat": 1, "side": 1, "reason": "timeout"}
    result = {"winner": 0, "totals": [9, 3, 4], "reason": "timeout"}
    assert _ended(3, result, forfeit) == [("wallet:u1", -60, "loss"), ("wallet:u0", 60, "win")]
    ahead = {"winner": 0, "totals": [3, 9], "reason": "abandon"}  # still ahead: difference 0
    assert _ended(2, ahead, {"seat": 1, "side": 1, "reason": "abandon"}) == []


def test_pairs_each_loser_pays_and_the_winners_share() -> None:
    # 4 players: seats 0 and 2 are side 0, seats 1 and 3 side 1
    result = {"winner": 1, "totals": [5, 8], "reason": "target"}
    assert _ended(4, result) == [
        ("wallet:u0", -30, "loss"),
        ("wallet:u2", -30, "loss"),
        ("wallet:u1", 30, "win"),
        ("wallet:u3", 30, "win"),
    ]


def test_three_players_each_loser_pays_the_winner_by_their_own_difference() -> None:
    result = {"winner": 2, "totals": [3, 9, 11], "reason": "target"}
    assert _ended(3, result) == [
        ("wallet:u0", -80, "loss"),
        ("wallet:u1", -20, "loss"),
        ("wallet:u2", 100, "win"),
    ]


def test_a_cash_table_refuses_bots_and_a_missing_max_loss() -> None:
    with pytest.raises(ValueError, match="bot seats"):
        TableConfig(players=2, stake=1, max_loss=10, bots={1: "facile"})
    with pytest.raises(ValueError, match="maximum loss above 0"):
        TableConfig(players=2, stake=1)
    with pytest.raises(ValueError, match="only a cash table"):
        TableConfig(players=2, max_loss=10)
    with pytest.raises(ValueError):
        TableConfig(players=2, stake=-1, max_loss=10)


# ---- the store: movements written in the event's transaction ---------------------------------


def _grant(user: str, chips: int, key: str) -> Movement:
    return Movement(key, (Posting(MINT, -chips, "topup"), Posting(wallet(user), chips, "topup")))


def test_the_welcome_grant_is_written_with_the_user_and_only_then(backend: Backend) -> None:
    async def check(store: Store) -> None:
        user = await store.create_user("anna", None, chips=1000)
        assert await store.ledger.balances(user.id) == (1000, 0)
        with pytest.raises(NameTaken):  # the user is not made: neither is the grant
            await store.create_user("ANNA", None, chips=1000)
        report = await store.ledger.check()
        assert report.problems == []
        assert report.totals["wallets"] == 1000 and report.totals["grants"] == 1000
        with pytest.raises(DuplicateMovement):
            await store.ledger.write([welcome_grant(user.id, 1000)])
        assert await store.ledger.balances(user.id) == (1000, 0)
        [entry] = await store.ledger.entries(user.id)
        assert (entry.amount, entry.balance, entry.kind) == (1000, 1000, "welcome")

    backend.run(check)


def test_an_append_with_chips_writes_both_or_neither(backend: Backend) -> None:
    async def check(store: Store) -> None:
        user = await store.create_user("bea", None, chips=150)
        first = await new_table(store, "cash")
        sat = first.next("sat", {"seat": 0, "user": user.id}, 2000)
        hold = Movement(
            "escrow:cash:1",
            (
                Posting(wallet(user.id), -100, "escrow"),
                Posting(escrow("cash", user.id), 100, "escrow"),
            ),
            table="cash",
        )
        await store.append("cash", [sat], ledger=[hold])
        assert await store.ledger.balances(user.id) == (50, 100)
        # a second escrow of 100 overdraws the wallet: the record is not written either
        again = sat.next("sat", {"seat": 1, "user": user.id}, 2001)
        hold2 = Movement(
            "escrow:cash:2",
            (
                Posting(wallet(user.id), -100, "escrow"),
                Posting(escrow("cash", user.id), 100, "escrow"),
            ),
        )
        with pytest.raises(InsufficientChips) as info:
            await store.append("cash", [again], ledger=[hold2])
        assert (info.value.needed, info.value.available) == (100, 50)
        assert await store.load_log("cash") == [first, sat]
        assert await store.ledger.balances(user.id) == (50, 100)
        # the same key twice: refused, nothing written
        with pytest.raises(DuplicateMovement):
            await store.append("cash", [again], ledger=[hold])
        assert await store.load_log("cash") == [first, sat]
        assert (await store.ledger.check()).problems == []

    backend.run(check)


def test_a_failing_ledger_append_fails_alone_among_concurrent_appends(backend: Backend) -> None:
    async def check(store: Store) -> None:
        poor = await store.create_user("poor", None, chips=10)
        firsts = [await new_table(store, f"g{i}") for i in range(3)]
        overdraw = Movement(
            "escrow:g0:x",
            (Posting(wallet(poor.id), -50, "escrow"), Posting(escrow("g0", poor.id), 50, "escrow")),
        )
        recs = [f.next("move", {"i": i}, 3000 + i) for i, f in enumerate(firsts)]
        results = await asyncio.gather(
            store.append("g0", [recs[0]], ledger=[overdraw]),
            store.append("g1", [recs[1]]),
            store.append("g2", [recs[2]]),
            return_exceptions=True,
        )
        assert isinstance(results[0], InsufficientChips)
        assert results[1] is None and results[2] is None
        assert await store.load_log("g0") == [firsts[0]]
        assert await store.load_log("g1") == [firsts[1], recs[1]]

    backend.run(check)


def test_the_daily_topup_is_once_a_day_and_under_the_floor_only(backend: Backend) -> None:
    async def check(store: Store) -> None:
        rich = await store.create_user("rich", None, chips=1000)
        poor = await store.create_user("poor", None, chips=0)
        with pytest.raises(NoTopup, match="fewer than 200"):
            await store.ledger.topup(rich.id, 500, 200)
        day = datetime(2026, 1, 1, 12, tzinfo=UTC)
        assert await store.ledger.topup(poor.id, 150, 200, now=day) == 150
        with pytest.raises(NoTopup, match="already"):
            await store.ledger.topup(poor.id, 150, 200, now=day + timedelta(hours=1))
        assert await store.ledger.topup(poor.id, 150, 200, now=day + timedelta(days=1)) == 300
        report = await store.ledger.check()
        assert report.problems == [] and report.totals["grants"] == 1300

    backend.run(check)


def test_concurrent_grants_and_escrows_keep_the_invariant(backend: Backend) -> None:
    async def check(store: Store) -> None:
        users = [await store.create_user(f"c{i}", None, chips=100) for i in range(8)]
        moves = []
        for round_ in range(5):
            for i, u in enumerate(users):
                other = users[(i + 1) % len(users)]
                moves.append(store.ledger.write([_grant(u.id, 7, f"g:{u.id}:{round_}")]))
                moves.append(
                    store.ledger.write(
                        [
                            Movement(
                                f"t:{u.id}:{round_}",
                                (
                                    Posting(wallet(u.id), -60, "loss"),
                                    Posting(wallet(other.id), 60, "win"),
                                ),
                            )
                        ]
                    )
                )
        results = await asyncio.gather(*moves, return_exceptions=True)
        assert all(r is None or isinstance(r, InsufficientChips) for r in results)
        report = await store.ledger.check()
        assert report.problems == []
        assert report.totals["wallets"] == report.totals["grants"] == 800 + 40 * 7

    backend.run(check)


def test_the_check_names_corrupted_rows(backend: Backend) -> None:
    async def check(store: Store) -> None:
        user = await store.create_user("dora", None, chips=500)
        await new_table(store, "gone")
        hold = Movement(
            "escrow:gone:1",
            (
                Posting(wallet(user.id), -100, "escrow"),
                Posting(escrow("gone", user.id), 100, "escrow"),
            ),
            table="gone",
        )
        await store.ledger.write([hold])
        assert (await store.ledger.check()).problems == []
        async with store._write() as conn:
            await conn.execute(
                text("UPDATE chip_accounts SET balance = balance + 5 WHERE id = :id"),
                {"id": f"wallet:{user.id}"},
            )
            await conn.execute(text("UPDATE tables SET status = 'closed' WHERE id = 'gone'"))
            await conn.execute(
                text(
                    "UPDATE chip_entries SET amount = amount + 1 WHERE account = :id"
                    " AND kind = 'escrow'"
                ),
                {"id": f"escrow:gone:{user.id}"},
            )
        problems = (await store.ledger.check()).problems
        text_ = "\n".join(problems)
        assert f"account wallet:{user.id}: balance 405 but its entries sum to 400" in text_
        assert f"account escrow:gone:{user.id}: balance 100 but its entries sum to 101" in text_
        assert "movement escrow:gone:1: its entries sum to 1, not 0" in text_
        assert f"account escrow:gone:{user.id}: 100 chips left in escrow at a closed table" in text_
        assert "hold 505 chips but the mint granted 500" in text_

    backend.run(check)


def test_tournament_tables_cannot_be_cash_tables() -> None:
    from cirulla.competition.director import DirectorError
    from cirulla.competition.service import check_spec

    spec = {"name": "t", "format": "swiss", "config": {"stake": 1, "max_loss": 10}}
    with pytest.raises(DirectorError, match="not cash tables"):
        check_spec(spec, private_default=False)


# ---- `cirulla ledger check`, run as a command ------------------------------------------------


def _ledger_cli(*where: str) -> tuple[int, list[str], str]:
    """`cirulla ledger check` as an operator runs it: exit code, stdout's lines, stderr."""
    run = subprocess.run(
        [sys.executable, "-m", "cirulla", "ledger", "check", *where],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return run.returncode, run.stdout.splitlines(), run.stderr


@pytest.fixture(params=["sqlite", "postgresql"])
def cli_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """A database URL and the `ledger check` arguments that name it: a server's data
    directory (SQLite), or a whole PostgreSQL database (the command takes no schema)."""
    if request.param == "sqlite":
        data = tmp_path / "data"
        yield f"sqlite+aiosqlite:///{data / 'cirulla.db'}", ["--data-dir", str(data)]
        return
    with throwaway_pg_database() as url:
        yield url, ["--database-url", url]


def test_the_command_exits_1_naming_each_broken_row_and_0_when_all_hold(
    cli_database: tuple[str, list[str]],
) -> None:
    url, where = cli_database

    async def make() -> str:
        store = await Store.open(url)
        try:
            user = await store.create_user("dora", None, chips=500)
            await new_table(store, "gone")
            hold = Movement(
                "escrow:gone:1",
                (
                    Posting(wallet(user.id), -100, "escrow"),
                    Posting(escrow("gone", user.id), 100, "escrow"),
                ),
                table="gone",
            )
            await store.ledger.write([hold])
            return user.id
        finally:
            await store.close()

    user = asyncio.run(make())
    code, out, err = _ledger_cli(*where)
    assert code == 0, (out, err)
    assert out == ["ledger check ok: wallets 400, escrows 100, pools 0, grants 500, movements 2"]

    async def corrupt() -> None:
        store = await Store.open(url)
        try:
            async with store._write() as conn:
                await conn.execute(
                    text("UPDATE chip_accounts SET balance = balance + 5 WHERE id = :id"),
                    {"id": f"wallet:{user}"},
                )
                await conn.execute(text("UPDATE tables SET status = 'closed' WHERE id = 'gone'"))
                await conn.execute(
                    text(
                        "UPDATE chip_entries SET amount = amount + 1 WHERE account = :id"
                        " AND kind = 'escrow'"
                    ),
                    {"id": f"escrow:gone:{user}"},
                )
        finally:
            await store.close()

    asyncio.run(corrupt())
    code, out, err = _ledger_cli(*where)
    assert code == 1, (out, err)
    assert sorted(out[:-1]) == sorted(
        (
            f"account wallet:{user}: balance 405 but its entries sum to 400",
            f"account escrow:gone:{user}: balance 100 but its entries sum to 101",
            "movement escrow:gone:1: its entries sum to 1, not 0",
            f"account escrow:gone:{user}: 100 chips left in escrow at a closed table",
            "wallets, escrows and pools hold 505 chips but the mint granted 500",
        )
    ), out  # a line each, whole however long
    assert out[-1].startswith("ledger check FAILED: 5 problems (wallets 405, escrows 100,")


def test_the_command_exits_2_for_a_data_dir_without_a_database(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    for where in (empty, tmp_path / "missing"):
        code, out, err = _ledger_cli("--data-dir", str(where))
        assert code == 2, (out, err)
        assert err == f"error: no database in {where}\n"
        assert out == []
    assert list(empty.iterdir()) == []  # and none was made there
