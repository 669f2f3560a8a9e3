"""Whole partite against a real `cirulla serve`: scripted people and bots play to the end.

Each scripted person plays a legal move taken from its own view's `deal.legal_moves` when
it is its turn, as a browser would. Then the finished table's record is checked the way
anyone outside the server can: `cirulla verify` (run as a command), the history of each
player, and the move-by-move replay. Also here: reconnecting in the middle of a hand,
repeated and stale commands, and `cirulla verify` refusing records that were tampered with.

The helpers above the tests are shared with test_server_recovery.py and
test_server_secrecy.py.
"""

from __future__ import annotations

import contextlib
import copy
import json
import random
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from serverutil import Player, Server, running_server

from cirulla import Deal, Rules
from cirulla.eventlog import GENESIS, chain_hash
from cirulla.record import replay_game

Frame = dict[str, Any]
View = dict[str, Any]

# ---- helpers (also used by test_server_recovery.py and test_server_secrecy.py) ------------


def start_server(tmp_path: Path, **env: Any) -> Any:
    """`running_server` with room for many guests (guest accounts are rate limited) and
    for scripted players, who move much faster than the flood limit expects of people."""
    env.setdefault("login_attempts", 100_000)
    env.setdefault("flood_per_second", 10_000)
    env.setdefault("flood_burst", 10_000)
    return running_server(tmp_path, **env)


def table_frame(frame: Frame, table: str) -> bool:
    return frame.get("type") in ("event", "sync") and frame.get("table") == table


def catch_up(player: Player, table: str, version: int, timeout: float = 20) -> None:
    """Read `player`'s frames until it has seen `table` at `version` (or later)."""
    if player.version.get(table, 0) >= version:
        return
    player.recv_until(lambda f: table_frame(f, table) and f["version"] >= version, timeout)


def guests(server: Server, n: int) -> list[Player]:
    return [Player(server).guest().connect() for _ in range(n)]


def second_socket(player: Player) -> Player:
    """Another connection of the same user (another tab), whose frames are kept apart."""
    other = Player(player.server)
    other.http.cookies.update(player.http.cookies)
    other.user = player.user
    return other.connect()


def reconnect(player: Player) -> None:
    """A new socket for `player` (its old one closed, or dead with the server)."""
    with contextlib.suppress(Exception):
        player.close()
    player.ws = None
    player.connect()


def set_auto_declare(player: Player, on: bool) -> None:
    answer = player.command({"type": "auto_declare", "on": on})
    assert answer["type"] == "ack", answer


def open_table(
    owner: Player,
    others: Iterable[Player],
    config: dict[str, Any],
    watchers: Iterable[Player] = (),
    **extra: Any,
) -> tuple[str, dict[int, Player]]:
    """`owner` creates the table and joins it; `watchers` join it as spectators; `others`
    join and sit, one after the other. Returns the table and its people by seat.

    A table that its owner and bots fill starts as it is made: then its first dealer
    is chosen so that the owner moves first. (Were it a bot, its move could be being
    written while the owner joins, and a join then sees that move twice: see
    test_a_join_while_a_move_is_being_written_sees_each_version_once.)"""
    others, watchers = list(others), list(watchers)
    if not others and "dealer" not in extra:
        players = config.get("players", 4)
        bots = {int(seat) for seat in config.get("bots", {})}
        owner_seat = min(set(range(players)) - bots)
        extra["dealer"] = (owner_seat - 1) % players
    table = owner.create_table(config, **extra)
    joined = owner.join(table)
    assert joined["type"] == "ack", joined
    for w in watchers:
        assert w.join(table)["type"] == "ack"
    for p in others:
        assert p.join(table)["type"] == "ack"
        answer = p.sit(table)
        assert answer["type"] == "ack", answer
    people = [owner, *others]
    last = max(p.version[table] for p in people)
    for p in [*people, *watchers]:
        catch_up(p, table, last)
    seats = {p.views[table]["you"]: p for p in people}
    assert None not in seats and len(seats) == len(people)
    return table, seats


def last_view(player: Player, table: str) -> View:
    """The player's view of `table` at the last version it has seen."""
    view = player.views[table]
    assert view["version"] == player.version[table], "a batch's last frame carries the view"
    return view


Chooser = Callable[[list[str], random.Random], str]


