"""Issue 15: a page's first load on a phone takes few round trips (benchmarks/web_weight.py).

The HTML carries GET /api/me's answer, so the client neither asks for it nor waits for
it before opening its WebSocket (js/boot.js, inline, opens it while the modules are on
their way, js/socket.js adopts it), and the reader's catalogs (and the decks' index on
the table pages) as JSON data blocks; the stylesheets come as one file, made from the
files on disk; the HTML and the static files are compressed (Brotli, else gzip). The
table's page carries only what its board needs (the part of the catalog and of the
stylesheets its first modules use, inline, the reader's deck as one sprite), joins the
table with the socket's opening (boot.js), and loads what playing does without
(js/table-extras.js) once the board is drawn. Its policy lets run the inline script and
style it carries, by their hashes, and nothing else inline.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browserutil import expect, guest, page_opener
from serverutil import Player, Server, running_server

from cirulla.gateway import minify
from cirulla.gateway.preload import (
    CATALOGS,
    PAGE_STYLESHEETS,
    catalog_json,
    css_bundle,
    data_block,
    deck_sprite,
    index_html,
    key_prefixes,
    page_catalog,
    static_imports,
)
from cirulla.gateway.web import WEB, reader_language


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("web-load"), login_attempts=100_000) as s:
        yield s


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, server.base_url) as open_page:
        yield open_page


def block(html: str, name: str = "cirulla-bootstrap") -> Any:
    """The JSON of the page's data block `name`."""
    found = re.search(rf'<script type="application/json" id="{name}">(.*?)</script>', html)
    assert found, f"no {name} block"
    return json.loads(found.group(1))


# ---- the HTML --------------------------------------------------------------------------------


def test_the_html_carries_what_api_me_answers_and_is_private(server: Server) -> None:
    anonymous = httpx.get(f"{server.base_url}/lobby")
    assert block(anonymous.text) == {"me": None}
    player = Player(server).guest()
    page = player.http.get("/lobby")
    assert page.headers["cache-control"] == "private, no-cache"
    assert "Cookie" in page.headers["vary"]
    assert block(page.text)["me"] == player.http.get("/api/me").json()


def test_the_bootstrap_block_cannot_be_closed_by_its_data() -> None:
    name = "</script><script>alert(1)</script>"
    text = data_block("x", json.dumps({"me": {"user": {"name": name}}}))
    assert text.count("</script>") == 1 and "\\u003c/script>" in text
    assert block(text, "x")["me"]["user"]["name"] == name


def test_the_html_and_static_files_come_compressed_as_the_browser_accepts(
    server: Server,
) -> None:
    for path in ("/", "/static/js/table.js", "/static/i18n/it.json"):
        plain = httpx.get(f"{server.base_url}{path}", headers={"Accept-Encoding": "identity"})
        assert plain.status_code == 200 and "content-encoding" not in plain.headers
        for offered, coding in (("gzip", "gzip"), ("gzip, deflate, br, zstd", "br")):
            raw = httpx.get(f"{server.base_url}{path}", headers={"Accept-Encoding": offered})
            assert raw.headers["content-encoding"] == coding, (path, offered)
            assert "Accept-Encoding" in raw.headers["vary"]
            assert raw.content == plain.content  # (httpx decodes both)
            assert int(raw.headers["content-length"]) < len(plain.content) / 2
        refused = httpx.get(f"{server.base_url}{path}", headers={"Accept-Encoding": "br;q=0"})
        assert "content-encoding" not in refused.headers


@pytest.mark.parametrize(
    ("cookie", "accept", "lang"),
    [
        ("en", "it-IT,it;q=0.9", "en"),  # the reader's own choice first
        (None, "it-IT,it;q=0.9,en;q=0.8", "it"),
        (None, "de-DE,en;q=0.8,it;q=0.5", "en"),
        (None, "en;q=0.2,it;q=0.7", "it"),  # by weight, not by order
        (None, "de,fr", "en"),
        ("xx", None, "en"),
        (None, "it;q=0", "en"),  # q=0: not acceptable
    ],
)
def test_the_server_guesses_the_language_i18n_js_starts_in(
    cookie: str | None, accept: str | None, lang: str
) -> None:
    assert reader_language(cookie, accept) == lang


