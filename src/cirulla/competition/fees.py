"""Tournament entry fees and prize pools: the chips a tournament's new log records move.

Pure functions of the tournament's state and the records being written, so that the
movements ride in the same transaction as the records (store/tournaments.py
`append`): a server killed at any moment leaves both or neither, and a tournament
rebuilt from its log on any node never charges, refunds or pays twice.

- "registered": each person entered pays what the record says (`"fee"`) from their
  own wallet into `pool:<tournament>`: who registers a pair pays both fees, the
  partner named nothing (nobody can spend another's chips). Bots pay nothing.
- "unregistered", "cancelled", and the people "started" withdraws (the odd one out
  of a pairs tournament): what each paid goes back.
- "ended": the pool is paid out by rank (`split_pool`), to people only; it ends at 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import Final

from ..eventlog import LogRecord
from ..store.ledger import InsufficientChips, Movement, Posting, pool, wallet
from .tournament_log import DirectorError, Entrant, TournamentState

__all__ = [
    "DEFAULT_PRIZES",
    "MAX_PLACES",
    "Award",
    "check_prizes",
    "insufficient",
    "planned_payout",
    "pool_chips",
    "prize_awards",
    "prize_view",
    "split_pool",
    "tournament_movements",
]

#: How the pool pays by default: 60% to the best placed person, 30% and 10% next.
DEFAULT_PRIZES: Final = (60, 30, 10)
#: The most paid places a tournament may have.
MAX_PLACES: Final = 32


@dataclass(frozen=True, slots=True)
class Award:
    """What one person wins at the end: their side's rank (among all sides) and chips."""

    entrant: str
    user: str
    rank: int
    chips: int


def check_prizes(value: object) -> list[int]:
    """The `prizes` of a tournament, checked: whole percentages of the pool by place,
    1 to MAX_PLACES of them, each above 0, never more for a lower place, summing to 100."""
    if (
        not isinstance(value, list)
        or not 1 <= len(value) <= MAX_PLACES
        or any(not isinstance(p, int) or isinstance(p, bool) or p < 1 for p in value)
    ):
        raise ValueError(f"a list of 1 to {MAX_PLACES} whole percentages, each above 0")
    if any(b > a for a, b in pairwise(value)):
        raise ValueError("a lower place may not win more than a higher one")
    if sum(value) != 100:
        raise ValueError(f"the percentages must sum to 100, not {sum(value)}")
    return list(value)


def split_pool(
    chips: int, prizes: Sequence[int], ranked: Sequence[tuple[int, Sequence[str]]]
) -> list[tuple[str, int]]:
    """Share `chips` among `ranked`: (rank, the people of the side) for each side that has
    a person, best first (bots' sides left out, so their places go to the next people).

    Place k takes prizes[k - 1] percent. Sides on the same rank share their places'
    percentages equally, and a side's share is split equally among its people. With
    fewer sides than places the unpaid percentages are shared by the placed ones in
    proportion to theirs (two sides and 60/30/10: 2/3 and 1/3). Each share is rounded
    down and the chips left over go one each to the best placed, so the pool ends at
    exactly 0. The people in order of place, with what they win (above 0)."""
    n = len(ranked)
    if chips <= 0 or n == 0:
        return []
    used = list(prizes[:n])
    total = sum(used)
    weights: list[tuple[str, Fraction]] = []
    i = 0
    while i < n:
        j = i
        while j < n and ranked[j][0] == ranked[i][0]:
            j += 1
        group = Fraction(sum(used[i:j]), j - i)  # each side of the tie group
        for _, people in ranked[i:j]:
            for user in people:
                weights.append((user, group / len(people)))
        i = j
    exact = [(user, chips * w / total) for user, w in weights]
    paid = [(user, int(x)) for user, x in exact]
    left = chips - sum(c for _, c in paid)
    out: list[tuple[str, int]] = []
    for (user, amount), (_, x) in zip(paid, exact, strict=True):
        if left > 0 and x > 0:
            amount, left = amount + 1, left - 1
        if amount > 0:
            out.append((user, amount))
    assert left == 0 and sum(c for _, c in out) == chips
    return out


def _person(e: Entrant) -> bool:
    return e.user is not None and e.bot is None


def pool_chips(state: TournamentState) -> int:
    """The chips in the pool now: the fees of the people entered (and, once started,
    not withdrawn)."""
    ids = state.order if state.t is not None else list(state.entrants)
    return sum(state.entrants[e].fee for e in ids if e in state.entrants)


