"""The table's sounds in a real browser (js/sound.js, js/table-sound.js; docs/sound.md).

The client pushes every sound it decides to play to `window.__cirullaSounds`: none before
the player has interacted with the page, none while muted. Tables are stacked (test mode)
so that what is played, and so what sounds, is known in advance.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browserutil import expect, guest, open_table_options, page_opener
from serverutil import Player, Server, running_server
from test_web_table import create, open_table, play_by_clicks, played, stacked, wait_my_turn


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(
        tmp_path_factory.mktemp("web-sound"),
        bot_delay=0.15,
        deal_pause=0.6,
        login_attempts=100_000,
    ) as s:
        yield s


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, server.base_url) as open_page:
        yield open_page


def sounds(page: Any) -> list[str]:
    got: list[str] = page.evaluate("() => window.__cirullaSounds")
    return got


def wait_sounds(page: Any, count: int, timeout: float = 15) -> list[str]:
    """Wait until at least `count` sounds were recorded; all of them."""
    page.wait_for_function(
        "n => (window.__cirullaSounds || []).length >= n", arg=count, timeout=timeout * 1000
    )
    return sounds(page)


def bot_first_table(page: Any) -> str:
    """The bot (seat 1) plays first and can only lay a card; the guest's K of clubs then
    takes the K of hearts, and the bot's answer can again only lay a card (checked with
    the engine when the deck was chosen)."""
    hands = [["KC", "JD", "JS"], ["3D", "4D", "7D"]]
    deck = stacked(2, 0, hands, ["QD", "QS", "KH", "KS"])
    config = {"players": 2, "bots": {"1": "facile"}, "options": {"hands": 1}}
    return create(page, config, decks=[deck], dealer=0)


def test_no_sound_before_interaction_then_capture_play_and_turn(pages: Any) -> None:
    page = pages()
    guest(page)
    table = bot_first_table(page)
    open_table(page, table)
    # the bot's move arrives and it becomes our turn, but nobody has touched the page
    wait_my_turn(page)
    page.wait_for_function(
        """id => window.cirulla.conn.view(id).deal.history
            .some(e => e.type === 'play' && e.seat === 1)""",
        arg=table,
    )
    # the sound module comes with table-extras.js (the chat panel is their sign), which
    # replays the calls made before it came: only once it is here have the bot's move and
    # our turn had their (silent) say, else they would sound after the first click
    page.wait_for_selector(".chat-messages", state="attached")
    assert sounds(page) == []
    # the first click unlocks sound: our capture, the bot's card laid, our turn again
    play_by_clicks(page, "KCxKH")
    played(page, table, "KCxKH")
    wait_my_turn(page)
    assert wait_sounds(page, 3) == ["capture", "play", "turn"]


def test_driver_scripts_are_not_an_interaction(pages: Any) -> None:
    """Playwright's scripts count as the browser's user activation; they must not unlock
    sound. When sound.js came after them it used to read that record and sound a table
    nobody had touched (a flaky run of the test above)."""
    page = pages()
    guest(page)
    # app.js asks for sound.js once the lobby is drawn; it is held back until the
    # driver's scripts have run (a slow line), so the module starts after them
    held: list[Any] = []

    def is_sound_js(url: str) -> bool:
        return url.endswith("/static/js/sound.js")

    def hold(route: Any) -> None:
        held.append(route)

    page.route(is_sound_js, hold)
    page.goto("/")
    page.wait_for_selector("main")
    for _ in range(300):
        if held:
            break
        page.wait_for_timeout(50)  # (the route handler runs while the driver waits)
    assert held, "app.js never asked for sound.js"
    assert page.evaluate("() => navigator.userActivation.hasBeenActive")
    held[0].continue_()
    sound_on = "async () => (await import('/static/js/sound.js')).soundOn()"
    assert page.evaluate(sound_on) is False
    assert page.evaluate("() => window.__cirullaInteracted") is None
    page.keyboard.press("Shift")  # a real (trusted) key event
    assert page.evaluate(sound_on) is True


def test_scopa_then_mute_and_volume_are_remembered(pages: Any) -> None:
    page = pages()
    guest(page)
    # the guest moves first: the K of diamonds takes the whole table (2+3+3+2 = 10)
    hands = [["KD", "QC", "5D"], ["5H", "6D", "JH"]]
    deck = stacked(2, 1, hands, ["2D", "3C", "2S", "3H"])
    config = {"players": 2, "bots": {"1": "facile"}, "options": {"hands": 1}}
    table = create(page, config, decks=[deck], dealer=1)
    open_table(page, table)
    wait_my_turn(page)
    assert sounds(page) == []
    play_by_clicks(page, "KDx2D3H3C2S")
    view = played(page, table, "KDx2D3H3C2S")
    assert any(e.get("scopa") for e in view["deal"]["history"] if e["type"] == "play")
    wait_my_turn(page)
    heard = wait_sounds(page, 3)
    assert heard[0] == "scopa" and heard[-1] == "turn", heard

    # the table's options: volume, then sound off
    panel = open_table_options(page)
    with page.expect_response(lambda r: r.url.endswith("/api/me/options") and r.ok):
        panel.locator("input[name='volume']").fill("35")
    with page.expect_response(lambda r: r.url.endswith("/api/me/options") and r.ok):
        panel.locator("input[name='sound']").uncheck()
    before = len(sounds(page))
    options = page.request.get("/api/me").json()["user"]["options"]
    assert (options["sound"], options["volume"]) == (False, 35)

    # muted: our move, the bot's answer and our turn make no sound
    page.keyboard.press("Escape")
    moves = [m for m in wait_my_turn(page) if not m.startswith("!")]
    play_by_clicks(page, moves[0])
    played(page, table, moves[0])
    wait_my_turn(page)
    assert len(sounds(page)) == before

    # a reload keeps the choice (the server's option, mirrored in this browser)
    page.reload()
    wait_my_turn(page)
    open_table_options(page)
    expect(page.locator(".table-options-panel input[name='sound']")).not_to_be_checked()
    expect(page.locator(".table-options-panel input[name='volume']")).to_have_value("35")
    stored = page.evaluate("() => JSON.parse(localStorage.getItem('cirulla.sound'))")
    assert stored == {"on": False, "volume": 35}
    # ... and the profile page shows the same
    page.goto("/profile")
    expect(page.locator("form.options-form input[name='sound']")).not_to_be_checked()
    expect(page.locator("form.options-form input[name='volume']")).to_have_value("35")


def test_sound_back_on_in_the_profile(pages: Any) -> None:
    page = pages()
    guest(page)
    r = page.request.put("/api/me/options", data={"sound": False, "volume": 20})
    assert r.ok, r.text()
    page.goto("/profile")
    form = page.locator("form.options-form")
    expect(form.locator("input[name='sound']")).not_to_be_checked()
    form.locator("input[name='sound']").check()
    form.locator("input[name='volume']").fill("90")
    form.get_by_role("button", name="Salva").click()
    page.get_by_text("Opzioni salvate.").wait_for()
    options = page.request.get("/api/me").json()["user"]["options"]
    assert (options["sound"], options["volume"]) == (True, 90)
    stored = page.evaluate("() => JSON.parse(localStorage.getItem('cirulla.sound'))")
    assert stored == {"on": True, "volume": 90}


def their_turn(frame: dict[str, Any]) -> bool:
    """A frame after which seat 1 (the scripted player) is to move."""
    deal = (frame.get("view") or {}).get("deal") or {}
    return frame["type"] in ("event", "sync") and deal.get("to_move") == 1


def test_events_replayed_after_a_reconnect_make_no_sound(pages: Any, server: Server) -> None:
    page = pages()
    guest(page)
    # two people: the browser (seat 0, first) and a scripted player on a socket (seat 1)
    hands = [["KC", "JD", "JS"], ["3D", "4D", "7D"]]
    deck = stacked(2, 1, hands, ["QD", "QS", "KH", "KS"])
    table = create(page, {"players": 2, "options": {"hands": 1}}, decks=[deck], dealer=1)
    other = Player(server).guest().connect()
    try:
        other.join(table)
        assert other.sit(table, 1)["type"] == "ack"
        open_table(page, table)
        wait_my_turn(page)
        play_by_clicks(page, "KCxKH")
        played(page, table, "KCxKH")
        assert wait_sounds(page, 1) == ["capture"]
        # the browser goes offline (and stays so until told); meanwhile the other moves
        page.evaluate("() => { const c = window.cirulla.conn; c.closedByUs = true; c.ws.close(); }")
        page.wait_for_function("() => window.cirulla.conn.status === 'offline'")
        other.recv_until(their_turn)
        move = other.views[table]["deal"]["legal_moves"][0]
        assert other.play(table, move)["type"] == "ack"
        # back online: the missed move arrives as a replay, silently (no card, no turn)
        page.evaluate("() => { const c = window.cirulla.conn; c.closedByUs = false; c.open(); }")
        played(page, table, move)
        wait_my_turn(page)
        page.wait_for_function(
            "id => window.cirulla.conn.pending.size === 0 && window.cirulla.conn.rejoins.size === 0"
        )
        assert sounds(page) == ["capture"]
        # live moves sound again: ours, then theirs and our turn
        mine = next(m for m in wait_my_turn(page) if not m.startswith("!"))
        play_by_clicks(page, mine)
        played(page, table, mine)
        other.recv_until(their_turn)
        theirs = other.views[table]["deal"]["legal_moves"][0]
        assert other.play(table, theirs)["type"] == "ack"
        played(page, table, theirs)
        wait_my_turn(page)
        heard = wait_sounds(page, 4)
        assert heard[0] == "capture" and heard[-1] == "turn" and len(heard) == 4, heard
    finally:
        other.close()


def test_last_seconds_tick_then_the_lost_partita(pages: Any) -> None:
    page = pages()
    guest(page)
    # we move first, with no accuso in hand: nothing happens until the clock runs out
    deck = stacked(2, 1, [["4S", "QC", "KD"], ["5H", "6D", "JH"]], ["4D", "7C", "2S", "KH"])
    config = {"players": 2, "bots": {"1": "facile"}, "move_seconds": 12, "options": {"hands": 1}}
    table = create(page, config, decks=[deck], dealer=1)
    open_table(page, table)
    moves = wait_my_turn(page)
    # a click that plays nothing (it selects a card), then the move clock runs out
    code = next(m for m in moves if not m.startswith("!"))[:2]
    page.locator(f".hand-card[data-code='{code}']").click()
    page.wait_for_function("() => window.__cirullaSounds.includes('lose')", timeout=30_000)
    heard = sounds(page)
    ticks = heard[:-1]
    assert heard[-1] == "lose" and 1 <= len(ticks) <= 5 and set(ticks) == {"tick"}, heard
    view = page.evaluate("id => window.cirulla.conn.view(id)", table)
    assert view["status"] == "finished" and view["forfeit"]["reason"] == "timeout"


def test_the_partita_clocks_last_seconds_tick_then_the_lost_partita(pages: Any) -> None:
    """No move clock, a partita clock of 12 s: its last seconds tick on our turn."""
    page = pages()
    guest(page)
    deck = stacked(2, 1, [["4S", "QC", "KD"], ["5H", "6D", "JH"]], ["4D", "7C", "2S", "KH"])
    config = {
        "players": 2,
        "bots": {"1": "facile"},
        "move_seconds": None,
        "partita_seconds": 12,
        "options": {"hands": 1},
    }
    table = create(page, config, decks=[deck], dealer=1)
    open_table(page, table)
    moves = wait_my_turn(page)
    view = page.evaluate("id => window.cirulla.conn.view(id)", table)
    assert view["config"]["move_seconds"] is None and view["clocks"][0] is not None
    # a click that plays nothing (it selects a card), then the partita clock runs out
    code = next(m for m in moves if not m.startswith("!"))[:2]
    page.locator(f".hand-card[data-code='{code}']").click()
    page.wait_for_function("() => window.__cirullaSounds.includes('lose')", timeout=30_000)
    heard = sounds(page)
    ticks = heard[:-1]
    assert heard[-1] == "lose" and 1 <= len(ticks) <= 5 and set(ticks) == {"tick"}, heard
    view = page.evaluate("id => window.cirulla.conn.view(id)", table)
    assert view["status"] == "finished" and view["forfeit"]["reason"] == "timeout"


def test_a_won_partita_sounds_win_and_a_spectator_hears_its_end(pages: Any, server: Server) -> None:
    """The other player (a scripted one, seat 1) abandons: our side wins the partita."""
    page, rail = pages(), pages()
    guest(page)
    guest(rail)
    table = create(page, {"players": 2, "options": {"hands": 1}})
    other = Player(server).guest().connect()
    try:
        other.join(table)
        assert other.sit(table, 1)["type"] == "ack"
        for p in (page, rail):  # (whoever is to move: nobody will)
            open_table(p, table)
            expect(p.locator(".board .hand-area, .board").first).to_be_visible()
        # each has touched the page (sound is allowed from then on); nothing sounded yet
        for p in (page, rail):
            p.locator(".table-title").click()
            assert sounds(p) == []
        page.wait_for_function("id => window.cirulla.conn.view(id).status === 'playing'", arg=table)
        other.drain()  # the deal's frames: its version is the table's
        answer = other.command({"type": "abandon", "table": table, "version": other.version[table]})
        assert answer["type"] == "ack", answer
        page.wait_for_function("() => window.__cirullaSounds.includes('win')")
        rail.wait_for_function("() => window.__cirullaSounds.includes('end')")
        assert sounds(page) == ["win"] and sounds(rail) == ["end"]
        view = page.evaluate("id => window.cirulla.conn.view(id)", table)
        assert view["status"] == "finished" and view["forfeit"]["reason"] == "abandon"
        expect(page.locator(".end-panel")).to_be_visible()
    finally:
        other.close()
