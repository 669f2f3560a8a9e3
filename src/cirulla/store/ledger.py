"""The chips ledger: double-entry movements, wallets, escrows, pools (queries and writes).

A `Movement` is a set of `Posting`s (one per account and reason) summing to zero, with
a unique idempotency key. `write_movements` runs inside the caller's transaction, so
a movement commits or rolls back with the event that causes it (a table's record, a
tournament's record, a new account). An account's balance row is updated in the same
statement that checks it stays non-negative, so a movement that would overdraw any
account raises `InsufficientChips` and the whole transaction is rolled back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, cast

from sqlalchemy import Table as SqlTable
from sqlalchemy import case, func, insert, literal, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from .models_ledger import ChipAccount, ChipEntry, ChipMovement

if TYPE_CHECKING:
    from .db import Store

__all__ = [
    "MINT",
    "Account",
    "DuplicateMovement",
    "InsufficientChips",
    "LedgerStore",
    "Movement",
    "NoTopup",
    "Posting",
    "WalletEntry",
    "escrow",
    "pool",
    "topup_grant",
    "wallet",
    "welcome_grant",
    "write_movements",
]

accounts_t = cast(SqlTable, ChipAccount.__table__)
movements_t = cast(SqlTable, ChipMovement.__table__)
entries_t = cast(SqlTable, ChipEntry.__table__)

#: What an entry on a wallet may be (the wallet history's "kind").
ENTRY_KINDS: Final = (
    "welcome",
    "topup",
    "escrow",
    "release",
    "win",
    "loss",
    "entry_fee",
    "prize",
    "refund",
)


@dataclass(frozen=True, slots=True)
class Account:
    """One ledger account; `id` says which ("wallet:<user>", "escrow:<table>:<user>",
    "pool:<tournament>", "mint")."""

    id: str
    kind: str
    user: str | None = None
    table: str | None = None
    tournament: str | None = None


MINT: Final = Account("mint", "mint")


def wallet(user: str) -> Account:
    return Account(f"wallet:{user}", "wallet", user=user)


def escrow(table: str, user: str) -> Account:
    return Account(f"escrow:{table}:{user}", "escrow", user=user, table=table)


def pool(tournament: str) -> Account:
    return Account(f"pool:{tournament}", "pool", tournament=tournament)


@dataclass(frozen=True, slots=True)
class Posting:
    account: Account
    amount: int  # signed: + into the account
    kind: str  # one of ENTRY_KINDS


@dataclass(frozen=True, slots=True)
class Movement:
    """Chips moving between accounts, all or nothing; `key` makes it happen once."""

    key: str
    postings: tuple[Posting, ...]
    table: str | None = None
    tournament: str | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if sum(p.amount for p in self.postings) != 0:
            raise ValueError(f"movement {self.key}: its postings do not sum to zero")
        for p in self.postings:
            if p.kind not in ENTRY_KINDS:
                raise ValueError(f"movement {self.key}: unknown entry kind {p.kind!r}")


def welcome_grant(user: str, chips: int) -> Movement:
    """The chips a new account starts with, from the mint (once per user)."""
    return Movement(
        f"welcome:{user}",
        (Posting(MINT, -chips, "welcome"), Posting(wallet(user), chips, "welcome")),
        note="welcome grant",
    )


def topup_grant(user: str, chips: int, day: str) -> Movement:
    """The daily top-up (once per user and UTC day: `day` is in the key)."""
    return Movement(
        f"topup:{user}:{day}",
        (Posting(MINT, -chips, "topup"), Posting(wallet(user), chips, "topup")),
        note=f"daily top-up {day}",
    )


class NoTopup(Exception):
    """The top-up was refused (already taken today, or the wallet is not under the floor)."""


class InsufficientChips(Exception):
    """A movement would take an account below zero; nothing was written."""

    def __init__(self, account: str, needed: int, available: int) -> None:
        super().__init__(f"{account} needs {needed} chips and has {available}")
        self.account = account
        self.needed = needed
        self.available = available


class DuplicateMovement(Exception):
    """A movement with this key exists already; nothing was written."""

    def __init__(self, key: str) -> None:
        super().__init__(f"movement {key!r} was written already")
        self.key = key


@dataclass(frozen=True, slots=True)
class WalletEntry:
    id: int
    at: datetime
    amount: int
    balance: int
    kind: str
    table: str | None
    tournament: str | None
    note: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "at": self.at.isoformat(),
            "amount": self.amount,
            "balance": self.balance,
            "kind": self.kind,
            "table": self.table,
            "tournament": self.tournament,
            "note": self.note,
        }


@dataclass(slots=True)
class CheckReport:
    """What `LedgerStore.check` found: totals, and every broken rule (empty: all hold)."""

    totals: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _insert(conn: Connection) -> Any:
    return (postgresql if conn.dialect.name == "postgresql" else sqlite).insert(accounts_t)


def write_movements(conn: Connection, movements: Sequence[Movement], now: datetime) -> None:
    """Write `movements` in `conn`'s transaction (the caller's). Raises
    InsufficientChips or DuplicateMovement; the caller's transaction must then roll back."""
    for m in movements:
        _write_one(conn, m, now)


