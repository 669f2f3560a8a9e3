"""Chips, ratings and profiles in a real browser against a real `cirulla serve`.

A guest sees their chips in the top bar, makes a cash table with the create-table form
(stake and maximum loss, RULES.md M1), a registered player finds it in the lobby with its
stake and sits; both play the partita by clicks to its end; the top bars and the wallet
page show the settlement (escrow, release, the win or loss, linked to the replay). And
after a rated partita (decided by abandon, E6) the leaderboard lists both players, with
the bots' reference rows, and a player's profile shows the rating, marked provisional,
its chart, the partite and the replay link.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browserutil import PHONE, expect, guest, page_opener, screenshot
from serverutil import Player, Server, running_server
from test_web_table import play_by_clicks

PlaywrightTimeout = pytest.importorskip("playwright.sync_api").TimeoutError

STAKE = 2
MAX_LOSS = 60
PARTITA_SECONDS = 300  # a whole partita by clicks on a slow machine
# The chips settings, explicit (they are also the defaults): a guest's 200 chips are at
# the top-up floor, so a guest who loses a cash partita may take the daily top-up.
CHIPS = {"guest_chips": 200, "welcome_chips": 1000, "topup_floor": 200, "topup_chips": 500}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(
        tmp_path_factory.mktemp("web-competition"), bot_delay=0, login_attempts=100_000, **CHIPS
    ) as s:
        yield s


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, server.base_url) as open_page:
        yield open_page


def register(page: Any, name: str) -> dict[str, Any]:
    r = page.request.post("/api/register", data={"name": name, "password": "password123"})
    assert r.status == 201, r.text()
    user: dict[str, Any] = r.json()["user"]
    return user


def wallet(page: Any) -> dict[str, Any]:
    r = page.request.get("/api/wallet?limit=200")
    assert r.ok, r.text()
    data: dict[str, Any] = r.json()
    return data


def header_chips(page: Any) -> Any:
    return page.locator(".topbar .wallet-badge .wallet-chips")


def create_cash_table_with_the_form(page: Any) -> str:
    """Two players, one smazzata, a cash table: through the lobby's form only."""
    form = page.locator(".create-form")
    form.locator("input[name=name]").fill("Tavolo cash")
    form.locator("input[name=players][value='2']").check()
    expect(form.locator("select[name=seat-1]")).to_have_value("person")
    form.locator("input[name=length][value=hands]").check()
    form.locator("input[name=hands]").fill("1")
    form.locator("select[name=move_seconds]").select_option("60")
    expect(form.locator("input[name=stake]")).to_be_hidden()
    form.locator("input[name=cash]").check()
    form.locator("input[name=stake]").fill(str(STAKE))
    form.locator("input[name=max_loss]").fill(str(MAX_LOSS))
    form.locator("button[name=create]").click()
    page.wait_for_url(re.compile(r"/table/[^/?]+$"))
    return str(page.url.rsplit("/", 1)[1])


TURN = """id => {
    const v = window.cirulla.conn.view(id);
    if (!v) return false;
    if (v.status === 'finished' || v.status === 'closed') return 'finished';
    const d = v.deal;
    if (v.status !== 'playing' || !d || d.is_over) return false;
    if (d.to_move === null || d.to_move === undefined) return false;
    if (d.to_move !== v.you) return 'other';
    const b = document.querySelector('.board[data-legal]:not(.sending)');
    return b && b.dataset.legal ? 'turn' : false;
}"""


FINISHED = """id => {
    const v = window.cirulla.conn.view(id);
    return !!v && (v.status === 'finished' || v.status === 'closed');
}"""


def play_both_to_the_end(first: Any, second: Any, table: str) -> None:
    """Two browser pages play by clicks, each at its turn, until both see the partita
    over (the page that saw the last move may learn of the end before the other)."""
    deadline = time.monotonic() + PARTITA_SECONDS
    page = first
    while time.monotonic() < deadline:
        state = page.wait_for_function(TURN, arg=table, timeout=PARTITA_SECONDS * 1000).json_value()
        if state == "finished":
            for each in (first, second):
                each.wait_for_function(FINISHED, arg=table, timeout=30_000)
            return
        if state == "other":
            page = second if page is first else first
            continue
        moves = page.locator(".board").get_attribute("data-legal").split()
        plays = [m for m in moves if not m.startswith("!")] or moves
        move = max(plays, key=len)  # a capture when there is one
        before = page.evaluate("id => window.cirulla.conn.version(id)", table)
        play_by_clicks(page, move)
        with contextlib.suppress(PlaywrightTimeout):  # else the next pass looks again
            page.wait_for_function(
                "([id, v]) => window.cirulla.conn.version(id) > v",
                arg=[table, before],
                timeout=15_000,
            )
    raise AssertionError(f"the partita at {table} did not end in {PARTITA_SECONDS} s")


