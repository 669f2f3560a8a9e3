"""Issue 15: a page's first load on a phone takes few round trips (benchmarks/web_weight.py).

The HTML carries GET /api/me's answer, so the client neither asks for it nor waits for
it before opening its WebSocket (js/boot.js opens it while the modules are on their
way, js/socket.js adopts it), and the reader's catalogs (and the decks' index on the
table pages) as JSON data blocks; the stylesheets come as one file, made from the
files on disk; the HTML is gzipped.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browserutil import expect, guest, page_opener
from serverutil import Player, Server, running_server

from cirulla.gateway.preload import CATALOGS, catalog_json, css_bundle, data_block, index_html
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


def test_the_html_is_gzipped_when_the_browser_accepts_it(server: Server) -> None:
    raw = httpx.get(f"{server.base_url}/", headers={"Accept-Encoding": "gzip"})
    assert raw.headers["content-encoding"] == "gzip" and "<title>Cirulla</title>" in raw.text
    plain = httpx.get(f"{server.base_url}/", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and "<title>Cirulla</title>" in plain.text


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
    # the decks' index on the pages that draw cards at once
    table = httpx.get(f"{server.base_url}/table/somewhere").text
    assert block(table, "cirulla-decks") == json.loads((WEB / "decks" / "index.json").read_text())
    assert 'id="cirulla-decks"' not in httpx.get(f"{server.base_url}/lobby").text


# ---- the stylesheets, as one file ------------------------------------------------------------


def test_the_stylesheets_come_as_one_file_of_the_same_rules_in_the_same_order(
    server: Server,
) -> None:
    html = (WEB / "index.html").read_text(encoding="utf-8")
    sources = re.findall(r'<link rel="stylesheet" href="/static/([^"]+)">', html)
    assert len(sources) > 1
    page = httpx.get(f"{server.base_url}/lobby").text
    hrefs = re.findall(r'<link rel="stylesheet" href="([^"]+)">', page)
    assert len(hrefs) == 1 and re.fullmatch(r"/static/bundle/[0-9a-f]{16}\.css", hrefs[0])
    r = httpx.get(f"{server.base_url}{hrefs[0]}", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/css")
    assert "immutable" in r.headers["cache-control"] and r.headers["content-encoding"] == "gzip"
    at = 0
    for name in sources:  # every file whole, in index.html's order
        at = r.text.index((WEB / name).read_text(encoding="utf-8"), at)
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
    assert first is not None and first.body.index(b".a {") < first.body.index(b".b {")
    assert gzip.decompress(first.gzipped) == first.body
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
    assert not [u for u in asked if "/i18n/" in u]  # the HTML carried the catalog too


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
