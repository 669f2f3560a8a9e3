"""Cirulo in the web client, in a real browser against a real `cirulla serve`.

A guest makes a Cirulo table from the lobby's form, plays a whole hand against three
bots by clicking legal cards, reads the settlement and the balances (checked against
the server's view) and ends the game; a stacked deck (the test mode's
POST /api/test/tables) shows that a card that does not follow suit cannot be played
(dimmed, explained, and refused by the server when forced), on a phone with taps, and
that the Spanish cards are named in Italian and English. Moves are chosen from what
the page shows (the board's data-legal and the cards' data-code).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from browserutil import PHONE, expect, guest, page_opener, screenshot
from serverutil import Server, running_server

from cirulla.cirulo import CiruloRules, Deal
from cirulla.cirulo.cards import full_deck

WEB = Path(__file__).resolve().parent.parent / "src" / "cirulla" / "web"
BOTS = {"1": "facile", "2": "facile", "3": "facile"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(
        tmp_path_factory.mktemp("web-cirulo"),
        bot_delay=0.1,
        deal_pause=0.8,
        login_attempts=100_000,
    ) as s:
        yield s


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, server.base_url) as open_page:
        yield open_page


# ---- helpers ------------------------------------------------------------------------------


def view_of(page: Any, table: str) -> dict[str, Any]:
    view: dict[str, Any] = page.evaluate("id => window.cirulla.conn.view(id)", table)
    return view


def legal(page: Any) -> list[str]:
    value = page.locator(".cboard").get_attribute("data-legal")
    return value.split() if value else []


def hand_cards(page: Any) -> list[str]:
    codes: list[str] = page.eval_on_selector_all(
        ".chand-card", "els => els.map(e => e.dataset.code)"
    )
    return codes


def card(page: Any, code: str) -> Any:
    return page.locator(f".chand-card[data-code='{code}']")


def press(locator: Any) -> None:
    """A click with the mouse, or a tap on a touch screen (force: dimmed cards too)."""
    if locator.page.evaluate("() => navigator.maxTouchPoints > 0"):
        locator.tap(force=True)
    else:
        locator.click(force=True)


def fmt(value: int | str, sign: bool = False) -> str:
    """An amount as the page writes it: "+37", "−29", "28 1/3"."""
    amount = Fraction(value)
    whole, rest = divmod(abs(amount.numerator), amount.denominator)
    text = (
        f"{whole} {rest}/{amount.denominator}"
        if rest and whole
        else (f"{rest}/{amount.denominator}" if rest else str(whole))
    )
    if amount < 0:
        return "\u2212" + text
    return ("+" + text) if sign and amount else text


def played(page: Any, table: str, deal_index: int, code: str, timeout: float = 15) -> None:
    """Until the server's view shows `code` played in hand `deal_index` (or a later hand)."""
    page.wait_for_function(
        """([id, k, code]) => {
            const v = window.cirulla.conn.view(id);
            if (!v) return false;
            if (v.deal_index > k || v.status !== 'playing') return true;
            return v.deal.history.some(e => e.type === 'play' && e.card === code);
        }""",
        arg=[table, deal_index, code],
        timeout=timeout * 1000,
    )


def play_by_clicks(page: Any, table: str, code: str) -> None:
    """Click a card (it rises, "Gioca" appears), then click it again: it is played."""
    deal_index = view_of(page, table)["deal_index"]
    press(card(page, code))
    expect(card(page, code)).to_have_class(re.compile(r"\bselected\b"))
    expect(page.locator(".cturn-bar .cplay")).to_be_visible()
    press(card(page, code))
    played(page, table, deal_index, code)


def play_by_double_click(page: Any, table: str, code: str) -> None:
    deal_index = view_of(page, table)["deal_index"]
    card(page, code).dblclick()
    played(page, table, deal_index, code)


def wait_turn_or(page: Any, table: str, condition: str, timeout: float = 30) -> None:
    """Until it is our turn (the board has data-legal) or the JS `condition` on the view."""
    page.wait_for_function(
        f"""id => {{
            const v = window.cirulla.conn.view(id);
            if (v && ({condition})) return true;
            return Boolean(document.querySelector('.cboard[data-legal]'));
        }}""",
        arg=table,
        timeout=timeout * 1000,
    )


