"""The coach in a real browser (issue 16): the hint button at a practice table lights the
coach's best move, and the replay page analyses the partita in one click, marks every
move, draws the better move on the board and a graph of the expected score."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browserutil import expect, guest, page_opener, screenshot
from serverutil import Player, Server, running_server
from test_server_play import play_until
from test_web_table import create, open_table, stacked, wait_my_turn

# The guest (seat 0) moves first: 2C takes the whole table by 15 (2+7+1+2+3), a scopa
# with the settebello, far above anything else in hand.
HANDS = [["2C", "KS", "QH"], ["4C", "5S", "6H"]]
TABLE = ["7D", "AC", "2H", "3S"]
SWEEP = "2Cx7D2HAC3S"

PLAY_OUT = """async (id) => {
    // the guest's first legal moves until the partita is over, sent as the page sends them
    const conn = window.cirulla.conn;
    const until = Date.now() + 120000;
    while (Date.now() < until) {
        const v = conn.view(id);
        const d = v && v.deal;
        if (v && v.status !== 'playing') return true;
        const mine = d && !d.is_over && d.to_move === v.you && d.legal_moves;
        const plays = mine ? d.legal_moves.filter(m => !m.startsWith('!')) : [];
        const moves = plays.length ? plays : (mine ? d.legal_moves : []);
        if (moves.length) await conn.tableCommand(id, {type: 'play', move: moves[0]});
        else await new Promise(r => setTimeout(r, 30));
    }
    return false;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("web-coach"), login_attempts=100_000) as s:
        yield s


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, server.base_url) as open_page:
        yield open_page


def practice_table(page: Any) -> str:
    deck = stacked(2, 1, HANDS, TABLE)
    config = {"players": 2, "bots": {"1": "facile"}, "options": {"hands": 1}}
    return create(page, config, decks=[deck], dealer=1)


@pytest.fixture(scope="module")
def hinted(browser: Any, server: Server) -> Iterator[dict[str, Any]]:
    """A practice partita in which the guest asked for a hint, saw it drawn, played it,
    and played the rest out: the page left on its table."""
    with page_opener(browser, server.base_url) as open_page:
        page = open_page()
        guest(page)
        table = practice_table(page)
        open_table(page, table)
        moves = wait_my_turn(page)
        assert SWEEP in moves
        button = page.locator(".turn-bar .coach-hint")
        expect(button).to_have_text("Suggerimento")
        button.click()
        board = page.locator(".board[data-coach-best]")
        expect(board).to_have_attribute("data-coach-best", SWEEP, timeout=30_000)
        lit_card = page.eval_on_selector_all(
            ".hand-card.coach-best", "e => e.map(x => x.dataset.code)"
        )
        lit_table = page.eval_on_selector_all(
            ".table-card.coach-best-take", "e => e.map(x => x.dataset.code)"
        )
        hint_text = page.locator(".play-hint").inner_text()
        screenshot(page, "coach-hint")
        page.locator(".hand-card[data-code='2C']").click()
        played = "id => window.cirulla.conn.view(id).deal.history.some(e => e.type === 'play')"
        # only the sweep holds the 7D: picking it plays the sweep (U1)
        page.locator(".table-card[data-code='7D']").click()
        page.wait_for_function(played, arg=table)
        expect(page.locator(".card.coach-best")).to_have_count(0)  # the position moved on
        assert page.evaluate(PLAY_OUT, table)
        expect(page.locator(".end-panel")).to_be_visible()
        yield {
            "table": table,
            "lit_card": lit_card,
            "lit_table": lit_table,
            "hint_text": hint_text,
            "page": page,
        }


def test_the_hint_lights_the_coachs_best_move_on_the_board(hinted: dict[str, Any]) -> None:
    assert hinted["lit_card"] == ["2C"]
    assert sorted(hinted["lit_table"]) == sorted(TABLE)
    assert hinted["hint_text"].startswith("Il coach suggerisce: 2 di fiori prende")
    record = hinted["page"].request.get(f"/api/records/{hinted['table']}").json()
    assert record["coach"]["hints"] == [{"seat": 0, "count": 1}]
    first = record["game"]["deals"][0]["moves"][0]
    assert first == SWEEP


