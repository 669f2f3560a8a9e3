"""The table as a fold of its log (tables/state.py) and the hash chain (eventlog.py)."""

from __future__ import annotations

import random
import re
import secrets

import pytest

from cirulla.eventlog import GENESIS, ChainError, LogRecord, chain_hash, verify_chain
from cirulla.shuffle import SHUFFLE_VERSION
from cirulla.tables.config import TableConfig
from cirulla.tables.ids import new_id
from cirulla.tables.state import TableError, TableState, commitment


class Log:
    """Builds a table's log the way the actor does, folding each record as it goes."""

    def __init__(self, config: TableConfig, shuffles: random.Random | None = None) -> None:
        """`shuffles` draws the smazzate's seeds (fixed cards); by default, fresh ones."""
        self.shuffles = shuffles
        data = {"config": config.model_dump(mode="json"), "owner": "u0", "shuffle": SHUFFLE_VERSION}
        self.records = [LogRecord.first("created", data, 1_000)]
        self.seeds: dict[int, int] = {}
        self.state = TableState.created("t", self.records[0], self.seeds)

    def add(self, kind: str, **data: object) -> LogRecord:
        rec = self.records[-1].next(kind, dict(data), self.records[-1].at + 10)
        self.state.apply(rec)
        self.records.append(rec)
        return rec

    def commit(self) -> None:
        k = self.state.deals_started
        seed = secrets.randbits(128) if self.shuffles is None else self.shuffles.getrandbits(128)
        self.state.secrets[k] = seed
        self.seeds[k] = seed
        self.add("committed", deal=k, commitment=commitment(seed), shuffle=SHUFFLE_VERSION)

    def seat_all(self) -> None:
        for seat in range(self.state.config.players):
            self.add("sat", seat=seat, user=f"u{seat}", name=f"p{seat}", bot=None)

    def play_to_end(self, rng: random.Random) -> None:
        """Random moves; reveal, deal again and end exactly as `needs()` asks."""
        while True:
            need = self.state.needs()
            if need == "start":
                self.add("started")
                self.commit()
            elif need == "reveal":
                k = self.state.deals_started - 1
                self.add("revealed", deal=k, seed=self.seeds[k])
            elif need == "commit":
                self.commit()
            elif need == "end":
                game = self.state.game
                assert game is not None
                self.add("ended", winner=game.winner, totals=game.totals, reason=game.end_reason)
                return
            else:
                seat = self.state.to_move
                assert seat is not None
                move = rng.choice(self.state.legal_moves(seat))
                self.add(
                    "move",
                    deal=self.state.deals_started - 1,
                    seat=seat,
                    move=str(move),
                    by="player",
                    clock=None,
                )


def finished_log(players: int = 2, seed: int = 1) -> Log:
    log = Log(TableConfig(players=players, options={"target": 21}))
    log.seat_all()
    log.play_to_end(random.Random(seed))
    return log


def test_chain_links_every_record_to_the_one_before() -> None:
    log = finished_log()
    verify_chain(log.records)
    assert log.records[0].prev == GENESIS
    for a, b in zip(log.records, log.records[1:], strict=False):
        assert b.prev == a.hash and b.version == a.version + 1


@pytest.mark.parametrize("field", ["data", "at", "type"])
def test_chain_names_the_altered_record(field: str) -> None:
    log = finished_log()
    recs = list(log.records)
    r = recs[10]
    changed = {"data": {**r.data, "x": 1}, "at": r.at + 1, "type": "moved"}[field]
    recs[10] = LogRecord(**{**r.to_dict(), field: changed})  # type: ignore[arg-type]
    with pytest.raises(ChainError, match="record 11"):
        verify_chain(recs)


def test_chain_catches_a_dropped_record() -> None:
    log = finished_log()
    with pytest.raises(ChainError):
        verify_chain(log.records[:5] + log.records[6:])


def test_record_json_round_trip_and_bad_fields() -> None:
    rec = finished_log().records[3]
    assert LogRecord.from_dict(rec.to_dict()) == rec
    with pytest.raises(ChainError, match="version"):
        LogRecord.from_dict({**rec.to_dict(), "version": "3"})
    with pytest.raises(ChainError):
        LogRecord.from_dict([1, 2])


