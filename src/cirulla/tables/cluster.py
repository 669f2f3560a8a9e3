"""Tables shared by several nodes through Redis (`cirulla serve --redis-url`).

Each table has one owner at a time, the node holding its Redis lease, and only the
owner's actor changes it. A client's socket may be on any node: a node that does not
own a table relays the client's commands to the owner and the owner's frames back
(`RemoteTable`, `RemoteSubscriber`), in order. When an owner dies its leases run out;
the next node that needs the table (one whose clients watch it, or the sweep for
orphans) claims it, rebuilds it from the shared log, and joins its watchers again from
the last version each saw, so that nobody misses an event. The store's compare-and-set
on versions keeps a node that lost a lease without knowing it from writing over the
new owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets as _secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..bus import RedisBus
from .actor import Subscriber, TableActor
from .state import TableError

if TYPE_CHECKING:
    from .manager import TableManager

__all__ = ["Cluster", "RemoteSubscriber", "RemoteTable", "Watcher"]

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


class RemoteSubscriber:
    """A client on another node, as the owner's actor sees it: its frames go to that node."""

    __slots__ = ("bus", "conn", "node", "user")

    def __init__(self, bus: RedisBus, node: str, conn: str, user: str | None) -> None:
        self.bus = bus
        self.node = node
        self.conn = conn
        self.user = user

    def deliver(self, frame: dict[str, Any]) -> None:
        self.bus.send(self.node, {"kind": "frame", "conn": self.conn, "frame": frame})


