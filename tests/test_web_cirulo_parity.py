"""The Cirulo table gets what the Cirulla table has (issue 15, items 1-3), in Chromium
against a real `cirulla serve`: sound (docs/sound.md), the "Opzioni" popover, the
spectators in the head and the chat (docs/chat.md).

Sounds are observed through the sound module's test hook: every sound the client
decides to play is pushed to `window.__cirullaSounds` (none before the player has
interacted with the page, none while muted). The stacked deck of test_web_cirulo deals
the guest (seat 0) a known hand; the bot in seat 3 leads.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from browserutil import PHONE, expect, guest, open_table_options, screenshot
from test_web_chat import chat_of, messages, write
from test_web_cirulo import (
    BOTS,
    MY_HAND,
    legal,
    play_by_clicks,
    stacked_deck,
    view_of,
    wait_turn_or,
)
from test_web_cirulo import pages as pages  # the fixtures: a server for this module
from test_web_cirulo import server as server
from test_web_sound import sounds

from cirulla.cirulo import CiruloRules, Deal

DEALER = 2


# ---- helpers ------------------------------------------------------------------------------


def stacked_table(page: Any, **config: Any) -> tuple[str, list[str]]:
    """A one-hand Cirulo table against three bots, dealt from the stacked deck; opened,
    and waited until it is the guest's turn. The table and its deck."""
    deck = stacked_deck(MY_HAND, DEALER)
    r = page.request.post(
        "/api/test/tables",
        data={
            "config": {"game": "cirulo", "players": 4, "bots": BOTS, "options": {"hands": 1}}
            | config,
            "seat": 0,
            "decks": [deck],
            "dealer": DEALER,
        },
    )
    assert r.status == 201, r.text()
    table: str = r.json()["table"]["id"]
    page.goto(f"/table/{table}")
    page.wait_for_selector(".cboard[data-legal]")
    return table, deck


def expected_sounds(deck: list[str], view: dict[str, Any]) -> list[str]:
    """What the hand in `view` sounds like to seat 0 from its own first card on, worked
    out with the engine: a card played, the trick gathered (a clink of coins when it is
    encirculated), "turn" when a move gives seat 0 the turn, and the end by the sign of
    seat 0's balance."""
    deal = Deal(CiruloRules(hands=1), 4, DEALER, deck=deck)
    cards = [e["card"] for e in view["deal"]["history"] if e["type"] == "play"]
    out: list[str] = []
    heard = False
    for code in cards:
        before, seen = deal.to_move, len(deal.events)
        heard = heard or before == 0
        deal.play(code)
        if not heard:
            continue
        for e in deal.events[seen:]:
            if e["type"] == "play":
                out.append("play")
            elif e["type"] == "trick":
                out.append("coins" if e["encirculated"] else "trick")
        if not deal.is_over and deal.to_move == 0 and before != 0:
            out.append("turn")
    total = Fraction(view["totals"][0])
    out.append("win" if total > 0 else "lose" if total < 0 else "end")
    return out


# ---- sound ----------------------------------------------------------------------------------


def test_cirulo_sounds_from_the_first_interaction_to_the_end(pages: Any) -> None:
    page = pages()
    guest(page)
    table, deck = stacked_table(page)
    # the bot led and it is our turn, but nobody has touched the page: silence
    assert view_of(page, table)["deal"]["trick"][0]["seat"] == 3
    assert sounds(page) == []
    # the whole hand by clicks (the first click unlocks sound)
    while True:
        wait_turn_or(page, table, "v.status !== 'playing'")
        view = view_of(page, table)
        if view["status"] != "playing":
            break
        play_by_clicks(page, table, legal(page)[0])
    page.wait_for_function(
        "() => ['win', 'lose', 'end'].some(n => window.__cirullaSounds.includes(n))"
    )
    view = view_of(page, table)
    assert view["status"] == "finished"
    heard = sounds(page)
    assert heard == expected_sounds(deck, view)
    # the hand has 12 tricks, several with coins, and it came back to us
    assert heard.count("play") == 4 * 12 - 1 and heard.count("turn") >= 1
    assert heard.count("coins") >= 1 and heard.count("trick") + heard.count("coins") == 12


