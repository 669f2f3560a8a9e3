"""Tables shared by several nodes through Redis (`cirulla serve --redis-url`).

Each table has one owner at a time, the node holding its Redis lease, and only the
owner's actor changes it. A client's socket may be on any node: a node that does not
own a table relays the client's commands to the owner and the owner's frames back
(`RemoteTable`, `RemoteSubscriber`, in tables/relay.py), in order. When an owner dies
its leases run out; the next node that needs the table (one whose clients watch it, or
the sweep for orphans) claims it, rebuilds it from the shared log, and joins its
watchers again from the last version each saw, so that nobody misses an event. The
store's compare-and-set on versions keeps a node that lost a lease without knowing it
from writing over the new owner.

Redis can fail too. While it is down, relayed commands get `unavailable` at once and
every loop here goes on trying. When it comes back, or comes back empty (every lease
forgotten), each node claims back the leases of the tables it plays, checking in the
store that nobody wrote to them meanwhile, and for a lease period after any Redis
trouble no node takes over a table it does not play (`_recovering`), so the owners get
there first and nothing is rebuilt needlessly. Messages lost in the outage are made
good by joining the watchers again from the last version each saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets as _secrets
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..bus import BusError, RedisBus
from .actor import Subscriber, TableActor
from .failures import FailureLog
from .relay import RemoteSubscriber, RemoteTable, serve_call
from .state import TableError

if TYPE_CHECKING:
    from .manager import TableManager

__all__ = ["Cluster", "Watcher"]

log = logging.getLogger("cirulla.cluster")

#: How long a node waits for the owner's answer before telling the client to try again.
CALL_TIMEOUT = 5.0

#: The route of a table whose old owner said it let it go: wherever it is now, the
#: watchers must be joined there again.
MOVED = "(moved)"


class Watcher(Subscriber, Protocol):
    """A client socket on this node: the tables it watches and the last version of each
    it was sent, from which it is joined again when its table moves."""

    watching: set[str]
    seen: dict[str, int]


class Cluster:
    """This node's part in the cluster: leases, relayed calls, moved tables, the lobby."""

    def __init__(self, manager: TableManager, bus: RedisBus) -> None:
        self.manager = manager
        self.bus = bus
        self.node = bus.node
        self.watchers: set[Watcher] = set()
        self._conn_ids: dict[Subscriber, str] = {}
        self._conns: dict[str, Subscriber] = {}
        self._remote_subs: dict[tuple[str, str], RemoteSubscriber] = {}
        self._routes: dict[str, str] = {}  # table -> the owner this node last sent it to
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self._adopting: dict[str, asyncio.Future[TableActor]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loops: list[asyncio.Task[None]] = []
        self._lobby_refresh: asyncio.Task[None] | None = None
        self._checking = asyncio.Lock()  # one check of the routes at a time
        self._lobby_again = False
        self._renewed_at = time.monotonic()  # when the last renewal that worked began
        self._reset_seen = float("-inf")  # the bus's reset_at last acted upon
        self._unpublished: set[str] = set()  # tables whose lobby entry Redis did not take
        self._lobby_floor = 0  # after Redis lost the lobby: the least next version
        #: Calls other layers serve on the tables this node owns (op -> handler of the
        #: actor and the call's args): the gateway's chat registers its own here.
        self.ops: dict[str, Callable[[TableActor, dict[str, Any]], Awaitable[Any]]] = {}
        #: What other layers do with a `bus.broadcast` of their topic, on every node.
        self.topics: dict[str, Callable[[dict[str, Any]], None]] = {}
        #: Looking up tables' owners while Redis is down fails at every relayed
        #: command: a line when it starts, one a minute, one when it is over.
        self._route_failures = FailureLog(log, "finding the nodes of tables in Redis")

    @property
    def grace(self) -> float:
        """Seconds after Redis trouble in which only owners claim leases (one lease)."""
        return self.bus.lease_ms / 1000

    def _recovering(self) -> bool:
        """Redis failed, or lost its data, less than a lease ago: the leases it forgot
        are their owners' to claim back, not anyone's to take."""
        since = max(self.bus.trouble_at, self.bus.reset_at)
        return time.monotonic() < since + self.grace

    # ---- start and stop -----------------------------------------------------------------
    async def start(self) -> None:
        await self.bus.start(self._on_message, self._on_lobby, self._on_reconnect)
        await self.refresh_lobby()
        period = self.bus.lease_ms / 1000
        self._loops = [
            asyncio.create_task(self._every(period / 3, self._renew)),
            asyncio.create_task(self._every(period / 3, self._check_routes)),
            asyncio.create_task(self._every(period, self.adopt_orphans)),
        ]

    async def close(self) -> None:
        """Stop, and give up this node's leases so another node takes its tables at once."""
        for task in [*self._loops, *self._tasks]:
            task.cancel()
        with contextlib.suppress(Exception):  # (Redis down: the leases run out by themselves)
            async with asyncio.timeout(2.0):
                for table_id in list(self.manager.tables):
                    await self.bus.release(table_id)
        await self.bus.close()

    async def _every(self, seconds: float, job: Callable[[], Awaitable[None]]) -> None:
        """Run `job` every `seconds` (give or take a fifth); a round that fails (Redis
        or the database down) is tried again the next, and logged once, not per round."""
        name = getattr(job, "__name__", str(job)).strip("_")
        failures = FailureLog(log, f"cluster job {name}")
        while True:
            await asyncio.sleep(seconds * (0.8 + 0.4 * _secrets.randbelow(1000) / 1000))
            try:
                await job()
            except asyncio.CancelledError:
                raise
            except BusError as exc:  # Redis is down: its traceback would say nothing more
                failures.failed(self.node, exc, trace=False)
            except Exception as exc:  # the database hiccuped: try again next round
                failures.failed(self.node, exc)
            else:
                failures.succeeded(self.node)

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---- the sockets of this node -----------------------------------------------------
    def attach(self, watcher: Watcher) -> None:
        self.watchers.add(watcher)

    def detach(self, watcher: Watcher) -> None:
        """A socket closed: the owners of the tables it watched through them forget it."""
        self.watchers.discard(watcher)
        conn = self._conn_ids.pop(watcher, None)
        if conn is None:
            return
        self._conns.pop(conn, None)
        owners = {self._routes.get(t) for t in watcher.watching} - {None, self.node, MOVED}
        for owner in owners:
            assert owner is not None
            self.bus.send(owner, {"kind": "gone", "from": self.node, "conn": conn})

    def _conn_id(self, sub: Subscriber) -> str:
        conn = self._conn_ids.get(sub)
        if conn is None:
            conn = self._conn_ids[sub] = _secrets.token_hex(8)
            self._conns[conn] = sub
        return conn

    # ---- finding a table --------------------------------------------------------------
    async def route(self, table_id: str) -> TableActor | RemoteTable:
        """The local actor of `table_id`, or a handle on the node that owns it; a table
        nobody owns is claimed and rebuilt here. Redis failing is `unavailable`."""
        try:
            for _ in range(3):
                actor = self.manager.tables.get(table_id)
                if actor is not None:
                    return actor
                owner = (await self.bus.owners([table_id]))[table_id]
                self._route_failures.succeeded("redis")
                if owner is not None and owner != self.node:
                    # (a table that moved keeps its mark until the route check has
                    # joined this node's watchers there: a command routed meanwhile
                    # must not pass for that join)
                    if self._routes.get(table_id) != MOVED:
                        self._routes[table_id] = owner
                    return RemoteTable(self, owner, table_id)
                if owner is None and self._recovering():
                    break  # its owner may be claiming it back
                if await self.bus.claim(table_id, wary=owner is None):
                    return await self._adopt(table_id)
        except BusError as exc:
            self._route_failures.failed("redis", exc, trace=False)
            raise TableError(
                "unavailable", "the cluster's Redis does not answer: try again in a few seconds"
            ) from exc
        raise TableError("unavailable", f"table {table_id} is moving between nodes: try again")

    async def _adopt(self, table_id: str) -> TableActor:
        """Rebuild a table whose lease this node holds (once, however many ask at once)."""
        waiting = self._adopting.get(table_id)
        if waiting is not None:
            return await asyncio.shield(waiting)
        future: asyncio.Future[TableActor] = asyncio.get_running_loop().create_future()
        self._adopting[table_id] = future
        try:
            actor = await self.manager.adopt(table_id)
        except BaseException as exc:
            with contextlib.suppress(Exception):
                await self.bus.release(table_id)
            future.set_exception(exc)
            future.exception()  # (retrieved: the waiters, if any, get it too)
            raise
        else:
            # This node's sockets that watch the table hung on its old node: join them
            # here before anyone's command is applied, so that none misses its event.
            self._routes[table_id] = self.node
            for watcher in [w for w in self.watchers if table_id in w.watching]:
                with contextlib.suppress(TableError):
                    await actor.join(watcher, watcher.seen.get(table_id))
            future.set_result(actor)
            return actor
        finally:
            del self._adopting[table_id]

    async def adopt_orphans(self) -> None:
        """Claim the live tables whose owner is gone, so their clocks and bots go on
        even if none of their players comes back; drop lobby entries of dead tables.
        Not while Redis is recovering: the owners claim their tables back first."""
        if self._recovering():
            return
        _, entries = await self.bus.lobby()  # (first: a table made after this is live below)
        rows = await self.manager.store.live_tables()
        live = {r.id for r in rows}
        others = sorted(live - set(self.manager.tables))
        if others:
            owners = await self.bus.owners(others)
            for table_id in others:
                if owners[table_id] is None and table_id not in self._adopting:
                    with contextlib.suppress(TableError):
                        if await self.bus.claim(table_id, wary=True):
                            await self._adopt(table_id)
                            log.info("adopted table %s", table_id)
        dead = {e["id"]: None for e in entries if e["id"] not in live}
        if dead:
            await self.bus.publish_lobby(dead)

    async def _renew(self) -> None:
        began = time.monotonic()
        lost, missing = await self.bus.renew_leases(list(self.manager.tables))
        # A lease nobody holds after Redis trouble (down, or back empty) is claimed
        # back, if the table is as this node left it; one that just ran out in a quiet
        # Redis means this node was too slow to renew it, and is let go.
        troubled = max(self.bus.trouble_at, self.bus.reset_at) >= self._renewed_at
        for table_id in sorted(missing):
            if not (troubled and await self._claim_back(table_id)):
                lost.add(table_id)
        self._renewed_at = began
        for table_id in lost:
            actor = self.manager.tables.pop(table_id, None)
            if actor is not None:
                log.warning("lost the lease of table %s: another node has it", table_id)
                actor.close()
                # Its watchers on other nodes hang on this actor, which is gone even if
                # this node gets the table back: their nodes must join them again.
                for node in {s.node for s in actor.subscribers if isinstance(s, RemoteSubscriber)}:
                    self.bus.send(node, {"kind": "moved", "table": table_id})
                # and so do this node's own: the route check joins them where it went
                self._routes[table_id] = MOVED
                self._spawn(self._check_routes())
        await self._after_trouble()

    async def _claim_back(self, table_id: str) -> bool:
        """Hold again the lease of a table this node plays, lost with Redis' data or run
        out while Redis was down: only if nobody took it and the store's log ends where
        this node's actor does (else another node wrote to it meanwhile)."""
        actor = self.manager.tables.get(table_id)
        if actor is None or not await self.bus.claim(table_id):
            return False
        try:
            row = await self.manager.store.get_table(table_id)
            async with actor._lock:  # (not in the middle of a write)
                same = row is not None and row.version == actor.state.version
        except Exception:
            log.exception("table %s: cannot compare with the store", table_id)
            same = False
        if same:
            log.info("claimed back the lease of table %s after Redis trouble", table_id)
            return True
        log.warning("table %s changed elsewhere while its lease was gone: letting it go", table_id)
        with contextlib.suppress(BusError):
            await self.bus.release(table_id)
        return False

    async def _after_trouble(self) -> None:
        """What Redis lost: the lobby (after a reset, republished past every version
        seen), lobby entries not published, messages to other nodes (they are told, and
        join their watchers again from the versions they saw)."""
        if self.bus.reset_at > self._reset_seen:
            self._reset_seen = self.bus.reset_at
            self._lobby_floor = self.manager.lobby_version + 1000
            self._unpublished.update(self.manager.tables)
        if self._unpublished:
            tables, self._unpublished = self._unpublished, set()
            entries = {
                t: self.manager.lobby_board.entry(t) for t in tables if t in self.manager.tables
            }
            await self._publish_lobby(entries)
        lost, self.bus.lost_to = self.bus.lost_to, set()
        for node in lost - {self.node}:
            self.bus.send(node, {"kind": "lost", "from": self.node})

    async def _check_routes(self) -> None:
        """Join the watchers of a table that moved (or whose owner died) where it is now."""
        async with self._checking:  # (two at once could join a watcher twice from one version)
            await self._check_routes_now()

    async def _check_routes_now(self) -> None:
        watched = sorted({t for w in self.watchers for t in w.watching})
        if not watched:
            return
        owners = await self.bus.owners(watched)
        for table_id in watched:
            owner = owners[table_id]
            joined = self._routes.get(table_id)  # where the watchers are (None: here)
            if table_id in self.manager.tables:
                if joined in (None, self.node):
                    continue  # (a lost lease is the renewal's to find)
            elif owner == self.node:
                continue  # being adopted
            elif owner is not None and owner == joined:
                continue  # where it was (if its node died, its lease has not run out yet)
            try:
                handle = await self.route(table_id)
            except TableError:
                continue
            log.info("table %s moved: joining its watchers again", table_id)
            self._routes[table_id] = handle.owner if isinstance(handle, RemoteTable) else self.node
            for watcher in [w for w in self.watchers if table_id in w.watching]:
                try:
                    await handle.join(watcher, watcher.seen.get(table_id))
                except TableError as exc:
                    if exc.code == "unavailable":  # (its node does not answer yet)
                        self._routes[table_id] = MOVED  # the next check tries again

    # ---- calls between nodes ------------------------------------------------------------
    async def call(
        self, owner: str, table_id: str, op: str, sub: Subscriber | None, args: dict[str, Any]
    ) -> Any:
        if not self.bus.connected:  # its answer could not reach us
            raise TableError(
                "unavailable", "this node has lost its link to the cluster: try again shortly"
            )
        call_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[call_id] = future
        message: dict[str, Any] = {
            "kind": "call",
            "id": call_id,
            "from": self.node,
            "table": table_id,
            "op": op,
            "args": args,
        }
        if sub is not None:
            message["conn"] = self._conn_id(sub)
            message["user"] = sub.user
        self.bus.send(owner, message)
        try:
            return await asyncio.wait_for(future, CALL_TIMEOUT)
        except TimeoutError:
            raise TableError(
                "unavailable", f"the node that holds table {table_id} does not answer: try again"
            ) from None
        finally:
            self._pending.pop(call_id, None)

    def tell(self, owner: str, table_id: str, op: str, sub: Subscriber) -> None:
        """A call whose answer nobody waits for (unsubscribe)."""
        message: dict[str, Any] = {
            "kind": "call",
            "id": None,
            "from": self.node,
            "table": table_id,
            "op": op,
            "args": {},
            "conn": self._conn_id(sub),
            "user": sub.user,
        }
        self.bus.send(owner, message)

    def _on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("kind")
        if kind == "frame":
            sub = self._conns.get(message["conn"])
            if sub is not None and not _seen_already(sub, message["frame"]):
                sub.deliver(message["frame"])
        elif kind == "reply":
            future = self._pending.get(message["id"])
            if future is not None and not future.done():
                if "error" in message:
                    code, text = message["error"]
                    future.set_exception(TableError(code, text))
                else:
                    future.set_result(message.get("ok"))
        elif kind == "call":
            if message["op"] == "unsubscribe":  # at once, so it stays in order with joins
                actor = self.manager.tables.get(message["table"])
                if actor is not None:
                    actor.unsubscribe(self.remote_sub(message))
            else:
                self._spawn(self._serve(message))
        elif kind == "broadcast":
            handler = self.topics.get(message.get("topic", ""))
            if handler is None:
                log.warning("broadcast of unknown topic %r", message.get("topic"))
            else:
                handler(message)
        elif kind == "moved":
            self._routes[message["table"]] = MOVED
            self._spawn(self._check_routes())
        elif kind == "lost":  # some of that node's frames to our watchers went missing
            self._rejoin_remote(message["from"])
        elif kind == "gone":
            sub = self._remote_subs.pop((message["from"], message["conn"]), None)
            if sub is not None:
                for actor in self.manager.tables.values():
                    actor.unsubscribe(sub)
        else:
            log.warning("unknown cluster message %r", kind)

    def _on_reconnect(self) -> None:
        """Our subscription was down: frames for our watchers may be lost."""
        self._rejoin_remote(None)

    def _rejoin_remote(self, owner: str | None) -> None:
        """Join the watchers of tables played by `owner` (None: any other node) again
        from the last version each saw; frames they already have are not sent twice."""
        for table_id, joined in list(self._routes.items()):
            if joined not in (self.node, MOVED) and owner in (None, joined):
                self._routes[table_id] = MOVED
        self._spawn(self._check_routes())

    def remote_sub(self, message: dict[str, Any]) -> RemoteSubscriber:
        """The stand-in of the client on another node that a call came from."""
        key = (message["from"], message["conn"])
        sub = self._remote_subs.get(key)
        if sub is None or sub.user != message.get("user"):
            sub = self._remote_subs[key] = RemoteSubscriber(
                self.bus, key[0], key[1], message.get("user")
            )
        return sub

    async def _serve(self, message: dict[str, Any]) -> None:
        """Run a call from another node on the local actor and send the answer back."""
        table_id, op, args = message["table"], message["op"], message["args"]
        reply: dict[str, Any] = {"kind": "reply", "id": message["id"]}
        try:
            actor = self.manager.tables.get(table_id)
            if actor is None:  # not here yet (its lease came to this node) or moved away
                handle = await self.route(table_id)
                if not isinstance(handle, TableActor):
                    raise TableError("unavailable", f"table {table_id} moved: try again")
                actor = handle
            reply["ok"] = await serve_call(self, actor, op, message, args)
        except TableError as exc:
            reply["error"] = [exc.code, exc.message]
        except Exception:
            log.exception("call %s on table %s failed", op, table_id)
            reply["error"] = ["internal", "the server failed to do this"]
        if message["id"] is not None:
            self.bus.send(message["from"], reply)

    # ---- the lobby --------------------------------------------------------------------
    def _on_lobby(self) -> None:
        if self._lobby_refresh is not None and not self._lobby_refresh.done():
            self._lobby_again = True  # read it once more when this read is done
            return
        self._lobby_refresh = asyncio.ensure_future(self._refresh_loop())

    async def _refresh_loop(self) -> None:
        while True:
            self._lobby_again = False
            try:
                await self.refresh_lobby()
            except BusError as exc:  # (read again when the subscription is back)
                log.warning("reading the shared lobby failed: %s", exc)
            except Exception:
                log.exception("reading the shared lobby failed")
            if not self._lobby_again:
                return

    async def refresh_lobby(self) -> None:
        version, entries = await self.bus.lobby()
        self.manager.lobby_board.shared(version, entries)

    def publish_lobby(self, entries: dict[str, dict[str, Any] | None]) -> None:
        self._spawn(self._publish_lobby(entries))

    async def _publish_lobby(self, entries: dict[str, dict[str, Any] | None]) -> None:
        """Publish, or keep the tables for the next renewal to publish (as they are then)."""
        if not entries:
            return
        try:
            await self.bus.publish_lobby(entries, floor=self._lobby_floor)
        except BusError as exc:
            log.warning("lobby not published, tried again shortly: %s", exc)
            self._unpublished.update(entries)
        else:
            self._lobby_floor = 0


def _seen_already(sub: Subscriber, frame: dict[str, Any]) -> bool:
    """An event a watcher was sent before (a join from its last version crossed frames
    in flight): versions only go up, so one not past the last sent is a repeat."""
    seen: dict[str, int] | None = getattr(sub, "seen", None)
    if not seen or frame.get("type") != "event":
        return False
    last = seen.get(frame.get("table", ""))
    version = frame.get("version")
    return last is not None and isinstance(version, int) and version <= last
