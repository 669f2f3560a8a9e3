"""Players: statistics per user per finished partita.

One new table; nothing else changes, so a database made by 0004 keeps every row.
The rows of partite finished before this revision are written by the server at its
next start (competition/profiles.py catches up on records without rows).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "player_partite",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("result", sa.String(8), nullable=False),
        sa.Column("people", sa.Boolean(), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("forfeit", sa.String(16), nullable=True),
        sa.Column("score", sa.String(64), nullable=False),
        sa.Column("stats", sa.JSON(), nullable=False),
        sa.Column("ended", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "user_id", name="pk_player_partite"),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["records.table_id"],
            name="fk_player_partite_table_id_records",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_player_partite_user_id_users", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_player_partite_user_id_ended", "player_partite", ["user_id", "ended"])
    op.create_index("ix_player_partite_user_id_forfeit", "player_partite", ["user_id", "forfeit"])


def downgrade() -> None:
    op.drop_index("ix_player_partite_user_id_forfeit", "player_partite")
    op.drop_index("ix_player_partite_user_id_ended", "player_partite")
    op.drop_table("player_partite")
