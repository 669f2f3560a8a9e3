"""Bot accounts: who owns each, and their API tokens.

The schema only (SQLAlchemy models on the shared `Base`); store/bots.py reads and
writes them. A bot is a row of `users` (with `bot` set) plus its owner here; a token
is kept as its SHA-256 only, so the database alone lets no program play.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base

__all__ = ["BotAccountModel", "BotTokenModel"]


class BotAccountModel(Base):
    """A bot account and the registered player who made it (and answers for it)."""

    __tablename__ = "bot_accounts"

    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    owner_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime]


class BotTokenModel(Base):
    """An API token of a bot: its public id, name and scopes, and the hash of its secret."""

    __tablename__ = "bot_tokens"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    bot_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(64))
    #: Space-separated, sorted: "play read tournament".
    scopes: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime]
    last_used_at: Mapped[datetime | None]
