"""The table's flow in a real browser (docs/table-flow.md, issue 15 items 4-7): the
score sheet covers the board only during the pause between smazzate, banners and
flying cards never cover what the player is about to play on, the head keeps the
running score, and the last capture and the previous mano can be seen.

Tables are made in test mode with stacked decks. Where a test needs the second
smazzata, the first is played out quickly over the page's own connection (its moves
are not what the test is about); what the test is about is done and read on the page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browserutil import DESKTOP, PHONE, expect, guest, page_opener
from serverutil import Server, running_server
from test_web_table import create, open_table, play_by_clicks, played, stacked, wait_my_turn

PAUSE = 1.5  # the server's pause between smazzate, in seconds

# Smazzata 1, dealer 0: the bot leads, so the guest (seat 0) leads smazzata 2 (D8).
FIRST_HANDS = [["4S", "QC", "KD"], ["5H", "6D", "JH"]]
FIRST_TABLE = ["4D", "7C", "2S", "KH"]
# Smazzata 2, dealer 1: the guest leads and takes 4D 7C with the 4 of spades.
SECOND_HANDS = FIRST_HANDS
SECOND_TABLE = FIRST_TABLE
# Seat 0 holds A 2 3 (a cirulla, declared automatically) and its Ace sweeps the table
# (P4): an accuso and a scopa in the first mano.
SCOPA_HANDS = [["AC", "2C", "3D"], ["2S", "5C", "6D"]]
SCOPA_TABLE = ["3C", "5D", "JS", "6H"]
SCOPA_MOVE = "ACx5D6H3CJS"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(
        tmp_path_factory.mktemp("web-table-flow"),
        bot_delay=0.1,
        deal_pause=PAUSE,
        login_attempts=100_000,
    ) as s:
        yield s


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, server.base_url) as open_page:
        yield open_page


def viewport(kind: str) -> dict[str, Any]:
    if kind == "phone":
        return {"viewport": PHONE, "is_mobile": True, "has_touch": True}
    return {"viewport": DESKTOP}


def two_smazzate(page: Any, move_seconds: int = 60) -> str:
    """A partita of 2 smazzate against a bot, the guest leading the second."""
    decks = [
        stacked(2, 0, FIRST_HANDS, FIRST_TABLE),
        stacked(2, 1, SECOND_HANDS, SECOND_TABLE),
    ]
    config = {
        "players": 2,
        "bots": {"1": "facile"},
        "move_seconds": move_seconds,
        # the bot's moves vary with the table: no cappotto (S8) may end the partita early
        "options": {"hands": 2, "cappotto_scores_only": True},
    }
    return create(page, config, decks=decks, dealer=0)


PLAY_OUT = """async ([id, deal]) => {
    // the guest's moves until smazzata `deal` is over, sent as the page sends them
    const conn = window.cirulla.conn;
    const until = Date.now() + 90000;
    while (Date.now() < until) {
        const v = conn.view(id);
        const d = v && v.deal;
        if (v && (v.deal_index > deal || v.status !== 'playing' || (d && d.is_over))) return true;
        const mine = d && d.to_move === v.you && d.legal_moves;
        const moves = mine ? d.legal_moves.filter(m => !m.startsWith('!')) : [];
        if (moves.length) await conn.tableCommand(id, {type: 'play', move: moves[0]});
        else await new Promise(r => setTimeout(r, 30));
    }
    return false;
}"""


def play_out_first_smazzata(page: Any, table: str) -> None:
    assert page.evaluate(PLAY_OUT, [table, 0])


# Records, at every change of the page, whether the score sheet covered the table
# (shown and not docked) and whether it was the guest's turn (the board offers moves).
WATCH_SHEET = """() => {
    window.sheetLog = [];
    const note = () => {
        const layer = document.querySelector('.sheet-layer');
        const open = Boolean(layer && !layer.hidden && layer.querySelector('.scoresheet'));
        const docked = Boolean(layer && layer.classList.contains('docked'));
        const myTurn = Boolean(document.querySelector('.board[data-legal]'));
        const last = window.sheetLog[window.sheetLog.length - 1];
        const entry = {open, docked, myTurn};
        if (!last || JSON.stringify(last) !== JSON.stringify(entry)) window.sheetLog.push(entry);
    };
    new MutationObserver(note).observe(document.body, {
        childList: true, subtree: true,
        attributes: true, attributeFilter: ['hidden', 'class', 'data-legal'],
    });
    note();
}"""


def box(locator: Any) -> dict[str, float]:
    """The element's box in the page (not the viewport: Playwright scrolls to tap), found
    and measured in one step, once it is shown: the board is drawn again at each frame,
    and a box asked for while that happens is none at all."""
    for _ in range(20):
        locator.wait_for(state="visible")
        found: dict[str, float] = locator.evaluate(
            """e => { const r = e.getBoundingClientRect();
                return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; }"""
        )
        if found["width"] and found["height"]:
            return found
    raise AssertionError(f"{locator} has no box")


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


# ---- item 4: the score sheet and the move clock ---------------------------------------------


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_the_score_sheet_covers_the_table_only_between_smazzate(pages: Any, kind: str) -> None:
    page = pages(**viewport(kind))
    guest(page)
    table = two_smazzate(page)
    open_table(page, table)
    page.evaluate(WATCH_SHEET)
    play_out_first_smazzata(page, table)
    # smazzata 2 is dealt after the pause; the guest leads it, its clock running
    wait_my_turn(page)
    log = page.evaluate("() => window.sheetLog")
    # the sheet covered the table during the pause (the smazzata over, nobody to move) ...
    assert any(e["open"] and not e["docked"] for e in log), log
    # ... and never while the guest could move
    assert not any(e["open"] and not e["docked"] and e["myTurn"] for e in log), log
    sheet = page.locator(".sheet-layer .scoresheet")
    expect(sheet).to_be_visible()
    expect(page.locator(".sheet-layer")).to_have_class(re.compile("docked"))
    # docked beside the board (below it on a phone): the cards stay free to play
    assert not overlap(box(sheet), box(page.locator(".board")))
    play_by_clicks(page, "4Sx4D7C")
    played(page, table, "4Sx4D7C")
    sheet.locator(".close-sheet").click()
    expect(page.locator(".sheet-layer")).to_be_hidden()
    # the head's button still opens it over the table, by the player's choice
    page.locator(".table-actions .open-sheet").click()
    expect(sheet).to_be_visible()
    expect(page.locator(".sheet-layer")).not_to_have_class(re.compile("docked"))


# ---- item 5: nothing covers the cards ----------------------------------------------------------


def scopa_table(page: Any) -> str:
    deck = stacked(2, 1, SCOPA_HANDS, SCOPA_TABLE)
    config = {"players": 2, "bots": {"1": "facile"}, "options": {"hands": 1}}
    return create(page, config, decks=[deck], dealer=1)


COVERED = """() => {
    const shown = (e) =>
        e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const banners = [...document.querySelectorAll('.announce .banner')].filter(shown);
    const targets = [...document.querySelectorAll(
        '.felt, .hand-area, .table-card, .hand-card, .table-head')].filter(shown);
    const overlaps = [];
    for (const b of banners) {
        const r = b.getBoundingClientRect();
        for (const t of targets) {
            const q = t.getBoundingClientRect();
            if (r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom)
                overlaps.push([b.textContent, t.className]);
        }
    }
    return {banners: banners.length, overlaps};
}"""


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_banners_do_not_cover_the_table_or_the_hand(pages: Any, kind: str) -> None:
    page = pages(**viewport(kind))
    guest(page)
    table = scopa_table(page)
    open_table(page, table)
    wait_my_turn(page)  # the cirulla is declared for the guest: its banner shows
    banners = page.locator(".announce .banner")
    expect(banners.first).to_be_visible()
    expect(page.locator(".announce")).to_contain_text("cirulla")

    def nothing_covered() -> None:
        # read at one instant, in the page: the shown banners against what they must
        # not cover (the table, the hand, and the head where the running score is)
        found = page.evaluate(COVERED)
        assert found["banners"], found
        assert not found["overlaps"], found

    nothing_covered()
    before = box(page.locator(".board"))
    play_by_clicks(page, SCOPA_MOVE)
    played(page, table, SCOPA_MOVE)
    expect(page.locator(".announce")).to_contain_text("Scopa")
    nothing_covered()
    # the band is reserved: a banner never moves the board under the player's finger
    assert abs(box(page.locator(".board"))["y"] - before["y"]) < 1
    for b in banners.all():
        assert b.evaluate("e => getComputedStyle(e.parentElement).pointerEvents") == "none"


WATCH_FLIGHTS_OVER_SHEET = """() => {
    window.flightsOverSheet = 0;
    window.flights = 0;
    new MutationObserver((records) => {
        const layer = document.querySelector('.sheet-layer');
        const covering = layer && !layer.hidden && !layer.classList.contains('docked');
        for (const r of records) for (const n of r.addedNodes)
            if (n.classList && n.classList.contains('flying')) {
                window.flights += 1;
                if (covering) window.flightsOverSheet += 1;
            }
    }).observe(document.body, {childList: true, subtree: true});
}"""


def test_no_card_flies_over_the_open_score_sheet(pages: Any) -> None:
    page = pages(reduced_motion="no-preference")
    guest(page)
    table = two_smazzate(page)
    open_table(page, table)
    page.evaluate(WATCH_FLIGHTS_OVER_SHEET)
    # the smazzata's captures fly; its last move comes with the sheet, and does not
    play_out_first_smazzata(page, table)
    wait_my_turn(page)
    assert page.evaluate("() => window.flights") > 0
    layer = page.locator(".sheet-layer")
    if layer.is_visible():  # the sheet of smazzata 1, docked
        layer.locator(".close-sheet").click()
        expect(layer).to_be_hidden()
    page.locator(".table-actions .open-sheet").click()
    expect(layer).to_be_visible()
    expect(layer).not_to_have_class(re.compile("docked"))
    # a capture made while the sheet is open (by the page, as a click would)
    page.evaluate(
        "id => window.cirulla.conn.tableCommand(id, {type: 'play', move: '4Sx4D7C'})", table
    )
    played(page, table, "4Sx4D7C")
    page.wait_for_function(
        "id => { const v = window.cirulla.conn.view(id); return v.deal.to_move === v.you; }",
        arg=table,
    )  # and the bot's answer
    assert page.evaluate("() => window.flightsOverSheet") == 0
    expect(page.locator(".fly-layer .flying")).to_have_count(0)


# ---- item 6: the running score in the head ------------------------------------------------------


def head_now(page: Any, chip: str) -> str:
    """Side 0's `chip` in the header as the page shows it this instant ("" if absent): the
    client draws the header in the same render as the view, so no wait is needed."""
    text: str = page.evaluate(
        "sel => { const el = document.querySelector(sel); return el ? el.textContent : ''; }",
        f".table-totals dd[data-side='0'] {chip}",
    )
    return text


def test_the_head_shows_scope_and_accusi_at_once(pages: Any) -> None:
    page = pages()
    guest(page)
    table = scopa_table(page)
    open_table(page, table)
    wait_my_turn(page)
    mine = page.locator(".table-totals dd[data-side='0']")
    # the cirulla declared for the guest: 3 points of accusi, before any card is played
    # (the server's declaration may come in a frame after the one that gives the turn)
    expect(mine.locator(".now-bonus")).to_contain_text("3")
    expect(mine.locator(".now-bonus")).to_contain_text("accusi")
    expect(mine.locator(".now-scope")).to_have_count(0)
    play_by_clicks(page, SCOPA_MOVE)
    played(page, table, SCOPA_MOVE)
    # at once: the view that brings the move brings the head (read now, not waited for)
    assert "1" in head_now(page, ".now-scope")
    expect(mine.locator(".now-bonus")).to_contain_text("3")
    expect(mine).to_have_attribute("data-scope", "1")
    expect(mine).to_have_attribute("data-bonus", "3")
    expect(mine.locator(".partita-total")).to_have_text("0")  # the partita's total
    expect(page.locator(".table-totals dd[data-side='1'] .now-points")).to_have_count(0)


# ---- item 7: the last capture and the previous mano ---------------------------------------------


def test_the_last_capture_is_marked_and_the_previous_mano_shown(pages: Any) -> None:
    page = pages(locale="en-US")
    guest(page)
    table = two_smazzate(page)
    open_table(page, table)
    # smazzata 1: the bot leads, and must take (every card of its hand can): its pile
    moves = wait_my_turn(page)
    panel = page.locator(".last-panel")
    previous = panel.locator("button.previous-mano")
    expect(page.locator(".pile[data-side='1'].last-capture")).to_have_count(1)
    expect(panel.locator(".last-capture-cards")).to_have_attribute("data-seat", "1")
    expect(previous).to_be_disabled()  # no mano finished yet
    # whatever the bot took, the guest has a capture left (4S or KD)
    move = next(m for m in moves if "x" in m)
    play_by_clicks(page, move)
    played(page, table, move)
    wait_my_turn(page)  # the bot has answered: nothing changes until the guest moves
    taken = page.locator(".last-capture-cards")
    seat = int(taken.get_attribute("data-seat") or "0")
    shown = taken.locator(".card").evaluate_all("els => els.map(e => e.dataset.code)")
    view = page.evaluate("id => window.cirulla.conn.view(id)", table)
    # the guest's capture, or the bot's answer if it took cards after it
    last = [e for e in view["deal"]["history"] if e["type"] == "play" and e["captured"]][-1]
    assert seat == last["seat"]
    assert shown == [last["card"], *last["captured"]]
    expect(page.locator(f".pile[data-side='{seat}'].last-capture")).to_have_count(1)
    expect(page.locator(".pile.last-capture")).to_have_count(1)
    # the first mano is over (the bot's card and the guest's): it can be looked at
    expect(previous).to_be_enabled()
    previous.click()
    dialog = page.locator("dialog.mano-dialog")
    expect(dialog).to_be_visible()
    plays = [e for e in view["deal"]["history"] if e["type"] == "play"][:2]
    rows = dialog.locator(".mano-play")
    expect(rows).to_have_count(2)
    for row, e in zip(rows.all(), plays, strict=True):
        assert row.get_attribute("data-seat") == str(e["seat"])
        codes = row.locator(".card").evaluate_all("els => els.map(e => e.dataset.code)")
        assert codes == [e["card"], *e["captured"]]
    expect(rows.nth(1)).to_contain_text("captures")
    dialog.locator("button[data-choice='cancel']").click()
    expect(dialog).to_have_count(0)


STALE_JOIN = """async (id) => {
    // a join sent while the page watches the table already, asking from one version
    // back: the server replays the last event, which the page holds (as when the page's
    // own join crosses an event on its way)
    const conn = window.cirulla.conn;
    const held = conn.tables.get(id).version;
    const answer = await conn.send({type: 'join', table: id, since: held - 1, invite: null});
    return {answer: answer.type, held, now: conn.tables.get(id).version};
}"""


def test_an_event_replayed_to_the_page_is_not_applied_twice(pages: Any) -> None:
    """Item 7's previous mano was once offered before any mano ended: a play the page
    held came again and went into the history twice (two plays of two players make a
    mano). The replay comes before the join's answer, so it has been handled by then."""
    page = pages(locale="en-US")
    guest(page)
    table = two_smazzate(page)
    open_table(page, table)
    wait_my_turn(page)  # the bot has led: one play in the history
    previous = page.locator(".last-panel button.previous-mano")
    expect(previous).to_be_disabled()
    before = page.evaluate("id => window.cirulla.conn.view(id)", table)
    result = page.evaluate(STALE_JOIN, table)
    assert result == {"answer": "ack", "held": before["version"], "now": before["version"]}
    after = page.evaluate("id => window.cirulla.conn.view(id)", table)
    plays = [e for e in after["deal"]["history"] if e["type"] == "play"]
    assert len(plays) == 1, plays
    assert after["deal"]["history"] == before["deal"]["history"]
    # and the events after it are applied, each once
    move = next(m for m in wait_my_turn(page) if "x" in m)
    play_by_clicks(page, move)
    played(page, table, move)
    view = page.evaluate("id => window.cirulla.conn.view(id)", table)
    moves = [e["move"] for e in view["deal"]["history"] if e["type"] == "play"]
    # the bot's lead, the guest's move, and perhaps the bot's answer already: each once
    assert moves[1] == move and len(moves) in (2, 3) and len(set(moves)) == len(moves), moves
