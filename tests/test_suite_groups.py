"""The suite's groups and work units (`pytest -n 2`, tests/conftest.py): every module that
starts servers, uses PostgreSQL or Redis, runs an event loop or drives the browser is a
service module, run whole in one worker and never after a browser test there."""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

import pytest
from conftest import SERVICE_MODULES, uses_browser, work_units, worker_group
from serverutil import free_port, worker_port_block

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


def test_the_engine_tests_are_one_unit_and_each_service_module_another() -> None:
    ids = [
        "tests/test_cards.py::test_a",
        "tests/test_bots.py::test_b",
        "tests/test_server_lobby.py::test_c",
        "tests/test_server_lobby.py::T::test_d",
        "tests/test_store.py::test_e",
    ]
    assert work_units(ids) == {
        "engine": ids[:2],
        "tests/test_server_lobby.py": ids[2:4],
        "tests/test_store.py": ids[4:],
    }


def test_a_modules_browser_tests_sorted_last_are_a_later_unit() -> None:
    """Units go out in order: a worker that runs a browser test has no plain test left."""
    ids = [
        "tests/test_web_table.py::test_plain",
        "tests/test_web_words.py::test_plain",
        "tests/test_web_table.py::test_clicks",
        "tests/test_web_table.py::test_more_clicks",
        "tests/test_web_words.py::test_clicks",
    ]
    units = work_units(ids)
    assert list(units) == [
        "tests/test_web_table.py",
        "tests/test_web_words.py",
        "tests/test_web_table.py+",
        "tests/test_web_words.py+",
    ]
    assert units["tests/test_web_table.py+"] == ids[2:4]
    assert [n for unit in units.values() for n in unit] == ids


def test_the_collection_puts_engine_tests_first_and_browser_tests_last(
    request: pytest.FixtureRequest,
) -> None:
    """The order `work_units` relies on, read off this very run's collection."""
    items = request.session.items
    groups = [worker_group(item.nodeid) for item in items]
    browser = [uses_browser(item) for item in items]
    if "engine" in groups and "services" in groups:
        assert groups.index("services") > max(i for i, g in enumerate(groups) if g == "engine")
    if any(browser):
        assert all(browser[browser.index(True) :])


def test_each_worker_has_its_own_ports_below_the_ephemeral_range() -> None:
    """Two workers start servers at once: their ports never meet, nor a client's."""
    blocks = [worker_port_block(f"gw{i}") for i in range(5)]
    for i, a in enumerate(blocks):
        assert a[0] >= 1024 and a[-1] < 32768
        for b in blocks[i + 1 :]:
            assert set(a).isdisjoint(b)
    assert worker_port_block(None) == blocks[0]
    low, _ = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
    assert blocks[-1][-1] < int(low)


def test_free_ports_are_free_and_not_handed_out_twice() -> None:
    block = worker_port_block(os.environ.get("PYTEST_XDIST_WORKER"))
    with socket.socket() as held:  # a port someone holds is passed over
        ports = [free_port()]
        start = block.index(ports[0])
        for step in range(1, len(block)):
            # the next free one: a port an earlier test's server left in TIME_WAIT is
            # busy already, and free_port passes over it too
            taken = block[(start + step) % len(block)]
            try:
                held.bind(("127.0.0.1", taken))
                break
            except OSError:
                continue
        else:
            pytest.fail(f"no free port in {block}")
        ports += [free_port() for _ in range(20)]
    assert len(set(ports)) == len(ports) and all(p in block for p in ports)
    assert taken not in ports  # the next free one, which free_port would have handed out
