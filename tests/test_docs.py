"""The examples in the README and the user docs run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_python_examples_in_docs_run(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = _python_blocks(path)
    for block in blocks:
        exec(compile(block, str(path), "exec"), {"__name__": "__docs__"})
    capsys.readouterr()


def test_readme_example_shows_what_it_prints(capsys: pytest.CaptureFixture[str]) -> None:
    (block, *_) = _python_blocks(ROOT / "README.md")
    exec(compile(block, "README.md", "exec"), {"__name__": "__docs__"})
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("1 [Card('5S'), Card('3S'), Card('AS')]")
    assert out[1] == "['!cirulla:AS3S5S', '5Sx5D', '3S', 'ASx5DQD2HQS']"


def test_the_complete_bot_in_the_bot_docs_is_examples_bot_client_py() -> None:
    """docs/bots.md shows, whole, the bot that tests/test_server_bot_api.py runs."""
    blocks = _python_blocks(ROOT / "docs" / "bots.md")
    client = (ROOT / "examples" / "bot_client.py").read_text(encoding="utf-8")
    assert client in blocks, "docs/bots.md's bot differs from examples/bot_client.py"
