"""The table's "Opzioni" popover (js/table-options.js) in a real browser, and the checks
of the options it saves (PUT /api/me/options).

Seed 000: automatic declaration can be switched off "dal tavolo di cirulla, agendo sulle
apposite selezioni", not only in the profile; the deck style and sound are there too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from browserutil import expect, guest, open_table_options, page_opener
from conftest import stack
from serverutil import Server, running_server
from test_web_table import create, hand_cards, open_table, play_turn, wait_my_turn

import cirulla


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(
        tmp_path_factory.mktemp("web-table-options"),
        bot_delay=0.15,
        deal_pause=0.6,
        login_attempts=100_000,
    ) as s:
        yield s


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, server.base_url) as open_page:
        yield open_page


# The guest (seat 0) moves first; its first hand has no accuso, its second (7H 3C 4S) is
# a cirulla with the matta worth an Ace or, with matta_choice, a 2.
FIRST = [["5S", "QC", "KD"], ["5H", "6D", "JH"]]
TABLE = ["2D", "6C", "QS", "KH"]
SECOND = [["7H", "3C", "4S"], []]


def two_stage_deck() -> list[str]:
    deck = [str(c) for c in stack(players=2, dealer=1, hands=FIRST, table=TABLE, later=[SECOND])]
    rules = cirulla.Rules.preset("cirulla").replace(matta_choice=True)
    deal = cirulla.Deal(rules, 2, 1, deck=deck)
    assert sorted(str(c) for c in deal.hand(0)) == sorted(FIRST[0])
    assert not any(str(m).startswith("!") for m in deal.legal_moves())
    return deck


def test_options_opened_before_the_popover_arrives_open_when_it_does(pages: Any) -> None:
    """The board comes before table-extras.js (issue 15's first load): a player who taps
    "Opzioni" meanwhile finds the popover open when it arrives, not a closed button."""
    page = pages()
    guest(page)
    held: list[Any] = []
    page.route("**/static/js/table-extras.js", lambda route: held.append(route))
    table = create(page, {"players": 2, "bots": {"1": "facile"}, "options": {"hands": 1}})
    open_table(page, table)
    wait_my_turn(page)
    for _ in range(200):  # asked for once the board is drawn
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "table-extras.js was not asked for"
    page.locator(".table-options > summary").click()  # the button the board came with
    assert page.locator(".table-options").evaluate("e => e.open")
    expect(page.locator(".table-options-panel")).to_have_count(0)
    for route in held:
        route.continue_()
    panel = page.locator(".table-options-panel")
    expect(panel).to_be_visible()
    expect(panel.locator("input[name='sound']")).to_be_attached()
    expect(page.locator(".table-options > summary")).to_be_focused()


def test_automatic_declaration_switched_off_at_the_table(pages: Any) -> None:
    page = pages()
    guest(page)
    config = {
        "players": 2,
        "bots": {"1": "facile"},
        "options": {"hands": 1, "matta_choice": True},
    }
    table = create(page, config, decks=[two_stage_deck()], dealer=1)
    open_table(page, table)
    wait_my_turn(page)
    panel = open_table_options(page)
    auto = panel.locator("input[name='auto_declare']")
    expect(auto).to_be_checked()  # the default (B8)
    auto.uncheck()
    # answered over the socket: the seat at this table and the stored option both changed
    page.wait_for_function("() => window.cirulla.user.options.auto_declare === false")
    assert page.request.get("/api/me").json()["user"]["options"]["auto_declare"] is False
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    for _ in range(3):  # the first hand, by clicks
        play_turn(page, table)
    page.wait_for_function(
        "() => (document.querySelector('.board')?.dataset.legal || '').includes('!')",
        timeout=30_000,
    )
    assert sorted(hand_cards(page)) == sorted(SECOND[0])
    accuso = page.locator(".turn-bar .accuso")
    expect(accuso).to_be_visible()
    accuso.click()
    dialog = page.locator("dialog.accuso-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".matta-value input")).to_have_count(2)
    dialog.locator("button[data-choice='ok']").click()
    page.wait_for_function(
        "id => (window.cirulla.conn.view(id).deal.declarations || []).length === 1", arg=table
    )
    view = page.evaluate("id => window.cirulla.conn.view(id)", table)
    assert view["deal"]["declarations"][0]["seat"] == 0
    page.wait_for_function("() => window.__cirullaSounds.includes('accuso')")


def card_styles(page: Any) -> set[str]:
    """The deck each hand card is drawn from: the sprite the page carried (its symbol's
    id names the style) or a card file (its path does)."""
    arts: list[str] = page.eval_on_selector_all(
        ".hand-card",
        """els => els.map(e => {
            const use = e.querySelector("svg.card-art use");
            if (use) return use.getAttribute("href").split("-")[1];
            const img = e.querySelector("img");
            return img ? img.getAttribute("src").split("/")[3] : "none";
        })""",
    )
    return set(arts)


def test_deck_style_switched_at_the_table(pages: Any) -> None:
    page = pages()
    guest(page)
    assert page.request.put("/api/me/options", data={"deck_style": "french"}).ok
    config = {"players": 2, "bots": {"1": "facile"}, "options": {"hands": 1}}
    table = create(page, config)
    open_table(page, table)
    wait_my_turn(page)
    assert card_styles(page) == {"french"}
    panel = open_table_options(page)
    with page.expect_response(lambda r: r.url.endswith("/api/me/options") and r.ok):
        panel.locator("select[name='deck_style']").select_option("piacentine")
    # drawn again at once, in the other deck; saved like the profile saves it
    page.wait_for_function(
        """() => [...document.querySelectorAll('.hand-card')]
            .every(c => c.dataset.style === 'piacentine')"""
    )
    assert card_styles(page) == {"piacentine"}
    assert page.request.get("/api/me").json()["user"]["options"]["deck_style"] == "piacentine"
    page.reload()
    wait_my_turn(page)
    assert card_styles(page) == {"piacentine"}
    # the profile page shows the same choice
    page.goto("/profile")
    expect(page.locator("form.options-form select[name='deck_style']")).to_have_value("piacentine")


@pytest.mark.parametrize(
    "body",
    [
        {"volume": 101},
        {"volume": -1},
        {"volume": 50.5},
        {"volume": "50"},
        {"volume": True},
        {"volume": None},
        {"sound": "yes"},
        {"sound": 1},
        {"sound": None},
        {"language": "en", "volume": 1000},  # all or nothing: the language stays
    ],
)
def test_bad_sound_options_are_refused(server: Server, body: dict[str, Any]) -> None:
    with httpx.Client(base_url=server.base_url) as http:
        assert http.post("/api/guest").status_code == 201
        before = http.get("/api/me").json()["user"]["options"]
        r = http.put("/api/me/options", json=body)
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        named = "volume" if "volume" in body else "sound"
        assert error["code"] == "invalid_option" and f"'{named}'" in error["message"]
        assert http.get("/api/me").json()["user"]["options"] == before


def test_good_sound_options_are_kept(server: Server) -> None:
    with httpx.Client(base_url=server.base_url) as http:
        assert http.post("/api/guest").status_code == 201
        options = http.get("/api/me").json()["user"]["options"]
        assert (options["sound"], options["volume"]) == (True, 70)  # the defaults
        for body in ({"volume": 0}, {"volume": 100}, {"sound": False, "volume": 55}):
            r = http.put("/api/me/options", json=body)
            assert r.status_code == 200, r.text
            for name, value in body.items():
                assert r.json()["user"]["options"][name] == value
        options = http.get("/api/me").json()["user"]["options"]
        assert (options["sound"], options["volume"]) == (False, 55)
