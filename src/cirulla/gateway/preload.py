"""index.html made for one page: what a phone needs first comes in the first round trip.

The client has no build step: each ES module asks for its imports only once it has
arrived, so on a phone network every level of the import graph costs a round trip
(150 ms on a fast 3G). The HTML of each page therefore lists, as
`<link rel="modulepreload">`, the whole static graph of `app.js` and of the page's own
module, so the browser fetches them all at once. What the page reads first comes in the
HTML itself as JSON data blocks: the catalogs of the reader's language (i18n.js loads
only those; catalog_json joins its three files) and, on the table pages, the decks'
index. The
graph is read from the modules' `import ... from "..."` lines, so the list never goes
stale; the page each address loads mirrors app.js's PAGES, which a test keeps in step.

The stylesheets index.html links are served as one file (`/static/bundle/<hash>.css`,
their plain concatenation in the same order, which is what the browser applies anyway):
one request instead of seven. The files on disk stay the source: the bundle is made
again whenever one of them changes.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path, PurePosixPath
from typing import Final

__all__ = [
    "CATALOGS",
    "PAGE_MODULES",
    "PREFIX_MODULES",
    "CssBundle",
    "catalog_json",
    "css_bundle",
    "data_block",
    "index_html",
    "page_module",
    "static_imports",
]

#: The page module of each address app.js routes (its PAGES), as paths under web/js.
PAGE_MODULES: Final = {
    "/": "pages/welcome.js",
    "/login": "pages/auth.js",
    "/register": "pages/auth.js",
    "/lobby": "pages/lobby.js",
    "/profile": "pages/profile.js",
    "/history": "pages/history.js",
    "/tournaments": "pages/tournaments.js",
    "/wallet": "pages/wallet.js",
    "/leaderboards": "pages/leaderboards.js",
    "/score": "pages/score-keeper.js",
}
PREFIX_MODULES: Final = {
    "/tournament/": "pages/tournament.js",
    "/player/": "pages/player.js",
    "/table/": "table.js",
    "/replay/": "replay.js",
}

#: The catalogs i18n.js imports for one language (its CATALOGS), under web/.
CATALOGS: Final = ("i18n/{lang}.js", "i18n/table.{lang}.js", "i18n/cirulo.{lang}.js")

#: Pages that draw cards as soon as they start: they need the decks' index at once.
_DECK_PAGES: Final = frozenset({"table.js", "replay.js"})

# `import x from "./a.js"`, `import { a, b } from "./a.js"` (over several lines),
# `import "./a.js"`, `export { a } from "./a.js"`; never the dynamic `import("./a.js")`.
_STATIC = re.compile(
    r"^\s*(?:import|export)\b(?:[^;\"'()]*?\bfrom)?\s*[\"']([^\"']+)[\"']", re.MULTILINE
)
_STYLESHEET = re.compile(r'^[ \t]*<link rel="stylesheet" href="/static/([^"]+)">\n', re.MULTILINE)
# What would make a concatenation differ from separate files: rules that must come
# first in a file, or addresses relative to the file.
_NOT_CONCATENABLE = re.compile(r"@import|@charset|url\(", re.IGNORECASE)


def static_imports(web: Path, module: str) -> list[str]:
    """Every module `module` (a path under `web`) needs before it runs, itself first,
    as paths under `web`; a missing file is left out (the browser reports it)."""
    seen: list[str] = []
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen or not (web / name).is_file():
            continue
        seen.append(name)
        text = (web / name).read_text(encoding="utf-8")
        for spec in _STATIC.findall(text):
            if spec.startswith("."):
                target = PurePosixPath(name).parent / spec
                parts: list[str] = []
                for part in target.parts:
                    if part == "..":
                        if parts:
                            parts.pop()
                    elif part != ".":
                        parts.append(part)
                todo.append("/".join(parts))
    return seen


def page_module(path: str) -> str | None:
    """The page module (under web/js) the client loads at `path`, if one is known."""
    found = PAGE_MODULES.get(path)
    if found is not None:
        return found
    for prefix, module in PREFIX_MODULES.items():
        if path.startswith(prefix):
            return module
    return None


@dataclass(frozen=True)
class CssBundle:
    """The stylesheets of index.html as one file: its address and its bytes."""

    href: str
    body: bytes
    gzipped: bytes


def _stylesheets(web: Path) -> list[str]:
    return _STYLESHEET.findall((web / "index.html").read_text(encoding="utf-8"))


def css_bundle(web: Path) -> CssBundle | None:
    """The bundle of index.html's stylesheets as they are on disk now; None when they
    cannot be joined without changing their meaning (then they stay separate)."""
    files = [web / name for name in _stylesheets(web)]
    try:
        stamp = tuple((f.stat().st_mtime_ns, f.stat().st_size) for f in files)
    except OSError:
        return None
    return _bundle(tuple(files), stamp)


@lru_cache(maxsize=4)
def _bundle(files: tuple[Path, ...], stamp: tuple[tuple[int, int], ...]) -> CssBundle | None:
    # `stamp` is part of the cache key only: a changed file makes a new bundle
    del stamp
    parts = [f.read_bytes() for f in files]
    if not parts or any(_NOT_CONCATENABLE.search(p.decode("utf-8")) for p in parts):
        return None
    body = b"".join(
        b"/* " + f.name.encode() + b" */\n" + p + (b"" if p.endswith(b"\n") else b"\n")
        for f, p in zip(files, parts, strict=True)
    )
    digest = hashlib.sha256(body).hexdigest()[:16]
    return CssBundle(f"/static/bundle/{digest}.css", body, gzip.compress(body, 9))


_CATALOG = re.compile(
    r"\A(?:[ \t]*(?://[^\n]*)?\n)*[ \t]*export default (\{.*\});?\s*\Z", re.DOTALL
)


def catalog_json(web: Path, lang: str) -> bytes | None:
    """The catalogs of `lang` (CATALOGS) joined as one JSON object, the later files' keys
    over the earlier ones' as i18n.js merges them: one request instead of three. None
    when a file is not a plain object of strings (then i18n.js imports the modules)."""
    files = [web / c.format(lang=lang) for c in CATALOGS]
    try:
        stamp = tuple((f.stat().st_mtime_ns, f.stat().st_size) for f in files)
    except OSError:
        return None
    return _joined(tuple(files), stamp)


@lru_cache(maxsize=8)
def _joined(files: tuple[Path, ...], stamp: tuple[tuple[int, int], ...]) -> bytes | None:
    del stamp  # part of the cache key only
    merged: dict[str, str] = {}
    for f in files:
        found = _CATALOG.match(f.read_text(encoding="utf-8"))
        if found is None:
            return None
        text = re.sub(r"^[ \t]*//[^\n]*$", "", found.group(1), flags=re.MULTILINE)
        text = re.sub(r",(\s*)\}\Z", r"\1}", text)  # the last entry's comma
        try:
            data = json.loads(text)
        except ValueError:
            return None
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            return None
        merged.update(data)
    return json.dumps(merged, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def data_block(name: str, *parts: str | bytes) -> str:
    """A `<script type="application/json" id=name>` of the JSON text `parts` joined, with
    "<" escaped (valid JSON still) so that no "</script>" in the data can end it early."""
    text = "".join(p.decode("utf-8") if isinstance(p, bytes) else p for p in parts)
    text = text.replace("<", "\\u003c")
    return f'  <script type="application/json" id="{name}">{text}</script>\n'


def _json_file(path: Path) -> str | None:
    """The JSON file at `path`, minified; None when it is missing or not JSON."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return _minified(path, (stat.st_mtime_ns, stat.st_size))


