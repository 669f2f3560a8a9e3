"""Scripts and stylesheets are served minified (gateway/minify.py), and mean what the files
on disk mean: each parses, with tree-sitter's JavaScript and CSS grammars, to the same
tree as its source, comments aside."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import tree_sitter_css
import tree_sitter_javascript
from serverutil import Server, running_server
from tree_sitter import Language, Node, Parser

from cirulla.gateway import minify
from cirulla.gateway.web import WEB

JS = Parser(Language(tree_sitter_javascript.language()))
CSS = Parser(Language(tree_sitter_css.language()))

SCRIPTS = sorted(p.relative_to(WEB).as_posix() for p in WEB.rglob("*.js"))
STYLESHEETS = sorted(p.relative_to(WEB).as_posix() for p in WEB.glob("*.css"))


def shape(parser: Parser, text: str, *, dropped: frozenset[str] = frozenset()) -> list[str]:
    """The tree of `text` as a list: each inner node's type, its children, then ")"; each
    leaf's type and text. Comments, and the leaves named in `dropped`, are left out."""
    tree = parser.parse(text.encode("utf-8"))
    assert not tree.root_node.has_error, "the text does not parse"
    out: list[str] = []

    def walk(node: Node) -> None:
        if node.type == "comment" or node.type in dropped:
            return
        if node.child_count == 0:
            out.append(f"{node.type} {(node.text or b'').decode()}")
            return
        out.append(f"({node.type}")
        for child in node.children:
            walk(child)
        out.append(")")

    walk(tree.root_node)
    return out


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_minified_script_parses_to_the_tree_of_its_source(name: str) -> None:
    text = (WEB / name).read_text(encoding="utf-8")
    small = minify.script(text)
    assert shape(JS, small) == shape(JS, text)
    assert len(small) < len(text)


@pytest.mark.parametrize("name", STYLESHEETS)
def test_a_minified_stylesheet_parses_to_the_tree_of_its_source(name: str) -> None:
    text = (WEB / name).read_text(encoding="utf-8")
    small = minify.stylesheet(text)
    # a block's last ";" is optional, and the minifier drops it
    assert shape(CSS, small, dropped=frozenset({";"})) == shape(CSS, text, dropped=frozenset({";"}))
    assert len(small) < len(text)


def test_the_shape_tells_a_changed_program_from_the_same_one() -> None:
    # the comparison above can fail: a newline that ends a statement, a changed string
    same = "let a = 1 // one\n/* two */ let b = `x ${a}`\n"
    assert shape(JS, "let a=1\nlet b=`x ${a}`") == shape(JS, same)
    assert shape(JS, "let a=1\nlet b=`x  ${a}`") != shape(JS, same)
    assert shape(JS, "a\n(b)") != shape(JS, "a;(b)")
    assert shape(CSS, ".a{color:red}") != shape(CSS, ".a{color:blue}")
    with pytest.raises(AssertionError):
        shape(JS, "let = ;")


def test_only_scripts_and_stylesheets_are_changed() -> None:
    svg = b"<svg>  <!-- a card -->  </svg>"
    assert minify.minified(svg, "image/svg+xml") == svg
    assert minify.minified(b'{"a":  1}', "application/json") == b'{"a":  1}'
    assert minify.minified(b"\xff\xfe /* x */", "text/javascript") == b"\xff\xfe /* x */"
    assert minify.minified(b"a = 1; // x\n", "text/javascript; charset=utf-8") == b"a=1;"
    assert minify.minified(b".a { color: red; }", "text/css") == b".a{color:red}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("minify")) as s:
        yield s


@pytest.mark.parametrize("offered", ["identity", "gzip", "br"])
def test_the_server_sends_each_module_minified_in_every_coding(
    server: Server, offered: str
) -> None:
    for name in ("js/table.js", "js/pages/lobby.js", "table.css"):
        r = httpx.get(f"{server.base_url}/static/{name}", headers={"Accept-Encoding": offered})
        assert r.status_code == 200, name
        text = (WEB / name).read_text(encoding="utf-8")
        want = minify.script(text) if name.endswith(".js") else minify.stylesheet(text)
        assert r.text == want  # (httpx decodes a coding)
        assert r.headers.get("content-encoding") == (None if offered == "identity" else offered)
        assert int(r.headers["content-length"]) == r.num_bytes_downloaded
        # the file's ETag still names the version: asked again, nothing is sent
        again = httpx.get(
            f"{server.base_url}/static/{name}",
            headers={"Accept-Encoding": offered, "If-None-Match": r.headers["etag"]},
        )
        assert again.status_code == 304 and again.content == b""


def test_a_file_that_is_not_a_script_passes_as_it_is(server: Server) -> None:
    r = httpx.get(
        f"{server.base_url}/static/decks/index.json", headers={"Accept-Encoding": "identity"}
    )
    assert r.status_code == 200 and r.content == (WEB / "decks" / "index.json").read_bytes()
