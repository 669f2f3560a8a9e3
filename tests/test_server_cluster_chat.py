"""Chat in a cluster (docs/chat.md): two real nodes sharing PostgreSQL and Redis. A
table's chat reaches its watchers on every node, the rail stays the rail whichever node
its spectators are on, the lobby's chat and the operator's moderation reach every node.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serverutil import Player, Server
from test_server_chat import admin, rejoin, rest_chat, say, texts, wait_chat
from test_server_cluster import (
    LEASE,
    REDIS_URL,
    _forget_cluster,
    database,  # noqa: F401 (a fixture)
    health,
    two_player_table,
)
from test_server_play import start_server

TOKEN = "s3cret-operator-token"


@pytest.fixture
def chat_nodes(tmp_path: Path, database: str) -> Iterator[tuple[Server, Server]]:  # noqa: F811
    """Two nodes of one cluster with the operator's routes on and a roomy chat limit."""
    cluster = f"t{secrets.token_hex(4)}"
    env: dict[str, Any] = {
        "redis_url": REDIS_URL,
        "cluster": cluster,
        "lease_seconds": LEASE,
        "admin_token": TOKEN,
        "chat_seconds": 600,
    }
    with contextlib.ExitStack() as stack:
        servers = []
        for name in ("a", "b"):
            (tmp_path / name).mkdir()
            servers.append(
                stack.enter_context(start_server(tmp_path / name, database_url=database, **env))
            )
        yield servers[0], servers[1]
    _forget_cluster(cluster)


def test_a_tables_chat_and_its_rail_cross_nodes(chat_nodes: tuple[Server, Server]) -> None:
    a, b = chat_nodes
    anna, bruno, table, _ = two_player_table(a, b, hands=2)  # node a holds the table
    assert health(a)["tables"] == 1 and health(b)["tables"] == 0
    sara = Player(b).guest().connect()  # a spectator on the other node
    carlo = Player(a).guest().connect()  # and one on the owner's
    for p in (sara, carlo):
        assert p.join(table)["type"] == "ack"
    # a player on node b speaks: everyone on both nodes reads it
    assert say(bruno, table, text="ciao da b")["type"] == "ack"
    for p in (anna, bruno, sara, carlo):
        got = wait_chat(p, table, "ciao da b")
        assert got["from"] == bruno.user["name"] and got["audience"] == "all"
    # the rail, from node b: spectators on both nodes read it, the players never
    assert say(sara, table, text="gioca il settebello!")["type"] == "ack"
    for p in (sara, carlo):
        assert wait_chat(p, table, "gioca il settebello!")["audience"] == "spectators"
    assert say(anna, table, phrase="grazie")["type"] == "ack"
    for p in (anna, bruno):  # anna's later message came; sara's never did
        wait_chat(p, table, "grazie")
        assert "gioca il settebello!" not in texts(p, table)
    wait_chat(sara, table, "grazie")
    # joining again on node b, and reading over node b's HTTP, each gets what they may read
    assert rejoin(bruno, table) == ["ciao da b", "grazie"]
    assert rejoin(sara, table) == ["ciao da b", "gioca il settebello!", "grazie"]
    assert rest_chat(bruno, table) == ["ciao da b", "grazie"]
    assert rest_chat(sara, table) == ["ciao da b", "gioca il settebello!", "grazie"]
    # the operator hides a message through node b: the owner's watchers on both nodes drop it
    message = wait_chat(anna, table, "ciao da b")
    assert admin(b, f"/api/admin/chat/{message['id']}/hide").status_code == 200
    for p in (anna, sara):
        hidden = p.recv_until(lambda f: f["type"] == "chat_hidden")
        assert hidden == {"type": "chat_hidden", "chat": table, "id": message["id"]}
    assert rest_chat(bruno, table) == ["grazie"]


def test_the_lobbys_chat_and_its_moderation_reach_every_node(
    chat_nodes: tuple[Server, Server],
) -> None:
    a, b = chat_nodes
    anna = Player(a).guest().connect()
    bruno = Player(b).guest().connect()
    for p in (anna, bruno):
        assert p.command({"type": "lobby"})["type"] == "ack"
    assert say(anna, None, phrase="ciao")["type"] == "ack"
    got = wait_chat(bruno, None, "ciao")
    assert got["from"] == anna.user["name"]
    assert say(bruno, None, text="chi gioca?")["type"] == "ack"
    wait_chat(anna, None, "chi gioca?")
    # each node delivers a message once, its own included
    wait_chat(bruno, None, "chi gioca?")
    assert texts(anna, None) == ["ciao", "chi gioca?"]
    assert texts(bruno, None) == ["ciao", "chi gioca?"]
    # hidden through node a, gone on node b
    assert admin(a, f"/api/admin/chat/{got['id']}/hide").status_code == 200
    hidden = bruno.recv_until(lambda f: f["type"] == "chat_hidden")
    assert hidden == {"type": "chat_hidden", "chat": None, "id": got["id"]}
