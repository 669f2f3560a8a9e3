"""The coach: analyses of finished partite, and hints asked at practice tables.

The schema only (SQLAlchemy models on the shared `Base`); store/coach.py reads and
writes them. An analysis is kept with its partita's record; a hint count with its
table, so that the record saved at the end can say hints were used.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base

__all__ = ["CoachAnalysisModel", "CoachHintModel"]


class CoachAnalysisModel(Base):
    """The coach's analysis of one finished partita: its progress, then its result."""

    __tablename__ = "coach_analyses"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("records.table_id", ondelete="CASCADE"), primary_key=True
    )
    #: "running", "done" or "failed".
    status: Mapped[str] = mapped_column(String(16))
    done: Mapped[int] = mapped_column(Integer)
    total: Mapped[int] = mapped_column(Integer)
    #: Who asked for it (a user id; not a foreign key: the analysis outlives nothing).
    requested_by: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime]
    #: Moved on every step of progress: a run whose node died stops moving it.
    updated_at: Mapped[datetime]
    result: Mapped[dict[str, Any] | None]
    error: Mapped[str | None] = mapped_column(String(400))


class CoachHintModel(Base):
    """How many hints a seat asked for at a table."""

    __tablename__ = "coach_hints"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[str | None] = mapped_column(String(32))
    count: Mapped[int] = mapped_column(Integer)
    first_at: Mapped[datetime]
