"""Persistence for the server: users, sessions, tables with their event logs, records.

SQLite by default (one file, nothing to install), PostgreSQL when several nodes
share tables; the schema is kept by Alembic migrations that `Store.open` runs.
"""

from __future__ import annotations

from .db import (
    HistoryRow,
    NameTaken,
    RecordPlayer,
    SeatRow,
    Store,
    TableRow,
    UserRow,
    VersionConflict,
    record_summary,
)

__all__ = [
    "HistoryRow",
    "NameTaken",
    "RecordPlayer",
    "SeatRow",
    "Store",
    "TableRow",
    "UserRow",
    "VersionConflict",
    "record_summary",
]