def random_move(moves: list[str], rng: random.Random) -> str:
    return rng.choice(moves)


def play_until(
    table: str,
    people: dict[int, Player],
    watchers: Iterable[Player] = (),
    *,
    rng: random.Random | None = None,
    stop: Callable[[View], bool] | None = None,
    choose: Chooser = random_move,
    since: int = 0,
    timeout: float = 20,
    max_steps: int = 3000,
) -> View:
    """Play `table` until its partita is over, or `stop(view)` holds for a view at the end
    of a batch of events; each person moves from its own view's legal moves. When this
    returns, every person and watcher has read every frame up to the view's version.
    `since` is a version the table is known to have reached (by a player not listed);
    TimeoutError if nothing comes for `timeout` seconds when something should."""
    rng = rng or random.Random(0)
    everyone = [*people.values(), *watchers]
    ref = everyone[0]
    target = max(since, *(p.version.get(table, 0) for p in everyone))
    for _ in range(max_steps):
        for p in everyone:
            catch_up(p, table, target, timeout)
        view = last_view(ref, table)
        if view["status"] != "playing" or (stop is not None and stop(view)):
            return view
        seat = view["deal"]["to_move"]
        if seat in people:
            mover = people[seat]
            mine = last_view(mover, table)
            assert mine["deal"]["to_move"] == seat
            moves = mine["deal"]["legal_moves"]
            assert moves, f"seat {seat} is to move but its view lists no legal move"
            answer = mover.command(
                {
                    "type": "play",
                    "table": table,
                    "version": mover.version[table],
                    "move": choose(moves, rng),
                },
                timeout,
            )
            assert answer["type"] == "ack", answer
            target = answer["version"]
        else:  # a bot's turn, or the pause between two smazzate: wait for what comes
            ref.recv_until(partial(_view_after, table=table, version=target), timeout)
            target = ref.version[table]
    raise AssertionError(f"the partita did not end in {max_steps} steps")


def _view_after(frame: Frame, table: str, version: int) -> bool:
    return table_frame(frame, table) and "view" in frame and frame["version"] > version


def table_frames(player: Player, table: str) -> list[Frame]:
    return [f for f in player.frames if table_frame(f, table)]


def assert_versions_follow_on(player: Player, table: str) -> None:
    """Each event is the version after the one before (a sync starts afresh): no gap,
    no repeat, and the last frame of what was received carries the view."""
    current: int | None = None
    frames = table_frames(player, table)
    for f in frames:
        v = f["version"]
        if f["type"] == "sync" or current is None:
            current = v
            continue
        assert v == current + 1, f"version {v} after {current}"
        current = v
    assert frames and "view" in frames[-1]


def events_of(player: Player, table: str, kind: str) -> list[dict[str, Any]]:
    return [
        f["event"]
        for f in player.frames
        if f.get("type") == "event" and f.get("table") == table and f["event"]["type"] == kind
    ]


def fetch_record(player: Player, table: str) -> dict[str, Any]:
    r = player.http.get(f"/api/records/{table}")
    assert r.status_code == 200, r.text
    record: dict[str, Any] = r.json()
    return record