def prize_awards(state: TournamentState) -> list[Award]:
    """What the pool pays at the end of `state` (a finished tournament)."""
    if state.t is None or not state.t.is_over:
        return []
    sides = state.sides()
    ranked: list[tuple[int, list[str]]] = []
    rank_of: dict[str, int] = {}
    for s in state.t.standings():
        people = [e for e in sides[s.side] if _person(state.entrants[e])]
        if people:
            ranked.append((s.rank, people))
            rank_of.update(dict.fromkeys(people, s.rank))
    split = split_pool(pool_chips(state), state.prizes, ranked)  # by entrant id
    return [Award(e, str(state.entrants[e].user), rank_of[e], chips) for e, chips in split]


def planned_payout(chips: int, prizes: Sequence[int], places: int) -> list[int]:
    """What each place would win with `places` sides of people and no ties."""
    split = split_pool(chips, prizes, [(k, [str(k)]) for k in range(places)])
    won = dict(split)
    return [won.get(str(k), 0) for k in range(min(places, len(prizes)))]


def prize_view(state: TournamentState) -> dict[str, object] | None:
    """The summary's "prize": None for a free tournament; else the fee, the pool, the
    percentages, what each place would win now, and (once finished) what was paid."""
    if state.entry_fee <= 0:
        return None
    chips = pool_chips(state)
    if state.status == "cancelled":
        chips = 0
    sides, _ = state.planned_sides()
    if state.t is not None:
        sides = [tuple(s) for s in state.t.config.sides]
    places = sum(1 for s in sides if any(_person(state.entrants[e]) for e in s))
    paid = None
    if state.status == "finished":
        paid = [
            {
                "entrant": a.entrant,
                "name": state.entrants[a.entrant].name,
                "rank": a.rank,
                "chips": a.chips,
            }
            for a in prize_awards(state)
        ]
    return {
        "entry_fee": state.entry_fee,
        "pool": 0 if state.status == "finished" else chips,
        "prizes": list(state.prizes),
        "payout": planned_payout(chips, state.prizes, places),
        "paid": paid,
    }


def _fee(t: str, e: Entrant, version: int) -> Movement:
    assert e.user is not None
    return Movement(
        f"fee:{t}:{e.user}:{version}",
        (Posting(wallet(e.user), -e.fee, "entry_fee"), Posting(pool(t), e.fee, "entry_fee")),
        tournament=t,
        note="tournament entry fee",
    )


def _refund(t: str, e: Entrant, version: int, why: str) -> Movement:
    assert e.user is not None
    return Movement(
        f"refund:{t}:{e.user}:{version}",
        (Posting(pool(t), -e.fee, "refund"), Posting(wallet(e.user), e.fee, "refund")),
        tournament=t,
        note=f"entry fee refunded: {why}",
    )


def tournament_movements(
    state: TournamentState, before: Mapping[str, Entrant], new: Sequence[LogRecord]
) -> list[Movement]:
    """The movements `new` causes. `state` is the tournament after `new`; `before` its
    entrants before them."""
    t = state.id
    entrants = dict(before)
    out: list[Movement] = []
    for rec in new:
        d = rec.data
        if rec.type == "registered":
            for raw in d["entrants"]:
                e = state.entrants.get(raw["id"]) or Entrant(
                    raw["id"], raw["name"], raw.get("user"), raw.get("bot"), fee=raw.get("fee", 0)
                )
                entrants[e.id] = e
                if _person(e) and e.fee > 0:
                    out.append(_fee(t, e, rec.version))
        elif rec.type == "unregistered":
            for eid in d["entrants"]:
                e = entrants.pop(eid)
                if _person(e) and e.fee > 0:
                    out.append(_refund(t, e, rec.version, "unregistered"))
        elif rec.type == "cancelled":
            for e in entrants.values():
                if _person(e) and e.fee > 0:
                    out.append(_refund(t, e, rec.version, "tournament cancelled"))
        elif rec.type == "started":
            for eid in d.get("withdrawn", []):
                e = entrants[eid]
                if _person(e) and e.fee > 0:
                    out.append(_refund(t, e, rec.version, "no partner to play with"))
        elif rec.type == "ended":
            awards = prize_awards(state)
            if awards:
                postings: list[Posting] = [Posting(pool(t), -sum(a.chips for a in awards), "prize")]
                postings += [Posting(wallet(a.user), a.chips, "prize") for a in awards]
                out.append(Movement(f"prize:{t}", tuple(postings), tournament=t, note="prize"))
    return out


def insufficient(state: TournamentState, exc: InsufficientChips) -> DirectorError:
    """The refusal of a registration the wallet cannot pay for, naming whose wallet."""
    user = exc.account.removeprefix("wallet:")
    who = next((e.name for e in state.entrants.values() if e.user == user), None)
    whose = "your wallet" if who is None else f"{who}'s wallet"
    return DirectorError(
        "insufficient_chips",
        f"the entry fee is {state.entry_fee} chips and {whose} has {exc.available}",
    )
