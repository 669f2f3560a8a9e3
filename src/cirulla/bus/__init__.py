"""Several `cirulla serve` nodes sharing tables through Redis.

Ownership leases say which node runs a table, ordered pub/sub messages carry
commands and events between nodes, and one lobby list is shared by all of them.
"""

from __future__ import annotations

from .redis_bus import BusError, RedisBus

__all__ = ["BusError", "RedisBus"]
