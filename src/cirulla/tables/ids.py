"""The ids of tables and tournaments, which players see in links and file names."""

from __future__ import annotations

import secrets

__all__ = ["new_id"]


def new_id() -> str:
    """11 URL-safe random characters (64 bits), the first a letter or a digit: an id
    that starts with "-" reads as an option to a shell command given its record's file."""
    while True:
        token = secrets.token_urlsafe(8)
        if token[0] not in "-_":
            return token
