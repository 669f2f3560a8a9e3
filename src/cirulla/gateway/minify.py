"""Scripts and stylesheets served without their comments and spare white space.

On a phone network the bytes before the first tap are the time to it (issue 15), and our
modules are a third comments: served as they are, the table's first modules are 40 KB
after Brotli; without comments and spare white space, 27 KB. The client keeps no build
step: the files on disk stay the source, made smaller when served, once per version
(like their compression). rJSmin and rCSSmin only drop comments and white space that
means nothing (names stay, so an error's stack still names our functions); the tests
check, with a real parser, that every file of ours parses to the same tree either way.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Final

import rcssmin  # type: ignore[import-untyped]
import rjsmin  # type: ignore[import-untyped]

__all__ = ["KINDS", "minified", "script", "stylesheet"]


@lru_cache(maxsize=256)
def script(text: str) -> str:
    """A JavaScript text (a module or a classic script) without comments and spare white
    space."""
    out: str = rjsmin.jsmin(text)
    return out


@lru_cache(maxsize=64)
def stylesheet(text: str) -> str:
    """A stylesheet without comments and spare white space."""
    out: str = rcssmin.cssmin(text)
    return out


#: The content types made smaller, by the start of their Content-Type, and how.
KINDS: Final[dict[str, Callable[[str], str]]] = {
    "text/javascript": script,
    "application/javascript": script,
    "text/css": stylesheet,
}


@lru_cache(maxsize=256)
def minified(body: bytes, content_type: str) -> bytes:
    """`body` made smaller if its `content_type` is a script or a stylesheet (KINDS);
    else, or when it is not UTF-8, as it is. Once per file version: a static file's
    every request gets the same bytes."""
    make = next((f for start, f in KINDS.items() if content_type.startswith(start)), None)
    if make is None:
        return body
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return body
    return make(text).encode("utf-8")