def _write_one(conn: Connection, m: Movement, now: datetime) -> None:
    if conn.execute(select(movements_t.c.id).where(movements_t.c.key == m.key)).first():
        raise DuplicateMovement(m.key)
    try:
        movement_id = conn.execute(
            insert(movements_t)
            .values(key=m.key, at=now, table_id=m.table, tournament_id=m.tournament, note=m.note)
            .returning(movements_t.c.id)
        ).scalar_one()
    except IntegrityError:  # a racing writer took the key between the look and the insert
        raise DuplicateMovement(m.key) from None
    accounts = {p.account.id: p.account for p in m.postings}
    conn.execute(
        _insert(conn).on_conflict_do_nothing(index_elements=["id"]),
        [
            {
                "id": a.id,
                "kind": a.kind,
                "user_id": a.user,
                "table_id": a.table,
                "tournament_id": a.tournament,
                "balance": 0,
            }
            for a in accounts.values()
        ],
    )
    net: dict[str, int] = {}
    for p in m.postings:
        net[p.account.id] = net.get(p.account.id, 0) + p.amount
    running: dict[str, int] = {}
    # accounts in one order always: two transactions never wait on each other's rows
    for account in sorted(net):
        amount = net[account]
        after = conn.execute(
            update(accounts_t)
            .where(
                accounts_t.c.id == account,
                or_(accounts_t.c.balance + amount >= 0, accounts_t.c.kind == "mint"),
            )
            .values(balance=accounts_t.c.balance + amount)
            .returning(accounts_t.c.balance)
        ).scalar_one_or_none()
        if after is None:
            have = conn.execute(
                select(accounts_t.c.balance).where(accounts_t.c.id == account)
            ).scalar_one()
            raise InsufficientChips(account, -amount, int(have))
        running[account] = int(after) - amount
    rows = []
    for p in m.postings:
        running[p.account.id] += p.amount
        rows.append(
            {
                "movement_id": movement_id,
                "account": p.account.id,
                "kind": p.kind,
                "amount": p.amount,
                "balance": running[p.account.id],
            }
        )
    conn.execute(insert(entries_t), rows)


def _now() -> datetime:
    return datetime.now(UTC)


