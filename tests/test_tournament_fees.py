"""Tournament entry fees and prize pools: the payout maths (ties, remainders, fewer
finishers than places, bots left out), the movements a tournament's records cause,
the store writing them with the records or not at all (SQLite and PostgreSQL), and a
real server: pay to register, refused without the chips, refunds on unregistering
and on cancelling, and a knockout killed with SIGKILL mid-way that pays the pool by
rank exactly once, with `cirulla ledger check` holding after each step."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serverutil import Player, Server
from test_server_play import start_server
from test_server_tournaments import KNOCKOUT, create, detail, error_of, finished, post, wait_for
from test_store import Backend
from test_store import backend as backend  # the fixture

from cirulla.competition.fees import (
    check_prizes,
    planned_payout,
    prize_awards,
    split_pool,
    tournament_movements,
)
from cirulla.competition.tournament_log import TournamentState
from cirulla.eventlog import LogRecord
from cirulla.store import Store
from cirulla.store.ledger import InsufficientChips, pool, wallet, welcome_grant

# ---- pure: the payout -------------------------------------------------------------------


def test_prizes_must_be_decreasing_whole_percentages_summing_to_100() -> None:
    assert check_prizes([60, 30, 10]) == [60, 30, 10]
    assert check_prizes([100]) == [100]
    for bad, why in [
        ([50, 40], "sum to 100"),
        ([10, 90], "lower place"),
        ([100, 0], "above 0"),
        ([], "1 to"),
        ("60,40", "1 to"),
        ([60.0, 40], "whole"),
        ([True, 99], "whole"),
    ]:
        with pytest.raises(ValueError, match=why):
            check_prizes(bad)


def test_the_pool_pays_by_place() -> None:
    ranked = [(1, ["a"]), (2, ["b"]), (3, ["c"]), (4, ["d"])]
    assert split_pool(1000, [60, 30, 10], ranked) == [("a", 600), ("b", 300), ("c", 100)]


def test_tied_sides_share_their_places_percentages() -> None:
    # a knockout: the two semi-finalists share rank 3, so places 3 and 4
    ranked = [(1, ["a"]), (2, ["b"]), (3, ["c"]), (3, ["d"])]
    assert split_pool(1000, [50, 30, 12, 8], ranked) == [
        ("a", 500),
        ("b", 300),
        ("c", 100),
        ("d", 100),
    ]
    # tied on the first place: 60 + 30 shared, then 10
    assert split_pool(100, [60, 30, 10], [(1, ["a"]), (1, ["b"]), (3, ["c"])]) == [
        ("a", 45),
        ("b", 45),
        ("c", 10),
    ]


def test_remainders_go_one_chip_each_to_the_best_placed_and_the_pool_ends_at_zero() -> None:
    # 7 x (0.6, 0.3, 0.1) = 4.2, 2.1, 0.7: floors 4, 2, 0 and one chip left for the first
    assert split_pool(7, [60, 30, 10], [(1, ["a"]), (2, ["b"]), (3, ["c"])]) == [
        ("a", 5),
        ("b", 2),
    ]
    for chips in range(0, 200):
        ranked = [(1, ["a"]), (2, ["b", "c"]), (2, ["d"]), (4, ["e"])]
        got = split_pool(chips, [40, 30, 20, 10], ranked)
        assert sum(c for _, c in got) == chips


def test_fewer_finishers_than_places_share_the_unpaid_percentages_in_proportion() -> None:
    assert split_pool(300, [60, 30, 10], [(1, ["a"]), (2, ["b"])]) == [("a", 200), ("b", 100)]
    assert split_pool(300, [60, 30, 10], [(5, ["a"])]) == [("a", 300)]
    assert planned_payout(300, [60, 30, 10], 2) == [200, 100]
    assert planned_payout(1000, [60, 30, 10], 8) == [600, 300, 100]


def test_a_pair_splits_its_share_between_its_people() -> None:
    assert split_pool(401, [100], [(1, ["a", "b"]), (2, ["c", "d"])]) == [("a", 201), ("b", 200)]
    assert split_pool(400, [75, 25], [(1, ["a", "b"]), (2, ["c", "d"])]) == [
        ("a", 150),
        ("b", 150),
        ("c", 50),
        ("d", 50),
    ]


# ---- pure: the movements of a tournament's records ----------------------------------------


def _created(fee: int = 100, players: int = 2, prizes: list[int] | None = None) -> LogRecord:
    data = {
        "name": "sera",
        "format": "knockout",
        "config": {"players": players, "options": {"hands": 1}, "move_seconds": 30},
        "best_of": 1,
        "max_entrants": 16,
        "private": False,
        "organiser": None,
        "starts_at": None,
        "entry_fee": fee,
        "prizes": prizes or [60, 30, 10],
    }
    return LogRecord.first("created", data, 1000)


class Fold:
    """A tournament state with its log, to feed records one step at a time."""

    def __init__(self, first: LogRecord) -> None:
        self.records = [first]
        self.state = TournamentState.from_log("T", self.records)

    def step(self, kind: str, data: dict[str, Any]) -> tuple[list[Any], LogRecord]:
        before = dict(self.state.entrants)
        assert self.state.last is not None
        rec = self.state.last.next(kind, data, 2000)
        self.state.apply(rec)
        self.records.append(rec)
        return tournament_movements(self.state, before, [rec]), rec


def _person(eid: str, user: str, fee: int = 100) -> dict[str, Any]:
    return {"id": eid, "name": user, "user": user, "bot": None, "fee": fee}


def _bot(eid: str) -> dict[str, Any]:
    return {"id": eid, "name": f"bot {eid}", "user": None, "bot": "facile"}


def _postings(movement: Any) -> dict[str, tuple[int, str]]:
    return {p.account.id: (p.amount, p.kind) for p in movement.postings}


def test_registering_pays_unregistering_and_cancelling_refund_bots_pay_nothing() -> None:
    f = Fold(_created())
    moved, rec = f.step("registered", {"entrants": [_person("e1", "u1")]})
    assert [m.key for m in moved] == [f"fee:T:u1:{rec.version}"]
    assert _postings(moved[0]) == {"wallet:u1": (-100, "entry_fee"), "pool:T": (100, "entry_fee")}
    assert moved[0].tournament == "T"
    moved, _ = f.step("registered", {"entrants": [_bot("e2")]})
    assert moved == []
    moved, rec = f.step("registered", {"entrants": [_person("e3", "u3")]})
    assert len(moved) == 1
    moved, rec = f.step("unregistered", {"entrants": ["e3"]})
    assert [m.key for m in moved] == [f"refund:T:u3:{rec.version}"]
    assert _postings(moved[0]) == {"pool:T": (-100, "refund"), "wallet:u3": (100, "refund")}
    moved, rec = f.step("cancelled", {"reason": "x"})
    assert [m.key for m in moved] == [f"refund:T:u1:{rec.version}"]  # not the bot, not u3


def test_who_registers_a_pair_pays_both_fees_and_the_odd_one_out_is_refunded() -> None:
    f = Fold(_created(players=4))
    pair = [_person("e1", "u1", fee=200), _person("e2", "u2", fee=0)]  # as the service writes
    moved, rec = f.step("registered", {"entrants": pair})
    assert [m.key for m in moved] == [f"fee:T:u1:{rec.version}"]  # never the partner's chips
    assert _postings(moved[0]) == {"wallet:u1": (-200, "entry_fee"), "pool:T": (200, "entry_fee")}
    f.step("registered", {"entrants": [_person("e3", "u3")]})
    f.step("registered", {"entrants": [_person("e4", "u4")]})
    f.step("registered", {"entrants": [_person("e5", "u5")]})
    moved, rec = f.step(
        "started", {"seed": 1, "entrants": ["e1", "e2", "e3", "e4"], "withdrawn": ["e5"]}
    )
    assert [m.key for m in moved] == [f"refund:T:u5:{rec.version}"]


def test_the_end_pays_the_pool_by_rank_to_people_only() -> None:
    # a knockout of 4: u1 (e1) against the bot (e4), u2 (e2) against u3 (e3); the bot wins
    # it all, so the people's places are u2 or u3 (the finalist), then the other two tied
    f = Fold(_created(fee=100))
    for eid, user in (("e1", "u1"), ("e2", "u2"), ("e3", "u3")):
        f.step("registered", {"entrants": [_person(eid, user)]})
    f.step("registered", {"entrants": [_bot("e4")]})
    f.step("started", {"seed": 7, "entrants": ["e1", "e2", "e3", "e4"], "withdrawn": []})
    f.step(
        "paired",
        {"round": 1, "matches": [{"a": 0, "b": 3, "table": "t1"}, {"a": 1, "b": 2, "table": "t2"}]},
    )
    win = {"vp": [0, 0], "mp": [0, 0]}
    f.step("result", {"round": 1, "match": 0, "winner": 1, "partite": [0, 1], **win})
    f.step("result", {"round": 1, "match": 1, "winner": 0, "partite": [1, 0], **win})
    f.step("paired", {"round": 2, "matches": [{"a": 3, "b": 1, "table": "t3"}]})
    assert prize_awards(f.state) == []  # not over yet
    f.step("result", {"round": 2, "match": 0, "winner": 0, "partite": [1, 0], **win})
    moved, _ = f.step("ended", {"winner": ["e4"]})
    assert [m.key for m in moved] == ["prize:T"]
    assert _postings(moved[0]) == {
        "pool:T": (-300, "prize"),
        "wallet:u2": (180, "prize"),  # the finalist: rank 2, the first place among people
        "wallet:u1": (60, "prize"),  # rank 3, shared with u3: (30 + 10) / 2 percent each
        "wallet:u3": (60, "prize"),
    }


# ---- the store: the chips ride with the records -------------------------------------------


def test_store_writes_the_fee_with_the_registration_or_nothing(backend: Backend) -> None:
    async def check(store: Store) -> None:
        await store.ledger.write([welcome_grant("rich", 500), welcome_grant("poor", 50)])
        f = Fold(_created(fee=100))
        first = f.records[0]
        await store.tournaments.create(
            "T",
            name="sera",
            format="knockout",
            config=first.data["config"],
            organiser=None,
            private=False,
            invite_hash=None,
            starts_at=None,
            summary={},
            first=first,
        )
        moved, rec = f.step("registered", {"entrants": [_person("e1", "rich")]})
        await store.tournaments.append("T", [rec], status="registering", summary={}, ledger=moved)
        assert await store.ledger.balances("rich") == (400, 0)
        assert await store.ledger.has_movement(f"fee:T:rich:{rec.version}")

        moved, rec = f.step("registered", {"entrants": [_person("e2", "poor")]})
        with pytest.raises(InsufficientChips):
            await store.tournaments.append(
                "T", [rec], status="registering", summary={}, ledger=moved
            )
        assert await store.tournaments.version("T") == 2  # the record was not written
        assert await store.ledger.balances("poor") == (50, 0)
        assert len(await store.tournaments.load_log("T")) == 2

        f = Fold(_created(fee=100))  # again from the stored log, without the refused record
        f.records = await store.tournaments.load_log("T")
        f.state = TournamentState.from_log("T", f.records)
        moved, rec = f.step("cancelled", {"reason": "x"})
        await store.tournaments.append("T", [rec], status="cancelled", summary={}, ledger=moved)
        assert await store.ledger.balances("rich") == (500, 0)
        report = await store.ledger.check()
        assert report.problems == [] and report.totals["pools"] == 0
        entries = await store.ledger.entries("rich")
        assert [(e.kind, e.amount, e.tournament) for e in entries[:2]] == [
            ("refund", 100, "T"),
            ("entry_fee", -100, "T"),
        ]
        assert wallet("rich").id == "wallet:rich" and pool("T").id == "pool:T"

    backend.run(check)


# ---- a real server --------------------------------------------------------------------------


def ledger_check(server: Server, database: str | None = None) -> str:
    """`cirulla ledger check` on the server's database: it must exit 0."""
    where = ["--database-url", database] if database else ["--data-dir", str(server.data_dir)]
    run = subprocess.run(
        [sys.executable, "-m", "cirulla", "ledger", "check", *where],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def chips(p: Player) -> int:
    r = p.http.get("/api/me")
    assert r.status_code == 200, r.text
    value: int = r.json()["chips"]
    return value


def wallet_entries(p: Player) -> list[dict[str, Any]]:
    r = p.http.get("/api/wallet")
    assert r.status_code == 200, r.text
    entries: list[dict[str, Any]] = r.json()["entries"]
    return entries


def test_register_pays_refused_without_chips_unregister_and_cancel_refund(
    tmp_path: Path,
) -> None:
    with start_server(tmp_path, max_entry_fee=5000) as server:
        anna = Player(server).register("anna")
        bea = Player(server).register("bea")
        carlo = Player(server).register("carlo")
        poor = Player(server).guest()
        start = chips(bea)
        assert start == chips(carlo) and chips(poor) < 300

        bad: list[tuple[dict[str, Any], str]] = [
            ({"entry_fee": -1}, "entry_fee"),
            ({"entry_fee": 5001}, "entry_fee"),
            ({"entry_fee": "10"}, "entry_fee"),
            ({"prizes": [50, 40]}, "prizes"),
            ({"prizes": [10, 90]}, "prizes"),
            ({"config": {**KNOCKOUT, "stake": 5}}, "stake"),
        ]
        for extra, field in bad:
            r = anna.http.post(
                "/api/tournaments", json={"name": "x", "format": "knockout", **extra}
            )
            assert error_of(r) == (422, "bad_config"), (extra, r.text)
            assert field in r.json()["error"]["message"], r.text

        made = create(anna, private=False, entry_fee=300, prizes=[70, 30])["tournament"]
        tid = made["id"]
        assert made["entry_fee"] == 300
        assert made["prize"] == {
            "entry_fee": 300,
            "pool": 0,
            "prizes": [70, 30],
            "payout": [],
            "paid": None,
        }
        r = post(bea, tid, "register")
        assert r.status_code == 200, r.text
        assert r.json()["tournament"]["prize"]["pool"] == 300
        assert chips(bea) == start - 300
        assert wallet_entries(bea)[0] | {"id": 0, "at": ""} == {
            "id": 0,
            "at": "",
            "amount": -300,
            "balance": start - 300,
            "kind": "entry_fee",
            "table": None,
            "tournament": tid,
            "note": "tournament entry fee",
        }

        before = chips(poor)
        r = post(poor, tid, "register")
        assert error_of(r) == (409, "insufficient_chips"), r.text
        assert "300" in r.json()["error"]["message"] and str(before) in r.json()["error"]["message"]
        assert chips(poor) == before
        assert [e["name"] for e in detail(anna, tid)["tournament"]["entrants"]] == ["bea"]
        ledger_check(server)

        assert post(bea, tid, "unregister").status_code == 200
        assert chips(bea) == start
        assert wallet_entries(bea)[0]["kind"] == "refund"
        assert detail(anna, tid)["tournament"]["prize"]["pool"] == 0
        ledger_check(server)

        assert post(bea, tid, "register").status_code == 200  # a new fee: a new version
        assert post(carlo, tid, "register").status_code == 200
        assert post(anna, tid, "bots", {"level": "facile", "count": 1}).status_code == 200
        got = detail(anna, tid)["tournament"]["prize"]
        assert got["pool"] == 600 and got["payout"] == [420, 180]
        assert chips(bea) == chips(carlo) == start - 300
        assert post(anna, tid, "cancel").status_code == 200
        assert chips(bea) == chips(carlo) == start
        assert detail(anna, tid)["tournament"]["prize"]["pool"] == 0
        kinds = [e["kind"] for e in wallet_entries(bea)]
        assert kinds[:4] == ["refund", "entry_fee", "refund", "entry_fee"]
        assert "pools 0" in ledger_check(server)

        # a pair: who registers pays both fees, never the partner named; one
        # unregistering refunds who paid
        pairs = create(anna, private=False, entry_fee=100, config={**KNOCKOUT, "players": 4})
        pid = pairs["tournament"]["id"]
        assert post(bea, pid, "register", {"partner": "carlo"}).status_code == 200
        assert chips(bea) == start - 200 and chips(carlo) == start
        assert post(poor, pid, "register").status_code == 200  # a guest's 200 chips do
        assert chips(poor) == before - 100
        assert post(carlo, pid, "unregister").status_code == 200
        assert chips(bea) == chips(carlo) == start
        assert post(anna, pid, "cancel").status_code == 200
        assert chips(poor) == before
        ledger_check(server)


@contextlib.contextmanager
def _database(kind: str) -> Iterator[str | None]:
    if kind == "sqlite":
        yield None
        return
    from serverutil import throwaway_pg_database

    with throwaway_pg_database() as url:
        yield url


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_knockout_killed_mid_way_pays_the_pool_by_rank_once(tmp_path: Path, kind: str) -> None:
    """Three people who never come (each loses by the clock, E6) and a bot: the bot wins,
    so the people's places are the finalist's and the two semi-finalists' (tied)."""
    with (
        _database(kind) as database,
        start_server(tmp_path, database_url=database, grace=0.2) as server,
    ):
        anna = Player(server).register("anna")
        people = [Player(server).register(name) for name in ("pia", "pio", "pam")]
        start = chips(people[0])
        config = {"players": 2, "options": {"hands": 1}, "move_seconds": 1}
        tid = create(anna, private=False, entry_fee=100, config=config)["tournament"]["id"]
        for p in people:
            assert post(p, tid, "register").status_code == 200
        assert post(anna, tid, "bots", {"level": "facile", "count": 1}).status_code == 200
        assert post(anna, tid, "start").status_code == 200
        assert all(chips(p) == start - 100 for p in people)
        wait_for(anna, tid, lambda got: bool(got["rounds"]))
        server.kill()  # SIGKILL mid-way; the records and their chips are both there or not
        server.start()
        got = wait_for(anna, tid, finished, timeout=120)
        rank = {s["side"][0]: s["rank"] for s in got["standings"]}
        assert rank["e4"] == 1  # the bot: it wins nothing
        finalist = next(e for e, r in rank.items() if r == 2)
        names = {"e1": "pia", "e2": "pio", "e3": "pam"}
        expected = {names[e]: (180 if e == finalist else 60) for e in names}
        paid = got["tournament"]["prize"]["paid"]
        assert {a["name"]: a["chips"] for a in paid} == expected
        assert got["tournament"]["prize"]["pool"] == 0
        for p in people:
            won = expected[p.user["name"]]
            assert chips(p) == start - 100 + won
            prizes = [e for e in wallet_entries(p) if e["kind"] == "prize"]
            assert [(e["amount"], e["tournament"]) for e in prizes] == [(won, tid)]
        # a restart after the end pays nothing again
        server.kill()
        server.start()
        assert detail(anna, tid)["tournament"]["status"] == "finished"
        assert all(chips(p) == start - 100 + expected[p.user["name"]] for p in people)
        assert "pools 0" in ledger_check(server, database)


# ---- the browser ------------------------------------------------------------------------------


def test_browser_create_form_entry_fee_and_the_prize_pool_on_the_pages(
    browser: Any, tmp_path: Path
) -> None:
    """The create form's entry fee reaches the server; registering from the page pays it
    (the header's chips go down) and the page and the list show the pool."""
    from browserutil import expect, page_opener

    with (
        start_server(tmp_path) as server,
        page_opener(browser, server.base_url) as open_page,
    ):
        page = open_page(locale="en-GB")
        r = page.request.post("/api/register", data={"name": "fee_ui", "password": "password123"})
        assert r.status == 201, r.text()
        page.goto("/tournaments")
        form = page.locator(".tournament-form")
        form.locator("input[name=name]").fill("Posta")
        form.locator("input[name=format][value=knockout]").check()
        form.locator("input[name=players][value='2']").check()
        form.locator("input[name=length][value=hands]").check()
        form.locator("input[name=hands]").fill("1")
        form.locator("input[name=entry_fee]").fill("150")
        form.locator("button[name=create-tournament]").click()
        page.wait_for_url("**/tournament/*")
        tid = page.url.rsplit("/", 1)[1].split("?")[0]
        prize = page.locator(".tournament-prize")
        expect(prize).to_have_text("Prize: 0 chips (60% / 30% / 10%) · entry fee: 150 chips")
        page.locator("button[name=register]").click()
        expect(prize).to_have_text("Prize: 150 chips (60% / 30% / 10%) · entry fee: 150 chips")
        assert page.request.get("/api/me").json()["chips"] == 1000 - 150
        page.goto("/tournaments")
        item = page.locator(f".tournament-item[data-tournament='{tid}'] .tournament-fee")
        expect(item).to_have_text("Prize: 150 chips (60% / 30% / 10%) · entry fee: 150 chips")
