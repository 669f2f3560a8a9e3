"""The ids of tables and tournaments, which players see in links and file names."""

from __future__ import annotations

import secrets

__all__ = ["new_id"]


def new_id() -> str:
    """11 URL-safe random characters (about 64 bits), the first a letter or a digit: a
    record saved as `<id>.json` and given to `cirulla verify` would read as an option
    if its id began with "-"."""
    while True:
        token = secrets.token_urlsafe(8)
        if token[0] not in "-_":
            return token
