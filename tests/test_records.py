"""Game records: a partita as JSON that replays move by move (game_record / replay_game,
deal_record / replay_deal), and every kind of tampering rejected with RecordError saying where."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from conftest import play_out, stack

import cirulla
from cirulla import (
    SHUFFLE_VERSION,
    Deal,
    Game,
    RecordError,
    Rules,
    deal_record,
    game_record,
    replay_deal,
    replay_game,
)

CIRULLA = Rules.preset("cirulla")
PRESET_PLAYERS = [
    ("cirulla", 2),
    ("cirulla", 3),
    ("cirulla", 4),
    ("pagat", 4),
    ("luzzati", 2),
    ("luzzati", 4),
    ("dossena", 3),
    ("scopa", 2),
    ("scopa", 4),
    ("cirullone", 4),
    ("cirullone-6-3", 4),
    ("cirullone-3-6", 4),
]


# ---- helpers -------------------------------------------------------------------------------


def _json(data: Any) -> Any:
    """Through JSON text and back, as a record file would travel."""
    return json.loads(json.dumps(data))


def _random_play(deal: Deal, rng: random.Random, moves: int | None = None) -> None:
    while not deal.is_over and moves != 0:
        deal.play(rng.choice(deal.legal_moves()))
        if moves is not None:
            moves -= 1


def _random_game(rules: Rules, players: int, seed: int) -> Game:
    rng = random.Random(seed)
    game = Game(rules, players=players, seed=seed)
    while True:
        _random_play(game.deal, rng)
        if game.is_over:
            return game
        game.next_deal()


def _same_partita(a: Game, b: Game) -> None:
    assert (b.totals, b.winner, b.end_reason, b.is_over) == (
        a.totals,
        a.winner,
        a.end_reason,
        a.is_over,
    )
    assert len(b.deals) == len(a.deals)
    for da, db in zip(a.deals, b.deals, strict=True):
        assert (db.dealer, db.seed, db.initial_deck) == (da.dealer, da.seed, da.initial_deck)
        assert [str(m) for m in db.moves] == [str(m) for m in da.moves]
        assert db.events == da.events
        assert db.is_over == da.is_over
        if da.is_over:
            assert db.score() == da.score()


_BASE: dict[str, Any] = {}


def _record() -> dict[str, Any]:
    """A finished 2-player partita of several smazzate (a fresh copy each time)."""
    if not _BASE:
        game = Game(CIRULLA, players=2, seed=3)
        while True:
            play_out(game.deal)
            if game.is_over:
                break
            game.next_deal()
        assert len(game.deals) >= 3
        _BASE.update(_json(game_record(game)))
    return copy.deepcopy(_BASE)


def _forfeited_record() -> dict[str, Any]:
    game = Game(CIRULLA, players=2, seed=5)
    play_out(game.deal)
    game.next_deal()
    for _ in range(7):
        game.deal.play(game.deal.legal_moves()[0])
    game.forfeit(1, "timeout")
    return _json(game_record(game))


def _position(record: dict[str, Any], deal_no: int, moves: int) -> Deal:
    """Deal `deal_no` (1-based) of the record, with its first `moves` moves played."""
    data = record["deals"][deal_no - 1]
    rules = Rules.from_dict(record["rules"])
    deal = Deal(rules, record["players"], data["dealer"], deck=data.get("deck"), seed=data["seed"])
    for move in data["moves"][:moves]:
        deal.play(move)
    return deal


def _rejected(record: Any, *where: str) -> str:
    with pytest.raises(RecordError) as info:
        replay_game(record)
    message = str(info.value)
    for part in where:
        assert part in message, message
    return message


# ---- round trips ---------------------------------------------------------------------------


@pytest.mark.parametrize("preset,players", PRESET_PLAYERS)
def test_record_round_trip_through_json_replays_the_same_partita(preset: str, players: int) -> None:
    rules = Rules.preset(preset)
    for seed in (1, 2):
        game = _random_game(rules, players, seed)
        record = game_record(game)
        text = json.dumps(record)
        data = json.loads(text)
        assert data["format"] == "cirulla.game/1"
        assert data["shuffle"] == SHUFFLE_VERSION
        assert (data["players"], data["seed"], data["rules"]) == (players, seed, rules.to_dict())
        assert [d["dealer"] for d in data["deals"]] == [d.dealer for d in game.deals]
        assert (data["totals"], data["over"], data["winner"], data["end_reason"]) == (
            game.totals,
            True,
            game.winner,
            game.end_reason,
        )
        assert data["forfeit"] is None
        replayed = replay_game(data)
        _same_partita(game, replayed)
        assert replayed.rules == rules
        assert json.dumps(game_record(replayed)) == text


def test_record_of_stacked_and_misdealt_smazzate_round_trips() -> None:
    two_aces = stack(players=4, dealer=1, table=["AD", "AH", "5C", "JS"])
    game = Game(CIRULLA, players=4, dealer=1, deck=two_aces, deal_seed=17)
    assert game.deal.misdeals >= 1
    play_out(game.deal)
    game.next_deal()  # seeded
    play_out(game.deal)
    fifteen = stack(players=4, dealer=3, table=["2C", "3C", "4C", "6C"])
    game.next_deal(deck=fifteen)  # stacked, with the dealer's bonus
    assert game.deal.bonus()[1] == 1
    play_out(game.deal)
    record = _json(game_record(game))
    assert [("deck" in d) for d in record["deals"]] == [True, False, True]
    assert record["deals"][0]["deck"] == [str(c) for c in two_aces]
    assert record["deals"][2]["deck"] == [str(c) for c in fifteen]
    replayed = replay_game(record)
    _same_partita(game, replayed)
    assert replayed.deals[0].misdeals == game.deals[0].misdeals


def test_record_of_an_unfinished_partita_replays_to_the_same_position() -> None:
    rng = random.Random(9)
    game = Game(Rules.preset("pagat"), players=3, seed=9)
    _random_play(game.deal, rng)
    game.next_deal()
    _random_play(game.deal, rng, moves=11)
    record = _json(game_record(game))
    assert (record["over"], record["winner"], record["end_reason"]) == (False, None, None)
    assert record["deals"][-1]["over"] is False and "score" not in record["deals"][-1]
    replayed = replay_game(record)
    _same_partita(game, replayed)
    assert replayed.deal.view(None) == game.deal.view(None)
    assert {str(m) for m in replayed.deal.legal_moves()} == {
        str(m) for m in game.deal.legal_moves()
    }
    move = game.deal.legal_moves()[-1]
    game.deal.play(move)
    replayed.deal.play(str(move))
    assert replayed.deal.events == game.deal.events


@pytest.mark.parametrize("reason", ["timeout", "abandon"])
@pytest.mark.parametrize("between_deals", [False, True])
def test_record_of_a_forfeited_partita_round_trips(reason: str, between_deals: bool) -> None:
    game = Game(CIRULLA, players=4, seed=12)
    play_out(game.deal)
    if not between_deals:
        game.next_deal()
        for _ in range(5):
            game.deal.play(game.deal.legal_moves()[0])
    result = game.forfeit(0, reason)  # type: ignore[arg-type]
    record = _json(game_record(game))
    assert record["forfeit"] == result.to_dict()
    assert (record["over"], record["winner"], record["end_reason"]) == (True, 1, reason)
    replayed = replay_game(record)
    _same_partita(game, replayed)
    assert replayed.forfeit_result == result


def test_record_of_instant_wins_round_trips() -> None:
    luzzati = Rules.preset("luzzati")
    table = stack(players=2, dealer=1, table=["QD", "QH", "QC", "QS"])
    game = Game(luzzati, players=2, dealer=1, deck=table)
    assert game.end_reason == "luzzati_table"
    record = _json(game_record(game))
    assert record["deals"][0]["instant_winner"] == 1 and record["deals"][0]["moves"] == []
    _same_partita(game, replay_game(record))

    misdeal = stack(players=2, dealer=0, table=["4D", "4H", "4C", "JS"])
    seed = next(s for s in range(20_000) if Deal(luzzati, 2, 0, deck=misdeal, seed=s).misdeals == 3)
    game = Game(luzzati, players=2, dealer=0, deck=misdeal, deal_seed=seed)
    assert game.end_reason == "luzzati_three_misdeals"
    _same_partita(game, replay_game(_json(game_record(game))))


def test_record_of_knockout_spareggi_round_trips() -> None:
    rules = CIRULLA.replace(hands=1, knockout=True)

    def tied_seed(dealer: int, pred: Callable[[Deal], bool] = lambda d: True) -> int:
        for seed in range(3000):
            deal = play_out(Deal(rules, 2, dealer, seed=seed))
            totals = deal.score().totals
            if totals[0] == totals[1] and pred(deal):
                return seed
        raise AssertionError("no tied smazzata found")

    game = Game(rules, players=2, dealer=0, deal_seed=tied_seed(0))
    play_out(game.deal)
    for seed in (tied_seed(1), tied_seed(0), tied_seed(1, lambda d: d.last_capture == 0)):
        play_out(game.next_deal(seed=seed))
    assert (game.end_reason, game.winner, game.spareggio) == ("last_capture", 1, 3)
    record = _json(game_record(game))
    _same_partita(game, replay_game(record))
    record["winner"] = 0
    _rejected(record, "winner")


# ---- tampering: moves ----------------------------------------------------------------------


def test_record_illegal_move_is_rejected_naming_the_deal_and_move() -> None:
    record = _record()
    deal = _position(record, 2, 4)
    other = next(s for s in range(2) if s != deal.to_move)
    record["deals"][1]["moves"][4] = str(deal.hand(other)[0])  # a card the mover does not hold
    _rejected(record, "deal 2, move 5")


def test_record_skipped_forced_capture_is_rejected_naming_the_deal_and_move() -> None:
    record = _record()
    moves = record["deals"][1]["moves"]
    index = next(i for i, m in enumerate(moves) if "x" in m)
    deal = _position(record, 2, index)
    card = moves[index].split("x")[0]
    assert all(m.captured for m in deal.legal_moves() if str(m.card) == card)
    moves[index] = card  # the same card laid down without its capture (P6)
    _rejected(record, f"deal 2, move {index + 1}")


@pytest.mark.parametrize("garbage", ["ZZ", "", "5Cx", "!pass", "!cirulla:AD2D", "7Hx7H", 42, None])
def test_record_garbled_move_is_rejected_naming_the_deal_and_move(garbage: object) -> None:
    record = _record()
    record["deals"][2]["moves"][2] = garbage
    _rejected(record, "deal 3, move 3")


def test_record_swapped_moves_are_rejected() -> None:
    record = _record()
    moves = record["deals"][1]["moves"]
    moves[0], moves[1] = moves[1], moves[0]
    _rejected(record, "deal 2, move 1")


def test_record_dropped_move_is_rejected() -> None:
    record = _record()
    del record["deals"][1]["moves"][3]
    _rejected(record, "deal 2")


def test_record_truncated_smazzata_is_rejected() -> None:
    record = _record()
    record["deals"][0]["moves"].pop()
    _rejected(record, "deal 1", "over")


def test_record_extra_move_after_the_smazzata_is_rejected() -> None:
    record = _record()
    moves = record["deals"][0]["moves"]
    moves.append(moves[-1])
    _rejected(record, f"deal 1, move {len(moves)}")


# ---- tampering: results, dealers, seeds, decks ---------------------------------------------


@pytest.mark.parametrize("item", ["scope", "cards", "primiera", "total"])
def test_record_changed_score_is_rejected_naming_the_deal(item: str) -> None:
    record = _record()
    record["deals"][1]["score"][0][item] += 1
    _rejected(record, "deal 2", "score")


def test_record_swapped_score_sheet_is_rejected() -> None:
    record = _record()
    score = record["deals"][2]["score"]
    assert score[0] != score[1]
    score.reverse()
    _rejected(record, "deal 3")


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(instant_winner=0),
        lambda d: d.update(over=False),
    ],
)
def test_record_changed_deal_outcome_is_rejected(change: Callable[[dict[str, Any]], None]) -> None:
    record = _record()
    change(record["deals"][0])
    _rejected(record, "deal 1")


@pytest.mark.parametrize(
    "name,value",
    [
        ("totals", "bump"),
        ("winner", "flip"),
        ("end_reason", "hands"),
        ("end_reason", "cappotto"),
        ("over", False),
    ],
)
def test_record_changed_partita_result_is_rejected(name: str, value: object) -> None:
    record = _record()
    if value == "bump":
        record["totals"][1] += 1
    elif value == "flip":
        record["winner"] = 1 - record["winner"]
    else:
        record[name] = value
    _rejected(record, name)


def test_record_wrong_dealer_order_is_rejected() -> None:
    record = _record()
    record["deals"][1]["dealer"] = record["deals"][0]["dealer"]  # the deal did not pass on
    _rejected(record, "deal 2", "dealer")

    record = _json(game_record(_random_game(CIRULLA, 4, 4)))
    assert len(record["deals"]) >= 3
    record["deals"][2]["dealer"] = (record["deals"][1]["dealer"] + 2) % 4
    _rejected(record, "deal 3", "dealer")


def test_record_changed_first_dealer_is_rejected() -> None:
    record = _record()
    record["deals"][0]["dealer"] = 1 - record["deals"][0]["dealer"]
    _rejected(record, "deal 1")


def test_record_changed_seed_is_rejected() -> None:
    record = _record()
    record["deals"][1]["seed"] += 1
    _rejected(record, "deal 2")


def _stacked_record() -> dict[str, Any]:
    """Two smazzate, both from stacked decks."""
    game = Game(CIRULLA, players=2, dealer=0, deck=stack(players=2, dealer=0), deal_seed=1)
    play_out(game.deal)
    play_out(game.next_deal(deck=stack(players=2, dealer=1, table=["KS", "QS", "JS", "6S"])))
    assert not game.is_over
    return _json(game_record(game))


@pytest.mark.parametrize("deal_no", [1, 2])
@pytest.mark.parametrize(
    "change",
    [
        lambda deck: deck.reverse(),
        lambda deck: deck.insert(0, deck.pop()),
    ],
)
def test_record_reordered_stacked_deck_is_rejected(
    change: Callable[[list[str]], None], deal_no: int
) -> None:
    record = _stacked_record()
    replay_game(copy.deepcopy(record))  # untouched it replays
    change(record["deals"][deal_no - 1]["deck"])
    _rejected(record, f"deal {deal_no}")


@pytest.mark.parametrize("deal_no", [1, 2])
@pytest.mark.parametrize(
    "field,change",
    [
        ("deck", lambda deck: deck.__setitem__(5, deck[6])),  # a card twice
        ("deck", lambda deck: deck.pop()),  # 39 cards
        ("deck", lambda deck: deck.__setitem__(0, "XX")),
        ("deck", None),  # not a list
        ("seed", None),
    ],
)
def test_record_impossible_smazzata_is_rejected_naming_it(
    field: str, change: Callable[[list[str]], None] | None, deal_no: int
) -> None:
    record = _stacked_record()
    data = record["deals"][deal_no - 1]
    if change is not None:
        change(data[field])
    else:
        data[field] = -7 if field == "seed" else "AD 2D 3D"
    _rejected(record, f"deal {deal_no}")


def test_record_without_its_stacked_deck_is_rejected() -> None:
    record = _stacked_record()
    del record["deals"][0]["deck"]
    _rejected(record, "deal 1")


# ---- tampering: format, rules, fields, extra smazzate, forfeits ----------------------------


@pytest.mark.parametrize(
    "name,value", [("format", "cirulla.game/2"), ("format", None), ("shuffle", "python-random")]
)
def test_record_unknown_format_or_shuffle_version_is_rejected(name: str, value: object) -> None:
    record = _record()
    record[name] = value
    _rejected(record, name if name == "format" else "shuffle")


@pytest.mark.parametrize(
    "rules",
    [
        {"bogus_option": True},
        {"target": "fifty-one"},
        {"target": 51, "hands": 3},
        {"game": "briscola"},
        "cirulla",
        None,
    ],
)
def test_record_bad_rules_are_rejected(rules: object) -> None:
    record = _record()
    if isinstance(rules, dict):
        record["rules"].update(rules)
    else:
        record["rules"] = rules
    _rejected(record, "rules")


def test_record_rules_impossible_for_the_players_are_rejected() -> None:
    record = _record()
    record["rules"] = Rules.preset("cirullone").to_dict()
    _rejected(record, "record")


@pytest.mark.parametrize(
    "change",
    [
        {"target": 500},  # the partita would not be over
        {"target": 5},  # it would have ended after the first smazzata
        {"game": "scopa", "target": 11},
        {"declare_at_deal": True},
        {"hands": 2, "target": None},
    ],
)
def test_record_changed_rules_are_rejected(change: dict[str, Any]) -> None:
    record = _record()
    record["rules"].update(change)
    Rules.from_dict(record["rules"])  # valid rules, just not the partita's
    _rejected(record)


def test_record_changed_players_are_rejected() -> None:
    record = _record()
    record["players"] = 4
    _rejected(record, "deal 1")


@pytest.mark.parametrize("name", ["format", "rules", "players", "seed", "deals"])
def test_record_missing_top_level_field_is_rejected(name: str) -> None:
    record = _record()
    del record[name]
    _rejected(record, name)


@pytest.mark.parametrize("deal_no", [1, 2])
@pytest.mark.parametrize("name", ["dealer", "seed", "moves"])
def test_record_missing_deal_field_is_rejected(deal_no: int, name: str) -> None:
    record = _record()
    del record["deals"][deal_no - 1][name]
    _rejected(record, f"deal {deal_no}", name)


@pytest.mark.parametrize(
    "path,value",
    [
        (("players",), "2"),
        (("players",), True),
        (("seed",), "3"),
        (("seed",), -1),
        (("deals",), {}),
        (("deals",), []),
        (("deals", 0), "not a deal"),
        (("deals", 1), ["list"]),
        (("deals", 1, "seed"), 1.5),
        (("deals", 1, "seed"), -7),
        (("deals", 1, "moves"), "5C 6D"),
        (("deals", 0, "dealer"), True),
        (("deals", 0, "dealer"), 9),
        (("deals", 1, "dealer"), 9),
    ],
)
def test_record_field_of_the_wrong_type_is_rejected(path: tuple[Any, ...], value: object) -> None:
    record = _record()
    target: Any = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    _rejected(record)


@pytest.mark.parametrize("record", [[], "record", None, 7])
def test_record_that_is_not_an_object_is_rejected(record: object) -> None:
    _rejected(record)


def test_record_smazzata_after_the_partita_ended_is_rejected() -> None:
    record = _record()
    extra = copy.deepcopy(record["deals"][-2])  # the dealer of the turn after the last one
    record["deals"].append(extra)
    n = len(record["deals"])
    _rejected(record, f"deal {n}", "no further smazzata")


def test_record_smazzata_after_an_unfinished_one_is_rejected() -> None:
    record = _record()
    first = record["deals"][0]
    del first["moves"][-3:]
    first["over"] = False
    del first["score"], first["instant_winner"]
    _rejected(record, "deal 2", "no further smazzata")


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f.update(credited=5),
        lambda f: f.update(difference=f["difference"] + 1),
        lambda f: f.update(totals=[t + 1 for t in f["totals"]]),
        lambda f: f.update(winner=f["loser"]),
        lambda f: f.update(loser=7),
        lambda f: f.update(loser="1"),
        lambda f: f.update(reason="quit"),
        lambda f: f.pop("loser"),
        lambda f: f.pop("reason"),
    ],
)
def test_record_bad_forfeit_is_rejected(change: Callable[[dict[str, Any]], None]) -> None:
    record = _forfeited_record()
    replay_game(copy.deepcopy(record))
    change(record["forfeit"])
    _rejected(record, "forfeit")


@pytest.mark.parametrize("forfeit", ["timeout", ["loser", 0], 3])
def test_record_forfeit_that_is_not_an_object_is_rejected(forfeit: object) -> None:
    record = _forfeited_record()
    record["forfeit"] = forfeit
    _rejected(record, "forfeit")


def test_record_forfeit_of_a_partita_already_won_is_rejected() -> None:
    record = _record()
    record["forfeit"] = {
        "loser": 0,
        "winner": 1,
        "reason": "abandon",
        "credited": 6,
        "totals": [0, 6],
        "difference": 6,
    }
    _rejected(record, "forfeit")


def test_record_dropped_forfeit_is_rejected() -> None:
    record = _forfeited_record()
    record["forfeit"] = None
    _rejected(record)


# ---- deal_record / replay_deal -------------------------------------------------------------


@pytest.mark.parametrize("preset,players", PRESET_PLAYERS)
def test_deal_record_round_trips_through_json(preset: str, players: int) -> None:
    rules = Rules.preset(preset)
    deal = Deal(rules, players=players, dealer=players - 1, seed=31)
    _random_play(deal, random.Random(31))
    data = _json(deal_record(deal))
    assert data["moves"] == [str(m) for m in deal.moves]
    assert (data["dealer"], data["seed"], data["over"]) == (players - 1, 31, True)
    assert "deck" not in data
    assert data["score"] == [dict(s) for s in deal.score().sides]
    assert data["instant_winner"] == deal.instant_winner
    replayed = replay_deal(rules, players, data)
    assert replayed.events == deal.events
    assert replayed.score() == deal.score()


def test_deal_record_of_a_stacked_unfinished_deal_round_trips() -> None:
    deck = stack(players=3, dealer=2, table=["AD", "AS", "5C", "JS"])  # a misdeal first
    deal = Deal(CIRULLA, players=3, dealer=2, deck=deck, seed=8)
    assert deal.misdeals >= 1
    _random_play(deal, random.Random(2), moves=10)
    data = _json(deal_record(deal))
    assert data["deck"] == [str(c) for c in deck] and data["over"] is False
    assert "score" not in data
    replayed = replay_deal(CIRULLA, 3, data)
    assert replayed.events == deal.events
    assert replayed.view(None) == deal.view(None)
    assert replayed.to_move == deal.to_move and not replayed.is_over


def test_replay_deal_rejects_tampering_and_says_where() -> None:
    deal = play_out(Deal(CIRULLA, players=2, dealer=1, seed=4))
    data = _json(deal_record(deal))

    bad = copy.deepcopy(data)
    bad["moves"][3] = "QQ"
    with pytest.raises(RecordError, match=r"^deal, move 4\b"):
        replay_deal(CIRULLA, 2, bad)
    with pytest.raises(RecordError, match=r"^smazzata 7, move 4\b"):
        replay_deal(CIRULLA, 2, bad, where="smazzata 7")

    bad = copy.deepcopy(data)
    bad["score"][1]["total"] += 2
    with pytest.raises(RecordError, match="score"):
        replay_deal(CIRULLA, 2, bad)

    bad = copy.deepcopy(data)
    bad["instant_winner"] = 1
    with pytest.raises(RecordError, match="instant"):
        replay_deal(CIRULLA, 2, bad)

    with pytest.raises(RecordError):
        replay_deal(CIRULLA, 3, data)  # not the players it was dealt for
    with pytest.raises(RecordError):
        replay_deal(Rules.preset("scopa"), 2, data)  # nor the rules
    for missing in ("dealer", "seed", "moves"):
        bad = copy.deepcopy(data)
        del bad[missing]
        with pytest.raises(RecordError, match=missing):
            replay_deal(CIRULLA, 2, bad)
    with pytest.raises(RecordError):
        replay_deal(CIRULLA, 2, ["not", "a", "deal"])  # type: ignore[arg-type]


def test_record_errors_are_value_errors() -> None:
    assert issubclass(RecordError, ValueError)
    assert cirulla.RecordError is RecordError
