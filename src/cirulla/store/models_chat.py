"""Chat: the messages said at a table or in the lobby, and silenced accounts.

The schema only (SQLAlchemy models on the shared `Base`); store/chat.py reads and
writes them. A message is kept with its table (for the replay), never edited: an
operator may only hide it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base

__all__ = ["ChatMessageModel", "ChatSilenceModel"]


class ChatMessageModel(Base):
    """One message: free text or a quick phrase's id (shown in the reader's language)."""

    __tablename__ = "chat_messages"
    __table_args__ = (Index("ix_chat_messages_table_id_id", "table_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: None: the lobby. Not a foreign key: a lobby message has no table, and a table's
    #: messages outlive nothing they need.
    table_id: Mapped[str | None] = mapped_column(String(64))
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(64))
    text: Mapped[str | None] = mapped_column(String(800))
    phrase: Mapped[str | None] = mapped_column(String(32))
    #: "all", or "spectators": said from the rail during a partita, players never see it.
    audience: Mapped[str] = mapped_column(String(16))
    at: Mapped[datetime]
    hidden: Mapped[bool] = mapped_column(Boolean, default=False)


class ChatSilenceModel(Base):
    """An account an operator silenced, until when."""

    __tablename__ = "chat_silences"

    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    until: Mapped[datetime]
