"""Tournaments and their event logs.

Two new tables; nothing else changes, so a database made by 0001 keeps every row.

Revision ID: 0002
Revises: 0001
Create Date: 2025-02-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("organiser", sa.String(32), nullable=True),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("invite_hash", sa.String(128), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("starts_at", _utc(), nullable=True),
        sa.Column("summary", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("last_hash", sa.String(64), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_tournaments"),
        sa.ForeignKeyConstraint(
            ["organiser"], ["users.id"], name="fk_tournaments_organiser_users", ondelete="SET NULL"
        ),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status"])
    op.create_index("ix_tournaments_updated_at", "tournaments", ["updated_at"])
    op.create_table(
        "tournament_events",
        sa.Column("tournament_id", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("at", sa.BigInteger(), nullable=False),
        sa.Column("prev", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "version", name="pk_tournament_events"),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_tournament_events_tournament_id_tournaments",
            ondelete="CASCADE",
        ),
    )


def downgrade() -> None:
    op.drop_table("tournament_events")
    op.drop_index("ix_tournaments_updated_at", "tournaments")
    op.drop_index("ix_tournaments_status", "tournaments")
    op.drop_table("tournaments")
