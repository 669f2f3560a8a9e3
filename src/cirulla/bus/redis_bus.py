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
survive anyway, since a whole node can die. The bus tells it when that may have
happened (`trouble_at`, `lost_to`, the `on_reconnect` callback).

A Redis that restarts empty has forgotten every lease while their owners still play
the tables. A key `{cluster}:epoch`, a random value set once, tells: every lease
script reads it, and a node that finds it gone or changed knows that the leases went
with it (`reset_at`), so that it claims back its own and leaves the others' alone for
a while. Every command is bounded in time (COMMAND_TIMEOUT): an outage is a BusError
within seconds, never a hang.

The lease scripts are in bus/scripts.py, the shared lobby in bus/lobby.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

import orjson
import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import RedisError

from .common import BusError
from .common import text as _text
from .lobby import SharedLobby
from .scripts import CLAIM, EPOCH, RELEASE, RENEW

__all__ = ["BusError", "RedisBus"]

log = logging.getLogger("cirulla.bus")

CONNECT_TIMEOUT = 5.0  # seconds to reach Redis before start() or a command gives up
COMMAND_TIMEOUT = 3.0  # seconds a command may take, retries included, before BusError
HEALTH_TIMEOUT = 1.0  # seconds health() waits for a PING
SUBSCRIBE_TIMEOUT = 5.0  # seconds to wait for Redis to confirm the subscriptions
CLOSE_FLUSH_TIMEOUT = 2.0  # seconds close() waits for queued messages to go out
MAX_BATCH = 1000  # messages per PUBLISH pipeline
RECONNECT_BACKOFF = (0.1, 2.0)  # first and longest wait between resubscription attempts


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
        # Few, quick retries: a command must fail within COMMAND_TIMEOUT, not retry
        # for a minute while the game waits (pub/sub reads are not timed out by it).
        self._redis = aioredis.Redis.from_url(
            url,
            client_name=name,
            socket_connect_timeout=CONNECT_TIMEOUT,
            socket_timeout=COMMAND_TIMEOUT,
            socket_keepalive=True,
            retry=Retry(ExponentialWithJitterBackoff(cap=0.2, base=0.02), 2),
        )
        self._node_channel = self._channel(self.node).encode()
        self._lobby = SharedLobby(self._redis, cluster, self._command, self._where)
        self._lobby_channel = self._lobby.channel
        #: Messages for every node (chat in the lobby, moderation): `broadcast`.
        self._all_channel = f"{cluster}:all".encode()
        self._epoch_key = f"{cluster}:epoch"
        self._claim = self._redis.register_script(CLAIM)
        self._renew = self._redis.register_script(RENEW)
        self._release = self._redis.register_script(RELEASE)
        # (channel, payload) in the order sent; None tells the sender to stop.
        self._outbox: asyncio.Queue[tuple[str, bytes] | None] = asyncio.Queue()
        self._on_message: Callable[[dict[str, Any]], None] | None = None
        self._on_lobby: Callable[[], None] | None = None
        self._pubsub: PubSub | None = None
        self._listener: asyncio.Task[None] | None = None
        self._sender: asyncio.Task[None] | None = None
        self._on_reconnect: Callable[[], None] | None = None
        self._started = False
        self._closed = False
        #: The cluster's epoch as this node last saw it (None before the first look).
        self.epoch: str | None = None
        #: time.monotonic() when this node found that Redis had lost the cluster's data
        #: (the epoch gone or changed), and when a Redis command or connection last
        #: failed; -inf for never.
        self.reset_at: float = float("-inf")
        self.trouble_at: float = float("-inf")
        #: Nodes some of whose messages from this node were lost (a PUBLISH failed).
        self.lost_to: set[str] = set()

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
        except (RedisError, OSError) as exc:  # (TimeoutError is an OSError)
            self.trouble_at = time.monotonic()
            why = f"{type(exc).__name__}: {exc}" if str(exc) else "no answer in time"
            raise BusError(f"Redis at {self._where}, {what}: {why}") from exc

    @contextlib.asynccontextmanager
    async def _command(self, what: str) -> AsyncIterator[None]:
        """`_errors`, and at most COMMAND_TIMEOUT seconds for the whole body."""
        with self._errors(what):
            async with asyncio.timeout(COMMAND_TIMEOUT):
                yield

    def _saw_epoch(self, raw: Any) -> None:
        epoch = _text(raw)
        if epoch == self.epoch:
            return
        if self.epoch is not None:
            self.reset_at = time.monotonic()
            log.warning(
                "bus %s: Redis at %s lost the cluster's data (restarted empty?): "
                "the leases are claimed back by the nodes that play the tables",
                self.node,
                self._where,
            )
        self.epoch = epoch

    @property
    def connected(self) -> bool:
        """Started, not closed, and subscribed to this node's channel right now."""
        return self._started and not self._closed and self._pubsub is not None

    async def health(self) -> str:
        """Say "ok", or "down: <why>": a PING answered within HEALTH_TIMEOUT and this node's
        subscription up (without it no other node can reach this one)."""
        if self._closed:
            return "down: closed"
        try:
            async with asyncio.timeout(HEALTH_TIMEOUT):
                await self._redis.ping()
        except (RedisError, OSError) as exc:
            self.trouble_at = time.monotonic()
            why = f"{type(exc).__name__}: {exc}" if str(exc) else f"no answer in {HEALTH_TIMEOUT} s"
            return f"down: {why}"
        if self._started and self._pubsub is None:
            return "down: the subscription is reconnecting (messages to this node are lost)"
        if self._listener is not None and self._listener.done():
            return "down: the listener stopped"
        return "ok"

    # ---- life cycle ------------------------------------------------------------------------
    async def start(
        self,
        on_message: Callable[[dict[str, Any]], None],
        on_lobby: Callable[[], None],
        on_reconnect: Callable[[], None] | None = None,
    ) -> None:
        """Connect (PING; on failure raise BusError naming the URL without password),
        read the cluster's epoch, subscribe to this node's channel and the cluster's
        lobby channel, start the listener and sender tasks. Wait until the subscription
        is confirmed before returning, so that a message sent to this node right after
        start() is not lost. `on_reconnect` is called (with `on_lobby`) whenever the
        subscription was made again: messages sent meanwhile may be lost."""
        if self._closed:
            raise BusError(f"{self!r} is closed")
        if self._started:
            raise BusError(f"{self!r} is already started")
        self._on_message = on_message
        self._on_lobby = on_lobby
        self._on_reconnect = on_reconnect
        with self._errors("connecting"):
            await asyncio.wait_for(self._redis.ping(), CONNECT_TIMEOUT * 2)
        async with self._command("reading the cluster's epoch"):
            self._saw_epoch(
                await self._redis.eval(
                    EPOCH + "return epoch", 1, self._epoch_key, secrets.token_hex(8)
                )
            )
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
    async def claim(self, table: str, *, wary: bool = False) -> bool:
        """True if this node now holds the lease: it was free (SET NX PX) or already ours
        (then its expiry is extended). False if another node holds it. Atomic (Lua).

        `wary` (taking over another node's table): also False if Redis lost the
        cluster's data since this node last looked (see `reset_at`)."""
        with self._errors(f"claiming table {table!r}"):
            async with asyncio.timeout(COMMAND_TIMEOUT):
                answer = await self._claim(
                    keys=[self._epoch_key, self._owner_key(table)],
                    args=[
                        secrets.token_hex(8),
                        self.node,
                        self.lease_ms,
                        self.epoch or "",
                        "1" if wary else "0",
                    ],
                )
        if not isinstance(answer, list) or len(answer) != 2:
            raise BusError(f"claiming table {table!r} on Redis at {self._where}: answer {answer!r}")
        self._saw_epoch(answer[0])
        return bool(answer[1])

    async def owners(self, tables: list[str]) -> dict[str, str | None]:
        """The node holding each table's lease, None where nobody does: one MGET."""
        if not tables:
            return {}
        async with self._command(f"reading the owners of {len(tables)} table(s)"):
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
        taken, missing = await self.renew_leases(tables)
        return taken | missing

    async def renew_leases(self, tables: Iterable[str]) -> tuple[set[str], set[str]]:
        """`renew`, telling apart the leases another node holds (first) from those
        nobody holds (second: expired, or lost with Redis' data)."""
        names = list(tables)
        if not names:
            return set(), set()
        async with self._command(f"renewing {len(names)} lease(s)"):
            flags = await self._renew(
                keys=[self._epoch_key, *(self._owner_key(t) for t in names)],
                args=[secrets.token_hex(8), self.node, self.lease_ms],
            )
        if not isinstance(flags, list) or len(flags) != len(names) + 1:
            raise BusError(
                f"renewing {len(names)} lease(s) on Redis at {self._where}: answer {flags!r}"
            )
        self._saw_epoch(flags[0])
        pairs = list(zip(names, flags[1:], strict=True))
        return {t for t, f in pairs if f == 0}, {t for t, f in pairs if f == 2}

    async def release(self, table: str) -> None:
        """Give up the table's lease, if it is ours; another node's is left alone."""
        async with self._command(f"releasing table {table!r}"):
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

    def broadcast(self, message: dict[str, Any]) -> None:
        """Queue `message` for every node of the cluster, this one included (its
        `_on_message` gets it too, with the sender's node in "from"); never blocks."""
        payload = orjson.dumps({**message, "from": self.node}, option=orjson.OPT_NON_STR_KEYS)
        if self._closed:
            log.warning("bus %s closed: broadcast dropped", self.node)
            return
        self._outbox.put_nowait((self._all_channel.decode(), payload))

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
            self.trouble_at = time.monotonic()
            prefix = self._channel("")
            self.lost_to.update(c[len(prefix) :] for c, _ in batch if c.startswith(prefix))
            log.error(
                "bus %s: %d message(s) lost, PUBLISH on Redis at %s failed: %s: %s",
                self.node,
                len(batch),
                self._where,
                type(exc).__name__,
                exc,
            )

    # ---- lobby (bus/lobby.py) -------------------------------------------------------------
    async def publish_lobby(
        self, entries: Mapping[str, dict[str, Any] | None], *, floor: int = 0
    ) -> int:
        """HSET each entry (JSON) or HDEL it when None, INCR the version (to more than
        `floor` at least), PUBLISH the new version on the lobby channel: one MULTI/EXEC
        pipeline. Returns the new version."""
        return await self._lobby.publish(entries, floor=floor)

    async def lobby(self) -> tuple[int, list[dict[str, Any]]]:
        """The version and every entry (decoded, by table id), read together in one
        MULTI/EXEC so that the version matches the entries."""
        return await self._lobby.read()

    # ---- listener --------------------------------------------------------------------------
    async def _subscribe(self) -> PubSub:
        """A new PubSub on both channels, returned once Redis has confirmed both."""
        pubsub = self._redis.pubsub()
        waiting = {self._node_channel, self._lobby_channel, self._all_channel}
        try:
            with self._errors(f"subscribing (waited at most {SUBSCRIBE_TIMEOUT} s)"):
                async with asyncio.timeout(SUBSCRIBE_TIMEOUT):
                    await pubsub.subscribe(
                        self._node_channel, self._lobby_channel, self._all_channel
                    )
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
                    self._reconnected()
                message = await self._pubsub.get_message(timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.trouble_at = time.monotonic()
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
                    self.trouble_at = time.monotonic()
                    log.warning(
                        "bus %s: pub/sub reconnected to %s, messages published meanwhile are lost",
                        self.node,
                        self._where,
                    )
                    self._reconnected()
                continue
            self._dispatch(message)

    def _reconnected(self) -> None:
        """Tell the layer above that messages may have been lost: lobby changes among
        them (so it reads the lobby again) and its own."""
        for callback in (self._on_lobby, self._on_reconnect):
            if callback is not None:
                try:
                    callback()
                except Exception:
                    log.exception("bus %s: reconnect callback failed", self.node)

    def _dispatch(self, message: dict[str, Any]) -> None:
        """One pub/sub message to its callback; nothing a callback does stops the bus."""
        if message.get("type") != "message":
            return
        channel = message.get("channel")
        if channel in (self._node_channel, self._all_channel):
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
