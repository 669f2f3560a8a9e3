"""The operator's tournaments (CIRULLA_TOURNAMENTS_FILE) on a real `cirulla serve`: a
daily tournament is made when its registration opens, with its bots, a person
registers, restarts make no second one, it starts by itself at its time and is
played to the end, and the next day's is made; one-off entries are made only when
ahead; a bad file stops the server with one `error:` line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from serverutil import Player, Server, free_port
from test_server_play import start_server

ROME = ZoneInfo("Europe/Rome")
KNOCKOUT = {"players": 2, "options": {"hands": 1}, "move_seconds": 1}


def ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def listing(player: Player) -> list[dict[str, Any]]:
    r = player.http.get("/api/tournaments")
    assert r.status_code == 200, r.text
    out: list[dict[str, Any]] = r.json()["tournaments"]
    return out


def poll(
    player: Player, check: Callable[[list[dict[str, Any]]], bool], timeout: float = 60
) -> list[dict[str, Any]]:
    """The list once `check` holds (generous: the machine may be busy)."""
    deadline = time.monotonic() + timeout
    while True:
        got = listing(player)
        if check(got):
            return got
        assert time.monotonic() < deadline, json.dumps(got)[:3000]
        time.sleep(0.2)


def named(tournaments: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [t for t in tournaments if t["name"] == name]


def wait_checks(server: Server, count: int, timeout: float = 30) -> None:
    """Until the servers of this test have finished their first schedule check `count`
    times in all (the check runs beside the start-up)."""
    deadline = time.monotonic() + timeout
    while server.log_path.read_text(errors="replace").count("schedule: 4 entries") < count:
        assert time.monotonic() < deadline, server.log()
        time.sleep(0.1)


def test_a_daily_tournament_is_made_once_starts_by_itself_and_the_next_day_follows(
    tmp_path: Path,
) -> None:
    now = datetime.now(UTC)
    # today's occurrence a little ahead, in Rome's time; registration open a day ahead,
    # so that tomorrow's is made as soon as today's has started
    start = (now + timedelta(seconds=35)).astimezone(ROME).replace(microsecond=0)
    tomorrow = datetime.combine(start.date() + timedelta(days=1), start.time(), tzinfo=ROME)
    later = (now + timedelta(hours=2)).replace(second=0, microsecond=0)
    weekday = (now + timedelta(days=3)).strftime("%A").lower()
    entries = [
        {
            "key": "sera",
            "name": "Torneo della sera",
            "format": "knockout",
            "config": KNOCKOUT,
            "max_entrants": 8,
            "every": "day",
            "at": start.strftime("%H:%M:%S"),
            "timezone": "Europe/Rome",
            "registration_minutes": 24 * 60,
            "bots": {"normale": 3},
        },
        {  # a one-off already past: never made
            "key": "passato",
            "name": "Passato",
            "format": "swiss",
            "config": KNOCKOUT,
            "starts_at": (now - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"),
        },
        {  # a one-off two hours ahead, registration open three hours before
            "key": "dopo",
            "name": "Dopo",
            "format": "round-robin",
            "config": KNOCKOUT,
            "starts_at": later.strftime("%Y-%m-%dT%H:%M"),
            "registration_minutes": 180,
        },
        {  # weekly, three days ahead: its registration (an hour) is not open yet
            "key": "settimana",
            "name": "Settimanale",
            "format": "swiss",
            "config": KNOCKOUT,
            "every": weekday,
            "at": now.strftime("%H:%M"),
        },
    ]
    schedule = tmp_path / "tournaments.json"
    schedule.write_text(json.dumps(entries))
    with start_server(tmp_path, tournaments_file=schedule, grace=0.2) as server:
        anna = Player(server).register("anna")
        got = poll(anna, lambda ts: len(named(ts, "Torneo della sera")) == 1)
        (sera,) = named(got, "Torneo della sera")
        tid = sera["id"]
        assert tid == f"sera-{start.astimezone(UTC):%Y%m%dT%H%M%SZ}"
        assert sera["organiser"] is None and not sera["private"]
        assert sera["status"] == "registering" and sera["starts_at"] == ms(start)
        assert [e["bot"] for e in sera["entrants"]] == ["normale"] * 3
        (dopo,) = named(got, "Dopo")
        assert dopo["starts_at"] == ms(later) and dopo["organiser"] is None
        assert not named(got, "Passato") and not named(got, "Settimanale")

        r = anna.http.post(f"/api/tournaments/{tid}/register", json={})
        assert r.status_code == 200, r.text
        server.restart()
        wait_checks(server, 2)
        got = listing(anna)
        assert [t["id"] for t in named(got, "Torneo della sera")] == [tid]
        assert [t["id"] for t in named(got, "Dopo")] == [dopo["id"]]
        (sera,) = named(got, "Torneo della sera")
        assert sera["status"] == "registering"
        assert [e["name"] for e in sera["entrants"]][-1] == "anna"

        # nobody starts it: it starts at its time; anna never sits and loses on the clock
        def over(ts: list[dict[str, Any]]) -> bool:
            return any(t["id"] == tid and t["status"] == "finished" for t in ts)

        poll(anna, over, timeout=120)
        detail = anna.http.get(f"/api/tournaments/{tid}").json()
        assert detail["winner"] is not None and len(detail["rounds"]) == 2
        assert detail["tournament"]["starts_at"] == ms(start)

        def next_day(ts: list[dict[str, Any]]) -> bool:
            return len(named(ts, "Torneo della sera")) == 2

        got = poll(anna, next_day, timeout=60)
        following = next(t for t in named(got, "Torneo della sera") if t["id"] != tid)
        assert following["starts_at"] == ms(tomorrow) and following["status"] == "registering"
        assert [e["bot"] for e in following["entrants"]] == ["normale"] * 3

        server.restart()
        wait_checks(server, 3)
        got = listing(anna)
        assert sorted(t["id"] for t in named(got, "Torneo della sera")) == sorted(
            [tid, following["id"]]
        )
        (again,) = [t for t in got if t["id"] == following["id"]]
        assert len(again["entrants"]) == 3  # the bots were not registered twice
        assert len(got) == 3  # and nothing else was made


def test_a_bad_tournaments_file_stops_the_server_with_one_error_line(tmp_path: Path) -> None:
    schedule = tmp_path / "tournaments.json"
    good = {"key": "sera", "name": "Sera", "format": "swiss", "every": "day", "at": "21:00"}
    bad = {**good, "key": "notte", "at": "25:00"}
    schedule.write_text(json.dumps([good, bad]))
    env = {**os.environ, "CIRULLA_TOURNAMENTS_FILE": str(schedule)}
    cmd = [sys.executable, "-m", "cirulla", "serve", "--port", str(free_port())]
    done = subprocess.run(
        [*cmd, "--data-dir", str(tmp_path / "data")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: CIRULLA_TOURNAMENTS_FILE"), lines[0]
    assert "entry 2 ('notte'), field 'at'" in lines[0], lines[0]
    assert "Traceback" not in done.stdout + done.stderr
