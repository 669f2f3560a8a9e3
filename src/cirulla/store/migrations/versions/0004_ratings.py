"""Ratings (Glicko-2 1 against 1, openskill pairs) and their history.

Three new tables; nothing else changes, so a database made by 0003 keeps every row.
Its finished partite are rated at the next start-up, in the order they ended.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("partite", sa.Integer(), nullable=False),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "game", "mode", name="pk_ratings"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_ratings_user_id_users", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_ratings_game_mode_rating", "ratings", ["game", "mode", "rating"])
    op.create_table(
        "rating_history",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("at", _utc(), nullable=False),
        sa.Column("rating_before", sa.Float(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "user_id", name="pk_rating_history"),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["records.table_id"],
            name="fk_rating_history_table_id_records",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_rating_history_user_id_users", ondelete="CASCADE"
        ),
    )
    op.create_index(
        "ix_rating_history_user_game_mode_at",
        "rating_history",
        ["user_id", "game", "mode", "at"],
    )
    op.create_index("ix_rating_history_game_mode_at", "rating_history", ["game", "mode", "at"])
    op.create_table(
        "rated_tables",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("game", sa.String(16), nullable=True),
        sa.Column("mode", sa.String(8), nullable=True),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name="pk_rated_tables"),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["records.table_id"],
            name="fk_rated_tables_table_id_records",
            ondelete="CASCADE",
        ),
    )


def downgrade() -> None:
    op.drop_table("rated_tables")
    op.drop_index("ix_rating_history_game_mode_at", "rating_history")
    op.drop_index("ix_rating_history_user_game_mode_at", "rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_game_mode_rating", "ratings")
    op.drop_table("ratings")
