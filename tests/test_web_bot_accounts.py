"""Bot accounts in the web client (issue 17, docs/bots.md), in a real browser against a
real server: an owner makes a bot and a token from the profile's "Your bots" (the secret
shown once, with a copy button; revoking it stops it), and a bot account is marked BOT at
Cirulla and Cirulo tables, in the lobby's seat lists, on its profile page and on what it
says in the chat."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from browserutil import expect, page_opener
from serverutil import Player, Server, running_server
from websockets.sync.client import connect


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("web-bot-accounts"), login_attempts=100_000) as s:
        yield s


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, server.base_url) as open_page:
        yield open_page


def register(page: Any, name: str) -> None:
    r = page.request.post("/api/register", data={"name": name, "password": "password123"})
    assert r.status == 201, r.text()


def bot_with_token(server: Server, owner: str, bot: str) -> str:
    """`owner` (registered here) makes bot `bot` and a play/read token for it."""
    p = Player(server).register(owner)
    assert p.http.post("/api/bots", json={"name": bot}).status_code == 201
    r = p.http.post(f"/api/bots/{bot}/tokens", json={"name": "t", "scopes": ["play", "read"]})
    assert r.status_code == 201, r.text
    token: str = r.json()["token"]
    return token


def bot_table(server: Server, token: str, config: dict[str, Any]) -> str:
    """A table the bot opens (and sits at) through the bot API."""
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=20) as http:
        r = http.post("/api/bot/tables", json={"config": config})
        assert r.status_code == 201, r.text
        table: str = r.json()["table"]["id"]
        return table


def test_an_owner_makes_a_bot_and_a_token_on_the_profile_then_revokes_it(
    pages: Any, server: Server
) -> None:
    page = pages("en-GB")
    register(page, "gianni")
    page.goto("/profile")
    panel = page.locator(".panel.bots")
    expect(panel.locator("h2")).to_have_text("Your bots")
    expect(panel).to_contain_text("You have no bots yet.")
    panel.locator("input[name=bot_name]").fill("robo-gianni")
    panel.locator("button[name=create_bot]").click()
    item = panel.locator(".bot-item[data-bot='robo-gianni']")
    expect(item.locator(".bot-account")).to_have_text("BOT of gianni")
    expect(item).to_contain_text("No tokens.")
    item.locator("input[name=scope_tournament]").check()
    item.locator("input[name=token_name]").fill("my-laptop")
    item.locator("button[name=create_token]").click()
    secret = item.locator(".token-secret")
    expect(secret).to_be_visible()
    token = secret.input_value()
    assert len(token) >= 20
    expect(item.locator("button[name=copy]")).to_be_visible()
    expect(item.locator(".token-item")).to_have_count(1)
    expect(item.locator(".token-item")).to_contain_text("my-laptop")
    expect(item.locator(".token-scopes")).to_have_text("play, read, tournament")
    bearer = {"Authorization": f"Bearer {token}"}
    assert httpx.get(f"{server.base_url}/api/bot/account", headers=bearer).status_code == 200
    page.once("dialog", lambda d: d.accept())
    item.locator("button[name=revoke]").click()
    expect(item.locator(".token-item")).to_have_count(0)
    expect(secret).to_be_hidden()  # the secret shown is gone with its token
    assert httpx.get(f"{server.base_url}/api/bot/account", headers=bearer).status_code == 401
    # a wrong name is refused with the server's reason, and nothing is made
    panel.locator("input[name=bot_name]").fill("x")
    panel.locator("button[name=create_bot]").click()
    expect(panel.locator(".error")).to_be_visible()
    expect(panel.locator(".bot-item")).to_have_count(1)


def test_the_bots_section_is_in_italian_and_not_for_guests(pages: Any) -> None:
    page = pages("it-IT")
    register(page, "giulia")
    page.goto("/profile")
    expect(page.locator(".panel.bots h2")).to_have_text("I tuoi bot")
    other = pages("it-IT")
    assert other.request.post("/api/guest").status == 201
    other.goto("/profile")
    expect(other.locator(".panel.account")).to_be_visible()
    expect(other.locator(".panel.bots")).to_have_count(0)


@pytest.mark.parametrize(
    "config",
    [
        {"players": 2, "options": {"hands": 1}},
        {"game": "cirulo", "players": 4, "options": {"hands": 1}},
    ],
    ids=["cirulla", "cirulo"],
)
def test_a_bot_account_is_marked_bot_in_the_lobby_at_the_table_and_on_its_profile(
    pages: Any, server: Server, config: dict[str, Any]
) -> None:
    game = config.get("game", "cirulla")
    owner, bot = f"owner-{game}", f"robo-{game}"
    table = bot_table(server, bot_with_token(server, owner, bot), config)
    page = pages("en-GB")
    assert page.request.post("/api/guest").status == 201
    page.goto("/lobby")
    seat = page.locator(f".lobby-table[data-table='{table}'] .lobby-seat", has_text=bot)
    expect(seat.locator(".bot-account")).to_have_text("BOT")
    expect(seat.locator(".bot-account")).to_have_attribute("title", re.compile("bot account"))
    people = page.locator(f".lobby-table[data-table='{table}'] .lobby-seat.person")
    expect(people.locator(".bot-account")).to_have_count(1)  # only the bot's seat
    page.goto(f"/table/{table}")
    expect(page.locator(".seat-row", has_text=bot).locator(".bot-account")).to_have_text("BOT")
    expect(page.locator(".seat-row.taken .bot-account")).to_have_count(1)
    page.goto(f"/player/{bot}")
    expect(page.locator("h1")).to_have_text(bot)
    expect(page.locator(".bot-account")).to_have_text("BOT")
    page.goto(f"/player/{owner}")
    expect(page.locator("h1")).to_have_text(owner)
    expect(page.locator(".bot-account")).to_have_count(0)


def test_what_a_bot_account_says_in_the_chat_wears_its_bot_badge(
    pages: Any, server: Server
) -> None:
    """The bot (on the WebSocket, by its token) speaks at its table before a person
    opens it (the history a join brings) and after (live); the person's own message
    has no badge."""
    token = bot_with_token(server, "owner-chat", "robo-chat")
    table = bot_table(server, token, {"players": 2, "options": {"hands": 1}})
    bot = Player(server)
    bot.ws = connect(
        server.ws_url, additional_headers={"Authorization": f"Bearer {token}"}
    ).__enter__()
    bot.recv_until(lambda f: f["type"] == "welcome")
    assert bot.join(table)["type"] == "ack"
    assert bot.command({"type": "chat", "table": table, "text": "prima"})["type"] == "ack"
    page = pages("en-GB")
    assert page.request.post("/api/guest").status == 201
    page.goto(f"/table/{table}")
    chat = page.locator(".chat-panel")
    first = chat.locator(".chat-message", has_text="prima")
    expect(first.locator(".bot-account")).to_have_text("BOT")
    assert bot.command({"type": "chat", "table": table, "text": "dopo"})["type"] == "ack"
    expect(chat.locator(".chat-message", has_text="dopo").locator(".bot-account")).to_have_text(
        "BOT"
    )
    chat.locator(".chat-input").fill("a person")
    chat.locator(".chat-send").click()
    mine = chat.locator(".chat-message", has_text="a person")
    expect(mine).to_be_visible()
    expect(mine.locator(".bot-account")).to_have_count(0)
    expect(chat.locator(".chat-message .bot-account")).to_have_count(2)
    bot.close()


def test_a_name_typed_while_a_bot_is_being_made_is_kept_and_the_button_waits(
    pages: Any,
) -> None:
    """The form is not cleared under the player's fingers: the answer to "make robo-a"
    comes after they typed the next name, which stays; meanwhile the button is off."""
    page = pages("en-GB")
    register(page, "lucia")
    page.goto("/profile")
    panel = page.locator(".panel.bots")
    expect(panel).to_contain_text("You have no bots yet.")
    held: list[Any] = []  # the POST, answered below; the lists go through

    def hold(route: Any) -> None:
        if route.request.method == "POST":
            held.append(route)
        else:
            route.continue_()

    page.route("**/api/bots", hold)
    panel.locator("input[name=bot_name]").fill("robo-a")
    panel.locator("button[name=create_bot]").click()
    expect(panel.locator("button[name=create_bot]")).to_be_disabled()
    for _ in range(200):  # the request is out
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the request to make robo-a never left"
    panel.locator("input[name=bot_name]").fill("robo-b")
    held[0].continue_()
    expect(panel.locator(".bot-item[data-bot='robo-a']")).to_be_visible()
    expect(panel.locator("input[name=bot_name]")).to_have_value("robo-b")
    expect(panel.locator("button[name=create_bot]")).to_be_enabled()
