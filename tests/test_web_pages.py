"""The web client's pages in a real browser against a real `cirulla serve`.

Welcome and guest play, register / log in (with the server's errors shown), the lobby's
live list and its create-table form (bots, options, private tables and their invite
links), the language switch, the profile's options, the history; and that the page
catalogs (i18n/it.js, en.js, table.it.js, table.en.js) have the same keys.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browserutil import DESKTOP, PHONE, expect, page_opener, screenshot
from serverutil import Player, Server, running_server

WEB = Path(__file__).resolve().parent.parent / "src" / "cirulla" / "web"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # Many guests come from one address here: lift the login rate limit.
    with running_server(tmp_path_factory.mktemp("web-pages"), login_attempts=100_000) as s:
        yield s


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, server.base_url) as open_page:
        yield open_page


def as_guest(page: Any) -> str:
    """From the welcome page to the lobby as a guest; returns the guest's name."""
    page.goto("/")
    page.get_by_role("button", name=re.compile("ospite|guest", re.I)).click()
    page.wait_for_url("**/lobby")
    page.wait_for_selector(".create-form")
    name: str = page.locator(".who-name").inner_text()
    return name


def wait_online(page: Any) -> None:
    page.wait_for_selector('.conn-status[data-status="online"]')


def api_get(page: Any, path: str) -> Any:
    """GET with the page's own session cookie."""
    r = page.request.get(path)
    assert r.ok, r.text()
    return r.json()


# ---- welcome, guest, lobby ------------------------------------------------------------------


def test_welcome_guest_lands_in_the_lobby_with_the_live_list(pages: Any, server: Server) -> None:
    page = pages(viewport=DESKTOP)
    page.goto("/")
    expect(page.get_by_role("button", name="Gioca subito come ospite")).to_be_visible()
    name = as_guest(page)
    assert name.startswith("ospite-")
    wait_online(page)
    assert api_get(page, "/api/me")["user"]["name"] == name
    for link in ("Sala", "Partite", "Profilo"):
        expect(page.locator(".topnav").get_by_role("link", name=link)).to_be_visible()
    assert page.locator(".conn-status").inner_text() == "In linea"

    # Someone else opens a table: it appears without a reload (a WebSocket lobby frame).
    other = Player(server).guest()
    table = other.create_table(
        {"name": "sera", "players": 4, "bots": {"2": "difficile"}, "move_seconds": 30}
    )
    item = page.locator(f'.lobby-table[data-table="{table}"]')
    item.wait_for()
    text = item.inner_text()
    assert "sera" in text and other.user["name"] in text
    assert "difficile" in text and "aperto" in text and "30 s a mossa" in text
    expect(item.get_by_role("button", name="Siediti")).to_be_visible()
    expect(item.get_by_role("button", name="Guarda")).to_be_visible()
    screenshot(page, "web-lobby-desktop")

    # Sit from the lobby: the server seats us, and we are at the table.
    item.get_by_role("button", name="Siediti").click()
    page.wait_for_url(f"**/table/{table}")
    seats = api_get(page, f"/api/tables/{table}")["table"]["seats"]
    assert any(s and s["name"] == name for s in seats)

    phone = pages(viewport=PHONE, has_touch=True, is_mobile=True)
    as_guest(phone)
    phone.locator(f'.lobby-table[data-table="{table}"]').wait_for()
    # Nothing wider than the phone's screen.
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    screenshot(phone, "web-lobby-phone")


def test_unknown_pages_and_login_required(pages: Any) -> None:
    page = pages()
    page.goto("/profile")
    page.wait_for_url(re.compile(r"/\?next=%2Fprofile$"))
    page.get_by_role("button", name="Gioca subito come ospite").click()
    page.wait_for_url("**/profile")  # back where it was going
    page.evaluate("window.cirulla.navigate('/no/such/page')")  # the server 404s it itself
    expect(page.get_by_role("heading", name="Pagina non trovata")).to_be_visible()


# ---- accounts -------------------------------------------------------------------------------


