"""The chips ledger when a kill -9 lands in the middle of a burst (issue 14).

Many clients hammer a real server in threads at once: pairs play cash partite one
after the other (a sit and an escrow each, a settlement at each end), two players sit
down and stand up at a lounge table over and over (escrows and releases), and others
make guest accounts (the welcome grant) and take the daily top-up (grants). One pair
sends the last move of its partita, so that its settlement is in flight, and at that
moment the server is killed with SIGKILL, everything else still going. Then the
server comes back (SQLite: the same node restarted; PostgreSQL: the other node of a
Redis cluster takes the tables over), the partite in play are finished, the open
tables are left, and:

- `cirulla ledger check`, run as a command, exits 0, and wallets + escrows + pools
  equal the grants, which are exactly the accounts' welcome grants and the top-ups;
- every finished partita is settled once: each player's chips from that table are
  what M1 says of its stored record, and each player's wallet is exactly their grants
  plus what M1 says of every partita they finished (nothing lost, nothing twice).
"""

from __future__ import annotations

import contextlib
import json
import random
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from serverutil import Player, Server, run_async, throwaway_pg_database
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine
from test_server_play import catch_up, last_view, play_until, reconnect, start_server

from cirulla.tournament import cash_settlement

STAKE, MAX_LOSS = 1, 20
GUEST_CHIPS, TOPUP = 5000, 50  # enough for far more partite than a burst plays
PAIRS = 4  # pairs playing cash partite in a loop, besides the one that triggers the kill
SETTLED_BEFORE_KILL = 2 * PAIRS  # partite the pairs finish before the kill


def cash_config(players: int = 2) -> dict[str, Any]:
    """One smazzata; a clock long enough that the downtime never runs it out."""
    return {
        "players": players,
        "options": {"hands": 1},
        "stake": STAKE,
        "max_loss": MAX_LOSS,
        "move_seconds": 600,
    }


def sqlite_url(server: Server) -> str:
    return f"sqlite+aiosqlite:///{(server.data_dir / 'cirulla.db').resolve()}"


def sql(url: str, query: str, **params: Any) -> list[Any]:
    """Rows of one query on the server's database, read behind its back."""

    async def go() -> list[Any]:
        engine = create_async_engine(url)
        try:
            async with engine.connect() as conn:
                return list((await conn.execute(text(query), params)).all())
        finally:
            await engine.dispose()

    rows: list[Any] = run_async(go())
    return rows


