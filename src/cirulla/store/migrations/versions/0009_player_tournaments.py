"""Players' tournaments: each entrant's result in each finished tournament.

One new table; nothing else changes, so a database made by 0008 keeps every row.
The rows of tournaments finished before this revision are written by the server
(competition/profiles.py catches up on finished tournaments without rows).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "player_tournaments",
        sa.Column("tournament_id", sa.String(64), nullable=False),
        sa.Column("entrant", sa.String(32), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.Column("entrants", sa.Integer(), nullable=False),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "entrant", name="pk_player_tournaments"),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_player_tournaments_tournament_id_tournaments",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name="fk_player_tournaments_user_id_users",
            ondelete="CASCADE",
        ),
    )
    op.create_index(
        "ix_player_tournaments_user_id_finished", "player_tournaments", ["user_id", "finished"]
    )


def downgrade() -> None:
    op.drop_index("ix_player_tournaments_user_id_finished", "player_tournaments")
    op.drop_table("player_tournaments")
