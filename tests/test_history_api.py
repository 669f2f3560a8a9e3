"""History, records and replays over real HTTP against a `cirulla serve` subprocess.

The finished partite are written into the server's own database file by the
store (as the table actor would at the end of a partita), then read back through
the API: a player's history page by page, the stored record, the replay move by
move with every hand open, and the privacy of private tables."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from serverutil import Server, running_server

from cirulla import Deal, Game, Rules, full_deck, game_record
from cirulla.eventlog import LogRecord
from cirulla.store import RecordPlayer, Store

PASSWORD = "password123"
START = datetime(2025, 5, 1, 20, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("history"), login_attempts=100_000) as s:
        yield s


def db_url(server: Server) -> str:
    return f"sqlite+aiosqlite:///{server.data_dir / 'cirulla.db'}"


def client(server: Server) -> httpx.Client:
    return httpx.Client(base_url=server.base_url, timeout=30)


def registered(server: Server, name: str) -> tuple[httpx.Client, dict[str, Any]]:
    http = client(server)
    r = http.post("/api/register", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    user: dict[str, Any] = r.json()["user"]
    return http, user


def error_of(response: httpx.Response) -> tuple[int, str]:
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    return response.status_code, body["error"]["code"]


def played(
    seed: int,
    players: int = 2,
    *,
    target: int = 16,
    stacked: bool = False,
    forfeit_after: int | None = None,
) -> Game:
    """A partita played with random legal moves (a stacked first deck, or abandoned
    by side 1 after `forfeit_after` moves of the second smazzata, if asked)."""
    rng = random.Random(seed)
    deck = None
    if stacked:
        deck = full_deck()
        rng.shuffle(deck)
    game = Game(Rules.preset("cirulla").replace(target=target), players, seed=seed, deck=deck)
    while not game.is_over:
        deal = game.deal
        while not deal.is_over:
            quitting = forfeit_after is not None and len(game.deals) == 2
            if quitting and len(deal.moves) == forfeit_after:
                game.forfeit(1, "abandon")
                return game
            deal.play(rng.choice(deal.legal_moves()))
        if not game.is_over:
            game.next_deal()
    return game


def _won(game: Game, side: int) -> bool | None:
    return None if game.winner is None else game.winner == side


def finish(
    server: Server,
    table_id: str,
    game: Game,
    users: list[dict[str, Any] | None],
    *,
    minutes: int = 0,
    private: bool = False,
    tamper: bool = False,
) -> dict[str, Any]:
    """Store a finished table with `game` as its partita, the way the server does."""
    seats = [
        {"seat": i, "name": u["name"], "user": u["id"], "bot": None}
        if u is not None
        else {"seat": i, "name": f"Bot {i}", "user": None, "bot": "facile"}
        for i, u in enumerate(users)
    ]
    part = game_record(game)
    if tamper:
        moves = part["deals"][0]["moves"]
        moves[0], moves[1] = moves[1], moves[0]  # the same cards, but not a legal order
    record = {"format": "cirulla.table/1", "table": table_id, "seats": seats, "game": part}
    sides = 2 if game.players == 4 else game.players
    players = [
        RecordPlayer(
            u["id"], i, i % sides, None if game.winner is None else game.winner == i % sides
        )
        for i, u in enumerate(users)
        if u is not None
    ]

    async def write() -> None:
        store = await Store.open(db_url(server))
        try:
            first = LogRecord.first("created", {"config": {"players": game.players}}, 1)
            await store.create_table(
                table_id,
                game="cirulla",
                config={"preset": "cirulla", "players": game.players, "private": private},
                private=private,
                invite_hash="h" * 64 if private else None,
                owner=next((u["id"] for u in users if u is not None), None),
                first=first,
            )
            ended = first.next("ended", {"winner": game.winner, "totals": game.totals}, 2)
            await store.append(table_id, [ended], status="finished")
            await store.save_record(
                table_id, record, players, finished_at=START + timedelta(minutes=minutes)
            )
        finally:
            await store.close()

    asyncio.run(write())
    return record


# ---- history ----------------------------------------------------------------------------------
def test_history_newest_first_in_pages(server: Server) -> None:
    anna_http, anna = registered(server, "AnnaH")
    bruno_http, bruno = registered(server, "BrunoH")
    games = {f"h{k}": played(k) for k in range(4)}
    for k, (table_id, game) in enumerate(games.items()):
        finish(server, table_id, game, [anna, bruno if k == 1 else None], minutes=k)

    with closing(anna_http):
        r = anna_http.get("/api/history")
        assert r.status_code == 200
        body = r.json()
        assert [h["table"] for h in body["history"]] == ["h3", "h2", "h1", "h0"]
        assert body["next"] is None
        top = body["history"][0]
        game = games["h3"]
        assert set(top) == {"table", "game", "finished_at", "seat", "side", "won", "summary"}
        assert top["game"] == "cirulla" and top["seat"] == 0 and top["side"] == 0
        assert top["won"] == (game.winner == 0)
        assert datetime.fromisoformat(top["finished_at"]) == START + timedelta(minutes=3)
        assert top["summary"]["players"] == ["AnnaH", "Bot 1"]
        assert top["summary"]["totals"] == game.totals
        assert top["summary"]["winner"] == game.winner
        assert top["summary"]["end_reason"] == game.end_reason

        page = anna_http.get("/api/history", params={"limit": 3}).json()
        assert [h["table"] for h in page["history"]] == ["h3", "h2", "h1"]
        assert page["next"] is not None
        rest = anna_http.get("/api/history", params={"limit": 3, "before": page["next"]}).json()
        assert [h["table"] for h in rest["history"]] == ["h0"] and rest["next"] is None
        naive = anna_http.get("/api/history", params={"before": "2025-05-01T20:02:00"}).json()
        assert [h["table"] for h in naive["history"]] == ["h1", "h0"]  # taken as UTC

        for params, field in [
            ({"limit": 0}, "limit"),
            ({"limit": 101}, "limit"),
            ({"before": "soon"}, "before"),
        ]:
            r = anna_http.get("/api/history", params=params)
            assert error_of(r) == (422, "invalid_request")
            assert f"'{field}'" in r.json()["error"]["message"]

    with closing(bruno_http):
        body = bruno_http.get("/api/history").json()
        assert [(h["table"], h["seat"], h["side"]) for h in body["history"]] == [("h1", 1, 1)]
    with client(server) as anonymous:
        assert error_of(anonymous.get("/api/history")) == (401, "not_logged_in")


# ---- records -----------------------------------------------------------------------------------
def test_records_are_public_unless_private(server: Server) -> None:
    carla_http, carla = registered(server, "CarlaR")
    dario_http, _ = registered(server, "DarioR")
    public = finish(server, "rpub", played(11), [carla, None])
    secret = finish(server, "rpriv", played(12), [carla, None], private=True)

    with client(server) as anonymous:
        assert anonymous.get("/api/records/rpub").json() == public
        r = anonymous.get("/api/records/rpub", headers={"Cookie": "cirulla_session=garbage"})
        assert r.json() == public  # a garbage cookie is just nobody
        assert error_of(anonymous.get("/api/records/nothing")) == (404, "unknown_table")
        assert error_of(anonymous.get("/api/records/rpriv")) == (401, "not_logged_in")
        assert error_of(anonymous.get("/api/replay/rpriv")) == (401, "not_logged_in")
        assert anonymous.get("/api/replay/rpub").status_code == 200
    with closing(dario_http):
        assert error_of(dario_http.get("/api/records/rpriv")) == (403, "private_table")
        assert error_of(dario_http.get("/api/replay/rpriv")) == (403, "private_table")
        assert dario_http.get("/api/records/rpub").json() == public
    with closing(carla_http):
        assert carla_http.get("/api/records/rpriv").json() == secret
        assert carla_http.get("/api/replay/rpriv").json()["table"] == "rpriv"


# ---- replays -----------------------------------------------------------------------------------
def check_replay(replay: dict[str, Any], record: dict[str, Any], game: Game) -> None:
    """The replay shows exactly the record's moves, and after each the state the
    engine reaches, with every hand open."""
    part = record["game"]
    assert replay["rules"] == part["rules"] and replay["players"] == game.players
    assert replay["seats"] == record["seats"]
    assert (replay["totals"], replay["winner"], replay["end_reason"]) == (
        part["totals"],
        part["winner"],
        part["end_reason"],
    )
    assert len(replay["deals"]) == len(part["deals"])
    steps = replay["steps"]
    assert len(steps) == sum(len(d["moves"]) for d in part["deals"])
    by_deal: dict[int, list[dict[str, Any]]] = {}
    for step in steps:
        by_deal.setdefault(step["deal"], []).append(step)
    for k, deal_part in enumerate(part["deals"]):
        start = replay["deals"][k]
        assert start["deal"] == k and start["dealer"] == deal_part["dealer"]
        opening = start["view"]
        dealt = sum(len(h["cards"]) for h in opening["hands"])
        assert dealt == sum(h["count"] for h in opening["hands"]) > 0
        assert dealt + len(opening["table"]) + opening["deck"] <= 40
        own = by_deal.get(k, [])
        assert [s["move"] for s in own] == deal_part["moves"]
        assert [s["index"] for s in own] == list(range(len(own)))
        deal = Deal(
            game.rules,
            game.players,
            deal_part["dealer"],
            deck=deal_part.get("deck"),
            seed=deal_part["seed"],
        )
        for step in own:
            assert step["seat"] == deal.to_move
            deal.play(step["move"])
            view = step["view"]
            assert "history" not in view and "rules" not in view
            for hand in view["hands"]:  # every hand open, and right
                assert hand["cards"] == [str(c) for c in deal.hand(hand["seat"])]
                assert len(hand["cards"]) == hand["count"]
            assert [t["card"] for t in view["table"]] == [str(c) for c in deal.table]
            assert view["is_over"] == deal.is_over
            assert view["events"] and all("type" in e for e in view["events"])
        if deal_part["over"]:
            assert own[-1]["view"]["is_over"]
            assert own[-1]["view"]["score"] == deal.score().to_dict()


def test_replay_move_by_move(server: Server) -> None:
    eva_http, eva = registered(server, "EvaR")
    cases = {
        "rp2": played(21, 2),
        "rp3": played(22, 3, target=11),
        "rp4": played(23, 4, target=11),
        "rpstack": played(24, 2, stacked=True),
        "rpquit": played(25, 2, target=51, forfeit_after=3),
    }
    with closing(eva_http):
        for table_id, game in cases.items():
            record = finish(server, table_id, game, [eva] + [None] * (game.players - 1))
            r = eva_http.get(f"/api/replay/{table_id}")
            assert r.status_code == 200, r.text
            replay = r.json()
            assert replay["table"] == table_id
            check_replay(replay, record, game)
            assert eva_http.get(f"/api/replay/{table_id}").json() == replay  # the same again
        quit_replay = eva_http.get("/api/replay/rpquit").json()
        assert quit_replay["end_reason"] == "abandon"
        assert not quit_replay["steps"][-1]["view"]["is_over"]  # left in the middle
        assert error_of(eva_http.get("/api/replay/nothing")) == (404, "unknown_table")


def test_a_record_that_does_not_replay_is_said_so(server: Server) -> None:
    finish(server, "rbroken", played(31), [None, None], tamper=True)
    with client(server) as http:
        r = http.get("/api/replay/rbroken")
        assert error_of(r) == (500, "broken_record")
        assert "deal 1" in r.json()["error"]["message"]
        assert http.get("/api/records/rbroken").status_code == 200  # still readable as stored
