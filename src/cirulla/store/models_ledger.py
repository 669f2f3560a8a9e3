"""Chips: wallets, the double-entry ledger, escrows and pools.

The schema only (SQLAlchemy models on the shared `Base`). An account is a wallet
(one per user), an escrow (one per cash table and seated user), a pool (one per
tournament with an entry fee) or the single mint that grants come from. A movement
is a set of entries, one per account it touches, summing to zero, with a unique
idempotency key; `balance` on an account is kept for speed and equals the sum of
its entries (`cirulla ledger check` verifies it).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base, UtcDateTime

__all__ = ["ChipAccount", "ChipEntry", "ChipMovement"]


class ChipAccount(Base):
    __tablename__ = "chip_accounts"
    __table_args__ = (
        CheckConstraint("balance >= 0 OR kind = 'mint'", name="not_negative"),
        Index("ix_chip_accounts_user_id", "user_id"),
    )

    id: Mapped[str] = mapped_column(String(160), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # wallet, escrow, pool, mint
    user_id: Mapped[str | None] = mapped_column(String(32))
    table_id: Mapped[str | None] = mapped_column(String(64))
    tournament_id: Mapped[str | None] = mapped_column(String(64))
    balance: Mapped[int] = mapped_column(BigInteger)


class ChipMovement(Base):
    __tablename__ = "chip_movements"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(200), unique=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime())
    table_id: Mapped[str | None] = mapped_column(String(64))
    tournament_id: Mapped[str | None] = mapped_column(String(64))
    note: Mapped[str] = mapped_column(String(200))


class ChipEntry(Base):
    __tablename__ = "chip_entries"
    __table_args__ = (Index("ix_chip_entries_account_id", "account", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    movement_id: Mapped[int] = mapped_column(
        ForeignKey("chip_movements.id", ondelete="CASCADE"), index=True
    )
    account: Mapped[str] = mapped_column(ForeignKey("chip_accounts.id"))
    kind: Mapped[str] = mapped_column(String(16))  # welcome, topup, escrow, release, win, ...
    amount: Mapped[int] = mapped_column(BigInteger)
    balance: Mapped[int] = mapped_column(BigInteger)  # the account's balance after it
