"""The table page and the replay viewer in a real browser against a real `cirulla serve`.

Every test goes through the app's own routes (/table/:id, /replay/:id): a guest from
the browser's own session, tables made over the API (stacked decks through the test
mode's POST /api/test/tables), then only clicks, drags and keys on the page. The
moves a test makes are chosen from the legal moves the page shows (the board's
data-legal and the cards' data-code), never sent around the page.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browserutil import PHONE, expect, guest, page_opener, screenshot
from conftest import stack
from serverutil import Server, running_server

import cirulla
from cirulla.scoring import ITEMS


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(
        tmp_path_factory.mktemp("web-table"),
        bot_delay=0.15,
        deal_pause=0.6,
        login_attempts=100_000,
    ) as s:
        yield s


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, server.base_url) as open_page:
        yield open_page


# ---- helpers ------------------------------------------------------------------------------


def create(page: Any, config: dict[str, Any], **extra: Any) -> str:
    path = "/api/test/tables" if extra else "/api/tables"
    r = page.request.post(path, data={"config": config, "seat": 0, **extra})
    assert r.status == 201, r.text()
    table: str = r.json()["table"]["id"]
    return table


def open_table(page: Any, table: str) -> None:
    page.goto(f"/table/{table}")
    page.wait_for_selector(".board, .seat-list")


def stacked(
    players: int, dealer: int, hands: list[list[str]], table: list[str], **rules: Any
) -> list[str]:
    """A deck dealing `hands` and `table`, checked with the engine itself."""
    deck = [str(c) for c in stack(players=players, dealer=dealer, hands=hands, table=table)]
    deal = cirulla.Deal(
        cirulla.Rules.preset("cirulla").replace(**rules), players, dealer, deck=deck
    )
    for seat, hand in enumerate(hands):
        assert sorted(str(c) for c in deal.hand(seat)) == sorted(hand)
    dealt = next(e for e in deal.events_from(0) if e["type"] == "deal")
    assert sorted(dealt["table"]) == sorted(table)  # (a dealer's bonus takes them at once)
    return deck


def stacked_table(
    page: Any, hands: list[list[str]], table: list[str], options: dict[str, Any] | None = None
) -> str:
    """Two players, the guest in seat 0 playing first against a bot in seat 1."""
    options = {"hands": 1, **(options or {})}
    rule_options = {k: v for k, v in options.items() if k != "hands"}
    deck = stacked(2, 1, hands, table, **rule_options)
    config = {"players": 2, "bots": {"1": "facile"}, "options": options}
    return create(page, config, decks=[deck], dealer=1)


def legal(page: Any) -> list[str]:
    """The legal moves the page shows for the seat to move (empty when not our turn)."""
    board = page.locator(".board")
    value = board.get_attribute("data-legal")
    return value.split() if value else []


def wait_my_turn(page: Any, timeout: float = 30) -> list[str]:
    page.wait_for_selector(".board[data-legal]", timeout=timeout * 1000)
    return legal(page)


def table_cards(page: Any) -> list[str]:
    return page.eval_on_selector_all(".table-card", "els => els.map(e => e.dataset.code)")


def hand_cards(page: Any) -> list[str]:
    return page.eval_on_selector_all(".hand-card", "els => els.map(e => e.dataset.code)")


PLAYED = """([id, move]) => {
    const v = window.cirulla.conn.view(id);
    return v && v.deal && v.deal.history.some((e) => e.type === "play" && e.move === move);
}"""

# What the page showed, for a failure's message.
PAGE_STATE = """(id) => {
    const v = window.cirulla.conn.view(id);
    const text = (sel) => [...document.querySelectorAll(sel)].map((e) => e.textContent);
    const board = document.querySelector(".board");
    return {
        version: v && v.version,
        to_move: v && v.deal && v.deal.to_move,
        you: v && v.you,
        last: v && v.deal ? v.deal.history.slice(-4) : null,
        toasts: text(".table-toast"),
        hint: text(".play-hint"),
        board: board && board.className,
        legal: board && board.dataset.legal,
        selected: text(".hand-card.selected"),
        layers: text(".sheet-layer:not([hidden]) h2"),
    };
}"""


def played(page: Any, table: str, move: str, timeout: float = 15) -> dict[str, Any]:
    """Wait until the server's view shows `move` in the smazzata's history; the view.
    If it does not come, the failure says what the page showed (its toasts, hint and
    board, the view's version and last moves): a timeout alone tells nothing."""
    try:
        page.wait_for_function(PLAYED, arg=[table, move], timeout=timeout * 1000)
    except Exception as exc:  # Playwright's TimeoutError (imported only where installed)
        if type(exc).__name__ != "TimeoutError":
            raise
        seen = page.evaluate(PAGE_STATE, table)
        raise AssertionError(f"{move} not played within {timeout} s; the page: {seen}") from None
    view: dict[str, Any] = page.evaluate("id => window.cirulla.conn.view(id)", table)
    return view


def card(page: Any, zone: str, code: str) -> Any:
    return page.locator(f".{zone}-card[data-code='{code}']")


def is_touch(page: Any) -> bool:
    return bool(page.evaluate("() => navigator.maxTouchPoints > 0"))


def press(locator: Any) -> None:
    """A click with the mouse, or a tap on a touch screen."""
    if is_touch(locator.page):
        locator.tap()
    else:
        locator.click()


PRESSED = """(code) => {
    const hand = document.querySelector(`.hand-card[data-code='${code}']`);
    const board = document.querySelector(".board");
    return !hand || hand.classList.contains("selected") || !!board?.classList.contains("sending");
}"""


def play_by_clicks(page: Any, move: str) -> None:
    """Make a legal move the way a player does: U1 clicks, or U2's copy for no capture."""
    parsed = cirulla.parse_move(move)
    assert parsed.card is not None
    code = str(parsed.card)
    press(card(page, "hand", code))
    if not parsed.captured:
        press(page.locator(".ghost-card"))
        return
    # The page may take the click a moment later (a card still flying): wait until it
    # shows the card selected, or the move on its way or made, before reading which.
    page.wait_for_function(PRESSED, arg=code)
    selected = page.locator(f".board:not(.sending) .hand-card.selected[data-code='{code}']")
    # a click on a table card while another card lands there can be lost to the redraw
    settle(page)
    for taken in parsed.captured:
        if not selected.count():
            return  # the selection was complete: the move is on its way (or made)
        press(card(page, "table", str(taken)))
    confirm = page.locator(".confirm-capture")
    if confirm.count() and confirm.is_visible():
        press(confirm)


def settle(page: Any) -> None:
    """Wait until no card is flying: a screenshot or a click must not race a redraw."""
    page.wait_for_function("() => !document.querySelector('.fly-layer .flying')")


def shoot(page: Any, name: str) -> Path:
    settle(page)
    return screenshot(page, name)


def center(locator: Any) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag_to(page: Any, source: Any, target: Any, release: bool = True) -> None:
    sx, sy = center(source)
    tx, ty = center(target)
    page.mouse.move(sx, sy)
    page.mouse.down()
    for i in range(1, 11):
        page.mouse.move(sx + (tx - sx) * i / 10, sy + (ty - sy) * i / 10)
    if release:
        page.mouse.up()


# ---- a whole smazzata against bots ----------------------------------------------------------


def play_turn(page: Any, table: str) -> str:
    """Wait for our turn and make a legal move by clicks (a capture when there is one)."""
    moves = [m for m in wait_my_turn(page) if not m.startswith("!")]
    move = max(moves, key=len)  # a capture exercises U1 (and Conferma presa)
    play_by_clicks(page, move)
    played(page, table, move)
    # the page shows the server's view after the move: the card has left the hand
    code = str(cirulla.parse_move(move).card)
    expect(card(page, "hand", code)).to_have_count(0)
    return move


def test_guest_plays_a_whole_smazzata_against_three_bots(pages: Any) -> None:
    page = pages()
    guest(page)
    config = {
        "players": 4,
        "bots": {"1": "facile", "2": "facile", "3": "facile"},
        # the second smazzata is played: no cappotto (S8) may end the partita first
        "options": {"hands": 2, "cappotto_scores_only": True},
    }
    table = create(page, config)
    open_table(page, table)
    expect(page.locator(".seat")).to_have_count(4)
    expect(page.locator(".seat.place-bottom .chip.you")).to_be_visible()
    # the partner sits opposite, the next player on the right (anticlockwise)
    expect(page.locator(".seat[data-seat='2']")).to_have_class(re.compile("place-top"))
    expect(page.locator(".seat[data-seat='1']")).to_have_class(re.compile("place-right"))
    wait_my_turn(page)
    shoot(page, "table-desktop")
    for _ in range(9):  # three stages of three cards
        play_turn(page, table)
    # the score sheet of the smazzata: every item per side, the totals and the chart
    sheet = page.locator(".sheet-layer .scoresheet")
    expect(sheet).to_be_visible(timeout=15_000)  # after the bots' last moves
    for item in ITEMS:
        expect(sheet.locator(f"tr[data-item='{item}'] td")).to_have_count(2)
    expect(sheet.locator("svg.totals-chart polyline")).to_have_count(2)
    view = page.evaluate("id => window.cirulla.conn.view(id)", table)
    score = view["scores"][0]["sides"]
    shown = [int(x) for x in sheet.locator("tr[data-item='total'] td").all_inner_texts()]
    assert shown == [score[0]["total"], score[1]["total"]]
    shoot(page, "scoresheet-desktop")
    sheet.locator(".close-sheet").click()
    expect(page.locator(".sheet-layer")).to_be_hidden()
    # the second smazzata: abandon it (with a confirmation), which ends the partita (E6)
    wait_my_turn(page)
    page.locator(".table-actions .abandon").click()
    dialog = page.locator("dialog.table-dialog")
    expect(dialog).to_be_visible()
    dialog.locator("button[data-choice='cancel']").click()
    expect(dialog).to_have_count(0)
    assert page.evaluate("id => window.cirulla.conn.view(id).status", table) == "playing"
    page.locator(".table-actions .abandon").click()
    page.locator("dialog.table-dialog button[data-choice='ok']").click()
    expect(page.locator(".end-panel")).to_be_visible()
    expect(page.locator(".end-panel .end-forfeit")).to_contain_text("abbandono")
    view = page.evaluate("id => window.cirulla.conn.view(id)", table)
    assert view["status"] == "finished" and view["result"]["winner"] == 1
    totals = page.locator(".end-panel .final-totals").inner_text()
    assert str(view["totals"][0]) in totals and str(view["totals"][1]) in totals
    # the replay of the partita just played: step through it, every hand open
    page.locator(".end-panel .replay-link").click()
    page.wait_for_url(f"**/replay/{table}")
    page.wait_for_selector(".replay-page .board")
    expect(page.locator(".replay-page .hand-area .card")).to_have_count(3)
    for s in (1, 2, 3):  # every hand is open
        seat = page.locator(f".replay-page .seat[data-seat='{s}']")
        expect(seat.locator(".hand-open .card")).to_have_count(3)
    where = page.locator(".replay-where")
    expect(where).to_contain_text(re.compile(r"^\D*1\D"))
    page.locator(".replay-controls .next").click()
    expect(where).to_contain_text(re.compile(r"^\D*2\D"))
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(where).to_contain_text(re.compile(r"^\D*4\D"))
    page.keyboard.press("ArrowLeft")
    expect(where).to_contain_text(re.compile(r"^\D*3\D"))
    expect(page.locator(".replay-page .last-move")).not_to_be_empty()
    page.keyboard.press("End")
    expect(page.locator(".replay-page .end-panel")).to_be_visible()


# ---- U1: select card by card ------------------------------------------------------------------

U1_HANDS = [["4S", "QC", "KD"], ["5H", "6D", "JH"]]
U1_TABLE = ["4D", "7C", "2S", "KH"]
# the bot's hand when a test looks at the table after our move: none of these
# cards can take the 7C (no 7, 9 = 7+2, J = 15-7, 6 = 15-7-2, ace), so it stays
U1_HANDS_7C_STAYS = [U1_HANDS[0], ["5H", "3D", "KC"]]


def test_u1_conferma_presa_then_extend_to_the_bigger_capture(pages: Any) -> None:
    page = pages()
    guest(page)
    table = stacked_table(page, U1_HANDS, U1_TABLE)
    open_table(page, table)
    moves = wait_my_turn(page)
    assert "4Sx4D" in moves and "4Sx4D7C" in moves
    # ARIA labels name the cards in the chosen language (Italian, French deck)
    assert card(page, "hand", "4S").get_attribute("aria-label") == "4 di picche"
    card(page, "hand", "4S").click()
    expect(card(page, "hand", "4S")).to_have_class(re.compile("selected"))
    confirm = page.locator(".confirm-capture")
    expect(confirm).to_be_hidden()
    card(page, "table", "4D").click()
    expect(confirm).to_be_visible()  # 4 alone is a capture, 4+7 a bigger one
    expect(confirm).to_have_text("Conferma presa")
    card(page, "table", "7C").click()  # 4+4+7 = 15: nothing extends it, it is taken
    view = played(page, table, "4Sx4D7C")
    assert view["deal"]["hands"][0]["count"] == 2
    page.wait_for_function("() => !document.querySelector(\".table-card[data-code='7C']\")")
    assert "4D" not in table_cards(page) and "7C" not in table_cards(page)
    assert sorted(hand_cards(page)) == ["KD", "QC"]


def test_u1_conferma_presa_takes_the_smaller_capture(pages: Any) -> None:
    page = pages()
    guest(page)
    table = stacked_table(page, U1_HANDS_7C_STAYS, U1_TABLE)
    open_table(page, table)
    wait_my_turn(page)
    card(page, "hand", "4S").click()
    card(page, "table", "4D").click()
    page.locator(".confirm-capture").click()
    played(page, table, "4Sx4D")
    page.wait_for_function("() => !document.querySelector(\".table-card[data-code='4D']\")")
    assert "7C" in table_cards(page)


def test_u1_by_keyboard(pages: Any) -> None:
    page = pages()
    guest(page)
    table = stacked_table(page, U1_HANDS, U1_TABLE)
    open_table(page, table)
    wait_my_turn(page)
    # a card that fits no capture is refused with a message, the selection stays
    card(page, "hand", "QC").focus()
    page.keyboard.press("Enter")
    card(page, "table", "KH").focus()
    page.keyboard.press("Enter")
    expect(page.locator(".play-hint")).to_have_attribute("data-kind", "error")
    expect(card(page, "table", "KH")).not_to_have_class(re.compile("picked"))
    page.keyboard.press("Escape")
    expect(card(page, "hand", "QC")).not_to_have_class(re.compile("selected"))
    # Tab reaches the cards; Enter selects; "c" confirms
    card(page, "hand", "4S").focus()
    page.keyboard.press("Enter")
    expect(card(page, "hand", "4S")).to_have_attribute("aria-pressed", "true")
    card(page, "table", "4D").focus()
    page.keyboard.press(" ")
    expect(page.locator(".confirm-capture")).to_be_visible()
    page.keyboard.press("c")
    played(page, table, "4Sx4D")


# ---- U2 and U4: the copy of a card that captures nothing, the double-click --------------------

U2_HANDS = [["JC", "5S", "4H"], ["2C", "6D", "JH"]]
U2_TABLE = ["3D", "6C", "QS", "KH"]


def test_u2_the_copy_on_the_table_plays_the_card(pages: Any) -> None:
    page = pages()
    guest(page)
    table = stacked_table(page, U2_HANDS, U2_TABLE)
    open_table(page, table)
    moves = wait_my_turn(page)
    assert "JC" in moves and not any(m.startswith("JCx") for m in moves)
    card(page, "hand", "JC").click()
    ghost = page.locator(".ghost-slot .ghost-card")
    expect(ghost).to_be_visible()
    opacity = float(ghost.evaluate("e => getComputedStyle(e).opacity"))
    assert 0.2 < opacity < 0.9  # semi-transparent
    # another card that captures: the copy goes away
    card(page, "hand", "5S").click()
    expect(ghost).to_have_count(0)
    card(page, "hand", "JC").click()
    page.locator(".ghost-card").click()
    view = played(page, table, "JC")
    assert "JC" in [c["card"] for c in view["deal"]["table"]] or view["deal"]["to_move"] is not None
    assert "JC" not in hand_cards(page)


def test_u4_double_click_refused_when_the_card_can_capture(pages: Any) -> None:
    page = pages()
    guest(page)
    table = stacked_table(page, U2_HANDS, U2_TABLE)
    open_table(page, table)
    wait_my_turn(page)
    version = page.evaluate("id => window.cirulla.conn.version(id)", table)
    card(page, "hand", "5S").dblclick()
    hint = page.locator(".play-hint")
    expect(hint).to_have_attribute("data-kind", "error")
    expect(hint).to_contain_text("5 di picche")
    expect(hint).to_contain_text("deve prendere")
    time.sleep(0.3)
    assert page.evaluate("id => window.cirulla.conn.version(id)", table) == version
    assert "5S" in hand_cards(page)
    # a card that captures nothing is played at once
    card(page, "hand", "4H").dblclick()
    played(page, table, "4H")


# ---- U3: dragging ------------------------------------------------------------------------------


def capture(moves: list[str], played_card: str, taken: set[str]) -> str:
    """The legal move playing `played_card` and taking exactly `taken` (any order)."""
    for m in moves:
        parsed = cirulla.parse_move(m)
        if str(parsed.card) == played_card and {str(c) for c in parsed.captured} == taken:
            return m
    raise AssertionError(f"no legal move {played_card}x{taken} in {moves}")


def test_u3_drag_highlights_the_only_capture(pages: Any) -> None:
    page = pages()
    guest(page)
    table = stacked_table(page, [["KC", "QD", "JD"], ["2C", "6D", "JH"]], ["5D", "5C", "3S", "QS"])
    open_table(page, table)
    moves = wait_my_turn(page)
    assert [m for m in moves if m.startswith("QD")] == ["QDxQS"]
    # over the felt, away from the cards: the only capture is highlighted
    felt = page.locator(".felt")
    box = felt.bounding_box()
    assert box is not None
    source = card(page, "hand", "QD")
    sx, sy = center(source)
    page.mouse.move(sx, sy)
    page.mouse.down()
    for i in range(1, 11):
        x = box["x"] + 30
        y = box["y"] + box["height"] - 20
        page.mouse.move(sx + (x - sx) * i / 10, sy + (y - sy) * i / 10)
    expect(card(page, "table", "QS")).to_have_class(re.compile("drop-capture"))
    expect(page.locator(".drop-capture")).to_have_count(1)
    expect(page.locator(".drag-avatar")).to_be_visible()
    page.mouse.up()
    played(page, table, "QDxQS")
    expect(page.locator(".drag-avatar")).to_have_count(0)


def test_u3_hovering_a_card_leaves_one_capture(pages: Any) -> None:
    page = pages()
    guest(page)
    # 6H over 4D 7C 2S KH: 6+4+2... no; captures are 6Hx4D2S (sum 6) and 6Hx7C2S (6+7+2)
    table = stacked_table(page, [["6H", "JS", "QC"], ["5H", "6D", "JH"]], ["4D", "7C", "2S", "KH"])
    open_table(page, table)
    moves = wait_my_turn(page)
    sixes = sorted(m for m in moves if m.startswith("6H"))
    assert len(sixes) == 2, sixes
    # over the 2 both captures are left: nothing; over the 7 only 6+7+2 is left
    drag_to(page, card(page, "hand", "6H"), card(page, "table", "2S"), release=False)
    expect(page.locator(".drop-capture")).to_have_count(0)
    tx, ty = center(card(page, "table", "7C"))
    page.mouse.move(tx, ty, steps=4)
    expect(card(page, "table", "7C")).to_have_class(re.compile("drop-capture"))
    expect(card(page, "table", "2S")).to_have_class(re.compile("drop-capture"))
    expect(card(page, "table", "4D")).not_to_have_class(re.compile("drop-capture"))
    page.mouse.up()
    played(page, table, capture(moves, "6H", {"7C", "2S"}))


def test_u3_ambiguous_king_over_five_five_three_two(pages: Any) -> None:
    """RULES.md U3's example. In Cirulla four table cards adding to 15 go to the dealer,
    so the table 5, 5, 3, 2 is dealt in Scopa, where the King's captures are the sums
    5+5, 5+3+2 and the other 5+3+2."""
    page = pages()
    guest(page)
    hands = [["KC", "QD", "JD"], ["2C", "6D", "JH"]]
    deck = [str(c) for c in stack(players=2, dealer=1, hands=hands, table=["5D", "5C", "3S", "2H"])]
    deal = cirulla.Deal(cirulla.Rules.preset("scopa"), 2, 1, deck=deck)
    assert sorted(str(c) for c in deal.table) == ["2H", "3S", "5C", "5D"]
    config = {"preset": "scopa", "players": 2, "bots": {"1": "facile"}, "options": {"hands": 1}}
    table = create(page, config, decks=[deck], dealer=1)
    open_table(page, table)
    moves = wait_my_turn(page)
    kings = sorted(m for m in moves if m.startswith("KC"))
    assert len(kings) == 3, kings
    # over the 2 (which 5?), a 5 or the 3, several captures are left: nothing is highlighted
    drag_to(page, card(page, "hand", "KC"), card(page, "table", "2H"), release=False)
    for hover in ("5D", "3S", "5C", "2H"):
        x, y = center(card(page, "table", hover))
        page.mouse.move(x, y, steps=3)
        expect(page.locator(".drop-capture")).to_have_count(0)
    page.mouse.up()
    # the drop plays nothing: the King stays selected, to be completed card by card
    expect(card(page, "hand", "KC")).to_have_class(re.compile("selected"))
    expect(page.locator(".play-hint")).to_contain_text("una per una")
    time.sleep(0.2)
    assert "KC" in hand_cards(page)
    card(page, "table", "2H").click()
    card(page, "table", "3S").click()
    expect(page.locator(".confirm-capture")).to_be_hidden()  # 3+2 is no capture in Scopa
    card(page, "table", "5C").click()  # 5+3+2 = 10 with this 5: the one capture left
    played(page, table, capture(moves, "KC", {"5C", "3S", "2H"}))


# ---- declaring with automatic declaration off (B8) -------------------------------------------


def test_accuso_button_and_the_mattas_value(pages: Any) -> None:
    page = pages()
    guest(page)
    r = page.request.put("/api/me/options", data={"auto_declare": False})
    assert r.ok, r.text()
    # 7H 3C 4D: a cirulla with the matta as an Ace (8) or, with matta_choice, a 2 (9)
    table = stacked_table(
        page,
        [["7H", "3C", "4D"], ["5H", "6D", "JH"]],
        ["QS", "KH", "6C", "2D"],
        {"matta_choice": True},
    )
    open_table(page, table)
    moves = wait_my_turn(page)
    declares = [cirulla.parse_move(m) for m in moves if m.startswith("!")]
    assert {(d.bonus, d.matta_value) for d in declares} == {("cirulla", 1), ("cirulla", 2)}
    assert all({str(c) for c in d.cards} == {"7H", "3C", "4D"} for d in declares)
    accuso = page.locator(".turn-bar .accuso")
    expect(accuso).to_be_visible()
    accuso.click()
    dialog = page.locator("dialog.accuso-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".matta-value input")).to_have_count(2)
    dialog.locator(".matta-value", has_text="2").locator("input").check()
    dialog.locator("button[data-choice='ok']").click()
    page.wait_for_function(
        "id => (window.cirulla.conn.view(id).deal.declarations || []).length === 1", arg=table
    )
    view = page.evaluate("id => window.cirulla.conn.view(id)", table)
    declared = view["deal"]["declarations"][0]
    assert (declared["kind"], declared["matta_value"], declared["seat"]) == ("cirulla", 2, 0)
    # still our turn, to play a card; the three cards are shown as declared
    wait_my_turn(page)
    expect(accuso).to_have_count(0)
    expect(page.locator(".seat.place-bottom .declared .card")).to_have_count(3)
    expect(page.locator(".hand-card.is-declared")).to_have_count(3)
    expect(page.locator(".announce")).to_contain_text("cirulla")


# ---- reconnection: a reload puts the player back in the same state ---------------------------


def board_state(page: Any) -> dict[str, Any]:
    state: dict[str, Any] = page.evaluate(
        """() => ({
            hand: [...document.querySelectorAll('.hand-card')].map(e => e.dataset.code),
            table: [...document.querySelectorAll('.table-card')].map(e => e.dataset.code),
            piles: [...document.querySelectorAll('.pile')].map(e => e.getAttribute('aria-label')),
            seats: [...document.querySelectorAll('.seat')].map(e => e.getAttribute('aria-label')),
            legal: document.querySelector('.board').dataset.legal,
            status: document.querySelector('.table-status').textContent,
        })"""
    )
    return state


def test_reload_in_the_middle_of_a_hand(pages: Any) -> None:
    page = pages()
    guest(page)
    config = {
        "players": 4,
        "bots": {"1": "facile", "2": "facile", "3": "facile"},
        "options": {"hands": 1},
    }
    table = create(page, config)
    open_table(page, table)
    play_turn(page, table)
    wait_my_turn(page)
    card(page, "hand", hand_cards(page)[0]).click()  # a selection is the player's own
    before = board_state(page)
    assert len(before["hand"]) == 2
    page.reload()
    wait_my_turn(page)
    after = board_state(page)
    assert after == before
    play_turn(page, table)  # and play goes on
    assert len(hand_cards(page)) in (1, 3)


# ---- four people in four browsers --------------------------------------------------------------


def test_four_players_in_four_browsers(pages: Any) -> None:
    players = [pages(), pages(), pages(), pages(viewport=PHONE, is_mobile=True, has_touch=True)]
    for p in players:
        guest(p)
    table = create(players[0], {"players": 4, "options": {"hands": 1}})
    open_table(players[0], table)
    expect(players[0].locator(".seat-list .seat-row.free")).to_have_count(3)
    for p in players[1:]:
        p.goto(f"/table/{table}")
        p.wait_for_selector(".seat-list")
        p.locator(".seat-list button.sit").first.click()
        p.wait_for_selector(".seat-list .stand, .board")
    for p in players:
        p.wait_for_selector(".board")
    views = [p.evaluate("id => window.cirulla.conn.view(id)", table) for p in players]
    assert sorted(v["you"] for v in views) == [0, 1, 2, 3]
    # each sees their own hand and nobody else's
    for p, v in zip(players, views, strict=True):
        expect(p.locator(".seat.place-bottom .chip.you")).to_be_visible()
        assert p.locator(".mini-cards.hand-open").count() == 0
        assert v["deal"]["hand"] is not None
    phone = players[-1]
    shot = False
    moves = 0
    deadline = time.monotonic() + 240
    while not all(p.locator(".end-panel").count() for p in players):
        assert time.monotonic() < deadline, "the partita did not end"
        mover = next((p for p in players if p.locator(".board[data-legal]").count()), None)
        if mover is None:
            time.sleep(0.05)
            continue
        if not shot and mover is phone:
            shoot(phone, "table-phone")
            shot = True
        play_turn(mover, table)
        moves += 1
    # 36 moves a smazzata; a tie after it is played off by further smazzate (E2, E4)
    final = players[0].evaluate("id => window.cirulla.conn.view(id)", table)
    assert moves == 36 * len(final["scores"])
    for p in players:
        expect(p.locator(".end-panel .winner")).to_be_visible()
        expect(p.locator(".table-main .scoresheet tr[data-item='total'] td")).to_have_count(2)
    results = {p.locator(".end-panel .final-totals").inner_text() for p in players}
    assert len(results) == 1
    shoot(phone, "scoresheet-phone")
    shoot(players[0], "end-desktop")


# ---- the language -----------------------------------------------------------------------------


def test_english_labels_and_buttons(pages: Any) -> None:
    page = pages(locale="en-US")
    guest(page)
    table = stacked_table(page, U1_HANDS, U1_TABLE)
    open_table(page, table)
    wait_my_turn(page)
    assert card(page, "hand", "4S").get_attribute("aria-label") == "4 of spades"
    assert card(page, "table", "KH").get_attribute("aria-label") == "King of hearts"
    card(page, "hand", "4S").click()
    card(page, "table", "4D").click()
    expect(page.locator(".confirm-capture")).to_contain_text("Conferma presa")
    expect(page.locator(".turn-note")).to_have_text("Your turn")
    # switching language on the page keeps the selection and relabels everything
    page.locator(".langswitch button[data-lang='it']").click()
    expect(page.locator(".turn-note")).to_have_text("Tocca a te")
    assert card(page, "hand", "4S").get_attribute("aria-label") == "4 di picche"


# ---- errors from the server, and what the rules show (O1, O2) ---------------------------------


def test_a_server_error_is_shown_and_the_view_resyncs(pages: Any) -> None:
    page = pages()
    guest(page)
    table = stacked_table(page, U1_HANDS, U1_TABLE)
    open_table(page, table)
    wait_my_turn(page)
    # the page believes an older version of the table: the server refuses the move
    page.evaluate("id => { window.cirulla.conn.tables.get(id).version -= 1; }", table)
    card(page, "hand", "4S").click()
    card(page, "table", "4D").click()
    card(page, "table", "7C").click()
    toast = page.locator(".table-toasts .table-toast")
    expect(toast).to_be_visible()
    expect(toast).to_contain_text("Il tavolo è cambiato")
    # nothing was played: the server's state (sent again by a sync) is what the page shows
    view = page.evaluate("id => window.cirulla.conn.view(id)", table)
    assert view["deal"]["history"][-1]["type"] == "deal"
    assert sorted(hand_cards(page)) == ["4S", "KD", "QC"]
    assert sorted(table_cards(page)) == sorted(U1_TABLE)
    # and the player can go on: the card stays chosen (table-play.js gives the selection
    # back when a move is refused), the captures are picked again. (Pressing the card
    # again would unselect it, or play it as a double click when quick enough.)
    expect(card(page, "hand", "4S")).to_have_class(re.compile(r"\bselected\b"))
    play_turn_move = capture(legal(page), "4S", {"4D", "7C"})
    press(card(page, "table", "4D"))
    press(card(page, "table", "7C"))
    played(page, table, play_turn_move)


def test_carte_viste_and_carte_scoperte(pages: Any) -> None:
    page = pages()
    guest(page)
    config = {
        "players": 4,
        "bots": {"1": "facile", "2": "facile", "3": "facile"},
        "options": {"hands": 1, "carte_viste": True, "carte_scoperte": True},
    }
    table = create(page, config)
    open_table(page, table)
    wait_my_turn(page)
    view = page.evaluate("id => window.cirulla.conn.view(id)", table)
    # O2: the partner's hand face up, the opponents' face down
    partner = view["deal"]["hands"][2]
    assert partner["cards"]
    expect(page.locator(".seat[data-seat='2'] .hand-open .card")).to_have_count(partner["count"])
    for s in (1, 3):
        expect(page.locator(f".seat[data-seat='{s}'] .hand-open")).to_have_count(0)
    # O1: the cards seen this smazzata
    seen = view["deal"]["carte_viste"]
    panel = page.locator(".carte-viste")
    expect(panel).to_be_visible()
    codes = panel.locator(".card").evaluate_all("els => els.map(e => e.dataset.code)")
    assert sorted(codes) == sorted(seen)


def test_u3_drag_with_a_finger_on_a_phone(pages: Any) -> None:
    page = pages(viewport=PHONE, is_mobile=True, has_touch=True)
    guest(page)
    table = stacked_table(page, [["KC", "QD", "JD"], ["2C", "6D", "JH"]], ["5D", "5C", "3S", "QS"])
    open_table(page, table)
    wait_my_turn(page)
    shoot(page, "table-phone-stacked")
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, x: float, y: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    sx, sy = center(card(page, "hand", "QD"))
    tx, ty = center(card(page, "table", "QS"))
    touch("touchStart", sx, sy)
    for i in range(1, 11):
        touch("touchMove", sx + (tx - sx) * i / 10, sy + (ty - sy) * i / 10)
    expect(card(page, "table", "QS")).to_have_class(re.compile("drop-capture"))
    touch("touchEnd", tx, ty)
    played(page, table, "QDxQS")


def test_u3_dragging_a_card_that_captures_nothing_shows_its_copy(pages: Any) -> None:
    page = pages()
    guest(page)
    table = stacked_table(page, U2_HANDS, U2_TABLE)
    open_table(page, table)
    wait_my_turn(page)
    drag_to(page, card(page, "hand", "JC"), card(page, "table", "6C"), release=False)
    expect(page.locator(".ghost-slot .ghost-card[data-code='JC']")).to_be_visible()
    expect(page.locator(".drop-capture")).to_have_count(0)
    page.mouse.up()
    played(page, table, "JC")


# ---- what the table announces and shows moving ------------------------------------------------


def test_the_dealers_bonus_is_announced(pages: Any) -> None:
    page = pages()
    guest(page)
    # 4 + 5 + 3 + 3 = 15 on the table: the dealer (the bot) takes it for 1 point
    table = stacked_table(page, U1_HANDS, ["4D", "5C", "3S", "3H"])
    open_table(page, table)
    wait_my_turn(page)
    expect(page.locator(".announce")).to_contain_text("gira 15")
    expect(page.locator(".table-empty")).to_be_visible()
    pile = page.locator(".seat[data-seat='1'] .pile")
    expect(pile).to_have_attribute("aria-label", re.compile(r"4 carte.*1 punto di accusi"))


WATCH_FLIGHTS = """() => {
    window.flights = 0;
    new MutationObserver((records) => {
        for (const r of records) for (const n of r.addedNodes)
            if (n.classList && n.classList.contains('flying')) window.flights += 1;
    }).observe(document.body, {childList: true, subtree: true});
}"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_captured_cards_fly_to_the_pile_unless_motion_is_reduced(pages: Any, motion: str) -> None:
    page = pages(reduced_motion=motion)
    guest(page)
    table = stacked_table(page, U1_HANDS, U1_TABLE)
    open_table(page, table)
    wait_my_turn(page)
    # the flights come with table-extras.js, loaded once the board is drawn (its chat
    # panel is the sign): a play before it lands without them
    page.wait_for_selector(".chat-messages", state="attached")
    page.evaluate(WATCH_FLIGHTS)
    play_by_clicks(page, "4Sx4D7C")
    played(page, table, "4Sx4D7C")
    if motion == "reduce":
        page.wait_for_timeout(300)
        assert page.evaluate("() => window.flights") == 0
    else:
        # the 4 played and the two cards it takes (then the bot's)
        page.wait_for_function("() => window.flights >= 3")
    settle(page)
    expect(page.locator(".fly-layer .flying")).to_have_count(0)


def test_clocks_count_down(pages: Any) -> None:
    page = pages()
    guest(page)
    config = {
        "players": 2,
        "bots": {"1": "facile"},
        "move_seconds": 30,
        "partita_seconds": 600,
        "options": {"hands": 1},
    }
    table = create(page, config)
    open_table(page, table)
    wait_my_turn(page)
    mine = page.locator(".seat.place-bottom")
    move_clock = mine.locator(".move-clock")
    partita_clock = mine.locator(".partita-clock")
    expect(move_clock).to_be_visible()
    expect(partita_clock).to_be_visible()

    def seconds(text: str) -> int:
        m = re.search(r"(\d+):(\d\d)", text)
        assert m, text
        return int(m.group(1)) * 60 + int(m.group(2))

    first = seconds(move_clock.inner_text())
    assert 20 <= first <= 30
    assert 590 <= seconds(partita_clock.inner_text()) <= 600
    page.wait_for_timeout(2100)
    assert seconds(move_clock.inner_text()) <= first - 2
    # the bot's partita clock stands still while it is not its turn
    expect(page.locator(".seat[data-seat='1'] .partita-clock")).to_be_visible()
    expect(page.locator(".seat[data-seat='1'] .move-clock")).to_be_hidden()
