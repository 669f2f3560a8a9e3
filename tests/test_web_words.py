"""Issue 15, item 8: the words the client shows.

Counts by the language's plural rules (Intl.PluralRules) in Italian and English, team
names that fit the table's header, the Accuso dialog saying what each choice is worth
by the table's rules, and a hint as soon as a dragged card is over a table card that
belongs to several captures (RULES.md U3).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browserutil import expect, guest, page_opener
from conftest import stack
from serverutil import Player, Server, running_server
from test_web_table import card, center, create, open_table, stacked_table, wait_my_turn

import cirulla


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(
        tmp_path_factory.mktemp("web-words"), bot_delay=0.15, login_attempts=100_000
    ) as s:
        yield s


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, server.base_url) as open_page:
        yield open_page


PLURALS = """async ([lang, key, n]) => {
    const i18n = await import('/static/js/i18n.js');
    await i18n.setLanguage(lang);  // the other language's catalog may still be on its way
    return i18n.t(key, {n});
}"""


@pytest.mark.parametrize(
    ("lang", "key", "one", "two"),
    [
        ("it", "table.cards_in_hand", "1 carta in mano", "2 carte in mano"),
        ("en", "table.cards_in_hand", "1 card in hand", "2 cards in hand"),
        ("it", "score.after", "Dopo 1 smazzata", "Dopo 2 smazzate"),
        ("en", "score.after", "After 1 smazzata", "After 2 smazzate"),
        ("it", "lobby.target", "a 1 punto", "ai 2 punti"),
        ("en", "lobby.target", "to 1 point", "to 2 points"),
        ("it", "table.points", "1 punto", "2 punti"),
        ("en", "table.points", "1 point", "2 points"),
        ("it", "history.deals", "1 smazzata", "2 smazzate"),
        ("en", "create.seconds", "1 second", "2 seconds"),
    ],
)
def test_counts_follow_the_languages_plural_rules(
    pages: Any, lang: str, key: str, one: str, two: str
) -> None:
    page = pages()
    page.goto("/")
    page.wait_for_selector("#app *")
    assert page.evaluate(PLURALS, [lang, key, 1]) == one
    assert page.evaluate(PLURALS, [lang, key, 2]) == two


def test_the_lobby_says_one_smazzata(pages: Any, server: Server) -> None:
    host = Player(server).guest()
    table = host.create_table({"name": "corta", "players": 2, "options": {"hands": 1}})
    for locale, word, wrong in (
        ("it-IT", "1 smazzata", "1 smazzate"),
        ("en-GB", "1 smazzata", "1 smazzate"),
    ):
        page = pages(locale=locale)
        guest(page)
        page.goto("/lobby")
        item = page.locator(f'.lobby-table[data-table="{table}"]')
        expect(item).to_contain_text(word)
        assert wrong not in item.inner_text()


def test_team_names_fit_the_header_with_the_whole_name_in_the_title(pages: Any) -> None:
    page = pages(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    guest(page)
    config = {"players": 4, "bots": {"1": "facile", "2": "facile", "3": "facile"}}
    table = create(page, config)
    open_table(page, table)
    names = page.locator(".table-totals dt:not(.target)")
    expect(names).to_have_count(2)
    view = page.evaluate("id => window.cirulla.conn.view(id)", table)
    seats = view["seats"]
    for i in range(2):
        whole = f"{seats[i]['name']} + {seats[i + 2]['name']}"
        dt = names.nth(i)
        expect(dt).to_have_attribute("title", whole)
        box = dt.bounding_box()
        assert box is not None and box["x"] + box["width"] <= 390, box
        assert dt.evaluate("e => getComputedStyle(e).textOverflow") == "ellipsis"


def test_the_accuso_dialog_says_what_each_choice_is_worth(pages: Any) -> None:
    page = pages()
    guest(page)
    assert page.request.put("/api/me/options", data={"auto_declare": False}).ok
    # 7H 3C 3D: a decino with the matta as a 3 (10) or a cirulla with it as an Ace (3)
    table = stacked_table(page, [["7H", "3C", "3D"], ["5H", "6D", "JH"]], ["QS", "KH", "6C", "2D"])
    open_table(page, table)
    moves = wait_my_turn(page)
    bonuses = {cirulla.parse_move(m).bonus for m in moves if m.startswith("!")}
    assert bonuses == {"decino", "cirulla"}, moves
    page.locator(".turn-bar .accuso").click()
    dialog = page.locator("dialog.accuso-dialog")
    expect(dialog).to_be_visible()
    decino = dialog.locator(".decl-choice", has_text="decino")
    ciru = dialog.locator(".decl-choice", has_text="cirulla")
    expect(decino).to_contain_text("10 punti")
    expect(ciru).to_contain_text("3 punti")
    dialog.locator("button[data-choice='cancel']").click()
    expect(dialog).to_have_count(0)


def test_a_drag_over_an_ambiguous_card_says_to_pick_card_by_card(pages: Any) -> None:
    """RULES.md U3's example (as in test_web_table): the King over the 2 of 5, 5, 3, 2
    leaves several captures: the hint says so while the card is still held."""
    page = pages()
    guest(page)
    hands = [["KC", "QD", "JD"], ["2C", "6D", "JH"]]
    deck = [str(c) for c in stack(players=2, dealer=1, hands=hands, table=["5D", "5C", "3S", "2H"])]
    config = {"preset": "scopa", "players": 2, "bots": {"1": "facile"}, "options": {"hands": 1}}
    table = create(page, config, decks=[deck], dealer=1)
    open_table(page, table)
    wait_my_turn(page)
    king, two = card(page, "hand", "KC"), card(page, "table", "2H")
    sx, sy = center(king)
    tx, ty = center(two)
    page.mouse.move(sx, sy)
    page.mouse.down()
    page.mouse.move(tx, ty, steps=12)
    expect(page.locator(".play-hint")).to_contain_text("scegli le carte una a una")
    expect(two).to_have_class(re.compile("drop-ambiguous"))
    page.mouse.up()
    expect(page.locator(".drop-ambiguous")).to_have_count(0)
    expect(card(page, "hand", "KC")).to_have_class(re.compile("selected"))
