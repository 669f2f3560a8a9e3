"""Bot accounts: a `bot` mark on users, their owners, and their API tokens (hashed).

A new column with a default (false) and two new tables, so a database made by 0006
keeps every row and every account stays a person.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # A plain ADD COLUMN, which SQLite does in place. Not a batch: on SQLite a batch
    # rebuilds `users` and drops the old table, and with foreign keys on (the store
    # turns them on) that drop deletes every row pointing at a user by ON DELETE
    # CASCADE (sessions, record_players, ratings, ...) and empties the SET NULL ones.
    op.add_column(
        "users", sa.Column("bot", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.create_table(
        "bot_accounts",
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("owner_id", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name="pk_bot_accounts"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_bot_accounts_user_id_users", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name="fk_bot_accounts_owner_id_users", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_bot_accounts_owner_id", "bot_accounts", ["owner_id"])
    op.create_table(
        "bot_tokens",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("bot_id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("scopes", sa.String(128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_bot_tokens"),
        sa.UniqueConstraint("token_hash", name="uq_bot_tokens_token_hash"),
        sa.ForeignKeyConstraint(
            ["bot_id"], ["users.id"], name="fk_bot_tokens_bot_id_users", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_bot_tokens_bot_id", "bot_tokens", ["bot_id"])


def downgrade() -> None:
    op.drop_index("ix_bot_tokens_bot_id", "bot_tokens")
    op.drop_table("bot_tokens")
    op.drop_index("ix_bot_accounts_owner_id", "bot_accounts")
    op.drop_table("bot_accounts")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("bot")
