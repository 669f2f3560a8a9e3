"""Shared test helpers: stacked decks that put chosen cards in chosen hands."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Generator, Sequence
from typing import Any

import pytest
from hypothesis import settings
from serverutil import Server

import cirulla
from cirulla import Card, Deal, Move, Rules

# No deadline on an example: a property test's examples run in a worker at a low priority
# beside the server tests (`pytest -n 2`), where a slow example is load, not a fault.
settings.register_profile("cirulla", deadline=None)
settings.load_profile("cirulla")

#: Every preset with every player count it allows (Scopa 2 or 4, Luzzati not 3,
#: Cirullone 4): the sources' tables, written out rather than asked of the engine.
PRESET_PLAYER_COUNTS: dict[str, tuple[int, ...]] = {
    "cirulla": (2, 3, 4),
    "pagat": (2, 3, 4),
    "luzzati": (2, 4),
    "dossena": (2, 3, 4),
    "scopa": (2, 4),
    "cirullone": (4,),
    "cirullone-6-3": (4,),
    "cirullone-3-6": (4,),
}
PRESET_PLAYERS = [(name, n) for name, counts in PRESET_PLAYER_COUNTS.items() for n in counts]


def stack(
    players: int = 4,
    dealer: int = 0,
    hands: Sequence[Sequence[str]] | None = None,
    table: Sequence[str] | None = None,
    later: Sequence[Sequence[Sequence[str]]] | None = None,
    sizes: Sequence[int] | None = None,
) -> list[Card]:
    """A 40-card deck that deals `hands` (per seat, first stage) and `table`.

    `later[k][seat]` are the cards of stage k + 1. Cards not named fill the rest
    in a fixed order; an unnamed table avoids aces and the dealer's 15 / 30.
    `sizes` are the hand sizes per stage (default: 3 each until the deck is out).
    """
    n = players
    sizes = list(sizes) if sizes is not None else [3] * (36 // (3 * n))
    named: list[Card] = []
    for h in hands or []:
        named += [Card.parse(c) for c in h]
    named += [Card.parse(c) for c in table or []]
    for stage in later or []:
        for h in stage:
            named += [Card.parse(c) for c in h]
    if len(set(named)) != len(named):
        raise ValueError("a card is named twice")
    free = [c for c in cirulla.full_deck() if c not in set(named)]

    def take(k: int, avoid_aces: bool = False) -> list[Card]:
        out = []
        for c in list(free):
            if len(out) == k:
                break
            if avoid_aces and c.rank == "A":
                continue
            out.append(c)
            free.remove(c)
        assert len(out) == k, "not enough free cards"
        return out

    stage_hands: list[list[list[Card]]] = []
    for s in range(len(sizes)):
        if s == 0:
            given = hands or []
        else:
            given = (later[s - 1] if later and s - 1 < len(later) else None) or []
        per_seat = []
        for seat in range(n):
            named_here = given[seat] if seat < len(given) else None
            per_seat.append([Card.parse(c) for c in named_here] if named_here else [])
        stage_hands.append(per_seat)
    tbl = [Card.parse(c) for c in table] if table is not None else None
    # Fill hands first for stage 0, then the table, then later stages.
    for s, size in enumerate(sizes):
        for seat in range(n):
            missing = size - len(stage_hands[s][seat])
            if missing < 0:
                raise ValueError(f"seat {seat} gets more than {size} cards in stage {s}")
            stage_hands[s][seat] += take(missing)
        if s == 0 and tbl is None:
            tbl = []
            for c in list(free):
                if c.rank != "A" and len(tbl) < 4:
                    tbl.append(c)
                    total = sum(x.value for x in tbl)
                    if len(tbl) == 4 and (total in (15, 30) or total <= 9):
                        tbl.pop()
                        continue
                    free.remove(c)
            assert len(tbl) == 4
    assert tbl is not None
    deck: list[Card] = []
    first = (dealer + 1) % n
    for s, size in enumerate(sizes):
        for i in range(size):
            for k in range(n):
                deck.append(stage_hands[s][(first + k) % n][i])
        if s == 0:
            deck += tbl
    assert len(deck) == 40 and len(set(deck)) == 40, (len(deck), len(set(deck)))
    return deck


def play_out(deal: Deal, choose: Callable[[list[Move]], Move] | None = None) -> Deal:
    """Play the smazzata to its end, by default always the first legal move."""
    while not deal.is_over:
        moves = deal.legal_moves()
        deal.play(choose(moves) if choose else moves[0])
    return deal


@pytest.fixture
def rules() -> Rules:
    return Rules.preset("cirulla")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None]:
    """In CI (CIRULLA_REQUIRE_SERVICES=1) a skipped test fails: a missing PostgreSQL, Redis
    or browser must not pass for a green run."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.skipped and os.environ.get("CIRULLA_REQUIRE_SERVICES") == "1":
        report.outcome = "failed"
        report.longrepr = f"skipped, but CIRULLA_REQUIRE_SERVICES=1 forbids it: {report.longrepr}"
    if report.failed:
        # a CI run is seen once: the server's own log says why a frame never came
        for i, server in enumerate(_servers_of(item)):
            report.sections.append((f"server log {i} (its end)", server.log()))


