"""Players: one row of statistics per user per finished partita.

The schema only (SQLAlchemy models on the shared `Base`). Profiles, the luck index
and playbans are all read from these rows (competition/profiles.py,
competition/playban.py); the primary key (table, user) makes writing a row twice
impossible, so the end listener and the start-up catch-up may both try.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base

__all__ = ["PlayerPartitaModel"]


class PlayerPartitaModel(Base):
    """A user's partita: its result, whether they forfeited it, and their statistics."""

    __tablename__ = "player_partite"
    __table_args__ = (
        Index("ix_player_partite_user_id_ended", "user_id", "ended"),
        Index("ix_player_partite_user_id_forfeit", "user_id", "forfeit"),
    )

    table_id: Mapped[str] = mapped_column(
        ForeignKey("records.table_id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer)
    game: Mapped[str] = mapped_column(String(32))  # cirulla or cirulo
    preset: Mapped[str] = mapped_column(String(32))
    players: Mapped[int] = mapped_column(Integer)
    result: Mapped[str] = mapped_column(String(8))  # won, lost, drawn
    #: No bot at the table: only these forfeits count for a playban.
    people: Mapped[bool] = mapped_column(Boolean)
    #: Played at a private table: counted, but not listed to others (gateway/history.py).
    private: Mapped[bool] = mapped_column(Boolean)
    #: "timeout" or "abandon" if this user's seat forfeited the partita (E6), else None.
    forfeit: Mapped[str | None] = mapped_column(String(16))
    #: The record's `score` line, e.g. "51-37", for the recent partite list.
    score: Mapped[str] = mapped_column(String(64))
    stats: Mapped[dict[str, Any]]
    ended: Mapped[datetime]
