"""index.html made for one page: what a phone needs first comes in the first round trip.

The client has no build step: each ES module asks for its imports only once it has
arrived, so on a phone network every level of the import graph costs a round trip
(150 ms on a fast 3G). The HTML of each page therefore lists, as
`<link rel="modulepreload">`, the whole static graph of `app.js` and of the page's own
module, so the browser fetches them all at once. What the page reads first comes in the
HTML itself as JSON data blocks: the catalogs of the reader's language (i18n.js loads
only those; catalog_json joins its three files) and, on the pages that draw cards at
once, the decks' index and the reader's deck as one sprite (deck_sprite: its 41 SVG
files would be 41 requests after the board is drawn, the cards blank until then). The
graph is read from the modules' `import ... from "..."` lines, so the list never goes
stale; the page each address loads mirrors app.js's PAGES, which a test keeps in step.

The stylesheets index.html links are served as one file (`/static/bundle/<hash>.css`,
their concatenation in the same order, which is what the browser applies anyway, each
minified as every script and stylesheet served is, minify.py):
one request instead of seven. The files on disk stay the source: the bundle is made
again whenever one of them changes. The table's page carries only the stylesheets it
uses (PAGE_STYLESHEETS; the lobby's too) in a `<style>`, with the whole bundle's address
beside it (`data-full`): the client adds that one once the page is drawn, then drops the
part (the whole bundle alone decides every rule, as it repeats the part's rules later).

HTTP/1.1 gives a page six connections to its host, so each request past the sixth waits
for one of them: a round trip more (150 ms on a fast 3G). Hence js/boot.js comes inline
too, and the table's page then asks for its 12 modules in two rounds rather than three.
The page's Content-Security-Policy allows exactly these inline texts by their SHA-256
(inline_hashes), and no other. The preloads come first in the head, so that the
browser asks for the modules before it has read the rest.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path, PurePosixPath
from typing import Final

from . import minify

__all__ = [
    "CATALOGS",
    "PAGE_MODULES",
    "PAGE_STYLESHEETS",
    "PREFIX_MODULES",
    "CssBundle",
    "catalog_json",
    "css_bundle",
    "css_bundle_at",
    "data_block",
    "deck_index",
    "deck_sprite",
    "index_html",
    "inline_hashes",
    "key_prefixes",
    "page_catalog",
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

#: The stylesheets (of index.html's) that a page's first paint needs, when not all of them.
PAGE_STYLESHEETS: Final = {
    "table.js": ("app.css", "table.css", "competition.css", "chat.css"),
    "pages/lobby.js": ("app.css", "cirulo.css", "tournaments.css", "competition.css", "chat.css"),
}

#: Pages whose HTML carries only the part of the catalog their first modules use
#: (page_catalog): the table and the lobby, where a phone must be able to act soonest.
#: i18n.js fetches the whole catalog after the first page is drawn; what comes later
#: waits for it.
_PART_CATALOG_PAGES: Final = frozenset({"table.js", "pages/lobby.js"})

# What a key's first part looks like in a module: "table.status", `title.${page}`.
_KEY_PREFIX = re.compile(r"[\"'`]([a-z][a-z_]*)\.(?=[a-z_{$])")

# `import x from "./a.js"`, `import { a, b } from "./a.js"` (over several lines),
# `import "./a.js"`, `export { a } from "./a.js"`; never the dynamic `import("./a.js")`.
_STATIC = re.compile(
    r"^\s*(?:import|export)\b(?:[^;\"'()]*?\bfrom)?\s*[\"']([^\"']+)[\"']", re.MULTILINE
)
_STYLESHEET = re.compile(r'^[ \t]*<link rel="stylesheet" href="/static/([^"]+)">\n', re.MULTILINE)
# index.html's boot.js (carried inline) and app.js (moved up, after the preloads)
_BOOT = re.compile(r'^[ \t]*<script src="/static/(js/boot\.js)"[^>]*></script>\n', re.MULTILINE)
_APP = re.compile(r'^[ \t]*<script type="module" src="[^"]+"></script>\n', re.MULTILINE)
_TITLE_END = "</title>\n"
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


def _stylesheets(web: Path) -> list[str]:
    return _STYLESHEET.findall((web / "index.html").read_text(encoding="utf-8"))


def css_bundle(web: Path, only: tuple[str, ...] | None = None) -> CssBundle | None:
    """The bundle of index.html's stylesheets as they are on disk now (`only` those of
    them, in index.html's order); None when they cannot be joined without changing
    their meaning (then they stay separate)."""
    files = [web / name for name in _stylesheets(web) if only is None or name in only]
    try:
        stamp = tuple((f.stat().st_mtime_ns, f.stat().st_size) for f in files)
    except OSError:
        return None
    return _bundle(tuple(files), stamp)


def css_bundle_at(web: Path, href: str) -> CssBundle | None:
    """The bundle (whole, or a page's part) served at `href`, as the files are now."""
    for only in (None, *PAGE_STYLESHEETS.values()):
        bundle = css_bundle(web, only)
        if bundle is not None and bundle.href == href:
            return bundle
    return None


@lru_cache(maxsize=8)
def _bundle(files: tuple[Path, ...], stamp: tuple[tuple[int, int], ...]) -> CssBundle | None:
    # `stamp` is part of the cache key only: a changed file makes a new bundle
    del stamp
    parts = [f.read_bytes() for f in files]
    if not parts or any(_NOT_CONCATENABLE.search(p.decode("utf-8")) for p in parts):
        return None
    # each file minified (minify.py), after a comment that names it
    body = b"".join(
        b"/* " + f.name.encode() + b" */\n" + minify.stylesheet(p.decode("utf-8")).encode() + b"\n"
        for f, p in zip(files, parts, strict=True)
    )
    digest = hashlib.sha256(body).hexdigest()[:16]
    return CssBundle(f"/static/bundle/{digest}.css", body)


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


def key_prefixes(web: Path, page: str | None) -> frozenset[str]:
    """The first parts of the catalog keys the modules of `page` (its static graph and
    app.js's) may use: every string in them that starts like a key ("table.", `title.`).
    A string that only looks like one keeps a few keys more, never fewer."""
    files = tuple(web / module for module in _modules(web, page))
    try:
        stamp = tuple((f.stat().st_mtime_ns, f.stat().st_size) for f in files)
    except OSError:
        stamp = ()
    return _prefixes(files, stamp)


@lru_cache(maxsize=8)
def _prefixes(files: tuple[Path, ...], stamp: tuple[tuple[int, int], ...]) -> frozenset[str]:
    del stamp  # part of the cache key only
    found: set[str] = set()
    for f in files:
        if f.is_file():
            found.update(_KEY_PREFIX.findall(f.read_text(encoding="utf-8")))
    return frozenset(found)


def page_catalog(web: Path, lang: str, page: str | None) -> bytes | None:
    """The part of `lang`'s catalog (catalog_json) whose keys start with a prefix the
    page's first modules use (key_prefixes); None when the whole catalog is None."""
    whole = catalog_json(web, lang)
    return None if whole is None else _part(whole, key_prefixes(web, page))


@lru_cache(maxsize=8)
def _part(whole: bytes, prefixes: frozenset[str]) -> bytes:
    texts = json.loads(whole)
    part = {k: v for k, v in texts.items() if k.split(".", 1)[0] in prefixes}
    return json.dumps(part, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def data_block(name: str, *parts: str | bytes) -> str:
    """A `<script type="application/json" id=name>` of the JSON text `parts` joined, with
    "</" and "<!" escaped (valid JSON still: "<" appears only in its strings) so that no
    "</script>" or "<!--" in the data can end it early; other "<" stay one byte (an SVG
    deck is full of them)."""
    text = "".join(p.decode("utf-8") if isinstance(p, bytes) else p for p in parts)
    text = text.replace("</", "\\u003c/").replace("<!", "\\u003c!")
    return f'  <script type="application/json" id="{name}">{text}</script>\n'


def deck_index(web: Path) -> str | None:
    """decks/index.json as the client reads it (cards.js): each style's cards and back,
    without the names, corners and palettes the deck generator wrote there."""
    path = web / "decks" / "index.json"
    try:
        stat = path.stat()
    except OSError:
        return None
    return _deck_index(path, (stat.st_mtime_ns, stat.st_size))


@lru_cache(maxsize=2)
def _deck_index(path: Path, stamp: tuple[int, int]) -> str | None:
    del stamp  # part of the cache key only
    try:
        styles = json.loads(path.read_bytes())["styles"]
        kept = {s: {"cards": d["cards"], "back": d["back"]} for s, d in styles.items()}
    except (ValueError, KeyError, TypeError):
        return None
    return json.dumps({"styles": kept}, separators=(",", ":"))


_SVG_ROOT = re.compile(r"\A\s*<svg\b[^>]*>")
_TITLE = re.compile(r"<title\b[^>]*>.*?</title>", re.DOTALL)
_BETWEEN_LINES = re.compile(r">\s*\n\s*<")


def deck_sprite(web: Path, style: str) -> str | None:
    """The cards of deck `style` (and its back, "back") as one JSON object
    {"style", "viewBox", "cards": {code: the card's SVG content}}: cards.js draws each
    card from it inline (an SVG <symbol> per card, made when first drawn), with no request
    per card. The content is each file's, without its root element, title and line
    breaks between elements. None when the style has no complete deck."""
    index = deck_index(web)
    if index is None or not re.fullmatch(r"[a-z]+", style):
        return None
    entry = json.loads(index)["styles"].get(style)
    if entry is None:
        return None
    files = [web / "decks" / style / f"{code}.svg" for code in entry["cards"]]
    files.append(web / "decks" / style / entry["back"])
    try:
        stamp = tuple((f.stat().st_mtime_ns, f.stat().st_size) for f in files)
    except OSError:
        return None
    return _sprite(style, tuple(files), stamp)


@lru_cache(maxsize=4)
def _sprite(style: str, files: tuple[Path, ...], stamp: tuple[tuple[int, int], ...]) -> str | None:
    del stamp  # part of the cache key only
    cards: dict[str, str] = {}
    box = None
    for f in files:
        text = f.read_text(encoding="utf-8")
        root = _SVG_ROOT.match(text)
        end = text.rfind("</svg>")
        if root is None or end < 0:
            return None
        found = re.search(r'viewBox="([^"]+)"', root.group(0))
        if found is None or box not in (None, found.group(1)):
            return None  # one viewBox for the whole deck: the cards are drawn alike
        box = found.group(1)
        body = _BETWEEN_LINES.sub("><", _TITLE.sub("", text[root.end() : end])).strip()
        cards["back" if f.stem == "back" else f.stem] = body
    return json.dumps({"style": style, "viewBox": box, "cards": cards}, separators=(",", ":"))


@cache
def _modules(web: Path, page: str | None) -> tuple[str, ...]:
    modules = static_imports(web, "js/app.js")
    if page is not None:
        modules += [m for m in static_imports(web, f"js/{page}") if m not in modules]
    return tuple(modules)


def _inline_script(web: Path, name: str) -> str | None:
    """The text of the classic script `name` (under `web`), minified, to carry in a
    `<script>`; None when it cannot be carried as it is (it would end the element early)."""
    try:
        text = (web / name).read_text(encoding="utf-8")
    except OSError:
        return None
    if re.search(r"</script|<!--", text, re.IGNORECASE):
        return None
    return minify.script(text)


def _inline_style(bundle: CssBundle) -> str | None:
    """The part's rules to carry in a `<style>`; None when they would end it early."""
    text = bundle.body.decode("utf-8")
    return None if re.search(r"</style", text, re.IGNORECASE) else text


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def inline_hashes(web: Path, page: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The CSP sources of the inline script and style elements index_html(web, page)
    carries: ('sha256-...' of each script, of each style), for script-src and style-src."""
    script = _inline_script(web, "js/boot.js")
    part = css_bundle(web, PAGE_STYLESHEETS[page]) if page in PAGE_STYLESHEETS else None
    style = _inline_style(part) if part is not None and css_bundle(web) is not None else None
    return (
        () if script is None else (_sha256(script),),
        () if style is None else (_sha256(style),),
    )


def index_html(web: Path, page: str | None, lang: str = "it", deck: str | None = None) -> str:
    """index.html for `page` (a module under web/js, or None) read in `lang`: its
    modules preloaded first, boot.js inline, its catalogs (and on the table pages the
    decks' index and the deck `deck`, the reader's style) carried, the stylesheets
    bundled in the place of the first (the page's part of them inline, where it has one)."""
    html = (web / "index.html").read_text(encoding="utf-8")
    bundle = css_bundle(web)
    part = css_bundle(web, PAGE_STYLESHEETS[page]) if page in PAGE_STYLESHEETS else None
    first = _STYLESHEET.search(html)
    if bundle is not None and first is not None:
        tag = f'  <link rel="stylesheet" href="{bundle.href}">\n'
        style = _inline_style(part) if part is not None else None
        if style is not None:
            tag = f'  <style data-full="{bundle.href}">{style}</style>\n'
        html = html[: first.start()] + tag + _STYLESHEET.sub("", html[first.start() :])
    boot = _BOOT.search(html)
    script = _inline_script(web, boot.group(1)) if boot is not None else None
    if boot is not None and script is not None:
        html = html[: boot.start()] + f"  <script>{script}</script>\n" + html[boot.end() :]
    wanted = [m for m in _modules(web, page) if m != "js/app.js"]
    catalog = catalog_json(web, lang)
    if catalog is None:  # i18n.js imports the modules themselves
        wanted += [c.format(lang=lang) for c in CATALOGS]
    preloads = [f'  <link rel="modulepreload" href="/static/{m}">\n' for m in wanted]
    app = _APP.search(html)
    if app is not None:  # the page's module right after them: asked for in the same breath
        preloads.append(app.group(0))
        html = html[: app.start()] + html[app.end() :]
    # what the page reads first comes with it, as JSON data blocks (not code): the catalog
    # i18n.js starts with (the page's part of it on the table and in the lobby), the
    # decks' index and the reader's deck; after the rest of the head
    blocks = []
    if catalog is not None and page in _PART_CATALOG_PAGES:
        texts = page_catalog(web, lang, page)
        head = f'{{"lang":"{lang}","partial":true,"texts":'
        blocks.append(data_block("cirulla-catalog", head, texts or catalog, "}"))
    elif catalog is not None:
        blocks.append(data_block("cirulla-catalog", f'{{"lang":"{lang}","texts":', catalog, "}"))
    decks = deck_index(web) if page in _DECK_PAGES else None
    if decks is not None:
        blocks.append(data_block("cirulla-decks", decks))
        sprite = deck_sprite(web, deck) if deck is not None else None
        if sprite is not None:
            blocks.append(data_block("cirulla-deck", sprite))
    html = html.replace("</head>", "".join(blocks) + "</head>", 1)
    at = html.find(_TITLE_END)
    if at < 0:
        return html.replace("</head>", "".join(preloads) + "</head>", 1)
    at += len(_TITLE_END)
    return html[:at] + "".join(preloads) + html[at:]
