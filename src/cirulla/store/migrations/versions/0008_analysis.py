"""The coach: analyses of finished partite and hints asked at practice tables.

Two new tables; nothing else changes, so a database made by 0007 keeps every row.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "coach_analyses",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("requested_by", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.String(400), nullable=True),
        sa.PrimaryKeyConstraint("table_id", name="pk_coach_analyses"),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["records.table_id"],
            name="fk_coach_analyses_table_id_records",
            ondelete="CASCADE",
        ),
    )
    op.create_table(
        "coach_hints",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("first_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_coach_hints"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_coach_hints_table_id_tables", ondelete="CASCADE"
        ),
    )


def downgrade() -> None:
    op.drop_table("coach_hints")
    op.drop_table("coach_analyses")
