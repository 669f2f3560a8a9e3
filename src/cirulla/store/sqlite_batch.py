"""SQLite's group commit of table appends on a bare sqlite3 connection.

Under load, the server's hottest write is many tables' appends in one transaction.
Through SQLAlchemy each statement costs more in compiling, events and pool
checkout than SQLite spends writing it; here the same statements go straight to
the driver. The values are the ones SQLAlchemy would bind (the store passes its
columns' own bind processors), so rows written either way read back the same.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

__all__ = ["SqliteBatch"]

_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA busy_timeout=10000",
    "PRAGMA foreign_keys=ON",
    "PRAGMA synchronous=NORMAL",
)

_CAS = (
    "UPDATE tables SET version = ?, last_hash = ?, status = coalesce(?, status), updated_at = ?"
    " WHERE id = ? AND version = ? AND last_hash = ?"
)
_EVENT = (
    "INSERT INTO table_events (table_id, version, type, data, at, prev, hash)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_CLEAR_SEATS = "DELETE FROM seats WHERE table_id = ?"
_SEAT = "INSERT INTO seats (table_id, seat, user_id, bot, name) VALUES (?, ?, ?, ?, ?)"
_SECRET = "INSERT INTO table_secrets (table_id, deal, seed) VALUES (?, ?, ?)"


class SqliteBatch:
    """One connection, used only from the event loop's thread under the store's write
    lock, so its transactions never overlap the store's other writers."""

    def __init__(self, path: str) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        for pragma in _PRAGMAS:
            self._db.execute(pragma)

    def write(
        self,
        cas: Sequence[tuple[Any, ...]],
        events: Sequence[tuple[Any, ...]],
        seated: Sequence[str],
        seats: Sequence[tuple[Any, ...]],
        secrets: Sequence[tuple[Any, ...]],
    ) -> bool:
        """All of it in one transaction; False, and nothing written, if a table's
        compare-and-set finds its log moved on. Other errors propagate, rolled back."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.executemany(_CAS, cas).rowcount != len(cas):
                db.execute("ROLLBACK")
                return False
            db.executemany(_EVENT, events)
            if seated:
                db.executemany(_CLEAR_SEATS, [(t,) for t in seated])
                if seats:
                    db.executemany(_SEAT, seats)
            if secrets:
                db.executemany(_SECRET, secrets)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        return True

    def close(self) -> None:
        self._db.close()