def test_hash_is_over_canonical_json() -> None:
    a = chain_hash(GENESIS, 1, "x", {"b": 1, "a": 2}, 5)
    assert a == chain_hash(GENESIS, 1, "x", {"a": 2, "b": 1}, 5)
    assert a != chain_hash(GENESIS, 1, "x", {"a": 2, "b": 2}, 5)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_folding_the_log_again_gives_the_same_table(players: int) -> None:
    log = finished_log(players, seed=players)
    again = TableState.from_log("t", log.records)  # seeds from the revealed records
    assert again.status == "finished"
    for viewer in [None, *range(players)]:
        assert again.view(viewer) == log.state.view(viewer)


def test_commitment_binds_seed_and_shuffle_version() -> None:
    assert commitment(5) == commitment(5, SHUFFLE_VERSION)
    assert commitment(5) != commitment(6)
    assert commitment(5) != commitment(5, "other-shuffle")


def test_a_revealed_seed_must_match_its_commitment() -> None:
    log = Log(TableConfig(players=2))
    log.seat_all()
    log.add("started")
    log.commit()
    before = log.state.version
    rec = log.records[-1].next("revealed", {"deal": 0, "seed": 12345}, 2_000)
    with pytest.raises(TableError):
        log.state.apply(rec)
    assert log.state.version == before


def test_moves_out_of_turn_or_illegal_are_refused_by_check_move() -> None:
    log = Log(TableConfig(players=2))
    log.seat_all()
    log.add("started")
    log.commit()
    seat = log.state.to_move
    assert seat is not None
    other = 1 - seat
    with pytest.raises(TableError) as e:
        log.state.check_move(other, "5C")
    assert e.value.code == "not_your_turn"
    with pytest.raises(TableError) as e:
        log.state.check_move(seat, "ZZ")
    assert e.value.code == "bad_move"
    hand = log.state.game.deal.hand(other)  # type: ignore[union-attr]
    with pytest.raises(TableError) as e:
        log.state.check_move(seat, str(hand[0]))  # a card of the other seat
    assert e.value.code == "illegal_move"
    legal = log.state.legal_moves(seat)
    assert log.state.check_move(seat, str(legal[0])) == legal[0]
    assert log.state.legal_moves(other) == []


def test_seats_are_fixed_once_the_partita_begins() -> None:
    log = Log(TableConfig(players=2))
    log.seat_all()
    log.add("started")
    with pytest.raises(TableError):
        log.add("stood", seat=0)
    with pytest.raises(TableError):
        log.add("closed", reason="x")


def test_legal_moves_only_in_the_view_of_the_seat_to_move() -> None:
    log = Log(TableConfig(players=4))
    log.seat_all()
    log.add("started")
    log.commit()
    seat = log.state.to_move
    for viewer in [None, 0, 1, 2, 3]:
        has = "legal_moves" in log.state.view(viewer)["deal"]
        assert has == (viewer == seat)


def test_spectator_view_has_no_hand() -> None:
    log = Log(TableConfig(players=4))
    log.seat_all()
    log.add("started")
    log.commit()
    view = log.state.view(None)
    assert all("cards" not in h for h in view["deal"]["hands"])
    # (the seed is random: a misdeal may come before the deal that stands)
    first = log.state.public_record(log.records[-1], None)
    dealt = [e for e in first["events"] if e["type"] == "deal"][-1]
    assert all(h is None for h in dealt["hands"])
    mine = log.state.public_record(log.records[-1], 2)
    dealt = [e for e in mine["events"] if e["type"] == "deal"][-1]
    assert [h is not None for h in dealt["hands"]] == [False, False, True, False]


def test_config_refuses_what_cannot_be_played() -> None:
    with pytest.raises(ValueError, match="preset"):
        TableConfig(preset="nope")
    with pytest.raises(ValueError, match="scopa"):
        TableConfig(preset="scopa", players=3)
    with pytest.raises(ValueError, match="option"):
        TableConfig(options={"speed": 3})
    with pytest.raises(ValueError, match="level"):
        TableConfig(bots={1: "godlike"})
    with pytest.raises(ValueError, match="person"):
        TableConfig(players=2, bots={0: "normale", 1: "normale"})


def test_table_and_tournament_ids_never_start_with_a_dash() -> None:
    """The ids name records' files: one starting with "-" would read as an option (one
    in 32 of random tokens does)."""
    ids = [new_id() for _ in range(5000)]
    assert all(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{10}", i) for i in ids)
    assert len(set(ids)) == len(ids)
