"""The one error a table raises: a command it cannot take, with a code for the protocol."""

from __future__ import annotations

__all__ = ["TableError"]


class TableError(ValueError):
    """A command or record the table cannot take; `code` is for the protocol."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