def test_cirulo_move_clock_ticks_then_the_lost_game(pages: Any) -> None:
    page = pages()
    guest(page)
    table, _ = stacked_table(page, move_seconds=12)
    # a click that plays nothing (it picks a card), then the move clock runs out
    page.locator(f".chand-card[data-code='{legal(page)[0]}']").click()
    page.wait_for_function("() => window.__cirullaSounds.includes('lose')", timeout=30_000)
    heard = sounds(page)
    ticks = heard[:-1]
    assert heard[-1] == "lose" and 1 <= len(ticks) <= 5 and set(ticks) == {"tick"}, heard
    view = view_of(page, table)
    assert view["status"] == "finished" and view["forfeit"]["reason"] == "timeout"


# ---- the options --------------------------------------------------------------------------


def test_cirulo_options_mute_and_volume_are_remembered(pages: Any) -> None:
    page = pages()
    guest(page)
    table, _ = stacked_table(page)
    panel = open_table_options(page)
    # Cirulo has no declarations and one Spanish deck style: sound and volume only
    expect(panel.locator("input[name='auto_declare']")).to_have_count(0)
    expect(panel.locator("select[name='deck_style']")).to_have_count(0)
    expect(panel.locator("input[name='sound']")).to_be_checked()
    expect(panel.get_by_label("Suoni")).to_be_visible()
    with page.expect_response(lambda r: r.url.endswith("/api/me/options") and r.ok):
        panel.locator("input[name='volume']").fill("35")
    assert sounds(page) == ["turn"]  # releasing the slider plays a sound at the new volume
    with page.expect_response(lambda r: r.url.endswith("/api/me/options") and r.ok):
        panel.locator("input[name='sound']").uncheck()
    options = page.request.get("/api/me").json()["user"]["options"]
    assert (options["sound"], options["volume"]) == (False, 35)
    # Escape closes the popover; muted, a whole trick and our next turn make no sound
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    play_by_clicks(page, table, legal(page)[0])
    wait_turn_or(page, table, "v.status !== 'playing'")
    history = view_of(page, table)["deal"]["history"]
    assert sum(e["type"] == "trick" for e in history) == 1
    assert sounds(page) == ["turn"]
    # a reload keeps the choice (the server's option, mirrored in this browser)
    page.reload()
    page.wait_for_selector(".cboard[data-legal]")
    panel = open_table_options(page)
    expect(panel.locator("input[name='sound']")).not_to_be_checked()
    expect(panel.locator("input[name='volume']")).to_have_value("35")
    expect(panel.locator("input[name='volume']")).to_be_disabled()
    stored = page.evaluate("() => JSON.parse(localStorage.getItem('cirulla.sound'))")
    assert stored == {"on": False, "volume": 35}
    # sound back on from the table: the next card sounds
    with page.expect_response(lambda r: r.url.endswith("/api/me/options") and r.ok):
        panel.locator("input[name='sound']").check()
    page.keyboard.press("Escape")
    play_by_clicks(page, table, legal(page)[0])
    page.wait_for_function("() => window.__cirullaSounds.includes('play')")
    # the popover follows the language
    page.locator(".langswitch button[data-lang='en']").click()
    expect(page.locator(".table-options > summary")).to_have_text("Options")


# ---- chat ------------------------------------------------------------------------------------