def test_register_log_out_and_a_wrong_password_shows_the_error(pages: Any) -> None:
    page = pages()
    page.goto("/register")
    page.get_by_label("Nome").fill("x")
    page.get_by_label("Password").fill("password123")
    page.get_by_role("button", name="Registrati").click()
    alert = page.locator(".auth-form .error")
    alert.wait_for()
    assert "da 3 a 20 caratteri" in alert.inner_text()

    page.get_by_label("Nome").fill("anna_web")
    page.get_by_role("button", name="Registrati").click()
    page.wait_for_url("**/lobby")
    assert page.locator(".who-name").inner_text() == "anna_web"

    page.get_by_role("button", name="Esci").click()
    page.wait_for_url(re.compile(r"/$"))
    assert page.locator(".who-name").count() == 0

    page.goto("/login")
    page.get_by_label("Nome").fill("anna_web")
    page.get_by_label("Password").fill("wrong-password")
    page.get_by_role("button", name="Accedi").last.click()
    alert = page.locator(".auth-form .error")
    alert.wait_for()
    assert alert.inner_text() == "Nome o password sbagliati."
    assert page.url.endswith("/login")

    page.get_by_label("Password").fill("password123")
    page.get_by_role("button", name="Accedi").last.click()
    page.wait_for_url("**/lobby")
    assert page.locator(".who-name").inner_text() == "anna_web"

    # The same name again is refused, readably.
    other = pages()
    other.goto("/register")
    other.get_by_label("Nome").fill("anna_web")
    other.get_by_label("Password").fill("password123")
    other.get_by_role("button", name="Registrati").click()
    other.locator(".auth-form .error").wait_for()
    assert "già preso" in other.locator(".auth-form .error").inner_text()


def test_the_profile_keeps_what_was_typed_when_the_deck_choices_arrive(pages: Any) -> None:
    """The deck styles come from /api/choices after the page is drawn; their arrival must
    not draw the claim form again over what the player typed (a flaky test found it)."""
    page = pages()
    as_guest(page)
    held: list[Any] = []
    page.route("**/api/choices", lambda route: held.append(route))  # held till we say
    page.locator(".topnav").get_by_role("link", name="Profilo").click()
    page.wait_for_url("**/profile")
    form = page.locator(".claim-form")
    form.get_by_label("Nome").fill("dario_web")
    form.get_by_label("Password").fill("password123")
    deadline = time.monotonic() + 10
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert held, "the profile asked for /api/choices"
    for route in held:
        route.continue_()
    page.wait_for_function(
        "() => document.querySelectorAll('select[name=deck_style] option').length >= 3"
    )
    page.wait_for_timeout(200)
    assert form.get_by_label("Nome").input_value() == "dario_web"
    assert form.get_by_label("Password").input_value() == "password123"
    form.get_by_role("button", name="Tieni l'account").click()
    page.locator(".account-name", has_text="dario_web").wait_for()


def test_a_guest_claims_the_account_from_the_profile(pages: Any) -> None:
    page = pages()
    guest = as_guest(page)
    user_id = api_get(page, "/api/me")["user"]["id"]
    page.locator(".topnav").get_by_role("link", name="Profilo").click()
    page.wait_for_url("**/profile")
    form = page.locator(".claim-form")
    form.get_by_label("Nome").fill("bruno_web")
    form.get_by_label("Password").fill("password123")
    form.get_by_role("button", name="Tieni l'account").click()
    page.locator(".account-name", has_text="bruno_web").wait_for()
    assert page.locator(".who-name").inner_text() == "bruno_web"
    me = api_get(page, "/api/me")["user"]
    assert me == {**me, "id": user_id, "name": "bruno_web", "guest": False}
    assert guest != "bruno_web"
    assert page.locator(".claim-form").count() == 0


# ---- creating tables ------------------------------------------------------------------------


