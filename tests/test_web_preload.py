"""Each page's HTML preloads the ES modules it will import (gateway/preload.py), so a
phone fetches them at once rather than one level of the import graph per round trip."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from serverutil import running_server

from cirulla.gateway.preload import PAGE_MODULES, PREFIX_MODULES, page_module, static_imports
from cirulla.gateway.web import PAGES, WEB


def test_the_page_modules_are_those_app_js_imports_for_each_page() -> None:
    """The server's address -> page module list follows app.js's PAGES (a page added to
    one and not the other fails here)."""
    app = (WEB / "js" / "app.js").read_text(encoding="utf-8")
    pages = re.findall(r'\[\(\) => import\("([^"]+)"\), "mount', app)
    dynamic = {m.removeprefix("./") for m in pages}
    assert dynamic == set(PAGE_MODULES.values()) | set(PREFIX_MODULES.values())
    assert set(PAGE_MODULES) == set(PAGES)
    assert page_module("/table/abc") == "table.js" and page_module("/nowhere") is None


def test_static_imports_follow_every_form_of_import_and_never_a_dynamic_one(
    tmp_path: Path,
) -> None:
    (tmp_path / "js" / "pages").mkdir(parents=True)
    (tmp_path / "i18n").mkdir()
    files = {
        "js/main.js": 'import { a,\n  b } from "./a.js";\nimport "./pages/side.js";\n'
        'export { c } from "./c.js";\nconst later = () => import("./lazy.js");\n',
        "js/a.js": 'import en from "../i18n/en.js";\nexport const a = 1, b = 2;\n',
        "js/pages/side.js": 'import { a } from "../a.js";\n',
        "js/c.js": "export const c = 3;\n",
        "js/lazy.js": "export const lazy = 4;\n",
        "i18n/en.js": "export default {};\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    found = static_imports(tmp_path, "js/main.js")
    assert found[0] == "js/main.js"
    assert sorted(found) == sorted(set(files) - {"js/lazy.js"})


def test_a_served_page_preloads_its_modules_and_each_exists(tmp_path: Path) -> None:
    with running_server(tmp_path) as server, httpx.Client(base_url=server.base_url) as http:
        table = http.get("/table/somewhere")
        assert table.status_code == 200 and "no-cache" in table.headers["cache-control"]
        hrefs = re.findall(r'<link rel="modulepreload" href="([^"]+)">', table.text)
        assert "/static/js/table.js" in hrefs and "/static/js/socket.js" in hrefs
        assert len(hrefs) == len(set(hrefs))
        for href in hrefs:
            assert http.get(href).status_code == 200, href
        lobby = re.findall(r'modulepreload" href="([^"]+)"', http.get("/lobby").text)
        assert "/static/js/pages/lobby.js" in lobby and "/static/js/table.js" not in lobby
        # the Cirulo table's modules come only for a Cirulo table (table.js imports them late)
        assert not [h for h in hrefs if "/cirulo-" in h]
        assert 'id="cirulla-decks"' in table.text  # the decks' index comes with it
