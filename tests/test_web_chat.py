"""Chat in Chromium (docs/chat.md): two people at a table, quick phrases in each reader's
language, the rail that players never read, muting, the lobby, the replay's chat, and
an operator's moderation (a message hidden, an account silenced) as the players see it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from browserutil import expect, guest, page_opener
from serverutil import Player, Server, running_server

OPERATOR = "operator-token-for-the-web-chat-tests"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # a window of 10 minutes: "too fast" must not depend on how fast the machine is
    with running_server(
        tmp_path_factory.mktemp("web-chat"),
        login_attempts=100_000,
        chat_seconds=600,
        admin_token=OPERATOR,
    ) as s:
        yield s


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, server.base_url) as open_page:
        yield open_page


def chat_of(page: Any) -> Any:
    return page.locator(".chat-panel")


def write(page: Any, text: str) -> None:
    chat_of(page).locator(".chat-input").fill(text)
    chat_of(page).locator(".chat-send").click()


def messages(page: Any) -> Any:
    return chat_of(page).locator(".chat-message")


def test_chat_at_a_table_in_both_languages_with_mute_and_replay(pages: Any, server: Server) -> None:
    anna_page, bruno_page = pages("it-IT"), pages("en-GB")
    anna = guest(anna_page)
    guest(bruno_page)
    # anna plays a bot; bruno watches
    r = anna_page.request.post(
        "/api/tables", data={"config": {"players": 2, "bots": {"1": "facile"}}, "seat": 0}
    )
    assert r.status == 201, r.text()
    table = r.json()["table"]["id"]
    for page in (anna_page, bruno_page):
        page.goto(f"/table/{table}")
        page.wait_for_selector(".board")
    expect(chat_of(bruno_page).locator(".chat-note")).to_be_visible()
    expect(chat_of(anna_page).locator(".chat-note")).to_be_hidden()
    # a quick phrase, shown in each reader's language
    chat_of(anna_page).locator(".chat-phrase[data-phrase='grazie']").click()
    expect(messages(anna_page).last.locator(".chat-text")).to_have_text("Grazie")
    expect(messages(bruno_page).last.locator(".chat-text")).to_have_text("Thanks")
    expect(messages(bruno_page).last.locator(".chat-from")).to_have_text(anna["name"])
    # a player's text reaches the spectator
    write(anna_page, "ciao Bruno")
    expect(messages(bruno_page).filter(has_text="ciao Bruno")).to_have_count(1)
    expect(chat_of(anna_page).locator(".chat-input")).to_have_value("")
    # the spectator's text reaches spectators only: anna's later message comes, his never
    write(bruno_page, "play the settebello")
    expect(messages(bruno_page).filter(has_text="play the settebello")).to_have_count(1)
    write(anna_page, "dopo")
    expect(messages(anna_page).filter(has_text="dopo")).to_have_count(1)
    expect(messages(bruno_page).filter(has_text="dopo")).to_have_count(1)
    expect(messages(anna_page).filter(has_text="settebello")).to_have_count(0)
    # no more than 200 characters can be typed
    assert chat_of(anna_page).locator(".chat-input").get_attribute("maxlength") == "200"
    # bruno mutes anna: her messages go, and come back when he unmutes her
    messages(bruno_page).filter(has_text="ciao Bruno").locator(".chat-mute").click()
    expect(messages(bruno_page).filter(has_text="ciao Bruno")).to_have_count(0)
    expect(messages(bruno_page)).to_have_count(1)  # his own
    unmute = chat_of(bruno_page).locator(f".chat-unmute[data-name='{anna['name']}']")
    unmute.click()
    expect(messages(bruno_page)).to_have_count(4)
    # the partita ends (anna abandons over the socket); the replay shows the chat
    player = Player(server)
    for c in anna_page.context.cookies():
        player.http.cookies.set(c["name"], c["value"])
    player.user = anna
    player.connect()
    try:
        assert player.join(table)["type"] == "ack"
        answer = player.command(
            {"type": "abandon", "table": table, "version": player.version[table]}
        )
        assert answer["type"] == "ack", answer
    finally:
        player.close()
    expect(anna_page.locator(".end-panel, .table-end").first).to_be_visible(timeout=30_000)
    anna_page.goto(f"/replay/{table}")
    log = anna_page.locator(".chat-log")
    expect(log.locator(".chat-message")).to_have_count(4, timeout=30_000)
    expect(log.locator(".chat-message").first.locator(".chat-text")).to_have_text("Grazie")
    expect(log.locator(".chat-message.rail")).to_contain_text("settebello")


def test_lobby_chat_and_the_server_errors(pages: Any) -> None:
    carla_page, dario_page = pages("it-IT"), pages("en-GB")
    guest(carla_page)
    guest(dario_page)
    for page in (carla_page, dario_page):
        page.goto("/lobby")
        expect(chat_of(page)).to_be_visible()
    chat_of(dario_page).locator(".chat-phrase[data-phrase='ciao']").click()
    expect(messages(carla_page).filter(has_text="Ciao!")).to_have_count(1)
    expect(messages(dario_page).filter(has_text="Hi!")).to_have_count(1)
    # a sixth message within the window is too fast: the server's refusal is shown
    for i in range(6):
        write(carla_page, f"messaggio {i}")
        if i < 5:
            expect(messages(carla_page).filter(has_text=f"messaggio {i}")).to_have_count(1)
    expect(chat_of(carla_page).locator(".chat-error")).to_have_text(
        "Troppi messaggi: aspetta qualche secondo."
    )


# Answers ("ack") reach the page's socket listeners 1.5 s late, and those to chat
# messages are counted, so that the next message is typed before the last one's answer.
SLOW_ANSWERS = """
window.chatAnswers = 0;
const chats = new Set();
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  const frame = JSON.parse(data);
  if (frame.type === "chat") chats.add(frame.action);
  return send.call(this, data);
};
const listen = WebSocket.prototype.addEventListener;
WebSocket.prototype.addEventListener = function (type, fn, ...rest) {
  if (type !== "message") return listen.call(this, type, fn, ...rest);
  return listen.call(this, type, (e) => {
    const frame = JSON.parse(e.data);
    if (frame.type !== "ack") return fn(e);
    setTimeout(() => { fn(e); if (chats.has(frame.action)) window.chatAnswers += 1; }, 1500);
  }, ...rest);
};
"""


def test_text_typed_before_the_answer_to_the_last_message_is_kept(pages: Any) -> None:
    page = pages("it-IT")
    page.add_init_script(SLOW_ANSWERS)
    guest(page)
    page.goto("/lobby")
    expect(chat_of(page)).to_be_visible()
    write(page, "di nuovo")
    expect(messages(page).filter(has_text="di nuovo")).to_have_count(1)
    # the same words again, typed before the first message's answer comes
    chat_of(page).locator(".chat-input").fill("di nuovo")
    page.wait_for_function("() => window.chatAnswers >= 1")
    expect(chat_of(page).locator(".chat-input")).to_have_value("di nuovo")
    chat_of(page).locator(".chat-send").click()
    expect(messages(page).filter(has_text="di nuovo")).to_have_count(2)
    page.wait_for_function("() => window.chatAnswers >= 2")
    expect(chat_of(page).locator(".chat-input")).to_have_value("")


def operator(server: Server, path: str) -> None:
    """An operator's moderation route (docs/chat.md), with the server's admin token."""
    r = httpx.post(
        server.base_url + path, headers={"Authorization": f"Bearer {OPERATOR}"}, timeout=10
    )
    assert r.status_code == 200, r.text


def test_an_operator_hides_a_message_and_silences_an_account(pages: Any, server: Server) -> None:
    anna_page, bruno_page = pages("it-IT"), pages("it-IT")
    anna = guest(anna_page)
    guest(bruno_page)
    r = anna_page.request.post(
        "/api/tables", data={"config": {"players": 2, "bots": {"1": "facile"}}, "seat": 0}
    )
    assert r.status == 201, r.text()
    table = r.json()["table"]["id"]
    for page in (anna_page, bruno_page):
        page.goto(f"/table/{table}")
        page.wait_for_selector(".board")
    write(anna_page, "buongiorno")
    expect(chat_of(anna_page).locator(".chat-input")).to_have_value("")  # sent: the next
    write(anna_page, "parolaccia")
    for page in (anna_page, bruno_page):
        expect(messages(page).filter(has_text="parolaccia")).to_have_count(1)
    said = messages(bruno_page).filter(has_text="parolaccia").get_attribute("data-id")
    # hidden by the operator: gone at once from every page that shows it, the rest stays
    operator(server, f"/api/admin/chat/{said}/hide")
    for page in (anna_page, bruno_page):
        expect(messages(page).filter(has_text="parolaccia")).to_have_count(0)
        expect(messages(page).filter(has_text="buongiorno")).to_have_count(1)
    # silenced: the message is refused with a clear word, and nobody receives it
    operator(server, f"/api/admin/users/{anna['name']}/silence?minutes=5")
    write(anna_page, "ancora io")
    error = chat_of(anna_page).locator(".chat-error")
    expect(error).to_be_visible()
    expect(error).to_have_text("Un operatore ha sospeso la tua chat per un po'.")
    expect(messages(anna_page).filter(has_text="ancora io")).to_have_count(0)
    # lifted: the next message goes through again, and the error is gone
    operator(server, f"/api/admin/users/{anna['name']}/silence?minutes=0")
    write(anna_page, "eccomi")
    expect(messages(bruno_page).filter(has_text="eccomi")).to_have_count(1)
    expect(error).to_be_hidden()
    expect(messages(bruno_page).filter(has_text="ancora io")).to_have_count(0)