def spectator_view(server: Server, table: str) -> dict[str, Any]:
    """The table as a stranger sees it over the WebSocket (it must be public)."""
    watcher = Player(server).guest().connect()
    try:
        assert watcher.join(table)["type"] == "ack"
        watcher.drain()
        return watcher.views[table]
    finally:
        watcher.close()


def test_create_a_table_against_three_bots_from_the_form(pages: Any, server: Server) -> None:
    page = pages(viewport=DESKTOP)
    name = as_guest(page)
    form = page.locator(".create-form")
    form.get_by_label("Nome del tavolo (facoltativo)").fill("contro i bot")
    form.get_by_label("Gioco e variante").select_option("pagat")
    assert form.locator('input[name="players"]').count() == 3
    form.locator('input[name="players"][value="4"]').check()
    form.get_by_label("Posto 2").select_option("bot:facile")
    form.get_by_label("Posto 3").select_option("bot:difficile")
    form.get_by_label("Posto 4").select_option("bot:campione")
    form.get_by_label("Numero di smazzate:").check()
    form.locator('input[name="hands"]').fill("2")
    form.get_by_label("Tempo per mossa").select_option("120")
    form.get_by_label("Tempo per la partita (a testa)").select_option("1200")
    form.get_by_label("Carte viste").check()
    form.get_by_text("Regole della casa").click()
    # Every house rule is offered, with its one-line explanation in Italian.
    ace = form.get_by_label("Asso a piacere")
    assert ace.is_checked()  # the pagat preset has it
    assert "qualunque quindici" in form.inner_text()
    form.get_by_label("Presa facoltativa").check()
    form.locator('select[name="rule-wild_card"]').select_option("KS")
    form.get_by_role("button", name="Crea il tavolo").click()
    page.wait_for_url(re.compile(r"/table/[\w-]+$"))
    table = page.url.rsplit("/", 1)[1]

    summary = api_get(page, f"/api/tables/{table}")["table"]
    assert summary["name"] == "contro i bot"
    assert summary["preset"] == "pagat" and summary["players"] == 4
    assert summary["hands"] == 2 and summary["target"] is None
    assert summary["move_seconds"] == 120 and summary["partita_seconds"] == 1200
    assert summary["seats"][0]["name"] == name and summary["seats"][0]["bot"] is None
    assert [s["bot"] for s in summary["seats"][1:]] == ["facile", "difficile", "campione"]
    assert summary["status"] == "playing"

    config = spectator_view(server, table)["config"]
    assert config["options"] == {
        "hands": 2,
        "carte_viste": True,
        "may_decline_capture": True,
        "wild_card": "KS",
    }
    assert config["bots"] == {"1": "facile", "2": "difficile", "3": "campione"}


def test_the_form_offers_only_the_player_counts_of_the_preset(pages: Any) -> None:
    page = pages()
    as_guest(page)
    form = page.locator(".create-form")
    counts = {
        "cirulla": ["2", "3", "4"],
        "scopa": ["2", "4"],
        "luzzati": ["2", "4"],
        "cirullone": ["4"],
    }
    for preset, expected in counts.items():
        form.get_by_label("Gioco e variante").select_option(preset)
        offered = form.locator('input[name="players"]').evaluate_all("els => els.map(e => e.value)")
        assert offered == expected, preset
    # Scopa has no Cirulla house rules to change; the target follows the preset.
    form.get_by_label("Gioco e variante").select_option("scopa")
    assert form.locator('input[name="target"]').input_value() == "11"
    assert form.locator('input[name="rule-ace_choice"]').is_disabled()
    # A bad config is refused by the server, readably, and no table is made.
    form.get_by_label("Gioco e variante").select_option("cirulla")
    form.locator('input[name="players"][value="3"]').check()
    form.get_by_text("Regole della casa").click()
    form.get_by_label("Spareggi").check()
    form.get_by_role("button", name="Crea il tavolo").click()
    error = form.locator(".error")
    error.wait_for()
    assert error.inner_text().startswith("Il tavolo non va:")
    assert "knockout" in error.inner_text()
    assert page.url.endswith("/lobby")