def run_verify(*paths: Path) -> subprocess.CompletedProcess[str]:
    """`cirulla verify` as a user would run it."""
    return subprocess.run(
        [sys.executable, "-m", "cirulla", "verify", *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_verifies(record: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / f"{record['table']}.json"
    path.write_text(json.dumps(record))
    done = run_verify(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{path}: OK" in done.stdout, done.stdout


def assert_finished_consistently(
    table: str, people: Iterable[Player], record: dict[str, Any]
) -> View:
    """Every person saw the same `ended` event, the status is finished, and the totals and
    the winner agree with the score sheets and with the engine's replay of the record."""
    people = list(people)
    ends = [events_of(p, table, "ended") for p in people]
    assert all(len(e) == 1 for e in ends), ends
    ended = ends[0][0]
    assert all(e[0] == ended for e in ends)
    views = [last_view(p, table) for p in people]
    for view in views:
        assert view["status"] == "finished"
        assert view["version"] == ended["version"]
        assert view["totals"] == ended["totals"]
        assert view["result"] == {k: ended[k] for k in ("winner", "totals", "reason")}
        assert "legal_moves" not in view["deal"], "nobody moves in a finished partita"
    view = views[0]
    sides = len(ended["totals"])
    summed = [sum(sheet["sides"][s]["total"] for sheet in view["scores"]) for s in range(sides)]
    assert summed == ended["totals"]
    game = replay_game(record["game"])
    assert game.is_over
    assert game.totals == ended["totals"]
    assert game.winner == ended["winner"]
    assert game.end_reason == ended["reason"]
    if ended["reason"] in ("target", "hands"):
        best = max(ended["totals"])
        assert ended["totals"].count(best) == 1 and ended["totals"][ended["winner"]] == best
    # the revealed events and the view's score sheets are the same smazzate
    revealed = events_of(people[0], table, "revealed")
    assert [r["score"] for r in revealed] == view["scores"]
    assert len(view["scores"]) == len(game.deals)
    return view


# ---- a 4-person partita, shared by the tests that check its record -----------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with start_server(tmp_path_factory.mktemp("play")) as srv:
        yield srv


@pytest.fixture(scope="module")
def partita(server: Server) -> dict[str, Any]:
    """Four guests at one table play a partita of two smazzate, moving at random."""
    players = guests(server, 4)
    set_auto_declare(players[1], False)  # this one declares (or not) by hand
    spectator = Player(server).guest().connect()
    table, people = open_table(players[0], players[1:], {"options": {"hands": 2}}, [spectator])
    view = play_until(table, people, [spectator], rng=random.Random(4))
    return {
        "table": table,
        "people": people,
        "spectator": spectator,
        "view": view,
        "record": fetch_record(players[0], table),
    }


def test_four_guests_play_a_partita_to_its_end(partita: dict[str, Any]) -> None:
    table, people = partita["table"], partita["people"]
    assert sorted(people) == [0, 1, 2, 3]
    record = partita["record"]
    view = assert_finished_consistently(table, people.values(), record)
    if view["result"]["reason"] == "hands":  # not a cappotto, which ends it at once
        assert len(view["scores"]) >= 2  # two smazzate, and more after a tie (E4)
    for p in [*people.values(), partita["spectator"]]:
        assert_versions_follow_on(p, table)
    # every move was a person's (none was made for them but automatic declarations)
    moves = [r for r in record["log"] if r["type"] == "move"]
    assert moves and {m["data"]["by"] for m in moves} <= {"player", "auto"}
    assert any(m["data"]["by"] == "player" for m in moves)
    # the log holds every version the players saw, in order
    assert [r["version"] for r in record["log"]] == list(range(1, view["version"] + 1))
    # each commitment was published before its smazzata and revealed after it
    kinds = [r["type"] for r in record["log"]]
    commits = [i for i, k in enumerate(kinds) if k == "committed"]
    reveals = [i for i, k in enumerate(kinds) if k == "revealed"]
    assert len(commits) == len(reveals) == len(view["scores"]) >= 1
    assert all(c < r for c, r in zip(commits, reveals, strict=True))
    assert kinds[-1] == "ended"


def test_the_record_of_a_finished_partita_passes_cirulla_verify(
    partita: dict[str, Any], tmp_path: Path
) -> None:
    record = partita["record"]
    assert record["format"] == "cirulla.table/1"
    assert record["table"] == partita["table"]
    assert [s["user"] for s in record["seats"]] == [
        partita["people"][i].user["id"] for i in range(4)
    ]
    assert_verifies(record, tmp_path)


def test_history_lists_the_partita_for_each_of_its_players(partita: dict[str, Any]) -> None:
    table, view = partita["table"], partita["view"]
    winner = view["result"]["winner"]
    for seat, p in partita["people"].items():
        r = p.http.get("/api/history")
        assert r.status_code == 200, r.text
        items = [h for h in r.json()["history"] if h["table"] == table]
        assert len(items) == 1, r.json()
        item = items[0]
        assert item["seat"] == seat
        assert item["side"] == seat % 2
        assert item["won"] == (seat % 2 == winner)
    # the spectator did not play it
    r = partita["spectator"].http.get("/api/history")
    assert r.status_code == 200
    assert all(h["table"] != table for h in r.json()["history"])


def test_replay_steps_through_every_move_of_the_record(partita: dict[str, Any]) -> None:
    table, record = partita["table"], partita["record"]
    r = partita["spectator"].http.get(f"/api/replay/{table}")
    assert r.status_code == 200, r.text
    replay = r.json()
    assert replay["table"] == table and replay["players"] == 4
    logged = [(m["data"]["deal"], m["data"]["seat"], m["data"]["move"]) for m in _moves(record)]
    stepped = [(s["deal"], s["seat"], s["move"]) for s in replay["steps"]]
    assert stepped == logged
    game = replay_game(record["game"])
    assert replay["totals"] == game.totals and replay["winner"] == game.winner
    # each step's state is the engine's after that move, with every hand open
    rules = Rules.from_dict(record["game"]["rules"])
    deals = [
        Deal(rules, 4, d.dealer, deck=list(d.initial_deck) if d.stacked else None, seed=d.seed)
        for d in game.deals
    ]
    for step in replay["steps"]:
        deal = deals[step["deal"]]
        deal.play(step["move"])
        shown = step["view"]
        assert [h["cards"] for h in shown["hands"]] == [
            [str(c) for c in deal.hand(s)] for s in range(4)
        ]
        assert [t["card"] for t in shown["table"]] == [t["card"] for t in deal.view(None)["table"]]
        assert shown["is_over"] == deal.is_over
    assert all(d.is_over for d in deals)


def _moves(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in record["log"] if r["type"] == "move"]


# ---- bots, and tables of 2 and 3 ---------------------------------------------------------


def test_one_person_plays_a_partita_with_three_bots(server: Server, tmp_path: Path) -> None:
    [me] = guests(server, 1)
    bots = {"1": "normale", "2": "facile", "3": "difficile"}
    table, people = open_table(me, [], {"options": {"hands": 1}, "bots": bots})
    assert list(people) == [0]
    seats = last_view(me, table)["seats"]
    assert [s["bot"] for s in seats] == [None, "normale", "facile", "difficile"]
    play_until(table, people, rng=random.Random(2))
    record = fetch_record(me, table)
    assert_finished_consistently(table, [me], record)
    assert_versions_follow_on(me, table)
    by_seat: dict[int, set[str]] = {}
    for m in _moves(record):
        by_seat.setdefault(m["data"]["seat"], set()).add(m["data"]["by"])
    assert by_seat[0] <= {"player", "auto"} and "player" in by_seat[0]
    assert all(by_seat[s] == {"bot"} for s in (1, 2, 3)), by_seat
    assert_verifies(record, tmp_path)


@pytest.mark.parametrize(
    ("players", "bots"),
    [(2, {}), (3, {}), (3, {"2": "normale"})],
    ids=["2-people", "3-people", "2-people-and-a-bot"],
)
def test_tables_of_two_and_three_play_to_the_end(
    server: Server, tmp_path: Path, players: int, bots: dict[str, str]
) -> None:
    people_needed = players - len(bots)
    clients = guests(server, people_needed)
    config = {"players": players, "options": {"hands": 1}, "bots": bots}
    table, people = open_table(clients[0], clients[1:], config)
    assert len(people) == people_needed
    view = play_until(table, people, rng=random.Random(players))
    record = fetch_record(clients[0], table)
    assert_finished_consistently(table, clients, record)
    assert len(view["totals"]) == players  # every seat is a side of its own
    assert record["game"]["players"] == players
    for p in clients:
        assert_versions_follow_on(p, table)
    assert_verifies(record, tmp_path)


# ---- reconnecting -----------------------------------------------------------------------


def test_a_player_who_reconnects_mid_hand_gets_exactly_the_missed_events(
    server: Server, tmp_path: Path
) -> None:
    anna, bruno = guests(server, 2)
    config = {"options": {"hands": 1}, "bots": {"1": "normale", "3": "facile"}}
    table, people = open_table(anna, [bruno], config)
    assert sorted(people) == [0, 2]
    rng = random.Random(7)
    # anna makes a move in the middle of the first hand, then her socket closes
    play_until(
        table, people, rng=rng, stop=lambda v: v["deal"]["to_move"] == 0 and 4 <= _plays(v) <= 16
    )
    moves = last_view(anna, table)["deal"]["legal_moves"]
    answer = anna.play(table, random_move(moves, rng))
    assert answer["type"] == "ack"
    last = anna.version[table]
    assert last == answer["version"]
    anna.close()  # whatever the bots did after her move is lost with the socket
    # bruno and the bots play on until it is anna's turn again
    view = play_until(
        table, {2: bruno}, rng=rng, since=last, stop=lambda v: v["deal"]["to_move"] == 0
    )
    current = view["version"]
    assert view["status"] == "playing" and current > last + 2
    anna.connect()
    mark = len(anna.frames)
    answer = anna.join(table, since=last)
    assert answer == {"type": "ack", "action": answer["action"], "version": current}
    got = [f for f in anna.frames[mark:] if f.get("table") == table]
    assert [f["type"] for f in got] == ["event"] * (current - last)
    assert [f["version"] for f in got] == list(range(last + 1, current + 1))
    assert all("view" not in f for f in got[:-1]) and "view" in got[-1]
    assert got[-1]["view"]["version"] == current
    assert got[-1]["view"]["deal"]["to_move"] == 0
    assert got[-1]["view"]["deal"]["legal_moves"]
    # the events bruno saw, filtered for anna: only other seats' dealt cards may differ
    his = {f["version"]: f["event"] for f in table_frames(bruno, table) if f["type"] == "event"}
    for f in got:
        mine, theirs = f["event"], his[f["version"]]
        assert {k: v for k, v in mine.items() if k != "events"} == {
            k: v for k, v in theirs.items() if k != "events"
        }
        assert [e["type"] for e in mine.get("events", [])] == [
            e["type"] for e in theirs.get("events", [])
        ]
    # nothing more comes: anna is to move
    anna.drain(0.3)
    assert [f for f in anna.frames[mark:] if f.get("table") == table] == got
    # a connection of hers that joins without `since` gets one sync with the same view
    other = second_socket(anna)
    mark = len(other.frames)
    assert other.join(table, since=None)["version"] == current
    synced = [f for f in other.frames[mark:] if f.get("table") == table]
    assert [f["type"] for f in synced] == ["sync"]
    assert synced[0]["version"] == current
    assert synced[0]["view"] == got[-1]["view"]
    # one that names a version the table never had gets a sync too; the current one, nothing
    mark = len(other.frames)
    assert other.join(table, since=current + 5)["version"] == current
    assert [f["type"] for f in other.frames[mark:] if f.get("table") == table] == ["sync"]
    mark = len(other.frames)
    assert other.join(table, since=current)["version"] == current
    assert [f for f in other.frames[mark:] if f.get("table") == table] == []
    other.close()
    # and anna plays on to the end
    play_until(table, {0: anna, 2: bruno}, rng=rng)
    record = fetch_record(anna, table)
    assert_finished_consistently(table, [anna, bruno], record)
    assert_versions_follow_on(anna, table)
    assert_verifies(record, tmp_path)


def _plays(view: View) -> int:
    return sum(1 for e in view["deal"]["history"] if e["type"] == "play")


# ---- repeated and stale commands ------------------------------------------------------------


def test_event_views_leave_the_history_out_and_each_seat_rebuilds_it_from_the_events(
    server: Server,
) -> None:
    """Views in event frames carry no `deal.history` (Player checks every one); the
    history a client keeps from the events, across a new deal's `committed`, is the one
    a fresh `sync` of the same seat carries, and a spectator's likewise."""
    a, b, watcher = guests(server, 3)
    # no cappotto (S8) may end the partita before the second deal
    config = {"players": 2, "options": {"hands": 2, "cappotto_scores_only": True}}
    table, people = open_table(a, [b], config, [watcher])
    view = play_until(
        table,
        people,
        [watcher],
        rng=random.Random(3),
        stop=lambda v: v["deal_index"] == 1 and len(v["deal"]["history"]) > 4,
    )
    assert view["deal_index"] == 1
    for player in [*people.values(), watcher]:
        rebuilt = player.history[table]
        assert rebuilt == player.views[table]["deal"]["history"]
        fresh = second_socket(player)
        assert fresh.join(table)["type"] == "ack"
        synced = fresh.views[table]
        assert synced["version"] == player.version[table]
        assert synced["deal"]["history"] == rebuilt
        # the second deal's, from its start (a misdeal, if the shuffle gave one, comes first)
        assert rebuilt[0]["type"] in ("deal", "misdeal")
        fresh.close()


def test_a_repeated_action_is_answered_again_and_applied_once(server: Server) -> None:
    anna, bruno = guests(server, 2)
    table, people = open_table(anna, [bruno], {"players": 2, "options": {"hands": 1}})
    seat = last_view(anna, table)["deal"]["to_move"]
    mover, waiter = people[seat], people[1 - seat]
    before = mover.version[table]
    move = last_view(mover, table)["deal"]["legal_moves"][0]
    frame = {"type": "play", "table": table, "version": before, "move": move, "action": "once"}
    first = mover.command(dict(frame))
    assert first["type"] == "ack", first
    after = first["version"]
    assert after > before
    catch_up(waiter, table, after)
    # the same action again on the same socket: the same answer, marked repeated
    again = mover.command(dict(frame))
    assert again == {**first, "repeated": True}
    # and again from a new connection of the same user
    mover.close()
    mover.connect()
    assert mover.join(table, since=after)["version"] == after
    third = mover.command(dict(frame))
    assert third == {**first, "repeated": True}
    # nothing was applied twice: no further event reached anyone, the version stands
    for p in (waiter, mover):
        p.drain(0.3)
        assert p.version[table] == after
    newcomer = Player(server).guest().connect()
    assert newcomer.join(table)["version"] == after
    assert last_view(newcomer, table)["version"] == after
    played = [
        f["event"]["move"]
        for f in table_frames(waiter, table)
        if f["type"] == "event" and f["event"]["type"] == "move" and f["event"]["by"] == "player"
    ]
    assert played == [move]
    # the repeat did not use up the turn of the other player either
    assert last_view(waiter, table)["deal"]["to_move"] == 1 - seat


def test_a_command_with_an_old_version_is_stale_and_followed_by_a_sync(server: Server) -> None:
    anna, bruno = guests(server, 2)
    table, people = open_table(anna, [bruno], {"players": 2, "options": {"hands": 1}})
    seat = last_view(anna, table)["deal"]["to_move"]
    mover, waiter = people[seat], people[1 - seat]
    # a move each, so that the table is past an older version; then `mover` is to move
    view = play_until(table, people, stop=lambda v: _plays(v) >= 2 and v["deal"]["to_move"] == seat)
    now = view["version"]
    view_before = last_view(mover, table)
    old = now - 2
    mark = len(mover.frames)
    move = view_before["deal"]["legal_moves"][0]
    answer = mover.command({"type": "play", "table": table, "version": old, "move": move})
    assert answer["type"] == "error" and answer["code"] == "stale", answer
    assert str(now) in answer["message"]
    sync = mover.recv_until(lambda f: f["type"] == "sync")
    assert mover.frames[mark:] == [answer, sync]
    assert sync["table"] == table and sync["version"] == now
    assert sync["view"] == view_before
    # nothing changed: the other player heard nothing
    waiter.drain(0.3)
    assert waiter.version[table] == now
    # the same move at the right version is taken
    assert mover.play(table, move)["version"] > now


# ---- cirulla verify refuses a tampered record ----------------------------------------------


def rehash(record: dict[str, Any]) -> None:
    """Recompute the hash chain of a record's log after an edit, as a forger would."""
    prev = GENESIS
    for rec in record["log"]:
        rec["prev"] = prev
        rec["hash"] = chain_hash(prev, rec["version"], rec["type"], rec["data"], rec["at"])
        prev = rec["hash"]


def _verify_one(record: dict[str, Any], tmp_path: Path, name: str) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(record))
    done = run_verify(path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{path}: REJECTED" in done.stdout, done.stdout
    return done.stdout


def _deal_before(record: dict[str, Any], index: int) -> Deal:
    """The smazzata of the `index`-th move of the log, just before that move."""
    game = replay_game(record["game"])
    moves = _moves(record)
    k = moves[index]["data"]["deal"]
    d = game.deals[k]
    deal = Deal(game.rules, game.players, d.dealer, seed=d.seed)
    for m in moves[:index]:
        if m["data"]["deal"] == k:
            deal.play(m["data"]["move"])
    assert deal.to_move == moves[index]["data"]["seat"]
    return deal


def _illegal_instead(record: dict[str, Any], index: int) -> str:
    """A card the mover of the `index`-th move does not hold: playing it is illegal."""
    deal = _deal_before(record, index)
    held = {str(c) for c in deal.hand(deal.to_move)}
    return next(c for c in ("AD", "2D", "3D", "4D", "5D", "6D", "7D", "KD") if c not in held)


def test_cirulla_verify_accepts_the_untouched_record(
    partita: dict[str, Any], tmp_path: Path
) -> None:
    assert_verifies(copy.deepcopy(partita["record"]), tmp_path)


def test_cirulla_verify_rejects_a_changed_move(partita: dict[str, Any], tmp_path: Path) -> None:
    record = copy.deepcopy(partita["record"])
    move = _moves(record)[3]
    move["data"]["move"] = _illegal_instead(record, 3)
    out = _verify_one(record, tmp_path, "changed-move")
    assert "hash chain" in out and f"record {move['version']}" in out


def test_cirulla_verify_rejects_an_illegal_move_with_a_rebuilt_chain(
    partita: dict[str, Any], tmp_path: Path
) -> None:
    record = copy.deepcopy(partita["record"])
    move = _moves(record)[3]
    move["data"]["move"] = _illegal_instead(record, 3)
    rehash(record)
    out = _verify_one(record, tmp_path, "illegal-move")
    assert "does not replay" in out


def test_cirulla_verify_rejects_another_legal_move_with_a_rebuilt_chain(
    partita: dict[str, Any], tmp_path: Path
) -> None:
    """The last move that had an alternative is changed to it: every move is legal, the
    chain is sound, but the partita is not the one the record's result and game part say."""
    record = copy.deepcopy(partita["record"])
    moves = _moves(record)
    for index in range(len(moves) - 1, -1, -1):
        deal = _deal_before(record, index)
        others = [str(m) for m in deal.legal_moves() if str(m) != moves[index]["data"]["move"]]
        if others:
            break
    else:  # pragma: no cover - a partita without a single choice
        pytest.fail("no move of this partita had an alternative")
    moves[index]["data"]["move"] = others[0]
    rehash(record)
    out = _verify_one(record, tmp_path, "other-move")
    assert any(
        reason in out
        for reason in ("does not replay", "game record does not match", "but its moves give")
    ), out


def test_cirulla_verify_rejects_a_changed_revealed_seed(
    partita: dict[str, Any], tmp_path: Path
) -> None:
    record = copy.deepcopy(partita["record"])
    revealed = next(r for r in record["log"] if r["type"] == "revealed")
    revealed["data"]["seed"] = str(int(revealed["data"]["seed"]) + 1)
    rehash(record)
    out = _verify_one(record, tmp_path, "changed-seed")
    assert "does not match" in out and "seed" in out


def test_cirulla_verify_rejects_a_record_with_a_dropped_log_record(
    partita: dict[str, Any], tmp_path: Path
) -> None:
    record = copy.deepcopy(partita["record"])
    index = record["log"].index(_moves(record)[5])
    del record["log"][index]
    out = _verify_one(record, tmp_path, "dropped")
    assert "hash chain" in out
    # renumbered and rehashed, the log no longer replays to the same partita
    for version, rec in enumerate(record["log"], start=1):
        rec["version"] = version
    rehash(record)
    _verify_one(record, tmp_path, "dropped-rehashed")


def test_cirulla_verify_rejects_a_changed_game_part(
    partita: dict[str, Any], tmp_path: Path
) -> None:
    record = copy.deepcopy(partita["record"])
    record["game"]["deals"][0]["moves"][0] = record["game"]["deals"][0]["moves"][1]
    out = _verify_one(record, tmp_path, "changed-game")
    assert "game record does not match" in out
    record = copy.deepcopy(partita["record"])
    record["game"]["totals"] = [t + 1 for t in record["game"]["totals"]]
    out = _verify_one(record, tmp_path, "changed-totals")
    assert "game record does not match" in out


def test_b8_automatic_declaration_switched_over_the_socket_is_what_api_me_says(
    server: Server,
) -> None:
    """The socket's `auto_declare` saves the option; GET /api/me (whose session is cached
    for a few seconds) says the new value at once, not the cached one."""
    [p] = guests(server, 1)
    assert p.http.get("/api/me").json()["user"]["options"]["auto_declare"] is True
    set_auto_declare(p, False)
    assert p.http.get("/api/me").json()["user"]["options"]["auto_declare"] is False
    set_auto_declare(p, True)
    assert p.http.get("/api/me").json()["user"]["options"]["auto_declare"] is True
