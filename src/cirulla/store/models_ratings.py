"""Ratings (Glicko-2 1 against 1, openskill pairs) and their history.

The schema only (SQLAlchemy models on the shared `Base`). One rating per user, game
family (cirulla, scopa, cirullone) and mode (1v1, pairs); a history row per rated
partita and player; and a row per finished partita saying it was looked at, so that
the start-up catch-up finds only the partite it has not seen.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Float, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base

__all__ = ["RatedTableModel", "RatingHistoryModel", "RatingModel"]


class RatingModel(Base):
    """A user's current rating in one game family and mode."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_game_mode_rating", "game", "mode", "rating"),)

    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(16), primary_key=True)
    mode: Mapped[str] = mapped_column(String(8), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    #: Glicko-2's volatility (sigma); unused (0) for openskill's pairs.
    volatility: Mapped[float] = mapped_column(Float)
    partite: Mapped[int] = mapped_column(Integer)
    #: When the last rated partita ended (the deviation grows with idle time from it).
    updated_at: Mapped[datetime]


class RatingHistoryModel(Base):
    """One player's rating after one rated partita: the key (table, user) makes an
    update happen once, however many nodes or restarts try it."""

    __tablename__ = "rating_history"
    __table_args__ = (
        Index("ix_rating_history_user_game_mode_at", "user_id", "game", "mode", "at"),
        Index("ix_rating_history_game_mode_at", "game", "mode", "at"),
    )

    table_id: Mapped[str] = mapped_column(
        ForeignKey("records.table_id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(16))
    mode: Mapped[str] = mapped_column(String(8))
    at: Mapped[datetime]
    rating_before: Mapped[float] = mapped_column(Float)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)


class RatedTableModel(Base):
    """A finished partita the ratings have looked at, rated or not (and why not)."""

    __tablename__ = "rated_tables"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("records.table_id", ondelete="CASCADE"), primary_key=True
    )
    rated: Mapped[bool] = mapped_column(Boolean)
    game: Mapped[str | None] = mapped_column(String(16))
    mode: Mapped[str | None] = mapped_column(String(8))
    #: Why a partita was not rated ("bot", "unrated", "players", "game"), "" if it was.
    reason: Mapped[str] = mapped_column(String(32))
    at: Mapped[datetime]