class RemoteTable:
    """A table owned by another node: the calls of a local actor, made there."""

    def __init__(self, cluster: Cluster, owner: str, table_id: str) -> None:
        self.cluster = cluster
        self.owner = owner
        self.id = table_id

    async def _call(self, op: str, sub: Subscriber | None, **args: Any) -> Any:
        return await self.cluster.call(self.owner, self.id, op, sub, args)

    async def join(self, sub: Subscriber, since: int | None) -> int:
        version: int = await self._call("join", sub, since=since)
        return version

    async def resync(self, sub: Subscriber) -> None:
        await self._call("resync", sub)

    def unsubscribe(self, sub: Subscriber) -> None:
        self.cluster.tell(self.owner, self.id, "unsubscribe", sub)

    async def leave(self, sub: Subscriber) -> int:
        version: int = await self._call("leave", sub)
        return version

    async def sit(
        self, user: str, name: str, seat: int | None, auto_declare: bool, expected: int | None
    ) -> int:
        version: int = await self._call(
            "sit", None, user=user, name=name, seat=seat, auto=auto_declare, expected=expected
        )
        return version

    async def stand(self, user: str, expected: int | None = None) -> int:
        version: int = await self._call("stand", None, user=user, expected=expected)
        return version

    async def play(self, user: str, notation: Any, expected: int | None = None) -> int:
        version: int = await self._call("play", None, user=user, move=notation, expected=expected)
        return version

    async def abandon(self, user: str, expected: int | None = None) -> int:
        version: int = await self._call("abandon", None, user=user, expected=expected)
        return version

    async def set_auto_declare(self, user: str, on: bool) -> None:
        await self._call("set_auto_declare", None, user=user, on=on)

    async def may_enter(self, user: str | None, invite: str | None) -> bool:
        return bool(await self._call("may_enter", None, user=user, invite=invite))

    async def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = await self._call("summary", None)
        return out


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

    # ---- start and stop -----------------------------------------------------------------
    async def start(self) -> None:
        await self.bus.start(self._on_message, self._on_lobby)
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
        for table_id in list(self.manager.tables):
            with contextlib.suppress(Exception):
                await self.bus.release(table_id)
        await self.bus.close()

    async def _every(self, seconds: float, job: Callable[[], Awaitable[None]]) -> None:
        while True:
            await asyncio.sleep(seconds * (0.8 + 0.4 * _secrets.randbelow(1000) / 1000))
            try:
                await job()
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis or the database hiccuped: try again next round
                log.exception("cluster job %s failed", getattr(job, "__name__", job))

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
        nobody owns is claimed and rebuilt here."""
        for _ in range(3):
            actor = self.manager.tables.get(table_id)
            if actor is not None:
                return actor
            owner = (await self.bus.owners([table_id]))[table_id]
            if owner is not None and owner != self.node:
                self._routes[table_id] = owner
                return RemoteTable(self, owner, table_id)
            if await self.bus.claim(table_id):
                return await self._adopt(table_id)
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
        even if none of their players comes back; drop lobby entries of dead tables."""
        _, entries = await self.bus.lobby()  # (first: a table made after this is live below)
        rows = await self.manager.store.live_tables()
        live = {r.id for r in rows}
        others = sorted(live - set(self.manager.tables))
        if others:
            owners = await self.bus.owners(others)
            for table_id in others:
                if owners[table_id] is None and table_id not in self._adopting:
                    with contextlib.suppress(TableError):
                        if await self.bus.claim(table_id):
                            await self._adopt(table_id)
                            log.info("adopted table %s", table_id)
        dead = {e["id"]: None for e in entries if e["id"] not in live}
        if dead:
            await self.bus.publish_lobby(dead)

    async def _renew(self) -> None:
        lost = await self.bus.renew(list(self.manager.tables))
        for table_id in lost:
            actor = self.manager.tables.pop(table_id, None)
            if actor is not None:
                log.warning("lost the lease of table %s: another node has it", table_id)
                actor.close()
                # Its watchers on other nodes hang on this actor, which is gone even if
                # this node gets the table back: their nodes must join them again.
                for node in {s.node for s in actor.subscribers if isinstance(s, RemoteSubscriber)}:
                    self.bus.send(node, {"kind": "moved", "table": table_id})

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
                with contextlib.suppress(TableError):
                    await handle.join(watcher, watcher.seen.get(table_id))

    # ---- calls between nodes ------------------------------------------------------------
    async def call(
        self, owner: str, table_id: str, op: str, sub: Subscriber | None, args: dict[str, Any]
    ) -> Any:
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
            if sub is not None:
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
                    actor.unsubscribe(self._remote_sub(message))
            else:
                self._spawn(self._serve(message))
        elif kind == "moved":
            self._routes[message["table"]] = MOVED
            self._spawn(self._check_routes())
        elif kind == "gone":
            sub = self._remote_subs.pop((message["from"], message["conn"]), None)
            if sub is not None:
                for actor in self.manager.tables.values():
                    actor.unsubscribe(sub)
        else:
            log.warning("unknown cluster message %r", kind)

    def _remote_sub(self, message: dict[str, Any]) -> RemoteSubscriber:
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
            reply["ok"] = await self._run(actor, op, message, args)
        except TableError as exc:
            reply["error"] = [exc.code, exc.message]
        except Exception:
            log.exception("call %s on table %s failed", op, table_id)
            reply["error"] = ["internal", "the server failed to do this"]
        if message["id"] is not None:
            self.bus.send(message["from"], reply)

    async def _run(
        self, actor: TableActor, op: str, message: dict[str, Any], args: dict[str, Any]
    ) -> Any:
        if op == "join":
            return await actor.join(self._remote_sub(message), args["since"])
        if op == "resync":
            await actor.resync(self._remote_sub(message))
            return None
        if op == "leave":
            return await actor.leave(self._remote_sub(message))
        if op == "sit":
            return await actor.sit(
                args["user"], args["name"], args["seat"], args["auto"], args["expected"]
            )
        if op == "stand":
            return await actor.stand(args["user"], args["expected"])
        if op == "play":
            return await actor.play(args["user"], args["move"], args["expected"])
        if op == "abandon":
            return await actor.abandon(args["user"], args["expected"])
        if op == "set_auto_declare":
            await actor.set_auto_declare(args["user"], args["on"])
            return None
        if op == "may_enter":
            return self.manager.may_enter_here(actor.id, args["user"], args["invite"])
        if op == "summary":
            return self.manager.summary(actor)
        raise TableError("bad_command", f"unknown call {op!r}")

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
            except Exception:
                log.exception("reading the shared lobby failed")
            if not self._lobby_again:
                return

    async def refresh_lobby(self) -> None:
        version, entries = await self.bus.lobby()
        self.manager.shared_lobby(version, entries)

    def publish_lobby(self, entries: dict[str, dict[str, Any] | None]) -> None:
        self._spawn(self.bus.publish_lobby(entries))
