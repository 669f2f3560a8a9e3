"""Tournaments in a real browser against a real `cirulla serve` (docs/tournaments.md).

A registered player makes a knockout from the "Tornei" page, fills it with bots,
registers and starts it; the round's table opens by itself (a notice and the table
page), the player plays the partita by clicks to its end, and the tournament's page
shows the bracket moving on. And the pages of a finished VP tournament (standings
with their tie-break and partite columns, a bye) render on a phone, in English, with
no error in the console. (test_web_tournaments_live.py: a page left open follows a
tournament with no reload.)
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browserutil import PHONE, expect, page_opener, screenshot
from serverutil import Server, running_server
from test_web_table import play_by_clicks

PlaywrightTimeout = pytest.importorskip("playwright.sync_api").TimeoutError

# Slow machines: a whole partita against a bot, a round of bots.
PARTITA_SECONDS = 300


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(
        tmp_path_factory.mktemp("web-tournaments"), bot_delay=0, login_attempts=100_000
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


def tournament_data(page: Any, tournament: str) -> dict[str, Any]:
    r = page.request.get(f"/api/tournaments/{tournament}")
    assert r.ok, r.text()
    data: dict[str, Any] = r.json()
    return data


def wait_for_data(
    page: Any, tournament: str, ready: Callable[[dict[str, Any]], bool], timeout: float
) -> dict[str, Any]:
    """Poll the tournament until `ready` holds for it (a round, the end)."""
    deadline = time.monotonic() + timeout
    while True:
        data = tournament_data(page, tournament)
        if ready(data):
            return data
        assert time.monotonic() < deadline, data
        time.sleep(0.5)


def console_errors(page: Any) -> list[str]:
    """Errors the page logs (the browser's own request for /favicon.ico aside)."""
    errors: list[str] = []

    def on_console(message: Any) -> None:
        if message.type == "error" and not message.location.get("url", "").endswith("/favicon.ico"):
            errors.append(message.text)

    page.on("console", on_console)
    return errors


# Every tournament notice shown, kept in window.notices (a notice leaves after seconds).
RECORD_NOTICES = """
window.notices = [];
new MutationObserver((changes) => {
    for (const change of changes) for (const node of change.addedNodes) {
        if (node.classList && node.classList.contains('tournament-notice')) {
            window.notices.push(node.textContent);
        }
    }
}).observe(document, {childList: true, subtree: true});
"""


def wait_for_notice(page: Any, text: str) -> None:
    page.wait_for_function("text => window.notices.some(n => n.includes(text))", arg=text)


def open_tournament_from_the_nav(page: Any, tournament: str) -> None:
    """Through the header's "Tornei" link and the list, as a player gets there."""
    page.locator(".topnav a[href='/tournaments']").click()
    page.locator(f".tournament-item[data-tournament='{tournament}'] a").click()
    page.wait_for_url(f"**/tournament/{tournament}")
    page.wait_for_selector(".tournament-head")


def play_to_the_end(page: Any, table: str, timeout: float = PARTITA_SECONDS) -> None:
    """Make legal moves by clicks, whatever the bot does, until the partita is over (or
    the next round's table has opened by itself in its place)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = page.wait_for_function(
            """id => {
                if (location.pathname !== '/table/' + id) return 'left';
                const v = window.cirulla.conn.view(id);
                if (v && v.status === 'finished') return 'finished';
                const b = document.querySelector('.board[data-legal]:not(.sending)');
                return b && b.dataset.legal ? 'turn' : false;
            }""",
            arg=table,
            timeout=PARTITA_SECONDS * 1000,
        ).json_value()
        if state != "turn":
            return
        moves = page.locator(".board").get_attribute("data-legal").split()
        plays = [m for m in moves if not m.startswith("!")] or moves
        move = max(plays, key=len)  # a capture when there is one
        before = page.evaluate("id => window.cirulla.conn.version(id)", table)
        play_by_clicks(page, move)
        # the server took it: the table moved on (else the next pass looks again)
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(
                "([id, v]) => location.pathname !== '/table/' + id"
                " || window.cirulla.conn.version(id) > v",
                arg=[table, before],
                timeout=15_000,
            )
    raise AssertionError(f"the partita at {table} did not end in {timeout} s")


def me_entrant(data: dict[str, Any]) -> str:
    entrant: str = data["me"]["entrant"]
    return entrant


def my_match(data: dict[str, Any], round_no: int) -> dict[str, Any]:
    me = me_entrant(data)
    (rnd,) = [r for r in data["rounds"] if r["round"] == round_no]
    (match,) = [m for m in rnd["matches"] if any(me in side for side in m["sides"])]
    return match


def test_knockout_round_table_opens_by_itself_and_the_bracket_moves_on(pages: Any) -> None:
    page = pages()
    errors = console_errors(page)
    page.add_init_script(RECORD_NOTICES)
    me = register(page, "carla_torneo")
    page.goto("/lobby")
    page.locator(".topnav").get_by_role("link", name="Tornei").click()
    page.wait_for_url("**/tournaments")

    # The form: a knockout, 1 against 1, one smazzata a partita, a generous move clock.
    form = page.locator(".tournament-form")
    form.locator("input[name=name]").fill("Sera")
    form.locator("input[name=format][value=knockout]").check()
    form.locator("input[name=players][value='2']").check()
    form.locator("input[name=length][value=hands]").check()
    form.locator("input[name=hands]").fill("1")
    form.locator("select[name=move_seconds]").select_option("60")
    form.locator("button[name=create-tournament]").click()
    page.wait_for_url(re.compile(r"/tournament/[^/?]+$"))
    tournament = page.url.rsplit("/", 1)[1]
    expect(page.locator(".tournament-title")).to_have_text("Sera")
    expect(page.locator(".tournament-status")).to_have_text("iscrizioni aperte")

    # The organiser adds three bots and registers too: four entrants.
    page.locator("select[name=bot-level]").select_option("normale")
    page.locator("input[name=bot-count]").fill("3")
    page.locator("button[name=add-bots]").click()
    expect(page.locator(".tournament-entrants .lobby-seat")).to_have_count(3)
    page.locator("button[name=register]").click()
    expect(page.locator(".tournament-entrants .lobby-seat")).to_have_count(4)
    expect(page.locator(".tournament-entrants .lobby-seat.mine")).to_contain_text(me["name"])
    expect(page.locator("button[name=unregister]")).to_be_visible()

    # Start: round 1's table opens by itself, with a notice.
    page.locator("button[name=start]").click()
    page.wait_for_url(re.compile(r"/table/[^/?]+$"), timeout=30_000)
    table = page.url.rsplit("/", 1)[1]
    wait_for_notice(page, "Turno 1 del torneo Sera: il tuo tavolo")
    page.wait_for_selector(".board")
    data = tournament_data(page, tournament)
    assert data["me"]["table"] == table
    assert my_match(data, 1)["table"] == table
    summary = page.request.get(f"/api/tables/{table}").json()["table"]
    assert summary["tournament"]["id"] == tournament
    screenshot(page, "web-tournament-table")

    play_to_the_end(page, table)

    # Round 1 is settled (the other match is between bots); round 2 is the final.
    data = wait_for_data(page, tournament, lambda d: len(d["rounds"]) >= 2, PARTITA_SECONDS)
    first = my_match(data, 1)
    assert first["status"] == "finished" and first["winner"] in (0, 1)
    mine = next(k for k, side in enumerate(first["sides"]) if me_entrant(data) in side)
    won = first["winner"] == mine
    if won:
        # The final's table opens by itself as well.
        final = my_match(data, 2)
        page.wait_for_url(f"**/table/{final['table']}", timeout=30_000)
        wait_for_notice(page, "Turno 2 del torneo Sera: il tuo tavolo")

    open_tournament_from_the_nav(page, tournament)
    column = page.locator(".bracket-round[data-round='1']")
    match = column.locator(f".match[data-table='{table}']")
    expect(match).to_have_attribute("data-status", "finished")
    expect(match).to_have_attribute("data-winner", str(first["winner"]))
    expect(match.locator(".match-side.winner")).to_have_count(1)
    expect(match.locator("a[data-action=replay]")).to_have_attribute("href", f"/replay/{table}")
    final_match = page.locator(".bracket-round[data-round='2'] .match:not(.future)")
    expect(final_match).to_have_count(1)
    if won:
        expect(final_match).to_contain_text(me["name"])
    else:
        # Bots play the final to its end: the page shows the winner.
        expect(page.locator(".tournament-winner")).to_be_visible(timeout=PARTITA_SECONDS * 1000)
        expect(final_match).to_have_attribute("data-status", "finished")
    expect(page.locator(".tournament-prize")).to_have_text("Premio: —")
    screenshot(page, "web-tournament-bracket")
    assert not errors, errors


def test_tournament_pages_render_standings_and_a_bye_on_a_phone_without_errors(
    pages: Any,
) -> None:
    page = pages(locale="en-GB", viewport=PHONE, has_touch=True, is_mobile=True)
    errors = console_errors(page)
    register(page, "organiser_vp")
    body = {
        "name": "Swiss of bots",
        "format": "swiss",
        "config": {"preset": "cirulla", "players": 2, "options": {"hands": 1}, "move_seconds": 30},
        "rounds": 1,
        "best_of": 1,
        "starts_at": None,
        "max_entrants": 8,
        "private": False,
    }
    r = page.request.post("/api/tournaments", data=body)
    assert r.status == 201, r.text()
    tournament = r.json()["tournament"]["id"]
    r = page.request.post(
        f"/api/tournaments/{tournament}/bots", data={"level": "normale", "count": 3}
    )
    assert r.ok, r.text()
    r = page.request.post(f"/api/tournaments/{tournament}/start")
    assert r.ok, r.text()
    wait_for_data(
        page, tournament, lambda d: d["tournament"]["status"] == "finished", PARTITA_SECONDS
    )

    page.goto("/lobby")
    open_tournament_from_the_nav(page, tournament)
    expect(page.locator(".tournament-status")).to_have_text("finished")
    rows = page.locator(".tournament-standings tbody tr")
    expect(rows).to_have_count(3)
    head = page.locator(".tournament-standings thead")
    expect(head).to_contain_text("VP")
    # the Swiss tie-break and the partite won, the figures the API gives
    expect(head.locator("th[data-col=buchholz]")).to_have_text("Buchholz")
    expect(head.locator("th[data-col=partite_won]")).to_have_text("Partite")
    expect(head.locator("th[data-col=head_to_head]")).to_have_count(0)  # round robin only
    for i, row in enumerate(tournament_data(page, tournament)["standings"]):
        cells = rows.nth(i)
        for col in ("buchholz", "partite_won", "vp", "mp"):
            expect(cells.locator(f"td[data-col={col}]")).to_have_text(str(row[col]))
    expect(page.locator(".round-matches .match.bye")).to_have_count(1)
    expect(page.locator(".round-matches .match.bye")).to_contain_text("bye")
    expect(page.locator(".tournament-winner")).to_contain_text("Winner: bot normale")
    expect(page.locator(".tournament-prize")).to_have_text("Prize: —")
    # Nothing spills sideways on a phone (the standings scroll in their own box).
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
    screenshot(page, "web-tournament-standings-phone")

    page.locator(".topnav a[href='/tournaments']").click()
    item = page.locator(f".tournament-item[data-tournament='{tournament}']")
    expect(item).to_contain_text("Swiss")
    expect(item).to_contain_text("3/8 entrants")

    # A private one from the form: its invite link, then its page with the invite.
    form = page.locator(".tournament-form")
    form.locator("input[name=name]").fill("Friends only")
    form.locator("input[name=format][value=round-robin]").check()
    form.locator("input[name=private]").check()
    form.locator("button[name=create-tournament]").click()
    link = page.locator("dialog[open] input[name=invite-link]")
    expect(link).to_have_value(re.compile(r"/tournament/[^/?]+\?invite=."))
    invite_link = link.input_value()
    page.locator("button[name=go-tournament]").click()
    page.wait_for_url(re.compile(r"/tournament/[^/?]+\?invite=."))
    expect(page.locator(".tournament-title")).to_have_text("Friends only")
    expect(page.locator(".tournament-head")).to_contain_text("Round robin")
    expect(page.locator(".tournament-head .badge")).to_have_text("private")
    expect(page.get_by_role("button", name="Register")).to_be_visible()
    # The link opened as it would be from a message: the server serves the page itself.
    page.goto(invite_link)
    expect(page.locator(".tournament-title")).to_have_text("Friends only")
    page.goto("/tournaments")
    expect(page.locator(".tournament-form")).to_be_visible()
    # The lobby shows the tournaments coming up beside its tables, with a way to them all.
    page.goto("/lobby")
    upcoming = page.locator(".lobby-tournament", has_text="Friends only")
    expect(upcoming).to_be_visible()
    upcoming.locator("a.lobby-tournament-name").click()
    expect(page.locator(".tournament-title")).to_have_text("Friends only")
    assert not errors, errors
