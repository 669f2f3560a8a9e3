"""A knockout match that ties on a real `cirulla serve` and is settled by spareggi (E3).

A server in test mode takes stacked decks for a tournament's round 1 (`POST
/api/test/tournaments`, as `POST /api/test/tables` for a table). TIE_DECK, dealt by
seat 1, is a smazzata that two `normale` bots (greedy: their moves do not depend on
their seeds) end 8 to 8; it was found offline by playing stacked decks with the
server's own bots (tables/games.py `bot`, `bot_move`) until the totals tied. The
spareggi after it are shuffled from the table's committed seeds, so how many are
played varies: whichever ends it, the match must have a winner and the tournament
record must verify."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from serverutil import Player, running_server
from test_server_tournaments import (
    KNOCKOUT,
    detail,
    error_of,
    finished,
    post,
    verify_record,
    wait_for,
)

from cirulla.record import replay_game

# fmt: off
TIE_DECK = [
    "4C", "3D", "2H", "2D", "JS", "3S", "6D", "KD", "JH", "KC",
    "5S", "AC", "QS", "2C", "JC", "3C", "AH", "4S", "QH", "6S",
    "KS", "5H", "7C", "KH", "4H", "3H", "AD", "6H", "4D", "7D",
    "6C", "5C", "AS", "QC", "2S", "JD", "7H", "5D", "7S", "QD",
]
# fmt: on
TIE_DEALER = 1


def create_stacked(owner: Player, **body: Any) -> Any:
    body.setdefault("name", "spareggio")
    body.setdefault("format", "knockout")
    body.setdefault("config", KNOCKOUT)  # one smazzata (hands 1): a tie goes to spareggi
    body.setdefault("private", False)
    return owner.http.post("/api/test/tournaments", json=body)


def test_a_tied_knockout_match_goes_to_a_spareggio_and_has_a_winner(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        anna = Player(server).register("anna")

        # bad stacked decks are refused and make nothing
        r = create_stacked(anna, decks=[TIE_DECK[:39]], dealer=TIE_DEALER)
        assert error_of(r) == (422, "bad_config") and "decks" in r.text, r.text
        r = create_stacked(anna, decks="4C", dealer=TIE_DEALER)
        assert error_of(r) == (422, "bad_config"), r.text
        assert anna.http.get("/api/tournaments").json()["tournaments"] == []

        r = create_stacked(anna, decks=[TIE_DECK], dealer=TIE_DEALER)
        assert r.status_code == 201, r.text
        tid = r.json()["tournament"]["id"]
        assert post(anna, tid, "bots", {"level": "normale", "count": 2}).status_code == 200
        assert post(anna, tid, "start").status_code == 200
        got = wait_for(anna, tid, finished, timeout=90)

        (rnd,) = got["rounds"]
        (match,) = rnd["matches"]
        assert match["status"] == "finished" and match["winner"] in (0, 1)
        winner = match["sides"][match["winner"]]
        assert got["winner"] == winner
        assert len(match["tables"]) == 1  # one partita: the spareggi are its smazzate

        record = verify_record(anna, tid, tmp_path)  # `cirulla verify` accepts it
        (game,) = record["rounds"][0]["matches"][0]["records"]
        first, *spareggi = game["deals"]
        assert first["deck"] == TIE_DECK and first["dealer"] == TIE_DEALER
        assert len(spareggi) >= 1, "no spareggio after the tied smazzata"
        assert len(spareggi) <= 3  # E3: at most three
        assert all("deck" not in d for d in spareggi)  # shuffled from committed seeds
        replayed = replay_game(game)
        assert replayed.rules.knockout and replayed.rules.hands == 1
        tied = replayed.deals[0].score().totals
        assert tied[0] == tied[1], tied
        # a cappotto (S8) dealt in a spareggio ends it too
        assert replayed.is_over
        assert replayed.end_reason in ("spareggio", "last_capture", "cappotto")
        assert replayed.winner == game["winner"] == match["winner"]
        assert record["winner"] == winner

        assert detail(anna, tid)["tournament"]["status"] == "finished"


def test_stacked_tournaments_do_not_exist_without_test_mode(tmp_path: Path) -> None:
    with running_server(tmp_path, test_mode=False) as plain:
        anna = Player(plain).register("anna")
        r = create_stacked(anna, decks=[TIE_DECK], dealer=TIE_DEALER)
        assert r.status_code == 404, r.text
        r = create_stacked(anna)  # not even without decks
        assert r.status_code == 404, r.text
        body = {"name": "x", "format": "knockout", "config": KNOCKOUT, "private": False}
        r = anna.http.post("/api/tournaments", json={**body, "decks": [TIE_DECK]})
        assert error_of(r) == (422, "bad_config") and "decks" in r.text, r.text
        r = anna.http.post("/api/tournaments", json={**body, "dealer": TIE_DEALER})
        assert error_of(r) == (422, "bad_config") and "dealer" in r.text, r.text
        assert anna.http.get("/api/tournaments").json()["tournaments"] == []
