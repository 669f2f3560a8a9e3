"""index.html with `<link rel="modulepreload">` for the modules a page needs.

The client has no build step: each ES module asks for its imports only once it has
arrived, so on a phone network every level of the import graph costs a round trip
(150 ms on a fast 3G). Listing the whole static graph of `app.js` and of the page's
own module in the HTML lets the browser fetch them all at once. The graph is read
from the modules' `import ... from "..."` lines when the server starts, so the list
never goes stale; the page each address loads mirrors app.js's PAGES, which a test
keeps in step.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Final

__all__ = ["PAGE_MODULES", "PREFIX_MODULES", "index_html", "page_module", "static_imports"]

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

# `import x from "./a.js"`, `import { a, b } from "./a.js"` (over several lines),
# `import "./a.js"`, `export { a } from "./a.js"`; never the dynamic `import("./a.js")`.
_STATIC = re.compile(
    r"^\s*(?:import|export)\b(?:[^;\"'()]*?\bfrom)?\s*[\"']([^\"']+)[\"']", re.MULTILINE
)


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


@cache
def index_html(web: Path, page: str | None) -> str:
    """index.html with the preloads for `page` (a module under web/js, or None)."""
    html = (web / "index.html").read_text(encoding="utf-8")
    modules = static_imports(web, "js/app.js")
    if page is not None:
        modules += [m for m in static_imports(web, f"js/{page}") if m not in modules]
    links = "".join(
        f'  <link rel="modulepreload" href="/static/{m}">\n' for m in modules if m != "js/app.js"
    )
    marker = '  <script type="module"'
    return html.replace(marker, links + marker, 1) if marker in html else html
