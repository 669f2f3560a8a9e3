"""The two ends of a relayed call, as this node sees them.

A `RemoteTable` is a table another node owns, with the calls of a local actor, each
made on the owner; `serve_call` is the owner's end of those calls, so that each call's
name and arguments are written down in this one file. A `RemoteSubscriber` is a client
on another node, as the owner's actor sees it, whose frames go back to that node. Apart
from tables/cluster.py because they are stand-ins with no logic of their own: how calls
and frames travel, who owns what and what happens when it moves, is the cluster's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..bus import RedisBus
from .actor import Subscriber, TableActor
from .state import TableError

if TYPE_CHECKING:
    from .cluster import Cluster

__all__ = ["RemoteSubscriber", "RemoteTable", "serve_call"]


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

    async def call(self, op: str, **args: Any) -> Any:
        """One of `Cluster.ops`, run on the owner."""
        return await self._call(op, None, **args)

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
        self,
        user: str,
        name: str,
        seat: int | None,
        auto_declare: bool,
        expected: int | None,
        bot_account: bool = False,
    ) -> int:
        version: int = await self._call(
            "sit",
            None,
            user=user,
            name=name,
            seat=seat,
            auto=auto_declare,
            expected=expected,
            bot_account=bot_account,
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


async def serve_call(
    cluster: Cluster, actor: TableActor, op: str, message: dict[str, Any], args: dict[str, Any]
) -> Any:
    """Run on the owner's `actor` a call a RemoteTable made on another node (`message`
    names the client it came from, if any): the other end of each RemoteTable method."""
    if op == "join":
        return await actor.join(cluster.remote_sub(message), args["since"])
    if op == "resync":
        await actor.resync(cluster.remote_sub(message))
        return None
    if op == "leave":
        return await actor.leave(cluster.remote_sub(message))
    if op == "sit":
        return await actor.sit(
            args["user"],
            args["name"],
            args["seat"],
            args["auto"],
            args["expected"],
            bool(args.get("bot_account", False)),
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
        return cluster.manager.may_enter_here(actor.id, args["user"], args["invite"])
    if op == "summary":
        return cluster.manager.summary(actor)
    handler = cluster.ops.get(op)
    if handler is not None:
        return await handler(actor, args)
    raise TableError("bad_command", f"unknown call {op!r}")
