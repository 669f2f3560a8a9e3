"""How the benchmarks print and save their figures, in one place, so that every script's
JSON and summary table look alike and a change of format reaches them all.

The scripts run as `python benchmarks/NAME.py`, which puts this folder on `sys.path`:
they import it as `_report`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def write_json(result: Any, path: Path | None, *, echo: bool = False, said: bool = False) -> None:
    """Write `result` as indented JSON to `path` (folders made) if given; `echo` prints
    the same text first, `said` prints where it went."""
    text = json.dumps(result, indent=2)
    if echo:
        print(text, flush=True)
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")
    if said:
        print(f"wrote {path}")


def print_rows(title: str, rows: Sequence[tuple[str, str]], rule: int) -> None:
    """A two-column summary under `title`, between rules `rule` characters longer than
    the widest key."""
    width = max(len(k) for k, _ in rows)
    print()
    print(title)
    print("-" * (width + rule))
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    print("-" * (width + rule))
