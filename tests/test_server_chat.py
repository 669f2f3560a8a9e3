"""Chat against a real server (docs/chat.md): at a table, from the rail, in the lobby,
its limits, and the operator's moderation routes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serverutil import Player, Server, running_server
from test_server_bot_api import make_bot
from test_server_play import guests, open_table, start_server
from websockets.sync.client import connect

TOKEN = "s3cret-operator-token"
Frame = dict[str, Any]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # a window of 10 minutes: "too fast" must not depend on how fast the machine is
    with start_server(tmp_path_factory.mktemp("chat"), admin_token=TOKEN, chat_seconds=600) as s:
        yield s


def say(p: Player, table: str | None, **what: Any) -> Frame:
    return p.command({"type": "chat", "table": table, **what})


def chat_frames(p: Player, chat: str | None) -> list[Frame]:
    return [f for f in p.frames if f["type"] == "chat" and f["chat"] == chat]


def texts(p: Player, chat: str | None) -> list[str]:
    return [f.get("text") or f["phrase"] for f in chat_frames(p, chat)]


def _said(f: Frame, chat: str | None, text: str) -> bool:
    return f["type"] == "chat" and f["chat"] == chat and f.get("text", f.get("phrase")) == text


def wait_chat(p: Player, chat: str | None, text: str) -> Frame:
    for f in p.frames:
        if _said(f, chat, text):
            return f
    return p.recv_until(lambda f: _said(f, chat, text))


def history(p: Player, chat: str | None, command: Frame) -> list[str]:
    """Send `command` (a join or lobby watch): the chat history it brings."""
    start = len(p.frames)
    assert p.command(command)["type"] == "ack"
    frame = next(f for f in p.frames[start:] if f["type"] == "chat_history" and f["chat"] == chat)
    return [m.get("text") or m["phrase"] for m in frame["messages"]]


def rejoin(p: Player, table: str) -> list[str]:
    return history(p, table, {"type": "join", "table": table, "since": p.version[table]})


def admin(server: Server, path: str, token: str | None = TOKEN) -> httpx.Response:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    return httpx.post(server.base_url + path, headers=headers, timeout=10)


def rest_chat(p: Player, table: str) -> list[str]:
    r = p.http.get(f"/api/tables/{table}/chat")
    assert r.status_code == 200, r.text
    return [m.get("text") or m["phrase"] for m in r.json()["messages"]]


def test_players_and_the_rail(server: Server) -> None:
    anna, bruno, sara = guests(server, 3)
    table, _ = open_table(anna, [bruno], {"players": 2}, watchers=[sara])
    assert anna.views[table]["status"] == "playing"
    # a player's message reaches the other player and the spectator
    assert say(anna, table, text="  ciao a tutti  ")["type"] == "ack"
    for p in (anna, bruno, sara):
        got = wait_chat(p, table, "ciao a tutti")
        assert got["from"] == anna.user["name"] and got["audience"] == "all"
    # a spectator's message during the partita reaches spectators only
    assert say(sara, table, text="gioca il settebello!")["type"] == "ack"
    assert wait_chat(sara, table, "gioca il settebello!")["audience"] == "spectators"
    assert say(bruno, table, phrase="grazie")["type"] == "ack"
    for p in (anna, bruno):  # bruno's later message came; sara's never did
        wait_chat(p, table, "grazie")
        assert "gioca il settebello!" not in texts(p, table)
        assert not any("settebello" in str(f) for f in p.frames)
    wait_chat(sara, table, "grazie")
    # what each may read when joining again, and over HTTP
    assert rejoin(anna, table) == ["ciao a tutti", "grazie"]
    assert rejoin(sara, table) == ["ciao a tutti", "gioca il settebello!", "grazie"]
    assert rest_chat(bruno, table) == ["ciao a tutti", "grazie"]
    assert rest_chat(sara, table) == ["ciao a tutti", "gioca il settebello!", "grazie"]
    # after the end, the replay's chat holds everything said
    ack = bruno.command({"type": "abandon", "table": table, "version": bruno.version[table]})
    assert ack["type"] == "ack", ack
    deadline = time.monotonic() + 30
    while bruno.http.get(f"/api/replay/{table}").status_code != 200:
        assert time.monotonic() < deadline, "no record after the partita ended"
        time.sleep(0.2)
    assert rest_chat(bruno, table) == ["ciao a tutti", "gioca il settebello!", "grazie"]


def test_bad_messages_are_refused(server: Server) -> None:
    anna, bruno = guests(server, 2)
    table = anna.create_table({"players": 2})
    for what, where in (
        ({"text": "x" * 201}, "200"),
        ({"text": "a\u0007b"}, "control"),
        ({"text": "   "}, "empty"),
        ({"phrase": "vai_via"}, "phrase"),
        ({"text": "a", "phrase": "ciao"}, "either"),
    ):
        answer = say(anna, None, **what)
        assert answer["type"] == "error" and answer["code"] == "bad_command", answer
        assert where in answer["message"], answer
    # at a table only once joined
    answer = say(bruno, table, text="hello")
    assert answer["type"] == "error" and answer["code"] == "not_watching", answer
    assert say(anna, None, text="x" * 200)["type"] == "ack"  # the limit itself is fine


def test_too_fast(server: Server) -> None:
    (carla,) = guests(server, 1)
    answers = [say(carla, None, text=f"spam {i}")["type"] for i in range(5)]
    assert answers == ["ack"] * 5
    answer = say(carla, None, text="spam 5")
    assert answer["type"] == "error" and answer["code"] == "chat_too_fast", answer


def test_lobby_chat(server: Server) -> None:
    anna, bruno = guests(server, 2)
    for p in (anna, bruno):
        assert p.command({"type": "lobby"})["type"] == "ack"
    assert say(anna, None, phrase="buona_fortuna")["type"] == "ack"
    got = wait_chat(bruno, None, "buona_fortuna")
    assert got["from"] == anna.user["name"] and "text" not in got
    (late,) = guests(server, 1)
    assert "buona_fortuna" in history(late, None, {"type": "lobby"})


def bot_player(server: Server, token: str) -> Player:
    """A bot account on the WebSocket, by its token (docs/bots.md)."""
    bot = Player(server)
    headers = {"Authorization": f"Bearer {token}"}
    bot.ws = connect(server.ws_url, additional_headers=headers).__enter__()
    bot.recv_until(lambda f: f["type"] == "welcome")
    return bot


def test_a_bot_accounts_messages_are_marked_as_a_bots(server: Server) -> None:
    """Live, in the history a join brings, over HTTP and in the lobby: a bot account's
    messages carry `bot_account: true`, a person's nothing of the kind."""
    owner = Player(server).register("padrona")
    robo = bot_player(server, make_bot(owner, "robo-chiacchiera", ["play"]))
    (bea,) = guests(server, 1)
    table = bea.create_table({"players": 2})
    for p in (bea, robo):
        assert p.join(table)["type"] == "ack"
    assert say(robo, table, text="sono un programma")["type"] == "ack"
    assert say(bea, table, phrase="ciao")["type"] == "ack"
    for p in (bea, robo):
        said = wait_chat(p, table, "sono un programma")
        assert said["from"] == "robo-chiacchiera" and said["bot_account"] is True
        assert "bot_account" not in wait_chat(p, table, "ciao")
    (carla,) = guests(server, 1)
    start = len(carla.frames)
    assert carla.join(table)["type"] == "ack"
    [sent] = [f for f in carla.frames[start:] if f["type"] == "chat_history"]
    assert [m.get("bot_account") for m in sent["messages"]] == [True, None]
    r = carla.http.get(f"/api/tables/{table}/chat")
    assert [m.get("bot_account") for m in r.json()["messages"]] == [True, None]
    assert robo.command({"type": "lobby"})["type"] == "ack"
    assert say(robo, None, phrase="buona_fortuna")["type"] == "ack"
    assert wait_chat(robo, None, "buona_fortuna")["bot_account"] is True
    robo.close()


