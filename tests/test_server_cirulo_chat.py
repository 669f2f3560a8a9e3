"""Chat at Cirulo tables on a real server (docs/chat.md, docs/cirulo.md): a Cirulo
table is a table like any other for the chat, so its players and its rail read what
they may, the history and the REST route follow the same rule, and once the game is
over everything said there is kept with the table."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from serverutil import Player, Server
from test_server_chat import rejoin, rest_chat, say, texts, wait_chat
from test_server_play import guests, open_table, play_until, start_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # a window of 10 minutes: "too fast" must not depend on how fast the machine is
    with start_server(tmp_path_factory.mktemp("cirulo-chat"), chat_seconds=600) as s:
        yield s


def cirulo(players: int = 4, **extra: Any) -> dict[str, Any]:
    return {"game": "cirulo", "players": players, "options": {"hands": 1}, **extra}


def wait_record(p: Player, table: str) -> None:
    deadline = time.monotonic() + 30
    while p.http.get(f"/api/records/{table}").status_code != 200:
        assert time.monotonic() < deadline, "no record after the game ended"
        time.sleep(0.2)


def test_cirulo_players_and_the_rail_then_the_chat_kept_after_the_end(server: Server) -> None:
    anna, bruno, carla, dario, sara, ugo = guests(server, 6)
    table, seats = open_table(anna, [bruno, carla, dario], cirulo(4), watchers=[sara, ugo])
    assert anna.views[table]["game"] == "cirulo"
    assert anna.views[table]["status"] == "playing"
    players = (anna, bruno, carla, dario)
    # a player's message reaches every player and every spectator
    assert say(carla, table, text="hola a todos")["type"] == "ack"
    for p in (*players, sara, ugo):
        got = wait_chat(p, table, "hola a todos")
        assert got["from"] == carla.user["name"] and got["audience"] == "all"
    # a spectator's message during the game reaches spectators only
    assert say(sara, table, text="non prendere gli oros!")["type"] == "ack"
    assert wait_chat(ugo, table, "non prendere gli oros!")["audience"] == "spectators"
    assert say(dario, table, phrase="buona_fortuna")["type"] == "ack"
    for p in players:  # dario's later message came; sara's never did
        wait_chat(p, table, "buona_fortuna")
        assert "non prendere gli oros!" not in texts(p, table)
        assert not any("oros!" in str(f) for f in p.frames)
    wait_chat(sara, table, "buona_fortuna")
    # what each may read when joining again, and over HTTP
    said = ["hola a todos", "buona_fortuna"]
    everything = ["hola a todos", "non prendere gli oros!", "buona_fortuna"]
    assert rejoin(bruno, table) == said
    assert rejoin(ugo, table) == everything
    assert rest_chat(anna, table) == said
    assert rest_chat(sara, table) == everything
    # the game is played out: the table's chat then holds everything said, for everyone
    view = play_until(table, seats, [sara, ugo], rng=random.Random(4))
    assert view["status"] == "finished" and view["game"] == "cirulo"
    wait_record(anna, table)
    assert rest_chat(anna, table) == everything
    assert rejoin(dario, table) == everything
    # after the end a spectator's message reaches the players too
    assert say(ugo, table, text="bella partita")["type"] == "ack"
    assert wait_chat(anna, table, "bella partita")["audience"] == "all"


def test_cirulo_chat_needs_a_join_and_keeps_the_limits(server: Server) -> None:
    owner, stranger = guests(server, 2)
    bots = {"1": "facile", "2": "facile", "3": "facile"}
    table, _ = open_table(owner, [], cirulo(4, bots=bots))
    answer = say(stranger, table, text="ciao")
    assert answer["type"] == "error" and answer["code"] == "not_watching", answer
    answer = say(owner, table, text="x" * 201)
    assert answer["type"] == "error" and answer["code"] == "bad_command", answer
    answers = [say(owner, table, text=f"messaggio {i}")["type"] for i in range(5)]
    assert answers == ["ack"] * 5
    answer = say(owner, table, phrase="ciao")
    assert answer["type"] == "error" and answer["code"] == "chat_too_fast", answer
    assert rest_chat(owner, table) == [f"messaggio {i}" for i in range(5)]
