"""A finished Cirulo partita in the browser: the history says Cirulo and links the replay,
which draws each position on the Cirulo board (every hand open), steps forward and back
with the buttons and the arrow keys, ends on the final balances, with the chat below."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browserutil import expect, guest, page_opener, screenshot
from serverutil import Player, Server
from test_server_chat import say
from test_server_play import open_table, play_until, start_server

from cirulla.cirulo import replay_cirulo_game


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with start_server(tmp_path_factory.mktemp("web-cirulo-replay")) as s:
        yield s


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, server.base_url) as open_page:
        yield open_page


def finished_cirulo(server: Server) -> tuple[Player, str, dict[str, Any]]:
    """A guest and three bots play one hand of Cirulo; the partita's stored record."""
    owner = Player(server).guest().connect()
    config = {
        "game": "cirulo",
        "players": 4,
        "options": {"hands": 1},
        "bots": {"1": "facile", "2": "facile", "3": "facile"},
    }
    table, seats = open_table(owner, [], config)
    assert say(owner, table, text="bella mano")["type"] == "ack"
    assert play_until(table, seats, rng=random.Random(7))["status"] == "finished"
    deadline = time.monotonic() + 60
    while (r := owner.http.get(f"/api/records/{table}")).status_code != 200:
        assert time.monotonic() < deadline, "the record was never saved"
        time.sleep(0.1)
    return owner, table, r.json()


def test_a_cirulo_replay_steps_through_every_card_with_the_hands_open(
    pages: Any, server: Server
) -> None:
    _, table, record = finished_cirulo(server)
    moves = [str(c) for c in replay_cirulo_game(record["game"]).deals[0].moves]
    page = pages("en-GB")
    guest(page)  # anyone logged in may replay a public partita
    page.goto(f"/replay/{table}")
    root = page.locator(".cirulo-replay")
    expect(root).to_be_visible()
    expect(page.locator(".replay-where")).to_have_text(f"Step 1 of {len(moves) + 1} · hand 1")
    expect(page.locator(".cfelt .cseat")).to_have_count(4)
    # the hand as dealt: every seat's cards open below the board
    hands = page.locator(".creplay-hand")
    expect(hands).to_have_count(4)
    dealt = page.locator(".creplay-cards [data-code]")
    expect(dealt).to_have_count(len(moves))
    first = moves[0]
    page.locator(".replay-controls .next").click()
    expect(page.locator(".replay-where")).to_have_text(f"Step 2 of {len(moves) + 1} · hand 1")
    expect(page.locator(f".ctrick [data-code='{first}']")).to_have_count(1)
    expect(page.locator(f".creplay-cards [data-code='{first}']")).to_have_count(0)
    expect(page.locator(".replay-what")).to_contain_text("plays")
    screenshot(page, "cirulo-replay")
    page.keyboard.press("ArrowLeft")
    expect(page.locator(".replay-where")).to_have_text(f"Step 1 of {len(moves) + 1} · hand 1")
    expect(page.locator(f".creplay-cards [data-code='{first}']")).to_have_count(1)
    page.keyboard.press("End")
    expect(page.locator(".creplay-end")).to_be_visible()
    expect(dealt).to_have_count(0)
    expect(page.locator(".final-balances li")).to_have_count(4)
    expect(page.locator(".chat-log")).to_contain_text("bella mano")


def test_the_history_lists_a_cirulo_partita_as_cirulo_and_links_its_replay(
    pages: Any, server: Server
) -> None:
    owner, table, _ = finished_cirulo(server)
    page = pages("it-IT")
    cookies = [
        {"name": c.name, "value": c.value, "url": server.base_url} for c in owner.http.cookies.jar
    ]
    page.context.add_cookies(cookies)
    page.goto("/history")
    item = page.locator(f".history-item[data-table='{table}']")
    expect(item.locator(".game")).to_have_text("Cirulo")
    item.locator("a.button").click()
    expect(page.locator(".cirulo-replay")).to_be_visible()
    expect(page.locator(".table-fatal")).to_have_count(0)
