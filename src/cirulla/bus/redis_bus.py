"""One node's link to the other nodes of a cluster through Redis.

Three things are shared, all under keys and channels that start with the cluster
name:

* ownership leases, `{cluster}:owner:{table}` = node id with an expiry: the node
  that holds a table's lease runs it; a node that dies loses its tables when the
  leases run out, and another node can take them over;
* messages, one pub/sub channel per node, `{cluster}:node:{node}`: sent without
  waiting (the game must not stall on the network), published in order by one
  sender task, so everything one node sends to another arrives in the order sent;
* the lobby, a hash `{cluster}:lobby` of table id -> JSON entry with a version
  counter; every change is announced on the channel `{cluster}:lobby`.

Pub/sub delivers at most once: what is published while a node's subscription is
down (Redis restarting, a broken connection) is lost, which the layer above must
survive anyway, since a whole node can die.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

import orjson
import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError
from redis.typing import EncodableT, FieldT

__all__ = ["BusError", "RedisBus"]

log = logging.getLogger("cirulla.bus")

CONNECT_TIMEOUT = 5.0  # seconds to reach Redis before start() or a command gives up
SUBSCRIBE_TIMEOUT = 5.0  # seconds to wait for Redis to confirm the subscriptions
CLOSE_FLUSH_TIMEOUT = 2.0  # seconds close() waits for queued messages to go out
MAX_BATCH = 1000  # messages per PUBLISH pipeline
RECONNECT_BACKOFF = (0.1, 5.0)  # first and longest wait between resubscription attempts

# The lease is ours if it names us; claiming a free table sets it, claiming our own
# extends it. GET-then-SET in one script, so two nodes never both see "free".
_CLAIM = """
local holder = redis.call('GET', KEYS[1])
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""

# One flag per key: 1 if the lease was ours and is extended, 0 if it is gone or
# someone else's (then it is left alone).
_RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

# MULTI cannot feed INCR's answer to PUBLISH, a script inside the transaction can.
_BUMP_LOBBY = """
local version = redis.call('INCR', KEYS[1])
redis.call('PUBLISH', ARGV[1], version)
return version
"""


class BusError(Exception):
    """Redis cannot be reached or answered wrongly (message says what and where)."""