def shoot(page: Any, name: str) -> Path:
    page.evaluate("window.scrollTo(0, 0)")
    return screenshot(page, name)


# ---- the form, a whole hand, the settlement, the end -----------------------------------------


def test_create_from_the_form_play_a_hand_and_settle(
    pages: Any, browser: Any, server: Server
) -> None:
    page = pages()
    guest(page)
    page.goto("/lobby")
    form = page.locator(".create-form")
    form.wait_for()
    form.locator('input[name="game"][value="cirulo"]').check()
    # Cirulo: its own options, no preset, no Cirulla house rules, 4-6 players
    expect(form.locator('select[name="preset"]')).to_have_count(0)
    expect(form.locator(".house-rules")).to_have_count(0)
    expect(form.locator('input[name="carte_viste"]')).to_have_count(0)
    offered = form.locator('input[name="players"]').evaluate_all("els => els.map(e => e.value)")
    assert offered == ["4", "5", "6"]
    form.locator('input[name="players"][value="6"]').check()
    expect(form.locator("select[name^='seat-']")).to_have_count(6)
    expect(form.locator('input[name="cirulo-hands"]')).to_have_value("6")  # one round
    form.locator('input[name="players"][value="4"]').check()
    expect(form.locator('input[name="cirulo-hands"]')).to_have_value("4")
    for seat in (2, 3, 4):
        form.get_by_label(f"Posto {seat}").select_option("bot:facile")
    form.get_by_label("Mazzo", exact=True).select_option("spanish48")
    form.locator('input[name="cirulo-point_value"]').fill("2")
    form.locator('input[name="cirulo-hands"]').fill("2")
    form.locator('select[name="cirulo-discard_order"]').select_option("EBC")
    form.locator('input[name="cirulo-split"][value="exact"]').check()
    # the two house options, each with its one-line explanation
    house = form.locator(".cirulo-house")
    expect(house.locator(".hint")).to_have_count(2)
    expect(house).to_contain_text("in quest'ordine di semi")
    expect(house).to_contain_text("frazioni di punto")
    shoot(page, "cirulo-create-form")
    form.get_by_role("button", name="Crea il tavolo").click()
    page.wait_for_url(re.compile(r"/table/[\w-]+$"))
    table = page.url.rsplit("/", 1)[1]
    page.wait_for_selector(".cboard")
    view = view_of(page, table)
    assert view["game"] == "cirulo"
    assert view["config"]["options"] == {
        "deck": "spanish48",
        "point_value": 2,
        "hands": 2,
        "discard_order": "EBC",
        "split": "exact",
    }
    assert view["seats"][0]["user"] == view["owner"] and view["you"] == 0

    # the lobby of another player lists it as Cirulo, with players and hands
    other = pages()
    guest(other)
    other.goto("/lobby")
    item = other.locator(f".lobby-table[data-table='{table}']")
    expect(item).to_have_attribute("data-game", "cirulo")
    expect(item.locator(".lobby-table-meta")).to_contain_text("Cirulo · 4 giocatori · 2 mani")
    shoot(other, "cirulo-lobby")
    other.close()

    # the board: four seats, you at the bottom, the next player on your right
    expect(page.locator(".cseat")).to_have_count(4)
    expect(page.locator(".cseat.mine .chip.you")).to_be_visible()
    shot = False
    checked_dimmed = False
    turns = 0
    while True:
        wait_turn_or(page, table, "v.deal_index > 0 || v.status !== 'playing'")
        view = view_of(page, table)
        if view["deal_index"] > 0 or view["status"] != "playing":
            break
        moves = legal(page)
        assert moves == view["deal"]["legal_moves"]
        hand = hand_cards(page)
        assert sorted(hand) == sorted(view["deal"]["hand"])
        for code in hand:  # exactly the server's legal cards are playable
            cls = card(page, code).get_attribute("class") or ""
            assert ("cplayable" in cls) == (code in moves), (code, cls)
            if code not in moves:
                assert card(page, code).get_attribute("aria-disabled") == "true"
                checked_dimmed = True
        if view["deal"]["led"]:
            expect(page.locator(".cboard")).to_have_attribute("data-led", view["deal"]["led"])
            expect(page.locator(".cinfo-led")).to_be_visible()
        if not shot and view["deal"]["trick"]:
            shoot(page, "cirulo-table-desktop")
            shot = True
        if turns % 2:
            play_by_double_click(page, table, moves[-1])
        else:
            play_by_clicks(page, table, moves[0])
        turns += 1
    assert checked_dimmed, "no turn had a card that could not be played"

    # the settlement of the hand: what each paid and received, the pot, the balances
    settle = page.locator(".csettle-layer .csettle")
    expect(settle).to_be_visible()
    view = view_of(page, table)
    score = view["scores"][0]
    for s in range(4):
        row = settle.locator(f".csettle-table tr[data-seat='{s}']")
        assert row.locator("td.coins").inner_text() == str(score["coins"][s])
        assert row.locator("td.balance").inner_text() == fmt(score["balances"][s], sign=True)
        chips = Fraction(score["balances"][s]) * 2
        assert row.locator("td.chips").inner_text() == fmt(str(chips), sign=True)
        if s in score["receivers"]:
            expect(row).to_have_class(re.compile("receiver"))
            assert row.locator("td.share").inner_text() == fmt(score["share"], sign=True)
        balances = settle.locator(f".cbalances-table tr[data-seat='{s}']")
        assert balances.locator("td.points").inner_text() == fmt(view["totals"][s], sign=True)
        assert balances.locator("td.chips").inner_text() == fmt(view["chips"][s], sign=True)
        side = page.locator(f".cirulo-side .cbalances-table tr[data-seat='{s}']")
        assert side.locator("td.points").inner_text() == fmt(view["totals"][s], sign=True)
    assert sum(Fraction(x) for x in view["totals"]) + Fraction(view["pot"]) == 0
    expect(settle.locator(".csettle-pot")).to_contain_text(f"= {fmt(score['pot'])}")
    shoot(page, "cirulo-settlement-desktop")
    settle.locator(".close-settle").click()
    expect(page.locator(".csettle-layer")).to_be_hidden()

    # the second hand: abandon it (with a confirmation), which ends the game
    wait_turn_or(page, table, "v.status !== 'playing'")
    page.locator(".table-actions .abandon").click()
    page.locator("dialog.table-dialog button[data-choice='ok']").click()
    end = page.locator(".cend")
    expect(end).to_be_visible()
    view = view_of(page, table)
    assert view["status"] == "finished" and view["forfeit"]["seat"] == 0
    expect(end.locator(".end-reason")).to_contain_text("abbandonato")
    totals = view["result"]["totals"]
    for s in range(4):
        row = end.locator(f".cbalances-table tr[data-seat='{s}']")
        assert row.locator("td.points").inner_text() == fmt(totals[s], sign=True)
        assert row.locator("td.chips").inner_text() == fmt(str(Fraction(totals[s]) * 2), sign=True)
    expect(end.locator(".chands-table tbody tr")).to_have_count(1)
    shoot(page, "cirulo-end-desktop")


