"""Match results, what a partita and a bye are worth, and the standings.

VP and MP follow RULES.md section 7 (V1 the table, V2 cappotto, V3 timeout and
abandon); the tie-breaks after VP and MP are documented in docs/tournaments.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..game import Game
from ..rules import Rules
from ..tournament import cappotto_victory_points, forfeit_victory_points, victory_points

__all__ = [
    "Format",
    "MatchResult",
    "Standing",
    "bye_points",
    "check_vp_length",
    "match_points",
    "partita_points",
    "standings",
]

Format = Literal["knockout", "swiss", "round-robin"]


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One match of a round: `b` is None for a bye (then `winner` is None)."""

    a: int
    b: int | None
    winner: int | None  # 0: side a won, 1: side b won
    vp: tuple[int, int]
    mp: tuple[int, int]
    partite: tuple[int, int] = (0, 0)  # partite won by each side

    @property
    def is_bye(self) -> bool:
        return self.b is None


@dataclass(frozen=True, slots=True)
class Standing:
    side: int
    rank: int
    vp: int
    mp: int
    played: int
    won: int
    partite_won: int
    byes: int
    buchholz: int
    head_to_head: int


def _length(rules: Rules) -> dict[str, int | None]:
    return {"target": rules.target, "hands": rules.hands}


def check_vp_length(rules: Rules) -> None:
    """ValueError unless the partita's length has a VP column (V1)."""
    victory_points(0, **_length(rules))


def partita_points(game: Game) -> tuple[tuple[int, int], tuple[int, int]]:
    """(VP per side, MP per side) of a finished two-sided partita, by V1, V2 or V3."""
    if not game.is_over or game.winner is None:
        raise ValueError("the partita is not over")
    if game.sides != 2:
        raise ValueError(f"tournament partite have two sides, not {game.sides}")
    w = game.winner
    length = _length(game.rules)
    forfeit = game.forfeit_result
    if forfeit is not None:  # V3
        f = forfeit_victory_points(forfeit.difference, **length)
        vp, mp = (f.winner_vp, f.loser_vp), (f.winner_mp, f.loser_mp)
    elif game.end_reason == "cappotto":  # V2
        win_vp, lose_vp, margin = cappotto_victory_points(**length)
        vp, mp = (win_vp, lose_vp), (margin, -margin)
    else:  # V1
        totals = game.totals
        margin = max(0, totals[w] - totals[1 - w])
        vp, mp = victory_points(margin, **length), (margin, -margin)
    if w == 0:
        return vp, mp
    return (vp[1], vp[0]), (mp[1], mp[0])


def match_points(
    games: Sequence[Game], winner: int, with_vp: bool
) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    """(VP, MP, partite won) per side of a match, summed over its partite.

    Without a VP column (a knockout of another length) the VP are 0 and the MP the
    plain point differences."""
    vp, mp, won = [0, 0], [0, 0], [0, 0]
    for game in games:
        if with_vp:
            g_vp, g_mp = partita_points(game)
        else:
            totals = game.totals
            g_vp, g_mp = (0, 0), (totals[0] - totals[1], totals[1] - totals[0])
        for s in (0, 1):
            vp[s] += g_vp[s]
            mp[s] += g_mp[s]
        if game.winner is not None:
            won[game.winner] += 1
    if winner not in (0, 1):
        raise ValueError(f"a match's winner is side 0 or 1, not {winner!r}")
    return (vp[0], vp[1]), (mp[0], mp[1]), (won[0], won[1])


def bye_points(rules: Rules) -> tuple[int, int]:
    """(VP, MP) of a bye: a win by forfeit over an absent side with no points (V3).

    So 14 VP, and the lowest MP of the 14-VP row of the partita's column."""
    f = forfeit_victory_points(0, **_length(rules))
    return f.winner_vp, f.winner_mp


def standings(fmt: Format, sides: int, results: Sequence[MatchResult]) -> list[Standing]:
    """Every side, best first: VP, then MP, then the tie-breaks of the format.

    Round robin: head-to-head (VP scored in the matches among the sides tied on VP
    and MP). Swiss: Buchholz (the sum of the VP totals of the opponents met; a bye
    adds nothing). Then partite won, then seed order (the side entered first).
    """
    vp = [0] * sides
    mp = [0] * sides
    played = [0] * sides
    won = [0] * sides
    partite = [0] * sides
    byes = [0] * sides
    opponents: list[list[int]] = [[] for _ in range(sides)]
    for r in results:
        if r.b is None:
            vp[r.a] += r.vp[0]
            mp[r.a] += r.mp[0]
            byes[r.a] += 1
            continue
        for s, side in enumerate((r.a, r.b)):
            vp[side] += r.vp[s]
            mp[side] += r.mp[s]
            played[side] += 1
            partite[side] += r.partite[s]
            if r.winner == s:
                won[side] += 1
        opponents[r.a].append(r.b)
        opponents[r.b].append(r.a)
    buchholz = [sum(vp[o] for o in opponents[s]) for s in range(sides)]
    head = [0] * sides
    if fmt == "round-robin":
        tied: dict[tuple[int, int], set[int]] = {}
        for s in range(sides):
            tied.setdefault((vp[s], mp[s]), set()).add(s)
        for r in results:
            if r.b is not None and r.b in tied[(vp[r.a], mp[r.a])]:
                head[r.a] += r.vp[0]
                head[r.b] += r.vp[1]
    second = buchholz if fmt == "swiss" else head

    def key(s: int) -> tuple[int, ...]:
        return (-vp[s], -mp[s], -second[s], -partite[s], s)

    ranked = sorted(range(sides), key=key)
    return [
        Standing(
            side=s,
            rank=i + 1,
            vp=vp[s],
            mp=mp[s],
            played=played[s],
            won=won[s],
            partite_won=partite[s],
            byes=byes[s],
            buchholz=buchholz[s],
            head_to_head=head[s],
        )
        for i, s in enumerate(ranked)
    ]
