"""The Redis bus against the real Redis: ownership leases and their expiry, ordered
node-to-node messages, the shared lobby, reconnecting, starting and closing.

Each test has a cluster name of its own and deletes its keys at the end."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import secrets
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
import redis
import redis.asyncio

from cirulla.bus import BusError, RedisBus

REDIS_URL = os.environ.get("CIRULLA_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@functools.cache
def _redis_down() -> str | None:
    """Why Redis does not answer, or None if it does."""
    try:
        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=5)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


@pytest.fixture
def cluster() -> Iterator[str]:
    """A fresh cluster name; its keys are deleted afterwards."""
    reason = _redis_down()
    if reason is not None:
        pytest.skip(f"Redis not reachable at {REDIS_URL}: {reason}")
    name = f"t{secrets.token_hex(4)}"
    yield name
    client = redis.Redis.from_url(REDIS_URL)
    try:
        keys = list(client.scan_iter(match=f"{name}:*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


class Node:
    """A started bus and what its callbacks received."""

    def __init__(self, cluster: str, **kw: Any) -> None:
        self.bus = RedisBus(REDIS_URL, cluster=cluster, **kw)
        self.messages: list[dict[str, Any]] = []
        self.lobby_calls = 0

    def on_message(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    def on_lobby(self) -> None:
        self.lobby_calls += 1

    async def start(self) -> Node:
        await self.bus.start(self.on_message, self.on_lobby)
        return self


async def until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait until `check()` holds; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {timeout} s")
        await asyncio.sleep(0.01)


def run(cluster: str, check: Callable[..., Awaitable[None]], *nodes: dict[str, Any]) -> None:
    """Start one bus per entry of `nodes` (keyword arguments of RedisBus), run `check`
    with them, close them: one event loop per test."""

    async def main() -> None:
        started = [Node(cluster, **kw) for kw in nodes]
        try:
            for node in started:
                await node.start()
            await check(*started)
        finally:
            for node in started:
                await node.bus.close()

    asyncio.run(main())


def pttl(cluster: str, table: str) -> int:
    client = redis.Redis.from_url(REDIS_URL)
    try:
        return int(client.pttl(f"{cluster}:owner:{table}"))
    finally:
        client.close()


# ---- ownership leases -----------------------------------------------------------------------
def test_claim_owners_release(cluster: str) -> None:
    async def check(a: Node, b: Node) -> None:
        assert await a.bus.claim("t1")
        assert not await b.bus.claim("t1")
        assert await a.bus.claim("t1")  # already ours: still ours
        assert await b.bus.claim("t2")
        owners = await b.bus.owners(["t1", "t2", "nope"])
        assert owners == {"t1": a.bus.node, "t2": b.bus.node, "nope": None}
        assert await a.bus.owners([]) == {}

        await b.bus.release("t1")  # not b's: nothing happens
        assert (await a.bus.owners(["t1"]))["t1"] == a.bus.node
        assert not await b.bus.claim("t1")
        await a.bus.release("t1")
        assert (await a.bus.owners(["t1"]))["t1"] is None
        assert await b.bus.claim("t1")
        assert not await a.bus.claim("t1")
        await a.bus.release("unknown")  # releasing what nobody holds is harmless

    run(cluster, check, {"node": "alpha"}, {"node": "beta"})


def test_claim_by_the_owner_extends_the_lease(cluster: str) -> None:
    async def check(a: Node) -> None:
        assert await a.bus.claim("t")
        assert 800 < pttl(cluster, "t") <= 1000
        await asyncio.sleep(0.4)
        assert pttl(cluster, "t") <= 650
        assert await a.bus.claim("t")
        assert pttl(cluster, "t") > 800

    run(cluster, check, {"lease_ms": 1000})


def test_leases_expire_unless_renewed(cluster: str) -> None:
    async def check(a: Node, b: Node) -> None:
        # Not renewed: free after the lease, and another node can take it.
        assert await a.bus.claim("x")
        assert not await b.bus.claim("x")
        await asyncio.sleep(0.5)
        assert (await b.bus.owners(["x"]))["x"] is None
        assert await b.bus.claim("x")
        assert not await a.bus.claim("x")

        # Renewed: held over many lease lengths. Each renewal sets the lease whole again
        # (300 ms), so what is left is 300 ms less the time since the renewal began, and
        # more than the 150 ms an unrenewed lease would have (timed, not assumed: on a
        # busy machine a round trip can take a tenth of a second).
        assert await a.bus.claim("y")
        for _ in range(8):
            await asyncio.sleep(0.15)
            began = time.monotonic()
            assert await a.bus.renew(["y"]) == set()
            left = pttl(cluster, "y")
            spent = (time.monotonic() - began) * 1000
            assert left >= 300 - spent - 5
        assert not await b.bus.claim("y")  # 1.2 s = 4 lease lengths later, still a's

        # Lost: expired, then taken by b; renew reports it and leaves b's lease alone.
        assert await a.bus.claim("z")
        assert await a.bus.claim("w")
        for _ in range(4):  # z and w run out, y is kept
            await asyncio.sleep(0.15)
            assert await a.bus.renew(["y"]) == set()
        assert await b.bus.claim("z")
        assert await a.bus.renew(iter(["y", "z", "w"])) == {"z", "w"}
        assert await a.bus.owners(["y", "z", "w"]) == {"y": a.bus.node, "z": b.bus.node, "w": None}
        assert await a.bus.renew([]) == set()

    run(cluster, check, {"lease_ms": 300}, {"lease_ms": 300})


# ---- messages ------------------------------------------------------------------------------
def test_messages_arrive_once_in_order(cluster: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="cirulla.bus")

    async def check(a: Node, b: Node) -> None:
        own = 0
        for i in range(500):
            a.bus.send(b.bus.node, {"n": i, "from": a.bus.node, "pad": "x" * (i % 50)})
            if i % 100 == 0:
                a.bus.send(a.bus.node, {"own": own})
                own += 1
        await until(lambda: len(b.messages) >= 500 and len(a.messages) >= own)

        # Garbage published straight on b's channel is skipped, later messages still come.
        raw = redis.asyncio.Redis.from_url(REDIS_URL)
        try:
            for payload in (b"[1, 2, 3]", b"not json", b'"text"', b"\xff"):
                await raw.publish(f"{cluster}:node:{b.bus.node}", payload)
        finally:
            await raw.aclose()
        a.bus.send(b.bus.node, {"n": 500, 7: "non-str key"})
        await until(lambda: len(b.messages) >= 501)
        await asyncio.sleep(0.2)  # room for duplicates to show up

        assert [m["n"] for m in b.messages] == list(range(501))
        assert b.messages[0] == {"n": 0, "from": a.bus.node, "pad": ""}
        assert b.messages[-1] == {"n": 500, "7": "non-str key"}
        assert a.messages == [{"own": k} for k in range(own)]
        skipped = [r for r in caplog.records if "not a JSON object" in r.getMessage()]
        assert len(skipped) == 4

    run(cluster, check, {}, {})


def test_a_failing_on_message_does_not_stop_the_listener(
    cluster: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="cirulla.bus")
    seen: list[int] = []

    def on_message(message: dict[str, Any]) -> None:
        seen.append(message["n"])
        if message["n"] % 2:
            raise RuntimeError(f"odd {message['n']}")

    async def main() -> None:
        bus = RedisBus(REDIS_URL, cluster=cluster)
        await bus.start(on_message, lambda: None)
        try:
            for i in range(10):
                bus.send(bus.node, {"n": i})
            await until(lambda: len(seen) >= 10)
        finally:
            await bus.close()

    asyncio.run(main())
    assert seen == list(range(10))
    failures = [r for r in caplog.records if r.exc_info and "on_message" in r.getMessage()]
    assert len(failures) == 5


def test_listener_resubscribes_after_the_connection_breaks(
    cluster: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="cirulla.bus")

    async def check(a: Node, b: Node) -> None:
        a.bus.send(b.bus.node, {"n": -1})
        await until(lambda: len(b.messages) == 1)
        client = redis.Redis.from_url(REDIS_URL)
        try:
            ids = [
                c["id"]
                for c in client.client_list(_type="pubsub")
                if c["name"] == f"{cluster}:{b.bus.node}"
            ]
            assert len(ids) == 1, ids
            client.client_kill_filter(_id=ids[0])
        finally:
            client.close()
        # What is published while b is away is lost: keep sending until one arrives.
        for n in range(200):
            a.bus.send(b.bus.node, {"n": n})
            await asyncio.sleep(0.05)
            if len(b.messages) > 1:
                break
        assert len(b.messages) > 1
        assert any("reconnect" in r.getMessage() for r in caplog.records)

    run(cluster, check, {}, {})


# ---- lobby ---------------------------------------------------------------------------------
def test_lobby_shared_by_all_nodes(cluster: str) -> None:
    async def check(a: Node, b: Node, c: Node) -> None:
        assert await c.bus.lobby() == (0, [])
        t1 = {"id": "t1", "seats": [None, "anna"], "città": "Firenze"}
        t2 = {"id": "t2", "seats": ["bruno"]}
        t3 = {"id": "t3", "seats": []}
        v1 = await a.bus.publish_lobby({"t1": t1, "t2": t2})
        v2 = await b.bus.publish_lobby({"t3": t3})
        v3 = await a.bus.publish_lobby({"t2": None})
        assert 0 < v1 < v2 < v3
        assert await c.bus.lobby() == (v3, [t1, t3])
        t1b = {**t1, "seats": ["carla", "anna"]}
        v4 = await b.bus.publish_lobby({"t1": t1b, "t3": None, "gone": None})
        assert v4 > v3
        assert await c.bus.lobby() == (v4, [t1b])
        # Each bus hears every publish, its own included, once.
        await until(lambda: all(n.lobby_calls >= 4 for n in (a, b, c)))
        await asyncio.sleep(0.2)
        assert [n.lobby_calls for n in (a, b, c)] == [4, 4, 4]

    run(cluster, check, {}, {}, {})


# ---- start and close -----------------------------------------------------------------------
def test_start_against_an_unreachable_redis_names_it() -> None:
    async def main() -> None:
        for url in ("redis://127.0.0.1:1/0", "redis://someone:s3cret@127.0.0.1:1/0"):
            bus = RedisBus(url, cluster="unreachable")
            with pytest.raises(BusError) as info:
                await bus.start(lambda m: None, lambda: None)
            assert "127.0.0.1:1" in str(info.value)
            assert "s3cret" not in str(info.value)
            await bus.close()
            await bus.close()

    asyncio.run(main())


def test_close_flushes_and_is_idempotent(cluster: str) -> None:
    async def check() -> None:
        b = await Node(cluster).start()
        try:
            sender = await Node(cluster).start()
            for i in range(300):
                sender.bus.send(b.bus.node, {"n": i})
            await sender.bus.close()  # at once: the queue is flushed before it closes
            await sender.bus.close()
            sender.bus.send(b.bus.node, {"n": "after close"})  # dropped, not raised
            await until(lambda: len(b.messages) >= 300)
            await asyncio.sleep(0.2)
            assert [m["n"] for m in b.messages] == list(range(300))
        finally:
            await b.bus.close()
        never_started = RedisBus(REDIS_URL, cluster=cluster)
        await never_started.close()
        await never_started.close()

    run(cluster, check)