def settled(page: Any) -> dict[str, Any]:
    """The wallet once nothing is held at a table any more."""
    deadline = time.monotonic() + 30
    while True:
        data = wallet(page)
        if data["escrow"] == 0:
            return data
        assert time.monotonic() < deadline, data
        time.sleep(0.2)


def test_m1_cash_table_from_the_form_to_the_settlement_in_the_wallet(pages: Any) -> None:
    a = pages()
    guest(a)
    a.goto("/lobby")
    start_a = wallet(a)
    assert start_a["chips"] > MAX_LOSS and start_a["escrow"] == 0, start_a
    # the guest's wallet in the top bar, and the welcome grant on the wallet page
    expect(header_chips(a)).to_have_attribute("data-chips", str(start_a["chips"]))
    expect(a.locator(".topbar .wallet-escrow")).to_have_count(0)

    table = create_cash_table_with_the_form(a)
    # sitting (the creator sits at once) puts the maximum loss in escrow
    expect(a.locator(".topbar .wallet-escrow")).to_have_attribute("data-escrow", str(MAX_LOSS))
    expect(header_chips(a)).to_have_attribute("data-chips", str(start_a["chips"] - MAX_LOSS))
    expect(a.locator(".table-stakes .cash-badge")).to_have_attribute("data-stake", str(STAKE))
    screenshot(a, "web-competition-table")
    config = a.request.get(f"/api/tables/{table}").json()["table"]
    assert (config["stake"], config["max_loss"]) == (STAKE, MAX_LOSS), config

    # another player finds it in the lobby, with its stake, and sits
    b = pages()
    register(b, "bruno_cash")
    b.goto("/lobby")
    start_b = wallet(b)
    entry = b.locator(f".lobby-table[data-table='{table}']")
    badge = entry.locator(".cash-badge")
    expect(badge).to_have_attribute("data-stake", str(STAKE))
    expect(badge).to_contain_text(str(MAX_LOSS))
    expect(entry.locator(".rated-badge")).to_have_class(re.compile(r"\brated\b"))
    screenshot(b, "web-competition-lobby")
    entry.locator("button[data-action=sit]").click()
    b.wait_for_url(f"**/table/{table}")
    expect(b.locator(".topbar .wallet-escrow")).to_have_attribute("data-escrow", str(MAX_LOSS))

    play_both_to_the_end(a, b, table)
    view = a.evaluate("id => window.cirulla.conn.view(id)", table)
    assert view["status"] == "finished", view["status"]
    result = view["result"]
    mine, theirs = view["totals"][view["you"]], view["totals"][1 - view["you"]]
    # E4: a tie plays on; a cappotto (S8) ends the partita whatever the totals
    assert mine != theirs or result["reason"] == "cappotto", (mine, theirs, result)
    owed = MAX_LOSS if result["reason"] == "cappotto" else min(STAKE * abs(mine - theirs), MAX_LOSS)
    sign = 1 if result["winner"] == view["you"] else -1

    # the settlement: what one wins the other loses, and the top bars show it
    end_a, end_b = settled(a), settled(b)
    assert end_a["chips"] - start_a["chips"] == sign * owed, (start_a, end_a, result)
    assert end_a["chips"] + end_b["chips"] == start_a["chips"] + start_b["chips"]
    for page, end in ((a, end_a), (b, end_b)):
        expect(header_chips(page)).to_have_attribute("data-chips", str(end["chips"]))
        expect(page.locator(".topbar .wallet-escrow")).to_have_count(0)

    # the wallet page, reached from the top bar: each movement with its table
    a.locator(".topbar .wallet-badge").click()
    a.wait_for_url("**/wallet")
    expect(a.locator(".wallet-free")).to_have_attribute("data-chips", str(end_a["chips"]))
    rows = a.locator(".wallet-entry")
    expect(rows.first).to_be_visible()
    kinds = rows.evaluate_all("rs => rs.map(r => r.dataset.kind)")
    assert "escrow" in kinds and ("win" if sign > 0 else "loss") in kinds, kinds
    for entry_data in end_a["entries"]:  # every movement of the API, shown once
        row = a.locator(f".wallet-entry[data-entry='{entry_data['id']}']")
        expect(row.locator(".amount")).to_have_attribute("data-amount", str(entry_data["amount"]))
    at_table = sum(e["amount"] for e in end_a["entries"] if e["table"] == table)
    assert at_table == sign * owed, end_a["entries"]
    settlement = a.locator(f".wallet-entry[data-kind={'win' if sign > 0 else 'loss'}]")
    expect(settlement.locator("a.wallet-source")).to_have_attribute("href", f"/replay/{table}")
    screenshot(a, "web-competition-wallet")
    # the daily top-up: granted under the floor (the guest lost), else refused with the
    # server's reason; either way the top bar agrees with the wallet
    a.locator("button[name=topup]").click()
    if end_a["chips"] < CHIPS["topup_floor"]:
        expect(a.locator(".wallet-topup-message")).to_contain_text("Hai ricevuto 500 fiche")
        expect(a.locator(".wallet-entry").first).to_have_attribute("data-kind", "topup")
        topped = end_a["chips"] + CHIPS["topup_chips"]
        assert wallet(a)["chips"] == topped
        expect(header_chips(a)).to_have_attribute("data-chips", str(topped))
    else:
        expect(a.locator(".wallet-topup-message.error")).to_contain_text("Niente ricarica ora")
        assert wallet(a)["chips"] == end_a["chips"]