def test_cirulo_chat_with_phrases_the_rail_mute_and_the_spectators(pages: Any) -> None:
    anna_page, bruno_page = pages("it-IT"), pages("en-GB")
    guest(anna_page)
    bruno = guest(bruno_page)
    table, _ = stacked_table(anna_page)  # anna plays three bots; bruno watches
    bruno_page.goto(f"/table/{table}")
    bruno_page.wait_for_selector(".cboard")
    # the players see the spectator in the head
    watchers = anna_page.locator(".table-people .watchers")
    expect(watchers).to_have_attribute("data-count", "1")
    expect(watchers.locator(".watcher-names")).to_contain_text(bruno["name"])
    # the rail's note for the spectator only
    expect(chat_of(bruno_page).locator(".chat-note")).to_be_visible()
    expect(chat_of(anna_page).locator(".chat-note")).to_be_hidden()
    # a quick phrase, in each reader's language
    chat_of(anna_page).locator(".chat-phrase[data-phrase='buona_fortuna']").click()
    expect(messages(anna_page).last.locator(".chat-text")).to_have_text("Buona fortuna")
    expect(messages(bruno_page).last.locator(".chat-text")).to_have_text("Good luck")
    write(anna_page, "ciao Bruno")
    expect(messages(bruno_page).filter(has_text="ciao Bruno")).to_have_count(1)
    expect(chat_of(anna_page).locator(".chat-input")).to_have_value("")
    # the spectator writes: spectators read it, the player never does
    write(bruno_page, "don't take the oros")
    expect(messages(bruno_page).filter(has_text="don't take the oros")).to_have_count(1)
    rail = messages(bruno_page).filter(has_text="don't take the oros")
    expect(rail).to_have_class(re.compile(r"\brail\b"))
    write(anna_page, "dopo")
    expect(messages(bruno_page).filter(has_text="dopo")).to_have_count(1)
    expect(messages(anna_page).filter(has_text="dopo")).to_have_count(1)
    expect(messages(anna_page).filter(has_text="oros")).to_have_count(0)
    assert chat_of(anna_page).locator(".chat-input").get_attribute("maxlength") == "200"
    screenshot(bruno_page, "cirulo-chat-spectator")
    # typing in the chat does not play: the hand stays as it was
    assert sorted(view_of(anna_page, table)["deal"]["hand"]) == sorted(MY_HAND)
    # bruno mutes anna, then shows her again
    messages(bruno_page).filter(has_text="ciao Bruno").locator(".chat-mute").click()
    expect(messages(bruno_page)).to_have_count(1)  # his own
    chat_of(bruno_page).locator(".chat-unmute").click()
    expect(messages(bruno_page)).to_have_count(4)
    # anna abandons: the game ends, and the chat is kept with the table; joining the
    # finished table again, she reads everything, the rail's message too
    anna_page.locator(".table-actions .abandon").click()
    anna_page.locator("dialog.table-dialog button[data-choice='ok']").click()
    expect(anna_page.locator(".cend")).to_be_visible()
    anna_page.reload()
    expect(anna_page.locator(".cend")).to_be_visible()
    expect(messages(anna_page)).to_have_count(4)
    expect(messages(anna_page).filter(has_text="oros")).to_have_class(re.compile(r"\brail\b"))
    r = anna_page.request.get(f"/api/tables/{table}/chat")
    assert r.ok, r.text()
    said = [m.get("text") or m["phrase"] for m in r.json()["messages"]]
    assert said == ["buona_fortuna", "ciao Bruno", "don't take the oros", "dopo"]


def test_cirulo_options_and_chat_fit_a_phone(pages: Any) -> None:
    page = pages(viewport=PHONE, has_touch=True, is_mobile=True)
    guest(page)
    stacked_table(page)
    panel = open_table_options(page, tap=True)
    box = panel.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    panel.locator("input[name='sound']").tap()  # (a tap outside would close it)
    expect(panel.locator("input[name='sound']")).not_to_be_checked()
    page.locator(".turn-note").tap()  # a tap outside closes the popover
    expect(panel).to_be_hidden()
    chat = chat_of(page)
    chat.scroll_into_view_if_needed()
    expect(chat.locator(".chat-phrase")).to_have_count(9)
    chat.locator(".chat-phrase[data-phrase='ciao']").tap()
    expect(messages(page).filter(has_text="Ciao")).to_have_count(1)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    screenshot(page, "cirulo-options-chat-phone")