def test_moderation(server: Server) -> None:
    anna, bruno = guests(server, 2)
    table, _ = open_table(anna, [bruno], {"players": 2})
    assert say(anna, table, text="parolaccia")["type"] == "ack"
    message = wait_chat(bruno, table, "parolaccia")
    # the token is needed
    assert admin(server, f"/api/admin/chat/{message['id']}/hide", None).status_code == 401
    assert admin(server, f"/api/admin/chat/{message['id']}/hide", "wrong").status_code == 401
    assert admin(server, "/api/admin/chat/999999999/hide").status_code == 404
    r = admin(server, f"/api/admin/chat/{message['id']}/hide")
    assert r.status_code == 200, r.text
    hidden = bruno.recv_until(lambda f: f["type"] == "chat_hidden")
    assert hidden == {"type": "chat_hidden", "chat": table, "id": message["id"]}
    assert rest_chat(bruno, table) == []
    assert rejoin(bruno, table) == []
    # silence, then lift it
    name = anna.user["name"]
    assert admin(server, f"/api/admin/users/{name}/silence?minutes=5", None).status_code == 401
    assert admin(server, "/api/admin/users/nobody-here/silence?minutes=5").status_code == 404
    assert admin(server, f"/api/admin/users/{name}/silence?minutes=-1").status_code == 422
    assert admin(server, f"/api/admin/users/{name}/silence?minutes=5").status_code == 200
    answer = say(anna, table, text="ancora io")
    assert answer["type"] == "error" and answer["code"] == "silenced", answer
    assert admin(server, f"/api/admin/users/{name}/silence?minutes=0").status_code == 200
    assert say(anna, table, text="ancora io")["type"] == "ack"


def test_admin_routes_are_off_without_a_token(tmp_path: Path) -> None:
    with running_server(tmp_path) as plain:
        assert admin(plain, "/api/admin/chat/1/hide").status_code == 404
        assert admin(plain, "/api/admin/users/x/silence", "guess").status_code == 404
