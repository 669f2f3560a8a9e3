"""The suite's two worker groups (`pytest -n 2`, tests/conftest.py): every module that
starts servers, uses PostgreSQL or Redis, runs an event loop or drives the browser
runs in the service worker, where those tests keep their order and their core."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import SERVICE_MODULES, worker_group

TESTS = Path(__file__).parent
#: What makes a module a service module: a server, a database, Redis, an event loop,
#: or the session's browser.
SERVICE_SIGNS = re.compile(
    r"^from serverutil|^import serverutil|redis|throwaway_pg|postgresql|asyncio"
    r"|def test_\w+\([^)]*\bbrowser\b",
    re.MULTILINE,
)


MODULES = sorted(p for p in TESTS.glob("test_*.py") if p.name != Path(__file__).name)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_a_module_with_servers_databases_or_the_browser_runs_in_the_service_worker(
    path: Path,
) -> None:
    if SERVICE_SIGNS.search(path.read_text()):
        assert worker_group(f"tests/{path.name}::test_x") == "services"


def test_the_groups_are_read_from_the_node_id() -> None:
    assert worker_group("tests/test_server_lobby.py::test_a[x]") == "services"
    assert worker_group("tests/test_web_table.py::test_b") == "services"
    assert worker_group("tests/test_store.py::TestX::test_c") == "services"
    assert worker_group("tests/test_cards.py::test_d") == "engine"
    assert worker_group("tests/test_bots_strength.py::test_e[campione-4]") == "engine"


def test_every_named_service_module_exists() -> None:
    """A module renamed or removed must leave the list, or its tests lose their worker."""
    assert {m for m in SERVICE_MODULES if not (TESTS / f"{m}.py").exists()} == set()
