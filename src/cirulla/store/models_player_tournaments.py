"""Players' tournaments: one row per entrant of each finished tournament.

The schema only (SQLAlchemy models on the shared `Base`). A profile lists a user's
tournaments from these rows by the (user, finished) index, so it never reads the
tournaments' logs; the rows are written from each finished tournament's log by
competition/profiles.py. Entrants without an account (bots) get rows too, with no
user, so that a tournament with rows is known to be done; the primary key
(tournament, entrant) makes writing one twice impossible.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base

__all__ = ["PlayerTournamentModel"]


class PlayerTournamentModel(Base):
    """An entrant's result in a finished tournament."""

    __tablename__ = "player_tournaments"
    __table_args__ = (Index("ix_player_tournaments_user_id_finished", "user_id", "finished"),)

    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    entrant: Mapped[str] = mapped_column(String(32), primary_key=True)  # "e1", ...
    user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(64))  # the tournament's
    format: Mapped[str] = mapped_column(String(16))
    private: Mapped[bool] = mapped_column(Boolean)
    #: The entrant's side's final rank; None if the log could not be folded.
    rank: Mapped[int | None] = mapped_column(Integer)
    entrants: Mapped[int] = mapped_column(Integer)  # how many sides played
    finished: Mapped[datetime]
