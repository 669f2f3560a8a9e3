"""A browser playing at a table whose node dies, in a two-node cluster: it reconnects to
the other node, whose answer to its `join` is `unavailable` while the dead node's lease
still runs, joins again until the table is rebuilt there, and plays on.

The page reaches the nodes through a small TCP forwarder, as through a load balancer:
to node a first, to node b once a is killed.

And a browser whose move meets a database outage: answered `unavailable`, it is sent
again (the same action) until the database is back and the move is played; or, if the
outage outlasts the resends, the player is told.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from browserutil import guest, page_opener
from serverutil import Server, free_port, pg_execute, run_async, throwaway_pg_database
from test_server_play import start_server
from test_web_table import create, open_table, play_by_clicks, play_turn, played, wait_my_turn

REDIS_URL = "redis://127.0.0.1:6379/0"
LEASE = 5  # seconds: long enough that the page is back before the dead node's lease ends
BOT_DELAY = 2.5  # seconds: node a is killed while its bot thinks


class Forwarder:
    """127.0.0.1:port -> 127.0.0.1:target, the target switched at will (the open
    connections are cut then, as a load balancer does when a backend dies)."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.writers: set[asyncio.StreamWriter] = set()
        self.server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.thread.start()
        self._call(self._listen())

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    async def _listen(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        pair = {writer, up_writer}
        self.writers |= pair
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        self.writers -= pair

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (OSError, RuntimeError):
            pass
        finally:
            writer.close()

    async def _cut(self) -> None:
        for writer in list(self.writers):
            writer.close()

    def switch(self, target: int) -> None:
        self.target = target
        self._call(self._cut())

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        with contextlib.suppress(Exception):
            self._call(self._cut())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@contextlib.contextmanager
def _database() -> Iterator[str]:
    """`throwaway_pg_database` in a thread of its own (Playwright's loop runs in this one)."""
    with ThreadPoolExecutor(1) as worker:
        manager = throwaway_pg_database()
        url = worker.submit(manager.__enter__).result()
        try:
            yield url
        finally:
            worker.submit(manager.__exit__, None, None, None).result()


@pytest.fixture
def cluster_nodes(tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping()
    except Exception as exc:
        pytest.skip(f"Redis not reachable at {REDIS_URL}: {exc!r}")
    name = f"t{secrets.token_hex(4)}"
    env: dict[str, Any] = {
        "redis_url": REDIS_URL,
        "cluster": name,
        "lease_seconds": LEASE,
        "bot_delay": BOT_DELAY,
    }
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(_database())
        for node in ("a", "b"):
            (tmp_path / node).mkdir()
        a = stack.enter_context(start_server(tmp_path / "a", database_url=database, **env))
        b = stack.enter_context(start_server(tmp_path / "b", database_url=database, **env))
        yield a, b
    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(match=f"{name}:*"))
    if keys:
        client.delete(*keys)


def test_the_page_rejoins_its_table_on_the_other_node_after_its_node_dies(
    browser: Any, cluster_nodes: tuple[Server, Server]
) -> None:
    a, b = cluster_nodes
    forwarder = Forwarder(a.port)
    forwarder.start()
    try:
        with page_opener(browser, forwarder.url) as open_page:
            page = open_page()
            guest(page)
            config = {"players": 2, "bots": {"1": "facile"}, "options": {"hands": 1}}
            table = create(page, config, dealer=1)  # made on node a; the guest moves first
            open_table(page, table)
            page.evaluate(
                """() => {
                    const c = window.cirulla.conn;
                    const retry = c.retryJoin.bind(c);
                    c.joinRetries = 0;
                    c.retryJoin = (...args) => { c.joinRetries += 1; return retry(...args); };
                }"""
            )
            play_turn(page, table)  # now the bot thinks, on node a
            a.kill()
            forwarder.switch(b.port)
            seen = page.evaluate("id => window.cirulla.conn.version(id)", table)
            # The page reconnects to b, whose answer to its join is `unavailable` until
            # a's lease has run out; it joins again and hears the bot's move made on b.
            moves = wait_my_turn(page, timeout=60)
            assert moves
            assert page.evaluate("id => window.cirulla.conn.version(id)", table) > seen
            assert page.evaluate("() => window.cirulla.conn.joinRetries") >= 1
            assert page.evaluate("() => window.cirulla.conn.status") == "online"
            play_turn(page, table)  # and it plays on, on b
            wait_my_turn(page, timeout=30)
    finally:
        forwarder.close()


# ---- a database outage under a page's move --------------------------------------------------
def set_connections(url: str, allowed: bool) -> None:
    """Let the database take connections, or refuse them and drop those it has."""
    name = url.rsplit("/", 1)[1]
    run_async(pg_execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {str(allowed).lower()}'))
    if not allowed:
        run_async(
            pg_execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                f" WHERE datname = '{name}' AND pid <> pg_backend_pid()"
            )
        )


#: Counts the play commands the page sends (their action ids), as the server gets them.
COUNT_PLAYS = """() => {
    const c = window.cirulla.conn;
    const raw = c.raw.bind(c);
    c.plays = [];
    c.raw = (frame) => {
        if (frame.type === "play") c.plays.push(frame.action);
        return raw(frame);
    };
}"""


@pytest.fixture
def pg_server(tmp_path: Path) -> Iterator[tuple[Server, str]]:
    with _database() as url, start_server(tmp_path, database_url=url, bot_delay=0.2) as server:
        try:
            yield server, url
        finally:
            set_connections(url, True)


def test_a_move_answered_unavailable_is_sent_again_until_the_database_is_back(
    browser: Any, pg_server: tuple[Server, str]
) -> None:
    server, url = pg_server
    with page_opener(browser, server.base_url) as open_page:
        page = open_page()
        guest(page)
        table = create(page, {"players": 2, "bots": {"1": "facile"}}, dealer=1)
        open_table(page, table)
        page.evaluate(COUNT_PLAYS)
        move = max((m for m in wait_my_turn(page) if not m.startswith("!")), key=len)
        set_connections(url, False)
        play_by_clicks(page, move)
        # answered unavailable, it is sent again with the same action id
        page.wait_for_function("() => window.cirulla.conn.plays.length >= 2", timeout=30_000)
        set_connections(url, True)
        played(page, table, move, timeout=30)  # applied once the database is back
        plays = page.evaluate("() => window.cirulla.conn.plays")
        assert len(set(plays)) == 1, plays
        wait_my_turn(page)  # the bot answered: play goes on
        assert page.locator(".table-toast.toast-error").count() == 0
        history = page.evaluate("id => window.cirulla.conn.view(id).deal.history", table)
        assert [e["move"] for e in history if e["type"] == "play"].count(move) == 1


def test_a_move_still_unavailable_after_its_resends_is_shown_to_the_player(
    browser: Any, pg_server: tuple[Server, str]
) -> None:
    server, url = pg_server
    with page_opener(browser, server.base_url) as open_page:
        page = open_page()
        guest(page)
        table = create(page, {"players": 2, "bots": {"1": "facile"}}, dealer=1)
        open_table(page, table)
        page.evaluate(COUNT_PLAYS)
        page.evaluate("() => { window.cirulla.conn.resendLimit = 2; }")  # (not six: quicker)
        move = max((m for m in wait_my_turn(page) if not m.startswith("!")), key=len)
        set_connections(url, False)
        play_by_clicks(page, move)
        toast = page.locator(".table-toast.toast-error")
        toast.wait_for(timeout=30_000)  # told, once the resends are used up
        assert page.evaluate("() => window.cirulla.conn.plays.length") == 3
        assert page.evaluate("() => window.cirulla.conn.pending.size") == 0
        history = page.evaluate("id => window.cirulla.conn.view(id).deal.history", table)
        assert move not in [e.get("move") for e in history]  # not made
        set_connections(url, True)
        # made again once the database is back, it is played
        page.evaluate("() => { window.cirulla.conn.resendLimit = 6; }")
        answer = page.evaluate(
            "([id, move]) => window.cirulla.conn.tableCommand(id, {type: 'play', move})",
            [table, move],
        )
        assert answer["type"] == "ack", answer
        played(page, table, move)