class LedgerStore:
    """Ledger queries on a `Store`'s engine (one transaction per method)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def write(self, movements: Sequence[Movement]) -> None:
        """`movements` in a transaction of their own (grants, tournament money)."""
        await self._store._write_sync(write_movements, list(movements), _now())

    async def grant_missing_welcome(self, registered: int, guest: int) -> int:
        """Welcome grants for accounts made before the ledger existed (a database
        migrated by 0003): each gets what a new account of its kind gets, once (the
        grant's key); how many were granted."""
        from .models import User

        users_t = cast(SqlTable, User.__table__)
        async with self._store._read() as conn:
            rows = await conn.execute(
                select(users_t.c.id, users_t.c.guest).where(
                    ~select(movements_t.c.id)
                    .where(movements_t.c.key == literal("welcome:").concat(users_t.c.id))
                    .exists()
                )
            )
            missing = [(str(r.id), bool(r.guest)) for r in rows]
        granted = 0
        for user, is_guest in missing:
            chips = guest if is_guest else registered
            if chips <= 0:
                continue
            try:
                await self.write([welcome_grant(user, chips)])
            except DuplicateMovement:  # granted meanwhile (another node starting)
                continue
            granted += 1
        return granted

    async def topup(self, user: str, chips: int, floor: int, now: datetime | None = None) -> int:
        """Grant the daily top-up if the user's chips (wallet and escrows) are under
        `floor` and none was granted this UTC day; the new free balance. NoTopup says why not."""
        now = now or _now()
        day = now.astimezone(UTC).date().isoformat()

        def body(conn: Connection) -> None:
            held = conn.execute(
                select(func.coalesce(func.sum(accounts_t.c.balance), 0)).where(
                    accounts_t.c.user_id == user, accounts_t.c.kind.in_(("wallet", "escrow"))
                )
            ).scalar_one()
            if int(held) >= floor:
                raise NoTopup(f"you have {held} chips: the top-up is for fewer than {floor}")
            write_movements(conn, [topup_grant(user, chips, day)], now)

        try:
            await self._store._write_sync(body)
        except DuplicateMovement:
            raise NoTopup(
                "you had today's top-up already: the next one is after 00:00 UTC"
            ) from None
        return (await self.balances(user))[0]

    async def balances(self, user: str) -> tuple[int, int]:
        """(free chips in the wallet, chips held in escrow at cash tables)."""
        async with self._store._read() as conn:
            rows = await conn.execute(
                select(accounts_t.c.kind, func.sum(accounts_t.c.balance))
                .where(accounts_t.c.user_id == user, accounts_t.c.kind.in_(("wallet", "escrow")))
                .group_by(accounts_t.c.kind)
            )
            found = {kind: int(total or 0) for kind, total in rows}
        return found.get("wallet", 0), found.get("escrow", 0)

    async def has_movement(self, key: str) -> bool:
        async with self._store._read() as conn:
            row = await conn.execute(select(movements_t.c.id).where(movements_t.c.key == key))
            return row.first() is not None

    async def entries(
        self, user: str, limit: int = 50, before: int | None = None
    ) -> list[WalletEntry]:
        """The user's wallet entries, newest first, with ids below `before`."""
        where = [entries_t.c.account == wallet(user).id]
        if before is not None:
            where.append(entries_t.c.id < before)
        async with self._store._read() as conn:
            rows = await conn.execute(
                select(
                    entries_t.c.id,
                    movements_t.c.at,
                    entries_t.c.amount,
                    entries_t.c.balance,
                    entries_t.c.kind,
                    movements_t.c.table_id,
                    movements_t.c.tournament_id,
                    movements_t.c.note,
                )
                .join(movements_t, movements_t.c.id == entries_t.c.movement_id)
                .where(*where)
                .order_by(entries_t.c.id.desc())
                .limit(limit)
            )
            return [WalletEntry(*r) for r in rows]

    async def cash_results(self, user: str) -> dict[str, int]:
        """Chips won and lost at cash tables, and how many cash partite were settled."""
        account = wallet(user).id
        async with self._store._read() as conn:
            row = (
                await conn.execute(
                    select(
                        func.coalesce(
                            func.sum(case((entries_t.c.kind == "win", entries_t.c.amount))), 0
                        ),
                        func.coalesce(
                            func.sum(case((entries_t.c.kind == "loss", -entries_t.c.amount))), 0
                        ),
                    ).where(entries_t.c.account == account)
                )
            ).one()
            partite = await conn.scalar(
                select(func.count(func.distinct(entries_t.c.movement_id)))
                .join(movements_t, movements_t.c.id == entries_t.c.movement_id)
                .where(
                    entries_t.c.account == account,
                    entries_t.c.kind == "release",
                    movements_t.c.key.like("settle:%"),
                )
            )
        won, lost = int(row[0]), int(row[1])
        return {"won": won, "lost": lost, "net": won - lost, "partite": int(partite or 0)}

    async def check(self) -> CheckReport:
        """Every rule of the ledger, checked against the rows (`cirulla ledger check`)."""
        from .base import tables as tables_t
        from .tournaments import tournaments_t

        report = CheckReport()
        problems = report.problems
        async with self._store._read() as conn:
            for key, total in await conn.execute(
                select(movements_t.c.key, func.sum(entries_t.c.amount))
                .join(entries_t, entries_t.c.movement_id == movements_t.c.id, isouter=True)
                .group_by(movements_t.c.id, movements_t.c.key)
                .having(or_(func.sum(entries_t.c.amount) != 0, func.count(entries_t.c.id) == 0))
            ):
                problems.append(f"movement {key}: its entries sum to {total or 0}, not 0")
            sums = (
                select(entries_t.c.account, func.sum(entries_t.c.amount).label("total"))
                .group_by(entries_t.c.account)
                .subquery()
            )
            for account, balance, total in await conn.execute(
                select(accounts_t.c.id, accounts_t.c.balance, func.coalesce(sums.c.total, 0))
                .join(sums, sums.c.account == accounts_t.c.id, isouter=True)
                .where(accounts_t.c.balance != func.coalesce(sums.c.total, 0))
            ):
                problems.append(
                    f"account {account}: balance {balance} but its entries sum to {total}"
                )
            for account, balance in await conn.execute(
                select(accounts_t.c.id, accounts_t.c.balance).where(
                    accounts_t.c.balance < 0, accounts_t.c.kind != "mint"
                )
            ):
                problems.append(f"account {account}: negative balance {balance}")
            for account, balance, status in await conn.execute(
                select(accounts_t.c.id, accounts_t.c.balance, tables_t.c.status)
                .join(tables_t, tables_t.c.id == accounts_t.c.table_id)
                .where(
                    accounts_t.c.kind == "escrow",
                    accounts_t.c.balance != 0,
                    tables_t.c.status.in_(("finished", "closed")),
                )
            ):
                problems.append(
                    f"account {account}: {balance} chips left in escrow at a {status} table"
                )
            for account, balance, status in await conn.execute(
                select(accounts_t.c.id, accounts_t.c.balance, tournaments_t.c.status)
                .join(tournaments_t, tournaments_t.c.id == accounts_t.c.tournament_id)
                .where(
                    accounts_t.c.kind == "pool",
                    accounts_t.c.balance != 0,
                    tournaments_t.c.status.in_(("finished", "cancelled")),
                )
            ):
                problems.append(
                    f"account {account}: {balance} chips left in a {status} tournament's pool"
                )
            totals = {
                kind: int(total or 0)
                for kind, total in await conn.execute(
                    select(accounts_t.c.kind, func.sum(accounts_t.c.balance)).group_by(
                        accounts_t.c.kind
                    )
                )
            }
            grants = await conn.scalar(
                select(func.coalesce(func.sum(entries_t.c.amount), 0)).where(
                    entries_t.c.kind.in_(("welcome", "topup")), entries_t.c.amount > 0
                )
            )
            mint_out = await conn.scalar(
                select(func.coalesce(-func.sum(entries_t.c.amount), 0)).where(
                    entries_t.c.account == MINT.id
                )
            )
            movements = await conn.scalar(select(func.count()).select_from(movements_t))
        held = sum(v for k, v in totals.items() if k != "mint")
        report.totals = {
            "wallets": totals.get("wallet", 0),
            "escrows": totals.get("escrow", 0),
            "pools": totals.get("pool", 0),
            "grants": int(grants or 0),
            "movements": int(movements or 0),
        }
        if held != int(mint_out or 0):
            problems.append(
                f"wallets, escrows and pools hold {held} chips but the mint granted {mint_out}"
            )
        if int(grants or 0) != int(mint_out or 0):
            problems.append(f"grant entries total {grants} but the mint gave out {mint_out}")
        if totals.get("mint", 0) != -int(mint_out or 0):
            problems.append(f"account mint: balance {totals.get('mint', 0)}, not -{mint_out}")
        return report