def _servers_of(item: pytest.Item) -> list[Server]:
    """The test servers among a test's fixtures, one or a pair."""
    found: list[Server] = []
    for value in getattr(item, "funcargs", {}).values():
        for candidate in value if isinstance(value, tuple | list) else (value,):
            if isinstance(candidate, Server):
                found.append(candidate)
    return found


#: Test modules that start servers, use PostgreSQL or Redis, or run event loops, beside
#: every `test_server_*` and `test_web_*` module: the service tests (`worker_group`).
SERVICE_MODULES: frozenset[str] = frozenset(
    {
        "test_accounts",
        "test_botpool",
        "test_bus",
        "test_cli",
        "test_history_api",
        "test_ledger",
        "test_migrations",
        "test_player_tournaments",
        "test_ratings",
        "test_store",
        "test_table_records",
        "test_table_reload",
        "test_table_retries",
        "test_tournament_fees",
    }
)


def worker_group(nodeid: str) -> str:
    """ "services" (servers, databases, Redis, event loops, the browser) or "engine"."""
    module = nodeid.split("::", 1)[0].rsplit("/", 1)[-1].removesuffix(".py")
    if module.startswith(("test_server_", "test_web_")) or module in SERVICE_MODULES:
        return "services"
    return "engine"


def work_units(nodeids: Sequence[str]) -> dict[str, list[str]]:
    """How `pytest -n 2` hands out the collection, in its order: the engine tests as one
    unit, each service module as one (its browser tests, sorted last, as a later one).

    A unit runs whole in one worker, so a module's server, started once, serves all its
    tests; units are handed out in order, so no worker runs a test after a browser test."""
    units: dict[str, list[str]] = {}
    last = ""
    for nodeid in nodeids:
        if worker_group(nodeid) == "engine":
            key = "engine"
        else:
            key = nodeid.split("::", 1)[0]
            while key in units and key != last:  # the module again, after others
                key += "+"
        units.setdefault(key, []).append(nodeid)
        last = key
    return units


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--worker-group",
        choices=("services", "engine"),
        help="run only this group's tests (CI's compiled build runs the engine's)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The engine tests come first and those that use the session's `browser` last. While
    Playwright's sync API holds a browser open, this thread has an event loop running,
    so a later test's `asyncio.run` (the store tests, PostgreSQL set-ups) would fail."""
    group = config.getoption("--worker-group")
    if group is not None:
        kept = {item.nodeid for item in items if worker_group(item.nodeid) == group}
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in kept])
        items[:] = [item for item in items if item.nodeid in kept]
    items.sort(key=lambda item: (uses_browser(item), worker_group(item.nodeid) != "engine"))
    shared = sorted(i for i, n in Counter(item.nodeid for item in items).items() if n > 1)
    if shared:  # pytest-xdist keeps one test per node id and drops the others unseen
        raise pytest.UsageError(f"tests that share a node id: {', '.join(shared[:3])}")
    for item in items:
        if uses_browser(item) and worker_group(item.nodeid) != "services":
            raise pytest.UsageError(f"{item.nodeid} uses the browser: name it in SERVICE_MODULES")


def uses_browser(item: pytest.Item) -> bool:
    """Whether a test takes the session's `browser` (so it must run after all others)."""
    return "browser" in getattr(item, "fixturenames", ())


def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_Units(), "cirulla-work-units")


#: Whether this worker lowered its priority for the engine tests, and can raise it again.
_niced = False


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A worker runs the engine tests at a lower priority, so that the service tests in
    the other one, whose clocks and timeouts are real, come first; it takes its own
    priority back for service tests. Only where it can take it back (as root: CI)."""
    global _niced
    if not os.environ.get("PYTEST_XDIST_WORKER") or os.geteuid() != 0:
        return
    engine = worker_group(item.nodeid) == "engine"
    if engine and not _niced:
        os.setpriority(os.PRIO_PROCESS, 0, 10)
        _niced = True
    elif not engine and _niced:
        os.setpriority(os.PRIO_PROCESS, 0, 0)
        _niced = False


class _Units:
    """pytest-xdist's scheduling by scope, with the scopes of `work_units` in collection
    order (xdist's own reorders them by size, which would put browser tests first)."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        from xdist.scheduler import LoadScopeScheduling

        if config.getvalue("dist") != "load":  # a --dist asked for by name is kept
            return None

        class UnitScheduling(LoadScopeScheduling):
            def __init__(self, config: pytest.Config, log: Any = None) -> None:
                super().__init__(config, log)
                self.unit_of: dict[str, str] = {}

            def _split_scope(self, nodeid: str) -> str:
                return self.unit_of[nodeid]

            def schedule(self) -> None:
                if self.collection is None and self.collection_is_completed:
                    collection = next(iter(self.registered_collections.values()))
                    units = work_units(collection)
                    self.unit_of = {n: unit for unit, ids in units.items() for n in ids}
                    config.option.loadscopereorder = False
                super().schedule()

        return UnitScheduling(config, log)


@pytest.fixture(scope="session")
def browser() -> Generator[Any]:
    """One headless Debian Chromium for the whole session (see tests/browserutil.py)."""
    from browserutil import chromium_or_skip

    pw, chromium = chromium_or_skip()
    try:
        yield chromium
    finally:
        chromium.close()
        pw.stop()