def test_no_hint_button_at_a_table_with_another_person(pages: Any, server: Server) -> None:
    anna = pages()
    guest(anna)
    table = create(anna, {"players": 2, "options": {"hands": 1}})
    bruno = Player(server).guest().connect()
    assert bruno.join(table)["type"] == "ack"
    assert bruno.sit(table)["type"] == "ack"
    seat = bruno.views[table]["you"]
    open_table(anna, table)
    # bruno moves when it is his turn, until it is anna's
    play_until(table, {seat: bruno}, stop=lambda v: v["deal"]["to_move"] != seat)
    wait_my_turn(anna)
    expect(anna.locator(".turn-bar .coach-hint")).to_have_count(0)
    assert anna.request.post(f"/api/tables/{table}/hint").status == 403
    bruno.close()


def test_the_replay_analyses_in_one_click_and_marks_every_move(
    hinted: dict[str, Any], pages: Any
) -> None:
    page, table = hinted["page"], hinted["table"]
    # someone else sees the replay but no button: only the players may start it
    other = pages()
    guest(other)
    other.goto(f"/replay/{table}")
    other.wait_for_selector(".replay-page .board")
    expect(other.locator(".coach-hints-used")).to_contain_text("1 suggerimento")
    expect(other.locator(".coach-analyse")).to_have_count(0)

    page.goto("/history")
    item = page.locator(f".history-item[data-table='{table}']")
    expect(item.locator(".history-hints")).to_have_text("Con i suggerimenti del coach")
    page.goto(f"/replay/{table}")
    page.wait_for_selector(".replay-page .board")
    expect(page.locator(".coach-hints-used")).to_contain_text(
        re.compile(r"ha chiesto 1 suggerimento al coach")
    )
    button = page.locator(".coach-panel .coach-analyse")
    expect(button).to_have_text("Analizza la partita")
    button.click()
    expect(page.locator(".coach-panel.coach-done")).to_be_visible(timeout=240_000)
    expect(page.locator(".coach-summary tbody tr")).to_have_count(2)
    expect(page.locator("svg.coach-graph polyline")).to_have_count(2)

    analysis = page.request.get(f"/api/history/{table}/analysis").json()["analysis"]
    moves = analysis["moves"]
    # position 1 is after the first move (the hinted sweep): marked good
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    expect(page.locator(".replay-what .coach-mark")).to_have_text("buona")
    # every move shows its mark: step through every position (a position that starts a
    # smazzata has none) and read the marks in order
    slider = page.locator(".replay-slider")
    last = int(slider.get_attribute("max") or 0)
    page.keyboard.press("Home")
    expect(slider).to_have_value("0")
    shown = []
    for pos in range(last + 1):
        if pos:
            page.locator(".replay-controls .next").click()
            expect(slider).to_have_value(str(pos))
        mark = page.locator(".replay-what .coach-mark")
        if mark.count():
            classes = (mark.get_attribute("class") or "").split()
            shown.append(next(c for c in classes if c.startswith("mark-")))
    ordered = sorted(moves, key=lambda m: (m["deal"], m["index"]))
    assert shown == [f"mark-{'forced' if m['forced'] else m['class']}" for m in ordered]
    # before a move that lost points, the better one is drawn on the board
    worse = next(
        (m for m in moves if m["loss"] > 0 and m["best"] != m["played"] and m["best"][0] != "!"),
        None,
    )
    assert worse is not None, "a partita of first legal moves has a move worth improving"
    page.keyboard.press("Home")
    for _ in range(worse["index"]):
        page.keyboard.press("ArrowRight")
    board = page.locator(".replay-page .board")
    expect(board).to_have_attribute("data-coach-best", worse["best"])
    best_card = worse["best"].split("x")[0]
    expect(page.locator(f".replay-page .card.coach-best[data-code='{best_card}']")).to_have_count(1)
    expect(page.locator(".coach-next .coach-better")).to_contain_text("Meglio:")
    screenshot(page, "coach-replay")
    # the graph's dots lead to the positions of mistakes and blunders
    dots = page.locator("svg.coach-graph circle.coach-dot")
    if dots.count():
        dots.first.click()
        expect(board).to_have_attribute("data-coach-best", re.compile(r"."))

    english = pages(locale="en-GB")
    english.request.post("/api/guest")
    english.goto(f"/replay/{table}")
    expect(english.locator(".coach-panel h2")).to_have_text("The coach's analysis")