def wait_for(check: Callable[[], Any], timeout: float = 60, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def ledger_check(*where: str) -> dict[str, int]:
    """`cirulla ledger check` as a command: it must exit 0; its totals."""
    run = subprocess.run(
        [sys.executable, "-m", "cirulla", "ledger", "check", *where],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    [line] = run.stdout.splitlines()
    assert line.startswith("ledger check ok: "), run.stdout
    totals = {}
    for part in line.removeprefix("ledger check ok: ").split(", "):
        name, value = part.rsplit(" ", 1)
        totals[name] = int(value)
    return totals


def last_move(view: dict[str, Any]) -> bool:
    """One card left in all: the next move ends the partita (it has one smazzata)."""
    deal = view["deal"]
    return bool(deal["deck"] == 0 and sum(h["count"] for h in deal["hands"]) == 1)


def seat_pair(owner: Player, partner: Player, table: str) -> dict[int, Player]:
    """`partner` sits at `owner`'s table (which starts); the two by seat."""
    assert owner.join(table)["type"] == "ack"
    assert partner.join(table)["type"] == "ack"
    answer = partner.sit(table)
    assert answer["type"] == "ack", answer
    last = max(owner.version[table], partner.version[table])
    for p in (owner, partner):
        catch_up(p, table, last)
    return {last_view(p, table)["you"]: p for p in (owner, partner)}


def stand(p: Player, table: str) -> None:
    """Stand up, again after a stale version, until not seated."""
    answer: dict[str, Any] = {}
    for _ in range(50):
        p.drain(0.05)
        answer = p.command({"type": "stand", "table": table, "version": p.version[table]})
        if answer["type"] == "ack" or answer.get("code") == "not_seated":
            return
    raise AssertionError(f"could not stand up: {answer}")


@dataclass
class Burst:
    """What the threads share: the kill flag, and what they saw done."""

    killed: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    finished: list[str] = field(default_factory=list)  # tables seen finished, before the kill
    workers: list[Future[None]] = field(default_factory=list)

    def run(self, pool: ThreadPoolExecutor, job: Callable[[], None]) -> None:
        """Run `job` until the kill; an error it meets after the kill is the kill's doing."""

        def body() -> None:
            try:
                while not self.killed.is_set():
                    job()
            except Exception:
                if not self.killed.is_set():
                    raise

        self.workers.append(pool.submit(body))

    def done(self, table: str) -> None:
        with self.lock:
            self.finished.append(table)

    def settled(self) -> int:
        with self.lock:
            return len(self.finished)


def pair_job(
    owner: Player, partner: Player, burst: Burst, rng: random.Random
) -> Callable[[], None]:
    """One cash partita of the pair: a create (escrow), a sit (escrow), the end (settlement)."""

    def job() -> None:
        table = owner.create_table(cash_config())
        seats = seat_pair(owner, partner, table)
        view = play_until(table, seats, rng=rng)
        assert view["status"] == "finished", view["status"]
        burst.done(table)

    return job


def churn_job(p: Player, lounge: str) -> Callable[[], None]:
    """Sit down and stand up again at the lounge (an escrow, a release)."""

    def job() -> None:
        p.drain(0.02)
        answer = p.sit(lounge)
        if answer["type"] == "ack":
            stand(p, lounge)
        else:
            assert answer.get("code") in ("stale", "seat_taken"), answer

    return job


def grant_job(server: Server, made: list[Player]) -> Callable[[], None]:
    """A new guest (the welcome grant) who takes the daily top-up (a grant)."""

    def job() -> None:
        p = Player(server).guest()
        made.append(p)
        r = p.http.post("/api/wallet/topup")
        assert r.status_code == 200, r.text

    return job


# ---- the scenario, on one node or two --------------------------------------------------------


@dataclass
class Nodes:
    """Where each part of the burst runs, which node dies and which serves afterwards."""

    owners: Server  # the pairs' tables live here (the node that is killed)
    others: Server  # the partners, the lounge, half the grants
    url: str  # the shared database
    revive: Callable[[], Server]  # after the kill: the node that serves the rest
    where: tuple[str, ...]  # `cirulla ledger check`'s arguments
    settle: Callable[[], None] = lambda: None  # before the checks, once the rest is played


def hammer_kill_and_check(nodes: Nodes) -> tuple[Burst, str]:
    """The burst, the kill, the rest played on the node that serves after it, the checks;
    what the burst did and the trigger's table."""
    owners = [Player(nodes.owners).guest().connect() for _ in range(PAIRS + 1)]
    partners = [Player(nodes.others).guest().connect() for _ in range(PAIRS + 1)]
    lounge_owner, *churners = [Player(nodes.others).guest().connect() for _ in range(3)]
    people = [*owners, *partners, lounge_owner, *churners]
    for p in people:  # a grant each, before the sits
        assert p.http.post("/api/wallet/topup").status_code == 200
    # four seats: the owner and two churners never fill it, so it never starts
    lounge = lounge_owner.create_table(cash_config(players=4))
    for p in churners:
        assert p.join(lounge)["type"] == "ack"
    made: list[Player] = []
    burst = Burst()
    trigger_owner, trigger_partner = owners[-1], partners[-1]

    with ThreadPoolExecutor(max_workers=PAIRS + 4) as pool:
        for i in range(PAIRS):
            burst.run(pool, pair_job(owners[i], partners[i], burst, random.Random(i)))
        for p in churners:
            burst.run(pool, churn_job(p, lounge))
        burst.run(pool, grant_job(nodes.owners, made))
        burst.run(pool, grant_job(nodes.others, made))
        # the trigger: its partita up to the last move, while the others play theirs
        trigger = trigger_owner.create_table(cash_config())
        seats = seat_pair(trigger_owner, trigger_partner, trigger)
        view = play_until(trigger, seats, rng=random.Random(99), stop=last_move)
        assert view["status"] == "playing"
        wait_for(
            lambda: burst.settled() >= SETTLED_BEFORE_KILL or any(f.done() for f in burst.workers),
            what="the pairs' first partite",
        )
        for f in burst.workers:
            if f.done():
                f.result()  # a worker that stopped before the kill: its error
        mover = seats[view["deal"]["to_move"]]
        [move] = last_view(mover, trigger)["deal"]["legal_moves"][:1]
        mover.send(
            {"type": "play", "table": trigger, "version": mover.version[trigger], "move": move}
        )
        burst.killed.set()
        nodes.owners.kill()  # the settlement in flight, and everything else going on
        for p in people:  # the threads waiting on a socket of the living node stop
            if p.ws is not None:
                with contextlib.suppress(Exception):
                    p.ws.close()
        for f in burst.workers:
            f.result(timeout=60)
    settled_before = burst.settled()
    assert settled_before >= SETTLED_BEFORE_KILL

    survivor = nodes.revive()
    by_user = {p.user["id"]: p for p in people}
    finish_what_was_left(nodes, survivor, by_user)
    nodes.settle()
    assert_every_chip_accounted_for(nodes, burst, trigger)
    return burst, trigger


def on_node(server: Server, p: Player) -> Player:
    """`p` with a new socket on `server` (the same session)."""
    if p.server is server:
        reconnect(p)
        return p
    other = Player(server)
    other.http.cookies.update(p.http.cookies)
    other.user = p.user
    return other.connect()


def join_when_served(p: Player, table: str) -> None:
    """Join `table`, again until a node serves it (the survivor adopts it when its
    lease runs out)."""
    wait_for(lambda: p.join(table)["type"] == "ack", what=f"a node to serve {table}")


def finish_what_was_left(nodes: Nodes, survivor: Server, by_user: dict[str, Player]) -> None:
    """The partite in play are played to the end; whoever still sits at an open table
    stands up (the last one out closes it); then no chip is left in escrow."""
    held: dict[str, list[str]] = {}
    status: dict[str, str] = {}
    for table, user, state in sql(
        nodes.url,
        "SELECT a.table_id, a.user_id, t.status FROM chip_accounts a"
        " JOIN tables t ON t.id = a.table_id WHERE a.kind = 'escrow' AND a.balance > 0",
    ):
        held.setdefault(table, []).append(user)
        status[table] = state
    assert set(status.values()) <= {"open", "playing"}, status
    for table, users in held.items():
        players = [on_node(survivor, by_user[u]) for u in users]
        for p in players:
            join_when_served(p, table)
        if status[table] == "playing":
            seats = {last_view(p, table)["you"]: p for p in players}
            assert len(seats) == 2
            view = play_until(table, seats, rng=random.Random(7))
            assert view["status"] == "finished"
        else:
            for p in players:
                stand(p, table)
    wait_for(
        lambda: (
            not sql(
                nodes.url, "SELECT id FROM chip_accounts WHERE kind = 'escrow' AND balance != 0"
            )
        ),
        what="every escrow released",
    )


def _record(raw: Any) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(raw) if isinstance(raw, str) else dict(raw)
    return record


def m1_nets(record: dict[str, Any]) -> dict[str, int]:
    """Each seated person's chips from a finished 2-player cash partita, by M1 (a
    forfeit, E6, would be the same sum of its totals)."""
    config, game = record["config"], record["game"]
    users = [s["user"] for s in record["seats"]]
    assert len(users) == 2
    winner, totals = game["winner"], game["totals"]
    if winner is None:
        return dict.fromkeys(users, 0)
    difference = max(0, totals[winner] - totals[1 - winner])
    paid = cash_settlement(
        difference, config["stake"], config["max_loss"], game["end_reason"] == "cappotto"
    )
    return {u: paid if seat == winner else -paid for seat, u in enumerate(users)}


def assert_every_chip_accounted_for(nodes: Nodes, burst: Burst, trigger: str) -> dict[str, int]:
    """The ledger check, and every chip traced to a grant or to M1 of a stored record."""
    url = nodes.url
    wait_for(
        lambda: (
            not sql(
                url,
                "SELECT t.id FROM tables t LEFT JOIN records r ON r.table_id = t.id"
                " WHERE t.status = 'finished' AND r.table_id IS NULL",
            )
        ),
        what="every finished partita's record",
    )
    # the check, as an operator runs it
    totals = ledger_check(*nodes.where)
    assert totals["escrows"] == 0 and totals["pools"] == 0, totals
    assert totals["wallets"] + totals["escrows"] + totals["pools"] == totals["grants"], totals
    # the grants are the accounts' welcome grants and the top-ups, each once
    users = sql(url, "SELECT id FROM users")
    welcome = sql(url, "SELECT key FROM chip_movements WHERE key LIKE 'welcome:%'")
    assert sorted(k for (k,) in welcome) == sorted(f"welcome:{u}" for (u,) in users)
    topups = sql(url, "SELECT key FROM chip_movements WHERE key LIKE 'topup:%'")
    assert totals["grants"] == GUEST_CHIPS * len(users) + TOPUP * len(topups), totals
    # every finished partita settled once, as M1 says of its record
    finished = {t for (t,) in sql(url, "SELECT id FROM tables WHERE status = 'finished'")}
    assert set(burst.finished) <= finished and trigger in finished
    settles = sql(url, "SELECT table_id, key FROM chip_movements WHERE key LIKE 'settle:%'")
    assert sorted(t for t, _ in settles) == sorted(finished)
    expected: dict[tuple[str, str], int] = {}
    for table, raw in sql(url, "SELECT table_id, record FROM records"):
        for user, net in m1_nets(_record(raw)).items():
            expected[table, user] = net
    moved = {
        (table, user): int(net)
        for table, user, net in sql(
            url,
            "SELECT m.table_id, a.user_id, SUM(e.amount) FROM chip_entries e"
            " JOIN chip_movements m ON m.id = e.movement_id"
            " JOIN chip_accounts a ON a.id = e.account"
            " WHERE a.kind = 'wallet' AND m.table_id IS NOT NULL"
            " GROUP BY m.table_id, a.user_id",
        )
    }
    # a table that never finished moved nothing in the end (escrow out, release back)
    assert {k: v for k, v in moved.items() if k[0] not in finished and v} == {}
    assert {k: v for k, v in moved.items() if k[0] in finished} == expected
    # and each wallet is its grants plus M1 of its partite: no chip lost or counted twice
    grants = dict.fromkeys((u for (u,) in users), GUEST_CHIPS)
    for (key,) in topups:
        grants[key.split(":")[1]] += TOPUP
    for (_, user), net in expected.items():
        grants[user] += net
    wallets = dict(sql(url, "SELECT user_id, balance FROM chip_accounts WHERE kind = 'wallet'"))
    assert {u: int(b) for u, b in wallets.items()} == grants
    return totals


def test_a_kill_9_mid_burst_on_sqlite_loses_no_chip_after_the_restart(tmp_path: Path) -> None:
    """SQLite: one node, killed in the middle of the burst, started again on its data;
    killed once more after the end, it settles nothing again."""
    env = {"guest_chips": GUEST_CHIPS, "topup_chips": TOPUP, "topup_floor": 10**9}
    with start_server(tmp_path, **env) as server:

        def revive() -> Server:
            server.start()
            return server

        where = ("--data-dir", str(server.data_dir))
        nodes = Nodes(server, server, sqlite_url(server), revive, where)
        burst, trigger = hammer_kill_and_check(nodes)
        before = ledger_check(*where)
        server.kill()
        server.start()
        assert assert_every_chip_accounted_for(nodes, burst, trigger) == before


@contextlib.contextmanager
def two_nodes(tmp_path: Path) -> Iterator[tuple[Server, Server, str]]:
    from test_server_cluster import LEASE, REDIS_URL, _forget_cluster, _redis_or_skip

    _redis_or_skip()
    cluster = f"t{secrets.token_hex(4)}"
    env: dict[str, Any] = {
        "redis_url": REDIS_URL,
        "cluster": cluster,
        "lease_seconds": LEASE,
        "guest_chips": GUEST_CHIPS,
        "topup_chips": TOPUP,
        "topup_floor": 10**9,
    }
    with throwaway_pg_database() as database, contextlib.ExitStack() as stack:
        for name in ("a", "b"):
            (tmp_path / name).mkdir()
        a = stack.enter_context(start_server(tmp_path / "a", database_url=database, **env))
        b = stack.enter_context(start_server(tmp_path / "b", database_url=database, **env))
        stack.callback(_forget_cluster, cluster)
        yield a, b, database


def test_a_kill_9_mid_burst_on_two_postgresql_nodes_loses_no_chip(tmp_path: Path) -> None:
    """PostgreSQL and Redis: node a (the pairs' tables) is killed in the middle of the
    burst and node b takes its tables over. Then a comes back: it saves the records of
    partite that ended as it died (only a restart does that) and settles nothing again."""
    with two_nodes(tmp_path) as (a, b, database):
        nodes = Nodes(a, b, database, lambda: b, ("--database-url", database), a.start)
        hammer_kill_and_check(nodes)