def test_a_private_tables_invite_link_lets_a_second_browser_in(pages: Any, server: Server) -> None:
    owner = pages()
    as_guest(owner)
    form = owner.locator(".create-form")
    form.locator('input[name="players"][value="2"]').check()
    form.get_by_label("Privato").check()
    form.get_by_role("button", name="Crea il tavolo").click()
    dialog = owner.locator("dialog.create-invite-dialog")
    dialog.wait_for()
    link = dialog.locator("input.create-invite-link").input_value()
    match = re.fullmatch(re.escape(server.base_url) + r"/table/([\w-]+)\?invite=([\w-]+)", link)
    assert match, link
    table, invite = match.groups()
    dialog.get_by_role("button", name="Vai al tavolo").click()
    owner.wait_for_url(f"**/table/{table}?invite={invite}")
    # Not in the lobby: it is private.
    assert all(t["id"] != table for t in api_get(owner, "/api/tables")["tables"])

    # A second browser, not logged in, follows the link: guest, then straight to the table.
    friend = pages(locale="en-US")
    friend.goto(link)
    friend.get_by_role("button", name="Play now as guest").click()
    friend.wait_for_url(f"**/table/{table}?invite={invite}")
    wait_online(friend)
    joined = friend.evaluate(
        """async ([id]) => {
             const conn = window.cirulla.conn;
             const invite = new URL(location.href).searchParams.get("invite");
             const join = await conn.watchTable(id, invite);
             while (!conn.view(id)) await new Promise((r) => setTimeout(r, 50));
             const sit = await conn.tableCommand(id, {type: "sit", seat: null, invite});
             return [join.type, sit.type, sit.code || null];
           }""",
        [table],
    )
    assert joined[0] == "ack"
    assert joined[1] == "ack" or joined[2] == "already_seated", joined
    friend_name = friend.locator(".who-name").inner_text()
    seats = api_get(owner, f"/api/tables/{table}")["table"]["seats"]
    assert [s["name"] for s in seats if s] == [seats[0]["name"], friend_name]

    # Without the invite the same table is refused.
    stranger = pages()
    as_guest(stranger)
    wait_online(stranger)
    refused = stranger.evaluate(
        """async ([id]) => (await window.cirulla.conn.send(
             {type: "join", table: id, since: null, invite: null})).code""",
        [table],
    )
    assert refused == "private_table"


# ---- languages ------------------------------------------------------------------------------


def test_italian_for_an_italian_browser_and_english_for_an_english_one(pages: Any) -> None:
    italian = pages(locale="it-IT")
    italian.goto("/")
    italian.get_by_role("button", name="Gioca subito come ospite").wait_for()
    assert italian.evaluate("document.documentElement.lang") == "it"
    english = pages(locale="en-US")
    english.goto("/")
    english.get_by_role("button", name="Play now as guest").wait_for()
    assert english.evaluate("document.documentElement.lang") == "en"
    expect(english.locator(".topnav").get_by_role("link", name="Log in")).to_be_visible()


def test_the_language_switch_changes_the_strings_and_persists(pages: Any) -> None:
    page = pages(locale="it-IT", viewport=PHONE)
    as_guest(page)
    expect(page.get_by_role("heading", name="Tavoli")).to_be_visible()
    with page.expect_response("**/api/me/options"):  # saved before the reload below
        page.locator('.langswitch button[data-lang="en"]').click()
    page.get_by_role("heading", name="Tables").wait_for()
    expect(page.get_by_role("button", name="Create the table")).to_be_visible()
    expect(page.locator(".topnav").get_by_role("link", name="Profile")).to_be_visible()
    assert page.evaluate("document.documentElement.lang") == "en"
    page.reload()
    page.get_by_role("heading", name="Tables").wait_for()
    assert (
        page.locator('.langswitch button[data-lang="en"]').get_attribute("aria-pressed") == "true"
    )
    assert api_get(page, "/api/me")["user"]["options"]["language"] == "en"
    with page.expect_response("**/api/me/options"):
        page.locator('.langswitch button[data-lang="it"]').click()
    page.get_by_role("heading", name="Tavoli").wait_for()
    page.reload()
    page.get_by_role("heading", name="Tavoli").wait_for()
    assert api_get(page, "/api/me")["user"]["options"]["language"] == "it"


