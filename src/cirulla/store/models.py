"""The database schema as SQLAlchemy 2 declarative models.

The store talks to these tables with Core statements and hands out frozen
dataclasses, never these objects; the models exist so that the schema has one
definition (Alembic's migrations are checked against it in the tests).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "Base",
    "Record",
    "RecordPlayerModel",
    "Seat",
    "Session",
    "Table",
    "TableEvent",
    "TableSecret",
    "TournamentEventModel",
    "TournamentModel",
    "User",
    "UtcDateTime",
]

#: Constraint names spelled out so that migrations can name them on every backend.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend.

    PostgreSQL keeps the zone (timestamptz); SQLite keeps none, so the value is
    stored as naive UTC and given its zone back on the way out.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: the store keeps UTC times only")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UtcDateTime(),
        dict[str, Any]: JSON(),
    }


class User(Base):
    """A player: registered (name and password hash) or a guest (no password)."""

    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    #: The name case-folded: unique, so that "Anna" and "anna" cannot both exist.
    name_key: Mapped[str] = mapped_column(String(64), unique=True)
    guest: Mapped[bool] = mapped_column(Boolean)
    password_hash: Mapped[str | None] = mapped_column(Text)
    options: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]
    #: A bot account (store/models_bots.py has its owner and tokens): no password, no session.
    bot: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class Session(Base):
    """A login session; only the SHA-256 of its token is kept, so a leaked
    database does not log anyone in."""

    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime] = mapped_column(index=True)


class Table(Base):
    """A table: its configuration, status and the version of its event log."""

    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    config: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(16), index=True)
    private: Mapped[bool] = mapped_column(Boolean)
    invite_hash: Mapped[str | None] = mapped_column(String(128))
    owner: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    version: Mapped[int] = mapped_column(Integer)
    #: The hash of the log's last record: an append must link to it (one compare-and-set).
    last_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class Seat(Base):
    """Who sits where at a table now: a user, a bot, or nobody."""

    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[str | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), index=True
    )
    bot: Mapped[str | None] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(64))


class TableEvent(Base):
    """One record of a table's hash-chained event log (`cirulla.eventlog.LogRecord`)."""

    __tablename__ = "table_events"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(String(32))
    data: Mapped[dict[str, Any]]
    at: Mapped[int] = mapped_column(BigInteger)
    prev: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))


class TableSecret(Base):
    """The seed of one smazzata, kept apart from the log until it is revealed."""

    __tablename__ = "table_secrets"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: Seeds are 128-bit: decimal text, since no SQL integer type holds them everywhere.
    seed: Mapped[str] = mapped_column(Text)


class Record(Base):
    """A finished partita's record, with the summary that history lists show."""

    __tablename__ = "records"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(32))
    record: Mapped[dict[str, Any]]
    summary: Mapped[dict[str, Any]]
    finished_at: Mapped[datetime] = mapped_column(index=True)


class RecordPlayerModel(Base):
    """One user's seat in a finished partita: the rows a user's history is read from."""

    __tablename__ = "record_players"
    __table_args__ = (Index("ix_record_players_user_finished", "user_id", "finished_at"),)

    table_id: Mapped[str] = mapped_column(
        ForeignKey("records.table_id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    side: Mapped[int] = mapped_column(Integer)
    won: Mapped[bool | None] = mapped_column(Boolean)
    #: The record's finish time again, so one index serves "my partite, newest first".
    finished_at: Mapped[datetime]


class TournamentModel(Base):
    """A tournament: what the lobby lists of it, and the version of its event log
    (competition/director.py folds the log; the row is only its latest summary)."""

    __tablename__ = "tournaments"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    format: Mapped[str] = mapped_column(String(16))
    config: Mapped[dict[str, Any]]
    organiser: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    private: Mapped[bool] = mapped_column(Boolean)
    invite_hash: Mapped[str | None] = mapped_column(String(128))
    status: Mapped[str] = mapped_column(String(16), index=True)
    starts_at: Mapped[datetime | None]
    #: The summary the list shows (GET /api/tournaments), written with every append.
    summary: Mapped[dict[str, Any]]
    version: Mapped[int] = mapped_column(Integer)
    #: The hash of the log's last record: an append must link to it (one compare-and-set).
    last_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime] = mapped_column(index=True)


class TournamentEventModel(Base):
    """One record of a tournament's hash-chained log (`cirulla.eventlog.LogRecord`)."""

    __tablename__ = "tournament_events"

    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(String(32))
    data: Mapped[dict[str, Any]]
    at: Mapped[int] = mapped_column(BigInteger)
    prev: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))


# The competition's tables, each in a module of its own (imported here so that
# `Base.metadata` holds the whole schema).
from . import (  # noqa: E402, F401
    models_bots,
    models_chat,
    models_coach,
    models_ledger,
    models_player_tournaments,
    models_players,
    models_ratings,
)