# ---- a stacked deck: following suit, on a phone -------------------------------------------------

#: Seat 0 (the guest) holds three cards of every suit: whatever the bot in seat 3 leads,
#: the guest must follow and has cards that do not.
MY_HAND = ["1O", "2O", "3O", "1C", "2C", "3C", "1E", "2E", "10E", "1B", "2B", "12B"]
STACKED_CONFIG = {"game": "cirulo", "players": 4, "bots": BOTS, "options": {"hands": 1}}

#: The server's test mode checks a stacked deck with the Cirulla engine only
#: (tables/opening.py `_check_decks`), so it refuses every Cirulo deck.


def stacked_deck(hand: list[str], dealer: int) -> list[str]:
    """A 48-card deck dealing `hand` to seat 0 (the rest in deck order to the others),
    one card at a time from the player right of the dealer; checked with the engine."""
    players = 4
    rest = [str(c) for c in full_deck("spanish48") if str(c) not in hand]
    hands = [list(hand)] + [rest[k * 12 : (k + 1) * 12] for k in range(3)]
    leader = (dealer + 1) % players
    deck = [hands[(leader + i) % players].pop(0) for i in range(48)]
    deal = Deal(CiruloRules(hands=1), players, dealer, deck=deck)
    assert sorted(str(c) for c in deal.hand(0)) == sorted(hand)
    assert deal.to_move == 3
    return deck