def test_the_form_keeps_its_values_through_a_language_switch(pages: Any) -> None:
    page = pages()
    as_guest(page)
    page.get_by_label("Nome del tavolo (facoltativo)").fill("la mia")
    page.get_by_label("Posto 2").select_option("bot:difficile")
    page.locator('.langswitch button[data-lang="en"]').click()
    page.get_by_label("Table name (optional)").wait_for()
    assert page.get_by_label("Table name (optional)").input_value() == "la mia"
    assert page.get_by_label("Seat 2").input_value() == "bot:difficile"
    # Explanations of house rules are translated too.
    page.get_by_text("House rules").click()
    assert "The ace may also make any fifteen." in page.locator(".house-rules").inner_text()


# ---- profile and options --------------------------------------------------------------------


def test_options_are_saved_and_reloaded(pages: Any) -> None:
    page = pages()
    sent: list[dict[str, Any]] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(json.loads(f))))
    as_guest(page)
    wait_online(page)
    page.goto("/profile")
    auto = page.get_by_label("Accuso automatico")
    assert auto.is_checked()  # B8: on by default
    auto.uncheck()
    page.get_by_label("Mazzo").select_option("napoletane")
    preview = page.locator(".deck-preview")
    assert preview.get_attribute("data-style") == "napoletane"
    preview.locator("img, .card-fallback").first.wait_for()
    page.get_by_role("button", name="Salva").click()
    page.get_by_text("Opzioni salvate.").wait_for()
    options = api_get(page, "/api/me")["user"]["options"]
    assert options == {
        "auto_declare": False,
        "deck_style": "napoletane",
        "language": "it",
        "sound": True,
        "volume": 70,
    }
    # ... and automatic declaration switched over the socket too, for the tables in play.
    for _ in range(50):
        if any(f.get("type") == "auto_declare" and f.get("on") is False for f in sent):
            break
        page.wait_for_timeout(100)
    else:
        raise AssertionError(f"no auto_declare frame among {sent}")

    page.reload()
    page.get_by_label("Accuso automatico").wait_for()
    assert not page.get_by_label("Accuso automatico").is_checked()
    assert page.get_by_label("Mazzo").input_value() == "napoletane"

    # The language option: saved, and the page is in English at once.
    page.get_by_role("combobox", name="Lingua").select_option("en")
    page.get_by_role("button", name="Salva").click()
    page.get_by_role("heading", name="Options").wait_for()
    page.get_by_text("Options saved.").wait_for()
    assert api_get(page, "/api/me")["user"]["options"]["language"] == "en"
    screenshot(page, "web-profile")


def test_the_saved_notice_waits_for_the_chosen_language(pages: Any) -> None:
    """Saving another language shows "saved" in that language, however late its catalog
    comes (the notice was once made before the switch, so in the old language)."""
    page = pages()
    as_guest(page)
    wait_online(page)

    def slow_catalog(route: Any) -> None:
        time.sleep(1.5)  # the PUTs of the options have long answered by then
        route.continue_()

    page.route("**/static/i18n/en.json", slow_catalog)
    page.goto("/profile")
    page.get_by_role("combobox", name="Lingua").select_option("en")
    page.get_by_role("button", name="Salva").click()
    page.get_by_role("heading", name="Options").wait_for()
    expect(page.locator(".toast-ok")).to_have_text("Options saved.")
    expect(page.get_by_text("Opzioni salvate.")).to_have_count(0)


# ---- history --------------------------------------------------------------------------------


