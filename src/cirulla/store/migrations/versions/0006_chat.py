"""Chat: messages at tables and in the lobby, and silenced accounts.

Two new tables; nothing else changes, so a database made by 0005 keeps every row.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(64), nullable=True),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.String(800), nullable=True),
        sa.Column("phrase", sa.String(32), nullable=True),
        sa.Column("audience", sa.String(16), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("hidden", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_chat_messages"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_chat_messages_user_id_users", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_chat_messages_table_id_id", "chat_messages", ["table_id", "id"])
    op.create_table(
        "chat_silences",
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("until", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name="pk_chat_silences"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_chat_silences_user_id_users", ondelete="CASCADE"
        ),
    )


def downgrade() -> None:
    op.drop_table("chat_silences")
    op.drop_index("ix_chat_messages_table_id_id", "chat_messages")
    op.drop_table("chat_messages")
