"""Chips: wallets, the double-entry ledger, escrows and pools.

Three new tables; nothing else changes, so an existing database keeps every row
(its users have no wallet until they first need one: see store/ledger.py).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "chip_accounts",
        sa.Column("id", sa.String(160), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=True),
        sa.Column("table_id", sa.String(64), nullable=True),
        sa.Column("tournament_id", sa.String(64), nullable=True),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_chip_accounts"),
        sa.CheckConstraint("balance >= 0 OR kind = 'mint'", name="ck_chip_accounts_not_negative"),
    )
    op.create_index("ix_chip_accounts_user_id", "chip_accounts", ["user_id"])
    op.create_table(
        "chip_movements",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=True),
        sa.Column("tournament_id", sa.String(64), nullable=True),
        sa.Column("note", sa.String(200), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_chip_movements"),
        sa.UniqueConstraint("key", name="uq_chip_movements_key"),
    )
    op.create_table(
        "chip_entries",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("movement_id", sa.Integer(), nullable=False),
        sa.Column("account", sa.String(160), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_chip_entries"),
        sa.ForeignKeyConstraint(
            ["movement_id"],
            ["chip_movements.id"],
            name="fk_chip_entries_movement_id_chip_movements",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["account"], ["chip_accounts.id"], name="fk_chip_entries_account_chip_accounts"
        ),
    )
    op.create_index("ix_chip_entries_movement_id", "chip_entries", ["movement_id"])
    op.create_index("ix_chip_entries_account_id", "chip_entries", ["account", "id"])


def downgrade() -> None:
    op.drop_index("ix_chip_entries_account_id", "chip_entries")
    op.drop_index("ix_chip_entries_movement_id", "chip_entries")
    op.drop_table("chip_entries")
    op.drop_table("chip_movements")
    op.drop_index("ix_chip_accounts_user_id", "chip_accounts")
    op.drop_table("chip_accounts")