def test_history_lists_finished_partite_with_replay_links(pages: Any, server: Server) -> None:
    from test_server_play import open_table, play_until

    player = Player(server).register("carla_web").connect()
    table, people = open_table(
        player, [], {"players": 2, "bots": {"1": "facile"}, "options": {"hands": 1}}
    )
    view = play_until(table, people)
    assert view["status"] == "finished"
    player.close()

    page = pages()
    page.goto("/login")
    page.get_by_label("Nome").fill("carla_web")
    page.get_by_label("Password").fill("password123")
    page.get_by_role("button", name="Accedi").last.click()
    page.wait_for_url("**/lobby")
    page.locator(".topnav").get_by_role("link", name="Partite").click()
    page.wait_for_url("**/history")
    item = page.locator(f'.history-item[data-table="{table}"]')
    item.wait_for()
    text = item.inner_text()
    played = len(view["scores"])  # one smazzata, or more after a tie (E4)
    word = "smazzata" if played == 1 else "smazzate"  # by Italian's plural rules
    assert "carla_web" in text and f"{played} {word}" in text
    assert re.search(r"Vinta|Persa|Pari", text)
    replay = item.get_by_role("link", name="Rivedi")
    assert replay.get_attribute("href") == f"/replay/{table}"
    screenshot(page, "web-history")


# ---- catalogs -------------------------------------------------------------------------------

CATALOGS = ("it", "en", "table.it", "table.en")


def catalog_keys(name: str) -> set[str]:
    """The keys of i18n/<name>.js: by node when there is one, else by a regex."""
    path = WEB / "i18n" / f"{name}.js"
    node = shutil.which("node")
    if node:
        script = (
            f"const m = await import({json.dumps(path.as_uri())});"
            "console.log(JSON.stringify(Object.keys(m.default)));"
        )
        out = subprocess.run(
            [node, "--input-type=module", "-e", script],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        return set(json.loads(out.stdout))
    text = path.read_text(encoding="utf-8")
    return set(re.findall(r'^\s*"([^"]+)"\s*:', text, re.M))


def test_the_catalogs_have_the_same_keys() -> None:
    keys = {name: catalog_keys(name) for name in CATALOGS}
    assert keys["it"], "the page catalogs are empty"
    assert keys["it"] == keys["en"], keys["it"] ^ keys["en"]
    assert keys["table.it"] == keys["table.en"], keys["table.it"] ^ keys["table.en"]


def test_every_literal_key_the_pages_use_is_in_the_catalogs(server: Server) -> None:
    # (the lobby lists Cirulo tables with Cirulo's words: i18n.js loads all three catalogs)
    keys = catalog_keys("it") | catalog_keys("table.it") | catalog_keys("cirulo.it")
    used: set[str] = set()
    for path in [WEB / "js" / "app.js", *(WEB / "js" / "pages").glob("*.js")]:
        used |= set(re.findall(r'\bt\("([a-z_]+\.[\w.-]+)"', path.read_text(encoding="utf-8")))
    assert used, "no t(...) calls found"
    # a key written in plural forms ("key.one", "key.other") is chosen by its count
    missing = {k for k in used - keys if f"{k}.other" not in keys}
    assert not missing, sorted(missing)
    # And every key built from the server's names: presets, options, levels, statuses.
    choices = httpx.get(server.base_url + "/api/choices").json()
    for preset in choices["presets"]:
        assert f"preset.{preset}" in keys and f"preset.{preset}.help" in keys
    for option in choices["options"]:
        assert f"option.{option['name']}" in keys and f"option.{option['name']}.help" in keys
    for level in choices["levels"]:
        assert f"level.{level}" in keys and f"level.{level}.help" in keys
    for style in choices["deck_styles"]:
        assert f"deck.{style}" in keys


def test_the_server_serves_the_pages(server: Server) -> None:
    for path in ("/", "/lobby", "/profile", "/history", "/login", "/register", "/table/abc"):
        r = httpx.get(server.base_url + path)
        assert r.status_code == 200 and "/static/js/app.js" in r.text, path
    for path in ("/static/js/app.js", "/static/app.css", "/static/js/pages/lobby.js"):
        assert httpx.get(server.base_url + path).status_code == 200, path
