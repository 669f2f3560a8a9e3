"""Tournament victory points and cash-table settlement (RULES.md sections 7 and 8).

A partita's final point difference (match points, MP) becomes victory points (VP)
by the table printed in seed 000, kept as data in ``data/victory_points.json`` so
that the numbers can be checked against the source cell by cell.

Cash tables (M1) settle in play money (chips) only: the product never handles
real money.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

__all__ = [
    "ForfeitPoints",
    "VPRow",
    "cappotto_victory_points",
    "cash_settlement",
    "forfeit_victory_points",
    "victory_points",
    "vp_column",
]

# V3: the side that did not time out or abandon gets at least this many VP.
FORFEIT_MIN_VP = 14


@dataclass(frozen=True, slots=True)
class VPRow:
    """One row of a VP column: its VP pair and its inclusive MP range.

    ``mp_max`` is None for the column's open-ended top row (the seed's "+").
    """

    winner_vp: int
    loser_vp: int
    mp_min: int
    mp_max: int | None


@dataclass(frozen=True, slots=True)
class ForfeitPoints:
    """VP and MP of both sides after a timeout or abandon (V3).

    ``loser_mp`` is negative: it is the loser's side of the difference.
    """

    winner_vp: int
    loser_vp: int
    winner_mp: int
    loser_mp: int


@dataclass(frozen=True, slots=True)
class _Column:
    target: int
    hands: int
    rows: tuple[VPRow, ...]


@cache
def _columns() -> tuple[_Column, ...]:
    """Load the VP table once; tuples so the cached value cannot be mutated."""
    resource = files("cirulla") / "data" / "victory_points.json"
    text = resource.read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return tuple(
        _Column(
            target=int(col["target"]),
            hands=int(col["hands"]),
            rows=tuple(
                VPRow(
                    winner_vp=int(row["winner_vp"]),
                    loser_vp=int(row["loser_vp"]),
                    mp_min=int(row["mp_from"]),
                    mp_max=None if row["mp_to"] is None else int(row["mp_to"]),
                )
                for row in col["rows"]
            ),
        )
        for col in data["columns"]
    )


def _check_int(name: str, value: object) -> int:
    """bool is an int subclass, but True as a score or stake is always a bug."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    return value


def _column(target: int | None, hands: int | None) -> _Column:
    """Pick the column for a partita to ``target`` points or of ``hands`` smazzate."""
    if target is not None and hands is not None:
        raise ValueError("give exactly one of target or hands, got both")
    if target is None and hands is None:
        raise ValueError("give exactly one of target or hands, got neither")
    columns = _columns()
    if target is not None:
        target = _check_int("target", target)
        for col in columns:
            if col.target == target:
                return col
        known = ", ".join(str(c.target) for c in columns)
        raise ValueError(f"target must be one of {known}, got {target}")
    assert hands is not None
    hands = _check_int("hands", hands)
    for col in columns:
        if col.hands == hands:
            return col
    known = ", ".join(str(c.hands) for c in columns)
    raise ValueError(f"hands must be one of {known}, got {hands}")


def _row_for(col: _Column, mp: int) -> VPRow:
    """The row whose MP range holds ``mp``; beyond the last row, the top row."""
    for row in col.rows:
        if row.mp_max is None or mp <= row.mp_max:
            return row
    return col.rows[-1]


def _check_mp(mp: object) -> int:
    mp = _check_int("mp", mp)
    if mp < 0:
        raise ValueError(f"mp must be >= 0 (the winner's point difference), got {mp}")
    return mp


def vp_column(target: int | None = None, hands: int | None = None) -> list[VPRow]:
    """The whole VP column for a partita length, lowest row first, for display."""
    return list(_column(target, hands).rows)


def victory_points(mp: int, target: int | None = None, hands: int | None = None) -> tuple[int, int]:
    """(winner VP, loser VP) for a match-point difference ``mp`` (V1).

    Give exactly one of ``target`` (7, 11, 21, 31, 41, 51 points) or ``hands``
    (1-6 smazzate). An ``mp`` beyond the last printed row gets the top row.
    """
    mp = _check_mp(mp)
    row = _row_for(_column(target, hands), mp)
    return row.winner_vp, row.loser_vp


def cappotto_victory_points(
    target: int | None = None, hands: int | None = None
) -> tuple[int, int, int]:
    """(winner VP, loser VP, MP) after a cappotto (V2).

    The seed: the winner gets the column's highest VP "e il corrispondente numero
    minimo di MP", i.e. the lowest MP of that top row.
    """
    top = _column(target, hands).rows[-1]
    return top.winner_vp, top.loser_vp, top.mp_min


def forfeit_victory_points(
    mp: int, target: int | None = None, hands: int | None = None
) -> ForfeitPoints:
    """VP and MP after a timeout or abandon (V3).

    ``mp`` is the point difference in favour of the side that did *not* time
    out or abandon (E6 computes it; it may be 0). Reading of the seed ("la linea
    che fa scadere il timeout o abbandona farà 0 VP e la linea avversaria farà
    minimo 14 VP. I MP di entrambe le linee saranno calcolati dai VP in base ai
    corrispondenti minimi"):

    - the offending side gets 0 VP; the other gets max(14, the VP its ``mp``
      gives by V1), so the two VP no longer sum to 20;
    - ``winner_mp`` is the lowest MP of the row of the winner's VP (not ``mp``
      itself);
    - ``loser_mp`` is minus the lowest MP of the column's top row, the row whose
      loser VP is lowest: in the 31, 41 and 51 columns that is the 20-0 row, the
      one that gives 0 VP; the shorter columns have no 0-VP row, so their top
      row stands in for it. The two MP need not be opposite numbers.
    """
    mp = _check_mp(mp)
    col = _column(target, hands)
    winner_vp = max(FORFEIT_MIN_VP, _row_for(col, mp).winner_vp)
    winner_row = next(row for row in col.rows if row.winner_vp == winner_vp)
    return ForfeitPoints(
        winner_vp=winner_vp,
        loser_vp=0,
        winner_mp=winner_row.mp_min,
        loser_mp=-col.rows[-1].mp_min,
    )


def cash_settlement(difference: int, stake: int, max_loss: int, cappotto: bool = False) -> int:
    """Chips the loser pays the winner at a cash table (M1), play money only.

    min(difference * stake, max_loss); a cappotto always pays ``max_loss``.
    """
    difference = _check_int("difference", difference)
    stake = _check_int("stake", stake)
    max_loss = _check_int("max_loss", max_loss)
    if not isinstance(cappotto, bool):
        raise ValueError(f"cappotto must be a bool, got {type(cappotto).__name__} {cappotto!r}")
    if difference < 0:
        raise ValueError(f"difference must be >= 0, got {difference}")
    if stake <= 0:
        raise ValueError(f"stake must be > 0, got {stake}")
    if max_loss <= 0:
        raise ValueError(f"max_loss must be > 0, got {max_loss}")
    if cappotto:
        return max_loss
    return min(difference * stake, max_loss)