def rated_duel(server: Server, winner: str, loser: str) -> str:
    """A rated 1-against-1 partita between two registered players, ended by the loser's
    abandon (E6: rated as the partita's result)."""
    a = Player(server).register(winner)
    b = Player(server).register(loser)
    try:
        table = a.create_table({"players": 2, "move_seconds": 60, "options": {"hands": 1}})
        a.connect()
        a.join(table)
        b.connect()
        b.join(table)
        ack = b.sit(table)
        assert ack["type"] == "ack", ack
        while b.views[table]["status"] != "playing":
            b.recv()
        ack = b.command({"type": "abandon", "table": table, "version": b.version[table]})
        assert ack["type"] == "ack", ack
    finally:
        a.close()
        b.close()
    return table


def wait_on_leaderboard(page: Any, names: set[str]) -> list[dict[str, Any]]:
    """The rating is written as the table ends: poll the API until both are listed."""
    deadline = time.monotonic() + 30
    while True:
        entries: list[dict[str, Any]] = page.request.get(
            "/api/leaderboard?game=cirulla&mode=1v1&period=all"
        ).json()["entries"]
        if names <= {e["name"] for e in entries}:
            return entries
        assert time.monotonic() < deadline, entries
        time.sleep(0.2)


def test_leaderboard_and_profile_show_the_ratings_of_a_rated_partita(
    server: Server, pages: Any
) -> None:
    table = rated_duel(server, "rosa_rated", "ugo_rated")
    page = pages()
    r = page.request.post("/api/login", data={"name": "rosa_rated", "password": "password123"})
    assert r.ok, r.text()
    entries = wait_on_leaderboard(page, {"rosa_rated", "ugo_rated"})
    rosa = next(e for e in entries if e["name"] == "rosa_rated")
    ugo = next(e for e in entries if e["name"] == "ugo_rated")
    assert rosa["rating"] > ugo["rating"] and rosa["provisional"], entries

    # the leaderboards page, from the top bar; the bots' fixed ratings as reference rows
    page.goto("/lobby")
    page.locator(".topnav a[href='/leaderboards']").click()
    page.wait_for_url("**/leaderboards")
    board = page.locator("table.leaderboard[data-mode='1v1'][data-period='all']")
    row = board.locator(".leaderboard-entry[data-name='rosa_rated']")
    expect(row).to_have_class(re.compile(r"\bme\b"))
    expect(row.locator(".provisional-badge")).to_be_visible()
    expect(row.locator(".rating")).to_have_attribute("data-rating", re.compile(r"\d"))
    assert float(row.locator(".rating").get_attribute("data-rating")) == rosa["rating"]
    expect(board.locator(".leaderboard-entry[data-name='ugo_rated']")).to_be_visible()
    bots = page.request.get("/api/players/rosa_rated/ratings").json()["bots"]
    expect(board.locator("tr.bot-line")).to_have_count(len(bots))
    you = page.locator(".leaderboard-you .rating")
    expect(you).to_have_attribute("data-rating", re.compile(r"\d"))
    assert float(you.get_attribute("data-rating")) == rosa["rating"]
    # the weekly board names the change
    page.locator("button[name=period-week]").click()
    week = page.locator("table.leaderboard[data-period='week']")
    expect(week.locator(".leaderboard-entry[data-name='ugo_rated'] .change")).to_contain_text("−")
    screenshot(page, "web-competition-leaderboard")

    # the opponent's profile through their name
    week.locator(".leaderboard-entry[data-name='ugo_rated'] a.player-link").click()
    page.wait_for_url("**/player/ugo_rated")
    one = page.locator(".player-rating[data-mode='1v1']")
    expect(one.locator(".rating")).to_have_attribute("data-rating", re.compile(r"\d"))
    assert float(one.locator(".rating").get_attribute("data-rating")) == ugo["rating"]
    expect(one.locator(".provisional-badge")).to_be_visible()
    expect(one.locator("svg.rating-chart .rating-point")).to_have_count(1)
    expect(page.locator(".player-rating[data-mode='pairs'] .rating.none")).to_be_visible()
    partite = page.locator(".partite-counts")
    expect(partite.locator("[data-count=played]")).to_have_text("1")
    expect(partite.locator("[data-count=lost]")).to_have_text("1")
    recent = page.locator(f".player-recent-item[data-table='{table}']")
    expect(recent).to_have_class(re.compile(r"\blost\b"))
    expect(recent.get_by_role("link", name="Rivedi")).to_have_attribute("href", f"/replay/{table}")
    expect(page.locator(".player-chips [data-chips=partite]")).to_have_text("0")
    expect(page.locator(".player-luck .hint")).to_contain_text("10,49%")
    screenshot(page, "web-competition-profile")


