"""Chips against a real `cirulla serve`: the welcome grant, cash tables (escrow on sitting,
refusal without the chips, release on standing up and on closing), whole cash partite
settled by M1 (a forfeit by timeout or by abandon, E6, and a partita of pairs included),
a kill -9 that never settles twice, and `cirulla ledger check` holding after each.
(A kill -9 in the middle of a burst of all of these: test_server_ledger_kill.py.)"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from conftest import stack
from serverutil import Player, Server
from test_server_clocks import DECK as QUIET_DECK
from test_server_play import (
    catch_up,
    last_view,
    open_table,
    play_until,
    reconnect,
    start_server,
)

from cirulla.tournament import cash_settlement

STAKE, MAX_LOSS = 3, 150
# stacked decks (test mode) so that a partita played with seeded moves ends the same way
DECK2 = [str(c) for c in stack(players=2, dealer=1)]
DECK4 = [str(c) for c in stack(players=4, dealer=3)]


def me(p: Player) -> dict[str, Any]:
    r = p.http.get("/api/me")
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def chips(p: Player) -> tuple[int, int]:
    body = me(p)
    return body["chips"], body["escrow"]


def ledger_check(server: Server) -> str:
    """`cirulla ledger check` on the server's data: it must exit 0."""
    run = subprocess.run(
        [sys.executable, "-m", "cirulla", "ledger", "check", "--data-dir", str(server.data_dir)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def wait_for(check: Any, timeout: float = 30, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def cash_config(players: int = 2, **extra: Any) -> dict[str, Any]:
    return {
        "players": players,
        "options": {"hands": 1},
        "stake": STAKE,
        "max_loss": MAX_LOSS,
        **extra,
    }


def cash_pair(
    server: Server, deck: list[str] | None = None, **extra: Any
) -> tuple[str, dict[int, Player]]:
    """Two guests at a 2-player cash table (it starts as the second sits), dealt `deck`
    (test mode) if given."""
    a = Player(server).guest().connect()
    b = Player(server).guest().connect()
    stacked: dict[str, Any] = {} if deck is None else {"decks": [deck], "dealer": 1}
    table = a.create_table(cash_config(**extra), **stacked)
    assert a.join(table)["type"] == "ack"
    assert b.join(table)["type"] == "ack"
    assert b.sit(table)["type"] == "ack", "b has the chips"
    last = max(a.version[table], b.version[table])
    for p in (a, b):
        catch_up(p, table, last)
    seats = {last_view(p, table)["you"]: p for p in (a, b)}
    return table, seats


def expected_payment(view: dict[str, Any]) -> tuple[int | None, int]:
    """(winner side, chips the loser pays) by M1 from a finished 2-player table's view
    (a draw: nobody, nothing)."""
    result = view["result"]
    winner, totals = result["winner"], result["totals"]
    if winner is None:
        return None, 0
    difference = max(0, totals[winner] - totals[1 - winner])
    cappotto = result["reason"] == "cappotto"
    return winner, cash_settlement(difference, STAKE, MAX_LOSS, cappotto)


def assert_settled(view: dict[str, Any], seats: dict[int, Player], start: int) -> None:
    winner, paid = expected_payment(view)
    for seat, p in seats.items():
        won = seat == winner
        assert chips(p) == (start + paid if won else start - paid, 0), (seat, view["result"])
        kinds = [e["kind"] for e in p.http.get("/api/wallet").json()["entries"]]
        assert kinds[:1] == ["win" if won else "loss"] or paid == 0, kinds
        assert kinds.count("escrow") == 1 and kinds.count("release") == 1, kinds


def test_welcome_grants_for_guests_and_accounts_in_me_and_the_wallet(tmp_path: Path) -> None:
    with start_server(tmp_path, guest_chips=200, welcome_chips=1000) as server:
        guest = Player(server).guest()
        assert chips(guest) == (200, 0)
        body = me(guest)
        assert body["user"]["chips"] == 200
        wallet = guest.http.get("/api/wallet").json()
        assert wallet["chips"] == 200 and wallet["escrow"] == 0 and wallet["next"] is None
        [entry] = wallet["entries"]
        assert (entry["kind"], entry["amount"], entry["balance"]) == ("welcome", 200, 200)
        # claiming the guest keeps its wallet (the same user id)
        r = guest.http.post("/api/claim", json={"name": "claimed1", "password": "password123"})
        assert r.status_code == 200, r.text
        assert chips(guest) == (200, 0)
        anna = Player(server).register("anna1")
        assert chips(anna) == (1000, 0)
        # the top-up: not for a wallet over the floor
        r = anna.http.post("/api/wallet/topup")
        assert r.status_code == 409 and "fewer than 200" in r.json()["error"]["message"]
        assert anna.http.get("/api/players/anna1/chips").json() == {
            "won": 0,
            "lost": 0,
            "net": 0,
            "partite": 0,
        }
        assert anna.http.get("/api/players/nobody1/chips").status_code == 404
        assert httpx.get(f"{server.base_url}/api/wallet").status_code == 401
        ledger_check(server)


def test_sitting_escrows_and_without_the_chips_the_sit_is_refused(tmp_path: Path) -> None:
    with start_server(tmp_path, guest_chips=200, topup_chips=100, topup_floor=100) as server:
        anna = Player(server).guest().connect()
        bruno = Player(server).guest().connect()
        # too much for anna's wallet: refused, nothing made
        r = anna.http.post("/api/tables", json={"config": cash_config(max_loss=250)})
        assert r.status_code == 400 and "250" in r.json()["error"]["message"], r.text
        r = anna.http.post("/api/tables", json={"config": cash_config(bots={"1": "facile"})})
        assert r.status_code == 422 and "bot" in r.json()["error"]["message"]
        r = anna.http.post("/api/tables", json={"config": cash_config(stake=10_000)})
        assert r.status_code == 400 and "stake" in r.json()["error"]["message"]
        first = anna.create_table(cash_config(players=3))
        assert chips(anna) == (200 - MAX_LOSS, MAX_LOSS)
        lobby = anna.http.get("/api/tables").json()["tables"]
        [entry] = [t for t in lobby if t["id"] == first]
        assert (entry["config"]["stake"], entry["config"]["max_loss"]) == (STAKE, MAX_LOSS)
        second = bruno.create_table(cash_config(players=3))
        assert anna.join(second)["type"] == "ack"
        refused = anna.sit(second)
        assert refused["type"] == "error" and refused["code"] == "insufficient_chips", refused
        assert str(MAX_LOSS) in refused["message"] and "50" in refused["message"]
        assert chips(anna) == (50, MAX_LOSS) and chips(bruno) == (50, MAX_LOSS)
        # under the floor, counting the escrow? no: 200 chips in all, floor 100
        assert anna.http.post("/api/wallet/topup").status_code == 409
        # standing up releases the escrow; the last person leaving closes and releases
        assert anna.join(first)["type"] == "ack"
        assert anna.command({"type": "stand", "table": first, "version": anna.version[first]})[
            "type"
        ] in ("ack",)
        assert chips(anna) == (200, 0)
        kinds = [e["kind"] for e in anna.http.get("/api/wallet").json()["entries"]]
        assert kinds == ["release", "escrow", "welcome"]
        ledger_check(server)


def test_a_table_that_expires_releases_the_escrow(tmp_path: Path) -> None:
    with start_server(tmp_path, guest_chips=200, empty_table_seconds=1) as server:
        anna = Player(server).guest()
        anna.create_table(cash_config(players=3))  # nobody watches it: it closes
        assert chips(anna) == (200 - MAX_LOSS, MAX_LOSS)
        wait_for(lambda: chips(anna) == (200, 0), what="the expired table's release")
        ledger_check(server)


def test_a_whole_cash_partita_is_settled_by_m1(tmp_path: Path) -> None:
    with start_server(tmp_path, guest_chips=500) as server:
        table, seats = cash_pair(server, DECK2)
        for p in seats.values():
            assert chips(p) == (500 - MAX_LOSS, MAX_LOSS)
        view = play_until(table, seats, rng=random.Random(1))
        assert view["status"] == "finished"
        assert_settled(view, seats, 500)
        winner, paid = expected_payment(view)
        assert winner is not None and paid > 0  # (the deck and the moves are fixed)
        name = me(seats[winner])["user"]["name"]
        results = httpx.get(f"{server.base_url}/api/players/{name}/chips").json()
        assert results == {"won": paid, "lost": 0, "net": paid, "partite": 1}
        out = ledger_check(server)
        assert "escrows 0" in out and "wallets 1000" in out and "grants 1000" in out


def test_a_forfeit_by_timeout_pays_as_e6_says(tmp_path: Path) -> None:
    with start_server(tmp_path, guest_chips=500, grace=0.2) as server:
        # a deck with no bonus: a shuffled one may give the first mover a decino (10
        # points declared at once), more than the 6 the forfeit credits, and nothing paid
        table, seats = cash_pair(server, QUIET_DECK, move_seconds=1)
        ref = seats[0]
        # nobody moves: the seat to move runs out of time
        ref.recv_until(
            lambda f: (
                f.get("table") == table
                and f["type"] in ("event", "sync")
                and f.get("view", {}).get("status") == "finished"
            ),
            timeout=30,
        )
        view = last_view(ref, table)
        assert view["forfeit"]["reason"] == "timeout"
        loser = view["forfeit"]["side"]
        winner, paid = expected_payment(view)
        assert winner == 1 - loser and paid > 0
        assert_settled(view, seats, 500)
        ledger_check(server)


def test_an_abandon_pays_as_e6_says_only_the_side_that_left(tmp_path: Path) -> None:
    with start_server(tmp_path, guest_chips=500) as server:
        table, seats = cash_pair(server, DECK2)
        rng = random.Random(3)
        view = play_until(table, seats, rng=rng, stop=lambda v: len(v["deal"]["history"]) > 6)
        leaver_seat = 1 - view["deal"]["to_move"]  # (not the seat to move: either may)
        leaver = seats[leaver_seat]
        frame = {"type": "abandon", "table": table, "version": leaver.version[table]}
        ack = leaver.command(frame)
        assert ack["type"] == "ack", ack
        for p in seats.values():
            catch_up(p, table, ack["version"])
        view = last_view(seats[0], table)
        assert view["status"] == "finished"
        assert view["forfeit"]["reason"] == "abandon"
        assert view["forfeit"]["side"] == leaver_seat
        winner, paid = expected_payment(view)
        assert winner == 1 - leaver_seat and paid > 0  # (the deck and the moves are fixed)
        assert_settled(view, seats, 500)  # the leaver pays M1 of E6's difference
        assert chips(leaver) == (500 - paid, 0)
        ledger_check(server)


def test_a_cash_partita_of_pairs_each_loser_pays_and_the_winners_share(tmp_path: Path) -> None:
    """Four people, two sides (M1 per seat): each seat of the losing side pays from its
    own wallet, and the two winners share what the losers paid."""
    with start_server(tmp_path, guest_chips=500) as server:
        people = [Player(server).guest().connect() for _ in range(4)]
        table, seats = open_table(
            people[0], people[1:], cash_config(players=4), decks=[DECK4], dealer=3
        )
        for p in people:
            assert chips(p) == (500 - MAX_LOSS, MAX_LOSS)
        view = play_until(table, seats, rng=random.Random(11))
        assert view["status"] == "finished"
        result = view["result"]
        winner, totals = result["winner"], result["totals"]
        assert winner is not None  # (the deck and the moves are fixed)
        each = cash_settlement(
            max(0, totals[winner] - totals[1 - winner]),
            STAKE,
            MAX_LOSS,
            result["reason"] == "cappotto",
        )
        assert each > 0
        sides = {seat: seat % 2 for seat in seats}  # partners sit across the table
        for seat, p in seats.items():
            won = sides[seat] == winner
            assert chips(p) == (500 + each if won else 500 - each, 0), (seat, result)
            kinds = [e["kind"] for e in p.http.get("/api/wallet").json()["entries"]]
            assert kinds[0] == ("win" if won else "loss"), kinds
            assert kinds.count("escrow") == 1 and kinds.count("release") == 1, kinds
        out = ledger_check(server)
        assert "escrows 0" in out and "wallets 2000" in out and "grants 2000" in out


def test_a_kill_9_mid_partita_settles_exactly_once_after_the_restart(tmp_path: Path) -> None:
    with start_server(tmp_path, guest_chips=500) as server:
        table, seats = cash_pair(server)
        rng = random.Random(7)
        play_until(table, seats, rng=rng, stop=lambda v: len(v["deal"]["history"]) > 8)
        server.kill()
        server.start()
        for p in seats.values():
            reconnect(p)
            assert p.join(table)["type"] == "ack"
        for p in seats.values():
            assert chips(p) == (500 - MAX_LOSS, MAX_LOSS)
        view = play_until(table, seats, rng=rng)
        assert view["status"] == "finished"
        assert_settled(view, seats, 500)
        # killed again after the end: the restart must not settle a second time
        server.kill()
        server.start()
        assert_settled(view, seats, 500)
        out = ledger_check(server)
        assert "escrows 0" in out and "wallets 1000" in out


# ---- two nodes sharing PostgreSQL and Redis, one killed in the middle ------------------------


def test_two_nodes_under_load_and_a_kill_9_keep_the_ledger_whole(tmp_path: Path) -> None:
    """Cash partite, sits and stand-ups and top-ups at once on two nodes; node a is
    killed mid-partita; its tables go on on node b. Then every escrow is released,
    every partita settled once, and the wallets hold exactly what was granted."""
    import contextlib
    import secrets
    from concurrent.futures import ThreadPoolExecutor

    from serverutil import throwaway_pg_database
    from test_server_cluster import LEASE, REDIS_URL, _forget_cluster, _redis_or_skip, on

    _redis_or_skip()
    pairs, guest_chips, topup = 6, 400, 50
    cluster = f"t{secrets.token_hex(4)}"
    env: dict[str, Any] = {
        "redis_url": REDIS_URL,
        "cluster": cluster,
        "lease_seconds": LEASE,
        "guest_chips": guest_chips,
        "topup_chips": topup,
        "topup_floor": 100_000,
    }
    with throwaway_pg_database() as database, contextlib.ExitStack() as stack:
        for name in ("a", "b"):
            (tmp_path / name).mkdir()
        a = stack.enter_context(start_server(tmp_path / "a", database_url=database, **env))
        b = stack.enter_context(start_server(tmp_path / "b", database_url=database, **env))
        stack.callback(_forget_cluster, cluster)
        owners = [Player(a).guest().connect() for _ in range(pairs)]
        guests_b = [Player(b).guest().connect() for _ in range(pairs)]
        churners = [Player(b).guest().connect() for _ in range(pairs)]
        tables = []
        for owner in owners:
            table = owner.create_table(cash_config())
            assert owner.join(table)["type"] == "ack"
            tables.append(table)
        # a 4-player table on node b where two people sit and stand up while the rest
        # plays (with its owner, three at most: it never starts)
        lounge = churners[0].create_table(cash_config(players=4))

        def stand(p: Player, table: str) -> None:
            """Stand up, again after a stale version, until not seated."""
            for _ in range(50):
                p.drain(0.05)
                frame = {"type": "stand", "table": table, "version": p.version[table]}
                answer = p.command(frame)
                if answer["type"] == "ack" or answer.get("code") in ("not_seated", "table_started"):
                    return
            raise AssertionError(f"could not stand up: {answer}")

        def churn(p: Player) -> None:
            assert p.join(lounge)["type"] == "ack"
            for _ in range(3):
                p.drain(0.05)
                if p.sit(lounge)["type"] == "ack":
                    stand(p, lounge)

        def sit_and_play(i: int) -> dict[int, Player]:
            q = guests_b[i]
            assert q.join(tables[i])["type"] == "ack"
            assert q.sit(tables[i])["type"] == "ack"
            last = max(owners[i].version.get(tables[i], 0), q.version[tables[i]])
            for p in (owners[i], q):
                catch_up(p, tables[i], last)
            seats = {last_view(p, tables[i])["you"]: p for p in (owners[i], q)}
            play_until(
                tables[i], seats, rng=random.Random(i), stop=lambda v: len(v["deal"]["history"]) > 6
            )
            return seats

        def topups(p: Player) -> list[int]:
            return [p.http.post("/api/wallet/topup").status_code for _ in range(2)]

        everyone = [*owners, *guests_b, *churners]
        with ThreadPoolExecutor(max_workers=len(everyone) + pairs) as pool:
            played = [pool.submit(sit_and_play, i) for i in range(pairs)]
            churned = [pool.submit(churn, p) for p in churners[1:3]]
            granted = [pool.submit(topups, p) for p in everyone]
            seatings = [f.result(timeout=120) for f in played]
            for f in churned:
                f.result(timeout=120)
            for f in granted:
                assert sorted(f.result(timeout=60)) == [200, 409]  # once a day
        a.kill()  # mid-partita: node b adopts the tables when their leases run out
        moved: list[dict[int, Player]] = []
        for i, seats in enumerate(seatings):
            people = {s: (on(b, p) if p.server is a else p) for s, p in seats.items()}
            for p in people.values():
                wait_for(
                    lambda p=p, t=tables[i]: p.join(t)["type"] == "ack",
                    timeout=10 * LEASE,
                    what="node b to adopt the table",
                )
            moved.append(people)

        def finish(i: int) -> str:
            return str(play_until(tables[i], moved[i], rng=random.Random(100 + i))["status"])

        with ThreadPoolExecutor(max_workers=pairs) as pool:
            assert [
                f.result(timeout=180) for f in [pool.submit(finish, i) for i in range(pairs)]
            ] == ["finished"] * pairs
        lounge_owner = on(b, churners[0])
        assert lounge_owner.join(lounge)["type"] == "ack"
        stand(lounge_owner, lounge)  # the last one leaves: the lounge closes
        wait_for(lambda: me(lounge_owner)["escrow"] == 0, what="the lounge's release")
        run = subprocess.run(
            [sys.executable, "-m", "cirulla", "ledger", "check", "--database-url", database],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        granted_total = len(everyone) * (guest_chips + topup)
        assert f"grants {granted_total}" in run.stdout, run.stdout
        held = 0
        for p in everyone:  # asked on node b (node a is dead)
            body = httpx.get(f"{b.base_url}/api/me", cookies=p.http.cookies).json()
            assert body["escrow"] == 0
            held += body["chips"]
        assert held == granted_total
