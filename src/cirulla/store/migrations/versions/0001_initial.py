"""The first schema.

Users and their sessions; tables with their seats, event logs and secrets;
finished records and who played them.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(64), nullable=False),
        sa.Column("guest", sa.Boolean(), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=True),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
        sa.UniqueConstraint("name_key", name="uq_users_name_key"),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("expires_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("token_hash", name="pk_sessions"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_sessions_user_id_users", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_index("ix_sessions_expires_at", "sessions", ["expires_at"])
    op.create_table(
        "tables",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("invite_hash", sa.String(128), nullable=True),
        sa.Column("owner", sa.String(32), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("last_hash", sa.String(64), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_tables"),
        sa.ForeignKeyConstraint(
            ["owner"], ["users.id"], name="fk_tables_owner_users", ondelete="SET NULL"
        ),
    )
    op.create_index("ix_tables_status", "tables", ["status"])
    op.create_table(
        "seats",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=True),
        sa.Column("bot", sa.String(32), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_seats"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_seats_table_id_tables", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_seats_user_id_users", ondelete="SET NULL"
        ),
    )
    op.create_index("ix_seats_user_id", "seats", ["user_id"])
    op.create_table(
        "table_events",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("at", sa.BigInteger(), nullable=False),
        sa.Column("prev", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "version", name="pk_table_events"),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["tables.id"],
            name="fk_table_events_table_id_tables",
            ondelete="CASCADE",
        ),
    )
    op.create_table(
        "table_secrets",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("deal", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "deal", name="pk_table_secrets"),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["tables.id"],
            name="fk_table_secrets_table_id_tables",
            ondelete="CASCADE",
        ),
    )
    op.create_table(
        "records",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=False),
        sa.Column("finished_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name="pk_records"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_records_table_id_tables", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_records_finished_at", "records", ["finished_at"])
    op.create_table(
        "record_players",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("side", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=True),
        sa.Column("finished_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "user_id", "seat", name="pk_record_players"),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["records.table_id"],
            name="fk_record_players_table_id_records",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_record_players_user_id_users", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_record_players_user_finished", "record_players", ["user_id", "finished_at"])


def downgrade() -> None:
    op.drop_table("record_players")
    op.drop_table("records")
    op.drop_table("table_secrets")
    op.drop_table("table_events")
    op.drop_table("seats")
    op.drop_table("tables")
    op.drop_table("sessions")
    op.drop_table("users")
