"""What the bus's modules share: the error they raise and how they read Redis' strings."""

from __future__ import annotations

from typing import Any

__all__ = ["BusError", "text"]


class BusError(Exception):
    """Redis cannot be reached or answered wrongly (message says what and where)."""


def text(value: Any) -> str:
    """A Redis string as text (the client is not asked to decode, payloads are bytes)."""
    return value.decode() if isinstance(value, bytes) else str(value)