@lru_cache(maxsize=4)
def _minified(path: Path, stamp: tuple[int, int]) -> str | None:
    del stamp  # part of the cache key only
    try:
        return json.dumps(json.loads(path.read_bytes()), separators=(",", ":"))
    except ValueError:
        return None


@cache
def _modules(web: Path, page: str | None) -> tuple[str, ...]:
    modules = static_imports(web, "js/app.js")
    if page is not None:
        modules += [m for m in static_imports(web, f"js/{page}") if m not in modules]
    return tuple(modules)


def index_html(web: Path, page: str | None, lang: str = "it") -> str:
    """index.html for `page` (a module under web/js, or None) read in `lang`: its
    modules preloaded, its catalogs (and on the table pages the decks' index) carried,
    the stylesheets bundled in the place of the first."""
    html = (web / "index.html").read_text(encoding="utf-8")
    bundle = css_bundle(web)
    first = _STYLESHEET.search(html)
    if bundle is not None and first is not None:
        tag = f'  <link rel="stylesheet" href="{bundle.href}">\n'
        html = html[: first.start()] + tag + _STYLESHEET.sub("", html[first.start() :])
    wanted = [m for m in _modules(web, page) if m != "js/app.js"]
    catalog = catalog_json(web, lang)
    if catalog is None:  # i18n.js imports the modules themselves
        wanted += [c.format(lang=lang) for c in CATALOGS]
    preloads = [f'  <link rel="modulepreload" href="/static/{m}">\n' for m in wanted]
    # what the page reads first comes with it, as JSON data blocks (not code: the policy
    # allows no inline script): the catalog i18n.js starts with, the decks' index
    blocks = []
    if catalog is not None:
        blocks.append(data_block("cirulla-catalog", f'{{"lang":"{lang}","texts":', catalog, "}"))
    decks = _json_file(web / "decks" / "index.json") if page in _DECK_PAGES else None
    if decks is not None:
        blocks.append(data_block("cirulla-decks", decks))
    preloads += blocks
    marker = '  <script type="module"'
    return html.replace(marker, "".join(preloads) + marker, 1) if marker in html else html
