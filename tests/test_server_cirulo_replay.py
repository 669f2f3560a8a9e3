"""A finished Cirulo partita in the history and its replay (RULES.md section 13): the
history says "cirulo", and /api/replay serves every card with every hand open."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from serverutil import Player, Server
from test_server_play import open_table, play_until, start_server

from cirulla.cirulo import replay_cirulo_game


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with start_server(tmp_path_factory.mktemp("cirulo-replay")) as srv:
        yield srv


def _finished_with_bots(server: Server, players: int = 4) -> tuple[Player, str]:
    owner = Player(server).guest().connect()
    bots = {str(s): "facile" for s in range(1, players)}
    config = {"game": "cirulo", "players": players, "options": {"hands": 1}, "bots": bots}
    table, seats = open_table(owner, [], config)
    view = play_until(table, seats, rng=random.Random(players))
    assert view["status"] == "finished"
    deadline = time.monotonic() + 60  # the record is saved just after the end
    while owner.http.get(f"/api/records/{table}").status_code != 200:
        assert time.monotonic() < deadline, "the record was never saved"
        time.sleep(0.1)
    return owner, table


def test_the_history_lists_a_finished_cirulo_partita_as_cirulo(server: Server) -> None:
    owner, table = _finished_with_bots(server)
    items = owner.http.get("/api/history").json()["history"]
    entry = next(e for e in items if e["table"] == table)
    assert entry["game"] == "cirulo"
    record = owner.http.get(f"/api/records/{table}").json()
    assert entry["summary"]["balances"] == record["game"]["balances"]


def test_the_replay_of_a_cirulo_partita_steps_through_every_card_with_hands_open(
    server: Server,
) -> None:
    owner, table = _finished_with_bots(server)
    r = owner.http.get(f"/api/replay/{table}")
    assert r.status_code == 200, r.text
    replay: dict[str, Any] = r.json()
    record = owner.http.get(f"/api/records/{table}").json()
    game = replay_cirulo_game(record["game"])
    assert replay["game"] == "cirulo" and replay["players"] == 4
    assert [s["move"] for s in replay["steps"]] == [str(c) for c in game.deals[0].moves]
    first = replay["deals"][0]["view"]
    dealt = sorted(c for h in first["hands"] for c in h["cards"])
    assert len(dealt) == len(replay["steps"])  # every hand is open, each card played once
    for step in replay["steps"]:
        assert step["move"] not in step["view"]["hands"][step["seat"]]["cards"]
    last = replay["steps"][-1]["view"]
    assert last["is_over"] and last["settlement"] == record["game"]["deals"][0]["settlement"]
    assert replay["balances"] == record["game"]["balances"]
    again = owner.http.get(f"/api/replay/{table}")  # the cached answer is the same
    assert again.json() == replay


def test_a_broken_cirulo_record_does_not_replay_and_says_why() -> None:
    from cirulla.cirulo.record import RecordError
    from cirulla.gateway.cirulo_replay import build_cirulo_replay

    with pytest.raises(RecordError):
        build_cirulo_replay("t", {"game": {"format": "cirulla.cirulo/1", "deals": []}})