def post_stacked(page: Any) -> Any:
    return page.request.post(
        "/api/test/tables",
        data={
            "config": STACKED_CONFIG,
            "seat": 0,
            "decks": [stacked_deck(MY_HAND, 2)],
            "dealer": 2,
        },
    )


def must_follow_turn(page: Any) -> str:
    """A table (the stacked deck above) where it is the guest's turn, a suit was led and
    the guest holds cards of it and of other suits."""
    r = post_stacked(page)
    assert r.status == 201, r.text()
    table: str = r.json()["table"]["id"]
    page.goto(f"/table/{table}")
    page.wait_for_selector(".cboard[data-legal]")
    assert sorted(hand_cards(page)) == sorted(MY_HAND)
    assert view_of(page, table)["deal"]["trick"][0]["seat"] == 3
    return table


def test_the_test_mode_takes_a_stacked_cirulo_deck(pages: Any) -> None:
    page = pages()
    guest(page)
    r = post_stacked(page)
    assert r.status == 201, r.text()
    table = r.json()["table"]["id"]
    page.goto(f"/table/{table}")
    page.wait_for_selector(".cboard[data-legal]")
    assert sorted(hand_cards(page)) == sorted(MY_HAND)


def test_a_card_that_does_not_follow_suit_cannot_be_played(pages: Any) -> None:
    page = pages(viewport=PHONE, has_touch=True, is_mobile=True)
    guest(page)
    table = must_follow_turn(page)
    view = view_of(page, table)
    led = view["deal"]["led"]
    moves = legal(page)
    assert moves and all(m.endswith(led) for m in moves)
    assert sorted(moves) == sorted(c for c in view["deal"]["hand"] if c.endswith(led))
    # the hand is sorted by suit: oros, copas, espadas, bastos
    suits = [c[-1] for c in hand_cards(page)]
    assert suits == sorted(suits, key="OCEB".index)
    wrong = next(c for c in hand_cards(page) if not c.endswith(led))
    version = page.evaluate("id => window.cirulla.conn.version(id)", table)
    expect(card(page, wrong)).to_have_class(re.compile("cdimmed"))
    assert card(page, wrong).get_attribute("aria-disabled") == "true"
    # a tap on it: nothing is sent, the hint says why
    press(card(page, wrong))
    hint = page.locator(".play-hint")
    expect(hint).to_have_attribute("data-kind", "error")
    expect(hint).to_contain_text("devi rispondere a")
    card(page, wrong).dblclick(force=True)
    card(page, wrong).focus()
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    assert page.evaluate("id => window.cirulla.conn.version(id)", table) == version
    assert wrong in hand_cards(page)
    expect(card(page, wrong)).not_to_have_class(re.compile("selected"))
    shoot(page, "cirulo-table-phone")

    # forced past the page (its copy of the legal moves changed), the server refuses it:
    # a readable toast, and the page still shows the server's state
    page.evaluate(
        """([id, code]) => {
            window.cirulla.conn.view(id).deal.legal_moves.push(code);
            window.dispatchEvent(new CustomEvent('languagechange'));
        }""",
        [table, wrong],
    )
    expect(card(page, wrong)).to_have_class(re.compile("cplayable"))
    press(card(page, wrong))
    press(card(page, wrong))
    toast = page.locator(".table-toasts .table-toast")
    expect(toast).to_be_visible()
    expect(toast).to_contain_text("Mossa non ammessa")
    expect(toast).to_contain_text("devi rispondere a")
    assert page.evaluate("id => window.cirulla.conn.version(id)", table) == version
    assert wrong in hand_cards(page)
    assert view_of(page, table)["deal"]["history"] == view["deal"]["history"]
    # a reload puts the player back at the same table, in the same state
    page.reload()
    page.wait_for_selector(".cboard[data-legal]")
    assert sorted(hand_cards(page)) == sorted(view["deal"]["hand"])
    assert legal(page) == moves

    # a legal card by keyboard: Enter picks it, Enter again plays it
    right = moves[0]
    card(page, right).focus()
    page.keyboard.press("Enter")
    expect(card(page, right)).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Enter")
    played(page, table, 0, right)
    expect(card(page, right)).to_have_count(0)


# ---- names ----------------------------------------------------------------------------------