def test_a_page_carries_the_catalog_of_its_readers_language(server: Server) -> None:
    def carried(**headers: str) -> str:
        catalog = block(
            httpx.get(f"{server.base_url}/lobby", headers=headers).text, "cirulla-catalog"
        )
        assert catalog["texts"]["lobby.title"] == {"it": "Tavoli", "en": "Tables"}[catalog["lang"]]
        return str(catalog["lang"])

    assert carried(**{"Accept-Language": "it-IT"}) == "it"
    assert carried(**{"Accept-Language": "en-GB"}) == "en"
    assert carried(**{"Accept-Language": "it-IT", "Cookie": "cirulla_lang=en"}) == "en"
    # the decks' index (what cards.js reads of it) on the pages that draw cards at once
    table = httpx.get(f"{server.base_url}/table/somewhere").text
    index = json.loads((WEB / "decks" / "index.json").read_text())["styles"]
    assert block(table, "cirulla-decks") == {
        "styles": {s: {"cards": d["cards"], "back": d["back"]} for s, d in index.items()}
    }
    assert 'id="cirulla-decks"' not in httpx.get(f"{server.base_url}/lobby").text


# ---- the stylesheets, as one file ------------------------------------------------------------


def test_the_stylesheets_come_as_one_file_of_the_same_rules_in_the_same_order(
    server: Server,
) -> None:
    html = (WEB / "index.html").read_text(encoding="utf-8")
    sources = re.findall(r'<link rel="stylesheet" href="/static/([^"]+)">', html)
    assert len(sources) > 1
    page = httpx.get(f"{server.base_url}/profile").text  # a page that links them all
    hrefs = re.findall(r'<link rel="stylesheet" href="([^"]+)">', page)
    assert len(hrefs) == 1 and re.fullmatch(r"/static/bundle/[0-9a-f]{16}\.css", hrefs[0])
    r = httpx.get(f"{server.base_url}{hrefs[0]}", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/css")
    assert "immutable" in r.headers["cache-control"] and r.headers["content-encoding"] == "gzip"
    at = 0
    for name in sources:  # every file whole (minified), in index.html's order
        at = r.text.index(minify.stylesheet((WEB / name).read_text(encoding="utf-8")), at)
    stale = httpx.get(f"{server.base_url}/static/bundle/0000000000000000.css")
    assert stale.status_code == 404 and stale.json()["error"]["code"] == "not_found"


def web_copy(tmp_path: Path) -> Path:
    web = tmp_path / "web"
    (web / "js").mkdir(parents=True)
    (web / "i18n").mkdir()
    (web / "index.html").write_text(
        "<head>\n  <title>x</title>\n"
        '  <link rel="stylesheet" href="/static/a.css">\n'
        '  <link rel="stylesheet" href="/static/b.css">\n'
        '  <script type="module" src="/static/js/app.js"></script>\n</head>\n',
        encoding="utf-8",
    )
    (web / "js" / "app.js").write_text("export const x = 1;\n", encoding="utf-8")
    (web / "a.css").write_text(".a { color: red; }\n", encoding="utf-8")
    (web / "b.css").write_text(".b { color: blue; }", encoding="utf-8")
    return web


def test_a_changed_stylesheet_makes_a_new_bundle_and_one_that_cannot_be_joined_stays_apart(
    tmp_path: Path,
) -> None:
    web = web_copy(tmp_path)
    first = css_bundle(web)
    assert first is not None and first.body.index(b".a{") < first.body.index(b".b{")
    (web / "b.css").write_text(".b { color: green; }\n", encoding="utf-8")
    second = css_bundle(web)
    assert second is not None and second.href != first.href and b"green" in second.body
    # relative addresses and @import mean something else once moved: the files stay apart
    (web / "b.css").write_text('.b { background: url("x.svg"); }\n', encoding="utf-8")
    assert css_bundle(web) is None
    html = index_html(web, None, "it")
    assert 'href="/static/a.css"' in html and 'href="/static/b.css"' in html


# ---- the catalogs, as one JSON ---------------------------------------------------------------


def test_a_languages_catalogs_joined_are_the_catalogs_i18n_js_would_merge(tmp_path: Path) -> None:
    web = web_copy(tmp_path)
    texts = {
        "i18n/it.js": (
            '// pages\nexport default {\n  "a": "uno",\n\n  // b\n  "b": "d\\u00f9e",\n};\n'
        ),
        "i18n/table.it.js": 'export default {\n  "b": "due",\n  "c": "tre \\"3\\""\n};\n',
        "i18n/cirulo.it.js": "export default {};\n",
    }
    assert sorted(texts) == sorted(c.format(lang="it") for c in CATALOGS)
    for name, text in texts.items():
        (web / name).write_text(text, encoding="utf-8")
    joined = catalog_json(web, "it")
    assert joined is not None and json.loads(joined) == {"a": "uno", "b": "due", "c": 'tre "3"'}
    assert block(index_html(web, None, "it"), "cirulla-catalog") == {
        "lang": "it",
        "texts": {"a": "uno", "b": "due", "c": 'tre "3"'},
    }
    # anything but an object of strings is left to the modules themselves
    (web / "i18n" / "cirulo.it.js").write_text('export default { "n": 1 };\n', encoding="utf-8")
    assert catalog_json(web, "it") is None
    html = index_html(web, None, "it")
    assert "cirulla-catalog" not in html
    assert 'modulepreload" href="/static/i18n/table.it.js"' in html


def test_the_served_catalogs_equal_the_modules_as_the_browser_evaluates_them(
    pages: Any, server: Server
) -> None:
    page = pages()
    page.goto("/score")  # any page: only its origin matters
    for lang in ("it", "en"):
        modules = [f"/static/{c.format(lang=lang)}" for c in CATALOGS]
        same = page.evaluate(
            """async ([modules, json]) => {
                const loaded = await Promise.all(modules.map((m) => import(m)));
                const merged = Object.assign({}, ...loaded.map((m) => m.default));
                const served = await (await fetch(json)).json();
                const same = JSON.stringify(served) === JSON.stringify(merged);
                return same && Object.keys(merged).length > 100;
            }""",
            [modules, f"/static/i18n/{lang}.json"],
        )
        assert same, lang
    assert httpx.get(f"{server.base_url}/static/i18n/xx.json").status_code == 404


# ---- in the browser --------------------------------------------------------------------------


def test_a_page_asks_nothing_before_its_socket_and_uses_one_socket(pages: Any) -> None:
    page = pages()
    guest(page)
    asked: list[str] = []
    sockets: list[Any] = []
    page.on("request", lambda r: asked.append(r.url))
    page.on("websocket", lambda ws: sockets.append(ws))
    page.goto("/lobby")
    expect(page.locator(".conn-status")).to_have_attribute("data-status", "online")
    expect(page.locator(".lobby-list")).to_have_attribute("aria-busy", "false")
    expect(page.locator(".create-form")).to_be_visible()  # loaded after the list
    page.wait_for_load_state("networkidle")
    assert not [u for u in asked if u.endswith("/api/me")]  # the HTML carried it
    assert len(sockets) == 1  # boot.js's, adopted by socket.js
    # the HTML carried the list's part of the catalog; the whole one comes once, after it
    assert [u.split("/static/")[-1] for u in asked if "/i18n/" in u] == ["i18n/it.json"]


def test_switching_language_loads_the_other_catalog_then_redraws(pages: Any) -> None:
    page = pages()
    guest(page)
    page.goto("/lobby")
    expect(page.locator(".lobby-tables h1")).to_have_text("Tavoli")
    with page.expect_response("**/static/i18n/en.json"):
        page.locator('button.lang[data-lang="en"]').click()
    expect(page.locator(".lobby-tables h1")).to_have_text("Tables")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    # the next page's HTML preloads the language chosen (the cookie i18n.js wrote)
    page.reload()
    expect(page.locator(".lobby-tables h1")).to_have_text("Tables")
    assert json.loads(page.locator("#cirulla-catalog").text_content() or "")["lang"] == "en"


def test_a_cirulla_table_loads_none_of_the_cirulo_modules(pages: Any) -> None:
    page = pages()
    guest(page)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    r = page.request.post(
        "/api/tables", data={"config": {"players": 2, "bots": {"1": "facile"}}, "seat": 0}
    )
    assert r.status == 201, r.text()
    page.goto(f"/table/{r.json()['table']['id']}")
    expect(page.locator(".hand-card").first).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert not [u for u in asked if "/cirulo-" in u]


# ---- the table's page: only what the board needs ---------------------------------------------


def test_the_table_page_carries_the_readers_deck_and_the_part_of_the_catalog_it_uses(
    server: Server,
) -> None:
    player = Player(server).guest()
    assert player.http.put("/api/me/options", json={"deck_style": "piacentine"}).status_code == 200
    html = player.http.get("/table/somewhere", headers={"Accept-Language": "it-IT"}).text
    deck = block(html, "cirulla-deck")
    assert deck["style"] == "piacentine" and deck["viewBox"] == "0 0 200 300"
    assert len(deck["cards"]) == 41  # 40 cards and the back
    seven = (WEB / "decks" / "piacentine" / "7H.svg").read_text(encoding="utf-8")
    assert deck["cards"]["7H"].split("<defs>")[1] in seven.replace("\n", "")
    assert "<title" not in deck["cards"]["7H"]  # and block() read it whole: no early </script>
    # logged out, or a style without a deck: no sprite (the cards come one file each)
    assert 'id="cirulla-deck"' not in httpx.get(f"{server.base_url}/table/somewhere").text
    assert deck_sprite(WEB, "spagnole") is None and deck_sprite(WEB, "../x") is None
    # the part of the catalog the board's modules use, said to be a part
    catalog = block(html, "cirulla-catalog")
    assert catalog["lang"] == "it" and catalog["partial"] is True
    assert catalog["texts"]["table.status.your_turn"] == "Tocca a te"
    assert "lobby.title" in catalog_json_texts("it")
    assert not [k for k in catalog["texts"] if k.startswith(("tournament.", "keeper.", "cirulo."))]
    # the lobby carries its own part; a page that does not carries the whole catalog
    lobby = block(
        player.http.get("/lobby", headers={"Accept-Language": "it-IT"}).text, "cirulla-catalog"
    )
    assert lobby["partial"] is True and lobby["texts"]["lobby.sit"] == "Siediti"
    assert "keeper.title" not in lobby["texts"] and "profile.title" not in lobby["texts"]
    profile = block(player.http.get("/profile").text, "cirulla-catalog")
    assert "partial" not in profile and profile["texts"] == catalog_json_texts(profile["lang"])


def catalog_json_texts(lang: str) -> dict[str, str]:
    joined = catalog_json(WEB, lang)
    assert joined is not None
    texts: dict[str, str] = json.loads(joined)
    return texts


def test_every_key_the_table_pages_first_modules_name_is_in_its_part_of_the_catalog() -> None:
    """A key the board's modules use and the part left out would show as its name."""
    part = page_catalog(WEB, "it", "table.js")
    assert part is not None
    kept = json.loads(part)
    modules = static_imports(WEB, "js/app.js") + static_imports(WEB, "js/table.js")
    named = set()
    for module in modules:
        text = (WEB / module).read_text(encoding="utf-8")
        named |= set(re.findall(r"\b(?:t|plural|hasKey)\(\"([a-z_]+\.[a-z0-9_.]+)\"", text))
    assert len(named) > 40
    whole = catalog_json_texts("it")
    missing = [
        k
        for k in named
        if (k in whole or f"{k}.other" in whole) and k not in kept and f"{k}.other" not in kept
    ]
    assert not missing
    assert {"table", "nav", "title", "status"} <= key_prefixes(WEB, "table.js")


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_the_table_page_carries_the_part_of_the_stylesheets_it_uses_and_the_whole_beside(
    server: Server,
) -> None:
    table = httpx.get(f"{server.base_url}/table/somewhere")
    found = re.findall(r'<style data-full="([^"]+)">(.*?)</style>', table.text, re.DOTALL)
    assert len(found) == 1
    whole_href, style = found[0]
    whole = css_bundle(WEB)
    part = css_bundle(WEB, PAGE_STYLESHEETS["table.js"])
    assert whole is not None and part is not None
    assert whole_href == whole.href and style == part.body.decode()
    r = httpx.get(f"{server.base_url}{whole_href}")
    assert r.status_code == 200 and r.content == whole.body
    assert b"/* table.css */" in part.body and b"/* tournaments.css */" not in part.body
    assert '<link rel="stylesheet"' not in table.text
    profile = httpx.get(f"{server.base_url}/profile").text
    assert "data-full" not in profile and f'<link rel="stylesheet" href="{whole.href}">' in profile
    lobby = httpx.get(f"{server.base_url}/lobby")
    lobby_part = css_bundle(WEB, PAGE_STYLESHEETS["pages/lobby.js"])
    assert lobby_part is not None
    assert f'<style data-full="{whole.href}">{lobby_part.body.decode()}</style>' in lobby.text
    # each page's policy lets run its inline script (boot.js) and style, by their hashes:
    # every answer's policy, with those two sources added and nothing else
    boot = minify.script((WEB / "js" / "boot.js").read_text(encoding="utf-8"))
    assert f"<script>{boot}</script>" in table.text
    other = httpx.get(f"{server.base_url}/static/js/app.js").headers["content-security-policy"]
    for page, css in ((table, part), (lobby, lobby_part)):
        policy = page.headers["content-security-policy"]
        assert "'unsafe-inline'" not in policy
        allowed = policy.replace(f" {sha256(boot)}", "").replace(
            f" {sha256(css.body.decode())}", ""
        )
        assert allowed == other and policy != other
    assert re.findall(
        r"'sha256-[^']+'",
        httpx.get(f"{server.base_url}/profile").headers["content-security-policy"],
    ) == [sha256(boot)]


def test_the_table_page_plays_from_what_it_carried_and_loads_the_rest_after(
    pages: Any, server: Server
) -> None:
    page = pages()
    guest(page)
    assert page.request.put("/api/me/options", data={"deck_style": "french"}).ok
    page.add_init_script(WATCH_POLICY)
    asked: list[str] = []
    sent: list[dict[str, Any]] = []
    received: list[dict[str, Any]] = []
    page.on("request", lambda r: asked.append(r.url.replace(server.base_url, "")))

    def watch(ws: Any) -> None:
        ws.on("framesent", lambda f: sent.append(json.loads(f)))
        ws.on("framereceived", lambda f: received.append(json.loads(f)))

    page.on("websocket", watch)
    r = page.request.post(
        "/api/tables", data={"config": {"players": 2, "bots": {"1": "facile"}}, "seat": 0}
    )
    assert r.status == 201, r.text()
    table = r.json()["table"]["id"]
    page.goto(f"/table/{table}")
    hand = page.locator(".hand-card")
    expect(hand.first).to_be_visible()
    # the cards are drawn from the sprite the HTML carried: no file per card
    art = hand.first.locator("svg.card-art use")
    expect(art).to_have_attribute("href", re.compile(r"^#deck-french-[A2-7JQK][DHCS]$"))
    expect(page.locator(".deck-sprite symbol").first).to_be_attached()
    # what playing does without comes after, and the whole catalog and stylesheets with it
    expect(page.locator(".table-options")).to_be_visible()
    expect(page.locator(".chat-panel .chat-phrases button").first).to_have_text("Ciao!")
    expect(page.locator("[data-full]")).to_have_count(0)
    page.wait_for_load_state("networkidle")
    assert not [u for u in asked if u.startswith("/static/decks/")]
    assert "/static/i18n/it.json" in asked
    first_module = next(i for i, u in enumerate(asked) if u.startswith("/static/js/"))
    later = [u for u in asked[first_module:] if u.endswith("/table-extras.js")]
    assert later, asked
    # the table was joined as the socket opened, and its view came once
    joins = [f for f in sent if f.get("type") == "join" and f.get("table") == table]
    assert joins[0]["action"].startswith("boot-") and joins[0]["since"] is None
    assert all(j["since"] is not None for j in joins[1:])
    assert len([f for f in received if f.get("type") == "sync" and f.get("table") == table]) == 1
    # a page after the first has the whole catalog and stylesheets
    page.locator(".topnav a[href='/lobby']").click()
    expect(page.locator(".lobby-tables h1")).to_have_text("Tavoli")
    # the inline script and style ran under the page's policy, and nothing was refused
    assert page.evaluate("() => window.__violations") == []


# Every refusal of the page's Content-Security-Policy, from the document's start.
WATCH_POLICY = """window.__violations = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));"""

# Where the first card of the hand was in the first frame the player could tap it.
FIRST_BOX = """(() => {
  const look = () => {
    const el = document.querySelector('.board[data-legal] .hand-card');
    if (!el || !el.getClientRects().length) return requestAnimationFrame(look);
    const r = el.getBoundingClientRect();
    window.__firstCard = { code: el.dataset.code, x: r.x + scrollX, y: r.y + scrollY };
  };
  requestAnimationFrame(look);
})();"""


@pytest.mark.parametrize(
    "viewport", [{"width": 390, "height": 844}, {"width": 1280, "height": 900}]
)
def test_nothing_under_the_players_finger_moves_when_the_rest_arrives(
    pages: Any, viewport: dict[str, int]
) -> None:
    """What comes after the board (table-extras.js, the whole stylesheets) takes places
    kept for it: the hand stays where it was first drawn."""
    page = pages(viewport=viewport)
    guest(page)
    page.add_init_script(FIRST_BOX)
    r = page.request.post(
        "/api/tables", data={"config": {"players": 2, "bots": {"1": "facile"}}, "seat": 0}
    )
    assert r.status == 201, r.text()
    page.goto(f"/table/{r.json()['table']['id']}")
    page.wait_for_function("() => window.__firstCard")
    # all of it here: the options' popover, chat, the whole stylesheets and catalog
    expect(page.locator(".table-options .table-options-panel")).to_be_attached()
    expect(page.locator(".chat-panel .chat-phrases button").first).to_be_visible()
    expect(page.locator("[data-full]")).to_have_count(0)
    first = page.evaluate("() => window.__firstCard")
    now = page.locator(f".hand-card[data-code='{first['code']}']").evaluate(
        "e => { const r = e.getBoundingClientRect(); return {x: r.x + scrollX, y: r.y + scrollY}; }"
    )
    assert abs(now["x"] - first["x"]) < 1 and abs(now["y"] - first["y"]) < 1, (first, now)


FIRST_SEAT_BUTTON = """(() => {
  const look = () => {
    const el = document.querySelector('.lobby-table button[data-action]');
    if (!el || !el.getClientRects().length) return requestAnimationFrame(look);
    const r = el.getBoundingClientRect();
    window.__firstButton = { table: el.dataset.table, x: r.x + scrollX, y: r.y + scrollY };
  };
  requestAnimationFrame(look);
})();"""


@pytest.mark.parametrize(
    "viewport", [{"width": 390, "height": 844}, {"width": 1280, "height": 900}]
)
def test_the_lobbys_buttons_stay_where_they_were_when_the_rest_arrives(
    pages: Any, server: Server, viewport: dict[str, int]
) -> None:
    Player(server).guest().create_table({"name": "fermo", "players": 2})
    page = pages(viewport=viewport)
    guest(page)
    page.add_init_script(FIRST_SEAT_BUTTON)
    page.goto("/lobby")
    page.wait_for_function("() => window.__firstButton")
    # the form, the tournaments, the chat, the whole stylesheets: all here now
    expect(page.locator(".create-form")).to_be_visible()
    expect(page.locator(".chat-panel")).to_be_visible()
    expect(page.locator("[data-full]")).to_have_count(0)
    first = page.evaluate("() => window.__firstButton")
    button = page.locator(f".lobby-table[data-table='{first['table']}'] button[data-action]")
    now = button.first.evaluate(
        "e => { const r = e.getBoundingClientRect(); return {x: r.x + scrollX, y: r.y + scrollY}; }"
    )
    assert abs(now["x"] - first["x"]) < 1 and abs(now["y"] - first["y"]) < 1, (first, now)