def test_profile_of_an_unknown_player_says_so_on_a_phone_in_english(pages: Any) -> None:
    page = pages(locale="en-GB", viewport=PHONE)
    guest(page)
    for path in ("/wallet", "/leaderboards", "/player/anyone"):  # the client's own routes
        r = page.request.get(path)
        assert r.status == 200 and "/static/js/app.js" in r.text(), path
    page.goto("/player/nobody_here_at_all")
    expect(page.locator(".player-page .error[role=alert]")).to_be_visible()
    expect(page.locator(".player-chips .error")).to_be_visible()
    expect(page.locator(".topbar .wallet-badge")).to_be_visible()


def test_a_sit_or_a_table_refused_for_insufficient_chips_shows_the_servers_reason(
    pages: Any,
) -> None:
    rich = pages()
    register(rich, "ricco_cash")
    config = {"players": 2, "move_seconds": 60, "stake": 10, "max_loss": 500}
    r = rich.request.post("/api/tables", data={"config": config, "seat": 0})
    assert r.status == 201, r.text()
    table = r.json()["table"]["id"]

    poor = pages()
    me = guest(poor)
    poor.goto("/lobby")
    start = wallet(poor)
    assert start["chips"] < 500, start
    entry = poor.locator(f".lobby-table[data-table='{table}']")
    expect(entry.locator(".cash-badge")).to_have_attribute("data-stake", "10")
    entry.locator("button[data-action=sit]").click()
    toast = poor.locator(".toast-error")
    expect(toast).to_contain_text("Non hai abbastanza fiche")
    expect(toast).to_contain_text(f"you have {start['chips']}")  # the server's own reason
    assert poor.url.endswith("/lobby")
    assert wallet(poor) == start  # nothing moved

    # the form says so too, and makes no table
    form = poor.locator(".create-form")
    form.locator("input[name=players][value='2']").check()
    form.locator("input[name=cash]").check()
    form.locator("input[name=stake]").fill("10")
    form.locator("input[name=max_loss]").fill("500")
    form.locator("button[name=create]").click()
    expect(form.locator(".error[role=alert]")).to_contain_text(f"you have {start['chips']}")
    assert poor.url.endswith("/lobby")
    tables = poor.request.get("/api/tables").json()["tables"]
    assert not [t for t in tables if any(p and p["name"] == me["name"] for p in t["seats"])]
