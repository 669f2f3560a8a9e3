"""A player's statistics of one finished partita, read from its engine record.

Pure: the record is replayed with the engine (`replay_game`) and every smazzata's
events are read, so the numbers are the rules' own, never a second count of them.
Every statistic is a count (or an expectation) that adds up across partite, so a
profile is the sum of its rows; rates are made only when it is shown.

Per seat: its own scope, hands dealt, accusi received and declared, dealer's
bonuses; per side (shared with a partner in 2v2): the points and the score
sheet's items won (carte, denari, settebello, primiera).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..bonuses import hand_bonus_options
from ..cards import Card
from ..deal import Deal
from ..record import RECORD_FORMAT, replay_game
from ..rules import Rules
from .luck import dealer_odds, hand_odds

__all__ = ["SIDE_ITEMS", "Stats", "add", "partita_stats"]

#: A statistics row: counter name -> value (ints, and float expectations).
Stats = dict[str, float]

#: Score sheet items counted as "won in this smazzata" (points above 0).
SIDE_ITEMS: Final = ("cards", "diamonds", "settebello", "primiera", "grande", "piccola")


def add(total: Mapping[str, float], more: Mapping[str, float]) -> Stats:
    """Two statistics rows summed, key by key."""
    out = dict(total)
    for key, value in more.items():
        out[key] = out.get(key, 0) + value
    return out


def _bump(stats: Stats, key: str, by: float = 1) -> None:
    stats[key] = stats.get(key, 0) + by


def _empty(seats: int) -> list[Stats]:
    return [{"smazzate": 0, "scope": 0, "points": 0, "hands": 0} for _ in range(seats)]


def partita_stats(game_record: Mapping[str, Any]) -> list[Stats]:
    """Each seat's statistics of a partita (`record["game"]` of a saved table);
    RecordError if it does not replay. A record of another game (Cirulo) gives
    empty rows: its statistics are not these."""
    if game_record.get("format") != RECORD_FORMAT:
        players = game_record.get("players")
        return [{} for _ in range(players if isinstance(players, int) else 0)]
    game = replay_game(dict(game_record))
    rules = game.rules
    out = _empty(game.players)
    for deal in game.deals:
        _deal_stats(deal, rules, out)
    return out


def _deal_stats(deal: Deal, rules: Rules, out: list[Stats]) -> None:
    seats = deal.players
    matta = rules.matta()
    hand_p = hand_odds(rules)
    dealer_p = dealer_odds(rules)
    for event in deal.events:
        kind = event["type"]
        if kind == "deal":
            if event["stage"] == 0:
                _dealt_table(out[event["dealer"]], dealer_p)
            for seat, hand in enumerate(event["hands"]):
                if len(hand) == 3:  # luck and accusi received: 3-card hands only
                    _dealt_hand(out[seat], [Card.parse(c) for c in hand], rules, matta, hand_p)
        elif kind == "dealer_bonus":
            s = out[event["seat"]]
            _bump(s, "dealer_bonus")
            _bump(s, f"dealer_{event['kind']}")
            _bump(s, "dealer_points", event["points"])
        elif kind == "declare":
            s = out[event["seat"]]
            _bump(s, "declared")
            _bump(s, f"declared_{event['kind']}")
            _bump(s, "declared_points", event["points"])
            _bump(s, f"declared_{event['kind']}_points", event["points"])
        elif kind == "play" and event["scopa"]:
            _bump(out[event["seat"]], "scope")
    if not deal.is_over:  # halted by a timeout or an abandon: no score sheet
        return
    score = deal.score()
    for seat in range(seats):
        side = deal.side_of(seat)
        sheet = score.sides[side]
        s = out[seat]
        _bump(s, "smazzate")
        _bump(s, "points", sheet["total"])
        for item in SIDE_ITEMS:
            if sheet.get(item, 0) > 0:
                _bump(s, f"won_{item}")


def _dealt_table(s: Stats, odds: Any) -> None:
    _bump(s, "dealt")
    _bump(s, "exp_dealer_bonus", float(odds.p_scoring))
    _bump(s, "exp_dealer_points", float(odds.points_mean))
    _bump(s, "var_dealer_points", float(odds.points_var))


def _dealt_hand(s: Stats, hand: list[Card], rules: Rules, matta: Card | None, odds: Any) -> None:
    _bump(s, "hands")
    _bump(s, "exp_hand_bonus", float(odds.p_qualifying))
    _bump(s, "exp_decino", float(odds.p("decino")))
    _bump(s, "exp_hand_points", float(odds.points_mean))
    _bump(s, "var_hand_points", float(odds.points_var))
    options = hand_bonus_options(hand, rules, matta=matta)
    if options:
        best = max(options, key=lambda o: (o.points, o.kind == "decino"))
        _bump(s, "hand_bonus")
        _bump(s, f"hand_{best.kind}")
        _bump(s, "hand_points", best.points)