def _safe_url(url: str) -> str:
    """The URL without its password, fit for messages and logs."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        host = parts.hostname or ""
        if ":" in host:  # IPv6 literal
            host = f"[{host}]"
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        netloc = f"{parts.username}@{host}" if parts.username else host
        return urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        return "<unparsable Redis URL>"


def _text(value: Any) -> str:
    """A Redis string as text (the client is not asked to decode, payloads are bytes)."""
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisBus:
    """One node's link to the other nodes of a cluster through Redis."""

    def __init__(
        self,
        url: str,
        *,
        cluster: str = "cirulla",
        lease_ms: int = 10_000,
        node: str | None = None,
    ) -> None:
        if lease_ms <= 0:
            raise ValueError(f"lease_ms must be positive, not {lease_ms}")
        self.node: str = node if node is not None else secrets.token_hex(6)
        self.cluster: str = cluster
        self.lease_ms: int = lease_ms
        self._where = _safe_url(url)
        # Named connections let an operator (and the tests) tell nodes apart in
        # CLIENT LIST; a name may not contain spaces.
        name = re.sub(r"[^!-~]", "_", f"{cluster}:{self.node}")
        self._redis = aioredis.Redis.from_url(
            url,
            client_name=name,
            socket_connect_timeout=CONNECT_TIMEOUT,
            socket_keepalive=True,
        )
        self._node_channel = self._channel(self.node).encode()
        self._lobby_channel = f"{cluster}:lobby".encode()
        self._lobby_key = f"{cluster}:lobby"
        self._version_key = f"{cluster}:lobby:version"
        self._claim = self._redis.register_script(_CLAIM)
        self._renew = self._redis.register_script(_RENEW)
        self._release = self._redis.register_script(_RELEASE)
        # (channel, payload) in the order sent; None tells the sender to stop.
        self._outbox: asyncio.Queue[tuple[str, bytes] | None] = asyncio.Queue()
        self._on_message: Callable[[dict[str, Any]], None] | None = None
        self._on_lobby: Callable[[], None] | None = None
        self._pubsub: PubSub | None = None
        self._listener: asyncio.Task[None] | None = None
        self._sender: asyncio.Task[None] | None = None
        self._started = False
        self._closed = False

    def __repr__(self) -> str:
        return f"RedisBus(node={self.node!r}, cluster={self.cluster!r}, at {self._where})"

    def _channel(self, node: str) -> str:
        return f"{self.cluster}:node:{node}"

    def _owner_key(self, table: str) -> str:
        return f"{self.cluster}:owner:{table}"

    @contextlib.contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        """Redis' own errors as BusError, saying what was being done and on which Redis."""
        try:
            yield
        except (RedisError, OSError) as exc:
            why = f"{type(exc).__name__}: {exc}" if str(exc) else "no answer in time"
            raise BusError(f"Redis at {self._where}, {what}: {why}") from exc

    # ---- life cycle ------------------------------------------------------------------------
    async def start(
        self, on_message: Callable[[dict[str, Any]], None], on_lobby: Callable[[], None]
    ) -> None:
        """Connect (PING; on failure raise BusError naming the URL without password),
        subscribe to this node's channel and the cluster's lobby channel, start the
        listener and sender tasks. Wait until the subscription is confirmed before
        returning, so that a message sent to this node right after start() is not lost."""
        if self._closed:
            raise BusError(f"{self!r} is closed")
        if self._started:
            raise BusError(f"{self!r} is already started")
        self._on_message = on_message
        self._on_lobby = on_lobby
        with self._errors("connecting"):
            await asyncio.wait_for(self._redis.ping(), CONNECT_TIMEOUT * 2)
        self._pubsub = await self._subscribe()
        self._started = True
        self._listener = asyncio.create_task(self._listen(), name=f"bus-listen-{self.node}")
        self._sender = asyncio.create_task(self._send_loop(), name=f"bus-send-{self.node}")

    async def close(self) -> None:
        """Flush pending sends (bounded wait), stop the tasks, close the connections.

        Idempotent, and fine on a bus that never started."""
        if self._closed:
            return
        self._closed = True
        sender, self._sender = self._sender, None
        if sender is not None:
            self._outbox.put_nowait(None)
            try:
                await asyncio.wait_for(asyncio.shield(sender), CLOSE_FLUSH_TIMEOUT)
            except TimeoutError:
                log.warning(
                    "bus %s: closing with %d message(s) not sent after %.1f s",
                    self.node,
                    self._outbox.qsize(),
                    CLOSE_FLUSH_TIMEOUT,
                )
            except Exception:
                log.exception("bus %s: sender failed while flushing", self.node)
            await _stop(sender)
        listener, self._listener = self._listener, None
        if listener is not None:
            await _stop(listener)
        await self._drop_pubsub()
        with contextlib.suppress(RedisError, OSError):
            await self._redis.aclose()

    # ---- ownership leases ------------------------------------------------------------------
    async def claim(self, table: str) -> bool:
        """True if this node now holds the lease: it was free (SET NX PX) or already ours
        (then its expiry is extended). False if another node holds it. Atomic (Lua)."""
        with self._errors(f"claiming table {table!r}"):
            held = await self._claim(keys=[self._owner_key(table)], args=[self.node, self.lease_ms])
        return bool(held)

    async def owners(self, tables: list[str]) -> dict[str, str | None]:
        """The node holding each table's lease, None where nobody does: one MGET."""
        if not tables:
            return {}
        with self._errors(f"reading the owners of {len(tables)} table(s)"):
            holders = await self._redis.mget([self._owner_key(t) for t in tables])
        if len(holders) != len(tables):
            raise BusError(
                f"MGET of {len(tables)} keys on Redis at {self._where} "
                f"answered {len(holders)} values"
            )
        return {t: None if h is None else _text(h) for t, h in zip(tables, holders, strict=True)}

    async def renew(self, tables: Iterable[str]) -> set[str]:
        """Extend every lease of `tables` still held by this node, in one round trip
        (one Lua script over all keys); return the tables whose lease is no longer ours
        (expired, or taken by another node)."""
        names = list(tables)
        if not names:
            return set()
        with self._errors(f"renewing {len(names)} lease(s)"):
            flags = await self._renew(
                keys=[self._owner_key(t) for t in names], args=[self.node, self.lease_ms]
            )
        if not isinstance(flags, list) or len(flags) != len(names):
            raise BusError(
                f"renewing {len(names)} lease(s) on Redis at {self._where}: answer {flags!r}"
            )
        return {t for t, ok in zip(names, flags, strict=True) if not ok}

    async def release(self, table: str) -> None:
        """Give up the table's lease, if it is ours; another node's is left alone."""
        with self._errors(f"releasing table {table!r}"):
            await self._release(keys=[self._owner_key(table)], args=[self.node])

    # ---- messages --------------------------------------------------------------------------
    def send(self, node: str, message: dict[str, Any]) -> None:
        """Queue `message` for node `node` (channel f"{cluster}:node:{node}"); never blocks.

        Encoded here, so that a message JSON cannot carry fails in the caller; the
        sender task publishes the queue in order."""
        payload = orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS)
        if self._closed:
            log.warning("bus %s closed: message to %s dropped", self.node, node)
            return
        self._outbox.put_nowait((self._channel(node), payload))

    async def _send_loop(self) -> None:
        """Drain the outbox in order, everything queued so far in one pipeline."""
        while True:
            item = await self._outbox.get()
            batch: list[tuple[str, bytes]] = []
            stop = False
            while True:
                if item is None:
                    stop = True
                    break
                batch.append(item)
                if len(batch) >= MAX_BATCH or self._outbox.empty():
                    break
                item = self._outbox.get_nowait()
            if batch:
                await self._publish(batch)
            if stop:
                return

    async def _publish(self, batch: list[tuple[str, bytes]]) -> None:
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for channel, payload in batch:
                    pipe.publish(channel, payload)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            # The client already retried; resending now could duplicate what did go out.
            log.error(
                "bus %s: %d message(s) lost, PUBLISH on Redis at %s failed: %s: %s",
                self.node,
                len(batch),
                self._where,
                type(exc).__name__,
                exc,
            )

    # ---- lobby -----------------------------------------------------------------------------
    async def publish_lobby(self, entries: Mapping[str, dict[str, Any] | None]) -> int:
        """HSET each entry (JSON) or HDEL it when None, INCR the version, PUBLISH the new
        version on the lobby channel: one MULTI/EXEC pipeline. Returns the new version."""
        sets: dict[FieldT, EncodableT] = {
            table: orjson.dumps(entry, option=orjson.OPT_NON_STR_KEYS)
            for table, entry in entries.items()
            if entry is not None
        }
        gone = [table for table, entry in entries.items() if entry is None]
        with self._errors(f"publishing {len(entries)} lobby entries"):
            async with self._redis.pipeline(transaction=True) as pipe:
                if sets:
                    pipe.hset(self._lobby_key, mapping=sets)
                if gone:
                    pipe.hdel(self._lobby_key, *gone)
                pipe.eval(_BUMP_LOBBY, 1, self._version_key, self._lobby_channel)
                answers = await pipe.execute()
        try:
            return int(answers[-1])
        except (TypeError, ValueError, IndexError) as exc:
            raise BusError(
                f"publishing the lobby on Redis at {self._where}: version {answers!r}"
            ) from exc

    async def lobby(self) -> tuple[int, list[dict[str, Any]]]:
        """The version and every entry (decoded, by table id), read together in one
        MULTI/EXEC so that the version matches the entries."""
        with self._errors("reading the lobby"):
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.get(self._version_key)
                pipe.hgetall(self._lobby_key)
                raw_version, raw_entries = await pipe.execute()
        try:
            version = 0 if raw_version is None else int(raw_version)
        except (TypeError, ValueError) as exc:
            raise BusError(
                f"reading the lobby on Redis at {self._where}: version {raw_version!r}"
            ) from exc
        entries: list[dict[str, Any]] = []
        for table in sorted(raw_entries, key=_text):
            try:
                entry = orjson.loads(raw_entries[table])
            except orjson.JSONDecodeError:
                entry = None
            if isinstance(entry, dict):
                entries.append(entry)
            else:
                # One bad entry must not hide the whole lobby from every node.
                log.warning("lobby entry %r is not a JSON object, skipped", _text(table))
        return version, entries

    # ---- listener --------------------------------------------------------------------------
    async def _subscribe(self) -> PubSub:
        """A new PubSub on both channels, returned once Redis has confirmed both."""
        pubsub = self._redis.pubsub()
        waiting = {self._node_channel, self._lobby_channel}
        try:
            with self._errors(f"subscribing (waited at most {SUBSCRIBE_TIMEOUT} s)"):
                async with asyncio.timeout(SUBSCRIBE_TIMEOUT):
                    await pubsub.subscribe(self._node_channel, self._lobby_channel)
                    while waiting:
                        message = await pubsub.get_message(timeout=None)
                        if message is None:
                            continue
                        if message["type"] == "subscribe":
                            waiting.discard(message["channel"])
                        else:
                            self._dispatch(message)
        except BaseException:
            await _close_pubsub(pubsub)
            raise
        return pubsub

    async def _drop_pubsub(self) -> None:
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            await _close_pubsub(pubsub)

    async def _listen(self) -> None:
        """Hand every message to the callbacks, in arrival order, until cancelled;
        a broken connection is logged and the subscription made again."""
        backoff = RECONNECT_BACKOFF[0]
        while True:
            try:
                if self._pubsub is None:
                    self._pubsub = await self._subscribe()
                    log.warning("bus %s: pub/sub reconnected to %s", self.node, self._where)
                    backoff = RECONNECT_BACKOFF[0]
                message = await self._pubsub.get_message(timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning(
                    "bus %s: pub/sub connection to %s broken (%s: %s); "
                    "reconnecting in %.1f s, messages published meanwhile are lost",
                    self.node,
                    self._where,
                    type(exc).__name__,
                    exc,
                    backoff,
                )
                await self._drop_pubsub()
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, RECONNECT_BACKOFF[1])
                continue
            if message is None:
                continue
            if message["type"] == "subscribe":
                # redis-py reconnected by itself and subscribed again: something was
                # probably missed, say so.
                if message["channel"] == self._node_channel:
                    log.warning(
                        "bus %s: pub/sub reconnected to %s, messages published meanwhile are lost",
                        self.node,
                        self._where,
                    )
                continue
            self._dispatch(message)

    def _dispatch(self, message: dict[str, Any]) -> None:
        """One pub/sub message to its callback; nothing a callback does stops the bus."""
        if message.get("type") != "message":
            return
        channel = message.get("channel")
        if channel == self._node_channel:
            data = message.get("data")
            try:
                decoded = orjson.loads(cast(bytes, data))
            except (orjson.JSONDecodeError, TypeError):
                decoded = None
            if not isinstance(decoded, dict):
                log.warning(
                    "bus %s: message that is not a JSON object skipped: %.200r", self.node, data
                )
                return
            if self._on_message is not None:
                try:
                    self._on_message(decoded)
                except Exception:
                    log.exception("bus %s: on_message failed", self.node)
        elif channel == self._lobby_channel and self._on_lobby is not None:
            try:
                self._on_lobby()
            except Exception:
                log.exception("bus %s: on_lobby failed", self.node)


async def _stop(task: asyncio.Task[None]) -> None:
    """Cancel a task and wait for it, whatever it died of (asyncio.wait raises nothing,
    so a cancellation of the caller itself still goes through)."""
    task.cancel()
    await asyncio.wait([task])
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.error("bus task %s failed", task.get_name(), exc_info=exc)


async def _close_pubsub(pubsub: PubSub) -> None:
    # PubSub.aclose is not annotated in redis-py.
    aclose = cast(Callable[[], Awaitable[None]], pubsub.aclose)
    with contextlib.suppress(RedisError, OSError):
        await aclose()
