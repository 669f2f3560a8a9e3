"""The lobby every node of a cluster shares, kept in Redis.

A hash `{cluster}:lobby` of table id -> JSON entry, a version counter
`{cluster}:lobby:version`, and every change announced on the channel `{cluster}:lobby`.
Apart from the bus's leases and messages because it is data the nodes share rather
than a link between them; the bus owns one `SharedLobby` and subscribes to its channel.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any

import orjson
import redis.asyncio as aioredis
from redis.typing import EncodableT, FieldT

from .common import BusError, text

__all__ = ["SharedLobby"]

log = logging.getLogger("cirulla.bus")

# MULTI cannot feed INCR's answer to PUBLISH, a script inside the transaction can.
# ARGV[2]: the least new version (after Redis lost the counter, past every one seen).
_BUMP_LOBBY = """
local version = redis.call('INCR', KEYS[1])
local floor = tonumber(ARGV[2])
if floor and version <= floor then
  version = floor + 1
  redis.call('SET', KEYS[1], version)
end
redis.call('PUBLISH', ARGV[1], version)
return version
"""


class SharedLobby:
    """Every node's lobby entries in one Redis hash, with a version that orders them."""

    def __init__(
        self,
        redis: aioredis.Redis,
        cluster: str,
        command: Callable[[str], AbstractAsyncContextManager[None]],
        where: str,
    ) -> None:
        self._redis = redis
        #: The bus's `_command`: Redis' errors as BusError, and a time limit.
        self._command = command
        self._where = where
        self.channel = f"{cluster}:lobby".encode()
        self._key = f"{cluster}:lobby"
        self._version_key = f"{cluster}:lobby:version"

    async def publish(self, entries: Mapping[str, dict[str, Any] | None], *, floor: int = 0) -> int:
        """HSET each entry (JSON) or HDEL it when None, INCR the version (to more than
        `floor` at least), PUBLISH the new version on the lobby channel: one MULTI/EXEC
        pipeline. Returns the new version."""
        sets: dict[FieldT, EncodableT] = {
            table: orjson.dumps(entry, option=orjson.OPT_NON_STR_KEYS)
            for table, entry in entries.items()
            if entry is not None
        }
        gone = [table for table, entry in entries.items() if entry is None]
        async with (
            self._command(f"publishing {len(entries)} lobby entries"),
            self._redis.pipeline(transaction=True) as pipe,
        ):
            if sets:
                pipe.hset(self._key, mapping=sets)
            if gone:
                pipe.hdel(self._key, *gone)
            pipe.eval(_BUMP_LOBBY, 1, self._version_key, self.channel, floor)
            answers = await pipe.execute()
        try:
            return int(answers[-1])
        except (TypeError, ValueError, IndexError) as exc:
            raise BusError(
                f"publishing the lobby on Redis at {self._where}: version {answers!r}"
            ) from exc

    async def read(self) -> tuple[int, list[dict[str, Any]]]:
        """The version and every entry (decoded, by table id), read together in one
        MULTI/EXEC so that the version matches the entries."""
        async with (
            self._command("reading the lobby"),
            self._redis.pipeline(transaction=True) as pipe,
        ):
            pipe.get(self._version_key)
            pipe.hgetall(self._key)
            raw_version, raw_entries = await pipe.execute()
        try:
            version = 0 if raw_version is None else int(raw_version)
        except (TypeError, ValueError) as exc:
            raise BusError(
                f"reading the lobby on Redis at {self._where}: version {raw_version!r}"
            ) from exc
        entries: list[dict[str, Any]] = []
        for table in sorted(raw_entries, key=text):
            try:
                entry = orjson.loads(raw_entries[table])
            except orjson.JSONDecodeError:
                entry = None
            if isinstance(entry, dict):
                entries.append(entry)
            else:
                # One bad entry must not hide the whole lobby from every node.
                log.warning("lobby entry %r is not a JSON object, skipped", text(table))
        return version, entries