_NUMBERS = {
    "it": ["Asso", "Due", "Tre", "Quattro", "Cinque", "Sei", "Sette", "Otto", "Nove"],
    "en": ["Ace", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"],
}
_SUITS = {
    "it": {"O": "denari", "C": "coppe", "E": "spade", "B": "bastoni"},
    "en": {"O": "coins", "C": "cups", "E": "swords", "B": "clubs"},
}


def spanish_name(code: str, lang: str) -> str:
    """A card of the 48-card deck by name: numbers in the language, the courts Spanish."""
    rank, suit = int(code[:-1]), code[-1]
    word = _NUMBERS[lang][rank - 1] if rank <= 9 else ["Sota", "Caballo", "Rey"][rank - 10]
    return f"{word} {'di' if lang == 'it' else 'of'} {_SUITS[lang][suit]}"


def test_spanish_names() -> None:
    assert spanish_name("7C", "it") == "Sette di coppe"
    assert spanish_name("7C", "en") == "Seven of cups"
    assert spanish_name("10E", "it") == "Sota di spade"
    assert spanish_name("11O", "en") == "Caballo of coins"
    assert spanish_name("12B", "it") == "Rey di bastoni"


def test_spanish_card_names_in_italian_and_english(pages: Any) -> None:
    page = pages()
    guest(page)
    table = must_follow_turn(page)
    hand = hand_cards(page)
    for code in hand:
        assert card(page, code).get_attribute("aria-label") == spanish_name(code, "it")
    expect(page.locator(".turn-note")).to_have_text("Tocca a te")
    led = view_of(page, table)["deal"]["led"]
    spanish = {"O": "oros", "C": "copas", "E": "espadas", "B": "bastos"}[led]
    expect(page.locator(".cinfo-led")).to_contain_text(f"({spanish})")
    expect(page.locator(".play-hint")).to_contain_text("Devi rispondere a")
    page.locator(".langswitch button[data-lang='en']").click()
    expect(page.locator(".turn-note")).to_have_text("Your turn")
    for code in hand:
        assert card(page, code).get_attribute("aria-label") == spanish_name(code, "en")
    expect(page.locator(".play-hint")).to_contain_text("You must follow suit")
    expect(page.locator(".cinfo-led")).to_contain_text(f"({spanish})")
    for trick_card in page.locator(".ctrick-card").all():
        _who, name = (trick_card.get_attribute("aria-label") or "").rsplit(": ", 1)
        assert name == spanish_name(trick_card.get_attribute("data-code") or "", "en")
    shoot(page, "cirulo-table-english")
    page.locator(".langswitch button[data-lang='it']").click()
    code = hand[0]
    assert card(page, code).get_attribute("aria-label") == spanish_name(code, "it")


# ---- the catalogs ---------------------------------------------------------------------------


def catalog_keys(name: str) -> set[str]:
    text = (WEB / "i18n" / f"{name}.js").read_text(encoding="utf-8")
    return set(re.findall(r'^\s*"([^"]+)"\s*:', text, re.M))


def test_the_cirulo_catalogs_have_the_same_keys_and_every_key_used() -> None:
    it, en = catalog_keys("cirulo.it"), catalog_keys("cirulo.en")
    assert it and it == en, it ^ en
    known = it | catalog_keys("it") | catalog_keys("table.it")
    files = [*(WEB / "js").glob("cirulo-*.js"), WEB / "js" / "pages" / "create-table.js"]
    files.append(WEB / "js" / "pages" / "lobby.js")
    used: set[str] = set()
    for path in files:
        used |= set(re.findall(r'\bt\("([a-z_]+\.[\w.-]+)"', path.read_text(encoding="utf-8")))
    assert {k for k in used if k.startswith("cirulo.")}, "no Cirulo strings found"
    # a key written in plural forms ("key.one", "key.other") is chosen by its count
    missing = {k for k in used - known if f"{k}.other" not in known}
    assert not missing, sorted(missing)
    # keys built from names: decks, splits, games, why a game ended
    for name in ("spanish48", "poker52"):
        assert f"cirulo.deck.{name}" in it
    for name in ("carry", "exact"):
        assert f"cirulo.split.{name}" in it
    for name in ("cirulla", "cirulo"):
        assert f"cirulo.create.game.{name}" in it and f"cirulo.create.game.{name}.help" in it
    for name in ("abandon", "timeout"):
        assert f"cirulo.end.forfeit.{name}" in it
