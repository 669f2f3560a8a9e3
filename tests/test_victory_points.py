"""Tournament victory points: RULES.md V1 (table), V2 (cappotto), V3 (timeout/abandon)."""

from __future__ import annotations

import dataclasses
import itertools
import json
from importlib.resources import files
from typing import Any

import pytest

from cirulla.tournament import (
    ForfeitPoints,
    VPRow,
    cappotto_victory_points,
    forfeit_victory_points,
    victory_points,
    vp_column,
)

# The table exactly as seed 000 prints it (columns 7/1, 11/2, 21/3, 31/4, 41/5,
# 51/6 as "from to"; "+" open-ended, "-" no such row), transcribed independently
# of the data file so that a slip in either shows up.
PRINTED = """
10-10  0 0 | 0 0   | 0 1   | 0 1   | 0 2   | 0 2
11-9   1 1 | 1 2   | 2 3   | 2 3   | 3 4   | 3 5
12-8   2 2 | 3 4   | 4 5   | 4 6   | 5 7   | 6 8
13-7   3 3 | 5 6   | 6 7   | 7 9   | 8 10  | 9 11
14-6   4 4 | 7 8   | 8 9   | 10 12 | 11 13 | 12 15
15-5   5 6 | 9 10  | 10 11 | 13 15 | 14 16 | 16 18
16-4   7 8 | 11 12 | 12 14 | 16 18 | 17 19 | 19 21
17-3   9 + | 13 14 | 15 17 | 19 21 | 20 22 | 23 25
18-2   -   | 15 +  | 18 20 | 22 24 | 23 25 | 26 28
19-1   -   | -     | 21 +  | 24 26 | 26 29 | 29 32
20-0   -   | -     | -     | 27 +  | 30 +  | 33 +
"""

COLUMNS = [(7, 1), (11, 2), (21, 3), (31, 4), (41, 5), (51, 6)]
TARGETS = [t for t, _ in COLUMNS]

# (target, winner VP) -> (stored MP range, printed MP range): the two V1 misprints.
CORRECTIONS = {
    (31, 19): ((25, 26), (24, 26)),
    (51, 16): ((19, 22), (19, 21)),
}


def _printed_table() -> dict[int, list[tuple[int, int, int, int | None]]]:
    """target -> rows (winner VP, loser VP, MP from, MP to) as printed."""
    table: dict[int, list[tuple[int, int, int, int | None]]] = {t: [] for t in TARGETS}
    for line in PRINTED.strip().splitlines():
        vp_label, rest = line.split(maxsplit=1)
        winner, loser = (int(x) for x in vp_label.split("-"))
        for target, cell in zip(TARGETS, rest.split("|"), strict=True):
            cell = cell.strip()
            if cell == "-":
                continue
            lo, hi = cell.split()
            table[target].append((winner, loser, int(lo), None if hi == "+" else int(hi)))
    return table


def _json() -> dict[str, Any]:
    text = (files("cirulla") / "data" / "victory_points.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _json_column(target: int) -> dict[str, Any]:
    for col in _json()["columns"]:
        if col["target"] == target:
            result: dict[str, Any] = col
            return result
    raise AssertionError(f"no column for target {target}")


# --- V1: the data file ------------------------------------------------------


def test_V1_data_file_has_source_notes_and_six_columns() -> None:
    data = _json()
    assert "000" in data["source"]
    assert len(data["notes"]) >= 2
    notes = " ".join(data["notes"])
    assert "24" in notes and "22" in notes
    assert [(c["target"], c["hands"]) for c in data["columns"]] == COLUMNS


@pytest.mark.parametrize("target", TARGETS)
def test_V1_data_file_matches_printed_table_cell_by_cell(target: int) -> None:
    """Each row is printed verbatim, or corrected with the printed values beside it."""
    printed = _printed_table()[target]
    rows = _json_column(target)["rows"]
    assert len(rows) == len(printed)
    for row, (winner, loser, lo, hi) in zip(rows, printed, strict=True):
        assert (row["winner_vp"], row["loser_vp"]) == (winner, loser)
        key = (target, winner)
        if key in CORRECTIONS:
            stored, as_printed = CORRECTIONS[key]
            assert row["printed"] == list(as_printed) == [lo, hi]
            assert (row["mp_from"], row["mp_to"]) == stored
        else:
            assert "printed" not in row
            assert (row["mp_from"], row["mp_to"]) == (lo, hi)


def test_V1_exactly_two_rows_are_corrected() -> None:
    corrected = {
        (col["target"], row["winner_vp"])
        for col in _json()["columns"]
        for row in col["rows"]
        if "printed" in row
    }
    assert corrected == set(CORRECTIONS)


# --- V1: the columns --------------------------------------------------------


@pytest.mark.parametrize(("target", "hands"), COLUMNS)
def test_V1_columns_are_contiguous_from_zero_and_open_ended(target: int, hands: int) -> None:
    rows = vp_column(target=target)
    assert rows == vp_column(hands=hands)
    assert rows[0].mp_min == 0
    assert rows[-1].mp_max is None
    for prev, row in itertools.pairwise(rows):
        assert prev.mp_max is not None
        assert row.mp_min == prev.mp_max + 1
        assert row.winner_vp == prev.winner_vp + 1
    for row in rows[:-1]:
        assert row.mp_max is not None and row.mp_max >= row.mp_min


@pytest.mark.parametrize("target", TARGETS)
def test_V1_vp_pairs_sum_to_twenty_and_start_at_ten_all(target: int) -> None:
    rows = vp_column(target=target)
    assert (rows[0].winner_vp, rows[0].loser_vp) == (10, 10)
    assert all(row.winner_vp + row.loser_vp == 20 for row in rows)


def test_V1_column_top_rows_follow_the_printed_dashes() -> None:
    tops = {t: vp_column(target=t)[-1] for t in TARGETS}
    pairs = {t: (row.winner_vp, row.loser_vp) for t, row in tops.items()}
    assert pairs == {7: (17, 3), 11: (18, 2), 21: (19, 1), 31: (20, 0), 41: (20, 0), 51: (20, 0)}


def test_V1_vp_column_returns_vprows_and_a_fresh_list() -> None:
    rows = vp_column(target=21)
    assert all(isinstance(row, VPRow) for row in rows)
    rows.clear()
    assert len(vp_column(target=21)) == 10
    with pytest.raises(dataclasses.FrozenInstanceError):
        vp_column(target=21)[0].winner_vp = 20  # type: ignore[misc]


@pytest.mark.parametrize(
    ("mp", "target", "expected"),
    [
        # 7 points / 1 smazzata
        (0, 7, (10, 10)),
        (1, 7, (11, 9)),
        (4, 7, (14, 6)),
        (5, 7, (15, 5)),
        (6, 7, (15, 5)),
        (7, 7, (16, 4)),
        (8, 7, (16, 4)),
        (9, 7, (17, 3)),
        # 11 points / 2 smazzate
        (0, 11, (10, 10)),
        (2, 11, (11, 9)),
        (3, 11, (12, 8)),
        (10, 11, (15, 5)),
        (14, 11, (17, 3)),
        (15, 11, (18, 2)),
        # 21 points / 3 smazzate
        (1, 21, (10, 10)),
        (2, 21, (11, 9)),
        (12, 21, (16, 4)),
        (14, 21, (16, 4)),
        (17, 21, (17, 3)),
        (20, 21, (18, 2)),
        (21, 21, (19, 1)),
        # 31 points / 4 smazzate, including the corrected 19-1 row
        (1, 31, (10, 10)),
        (6, 31, (12, 8)),
        (12, 31, (14, 6)),
        (22, 31, (18, 2)),
        (24, 31, (18, 2)),
        (25, 31, (19, 1)),
        (26, 31, (19, 1)),
        (27, 31, (20, 0)),
        # 41 points / 5 smazzate
        (2, 41, (10, 10)),
        (3, 41, (11, 9)),
        (13, 41, (14, 6)),
        (22, 41, (17, 3)),
        (29, 41, (19, 1)),
        (30, 41, (20, 0)),
        # 51 points / 6 smazzate, including the corrected 16-4 row
        (2, 51, (10, 10)),
        (5, 51, (11, 9)),
        (15, 51, (14, 6)),
        (16, 51, (15, 5)),
        (19, 51, (16, 4)),
        (21, 51, (16, 4)),
        (22, 51, (16, 4)),
        (23, 51, (17, 3)),
        (28, 51, (18, 2)),
        (32, 51, (19, 1)),
        (33, 51, (20, 0)),
    ],
)
def test_V1_victory_points_spot_checks(mp: int, target: int, expected: tuple[int, int]) -> None:
    assert victory_points(mp, target=target) == expected


@pytest.mark.parametrize(("target", "hands"), COLUMNS)
def test_V1_target_and_hands_name_the_same_column(target: int, hands: int) -> None:
    for mp in range(0, 60):
        assert victory_points(mp, target=target) == victory_points(mp, hands=hands)


@pytest.mark.parametrize(
    ("target", "expected"),
    [(7, (17, 3)), (11, (18, 2)), (21, (19, 1)), (31, (20, 0)), (41, (20, 0)), (51, (20, 0))],
)
def test_V1_mp_above_the_table_gets_the_top_row(target: int, expected: tuple[int, int]) -> None:
    for mp in (40, 51, 100, 10_000):
        assert victory_points(mp, target=target) == expected


def test_V1_every_mp_lands_in_its_row() -> None:
    for target in TARGETS:
        for row in vp_column(target=target):
            top = row.mp_max if row.mp_max is not None else row.mp_min + 5
            for mp in range(row.mp_min, top + 1):
                assert victory_points(mp, target=target) == (row.winner_vp, row.loser_vp)


# --- V2: cappotto -----------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "hands", "expected"),
    [
        (7, 1, (17, 3, 9)),
        (11, 2, (18, 2, 15)),
        (21, 3, (19, 1, 21)),
        (31, 4, (20, 0, 27)),
        (41, 5, (20, 0, 30)),
        (51, 6, (20, 0, 33)),
    ],
)
def test_V2_cappotto_gets_top_row_with_its_lowest_mp(
    target: int, hands: int, expected: tuple[int, int, int]
) -> None:
    assert cappotto_victory_points(target=target) == expected
    assert cappotto_victory_points(hands=hands) == expected


# --- V3: timeout or abandon -------------------------------------------------


@pytest.mark.parametrize(
    ("mp", "target", "expected"),
    [
        # floor of 14 VP; MP is the 14-6 row's minimum, not the real difference
        (0, 7, ForfeitPoints(14, 0, 4, -9)),
        (3, 7, ForfeitPoints(14, 0, 4, -9)),
        (6, 7, ForfeitPoints(15, 0, 5, -9)),
        (12, 7, ForfeitPoints(17, 0, 9, -9)),
        (0, 11, ForfeitPoints(14, 0, 7, -15)),
        (6, 21, ForfeitPoints(14, 0, 8, -21)),
        (14, 21, ForfeitPoints(16, 0, 12, -21)),
        (0, 31, ForfeitPoints(14, 0, 10, -27)),
        (26, 31, ForfeitPoints(19, 0, 25, -27)),  # corrected row: minimum 25, not 24
        (50, 31, ForfeitPoints(20, 0, 27, -27)),
        (14, 41, ForfeitPoints(15, 0, 14, -30)),
        (0, 51, ForfeitPoints(14, 0, 12, -33)),
        (6, 51, ForfeitPoints(14, 0, 12, -33)),
        (22, 51, ForfeitPoints(16, 0, 19, -33)),  # corrected row 19-22
        (33, 51, ForfeitPoints(20, 0, 33, -33)),
    ],
)
def test_V3_forfeit_points(mp: int, target: int, expected: ForfeitPoints) -> None:
    assert forfeit_victory_points(mp, target=target) == expected


@pytest.mark.parametrize(("target", "hands"), COLUMNS)
def test_V3_forfeit_winner_at_least_14_loser_zero_mp_are_row_minima(
    target: int, hands: int
) -> None:
    rows = vp_column(target=target)
    minimum_of = {row.winner_vp: row.mp_min for row in rows}
    for mp in range(0, 50):
        result = forfeit_victory_points(mp, target=target)
        assert result == forfeit_victory_points(mp, hands=hands)
        assert result.loser_vp == 0
        assert result.winner_vp == max(14, victory_points(mp, target=target)[0])
        assert result.winner_mp == minimum_of[result.winner_vp]
        assert result.winner_mp <= max(mp, minimum_of[14])
        assert result.loser_mp == -rows[-1].mp_min


def test_V3_forfeit_points_is_frozen() -> None:
    result = forfeit_victory_points(0, target=51)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.loser_vp = 1  # type: ignore[misc]


# --- bad input --------------------------------------------------------------


@pytest.mark.parametrize(
    ("mp", "match"),
    [
        (-1, r"mp must be >= 0"),
        (True, r"mp must be an int, got bool"),
        (False, r"mp must be an int, got bool"),
        (1.0, r"mp must be an int, got float"),
        ("3", r"mp must be an int, got str"),
        (None, r"mp must be an int, got NoneType"),
    ],
)
def test_V1_bad_mp_raises(mp: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        victory_points(mp, target=51)
    with pytest.raises(ValueError, match=match):
        forfeit_victory_points(mp, target=51)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"target": 51, "hands": 6}, r"exactly one of target or hands, got both"),
        ({}, r"exactly one of target or hands, got neither"),
        ({"target": 26}, r"target must be one of 7, 11, 21, 31, 41, 51, got 26"),
        ({"target": 0}, r"target must be one of .*got 0"),
        ({"target": -51}, r"target must be one of .*got -51"),
        ({"target": 51.0}, r"target must be an int, got float"),
        ({"target": True}, r"target must be an int, got bool"),
        ({"target": "51"}, r"target must be an int, got str"),
        ({"hands": 0}, r"hands must be one of 1, 2, 3, 4, 5, 6, got 0"),
        ({"hands": 7}, r"hands must be one of .*got 7"),
        ({"hands": True}, r"hands must be an int, got bool"),
        ({"hands": 2.5}, r"hands must be an int, got float"),
    ],
)
def test_V1_V2_V3_bad_column_raises(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        victory_points(5, **kwargs)
    with pytest.raises(ValueError, match=match):
        cappotto_victory_points(**kwargs)
    with pytest.raises(ValueError, match=match):
        forfeit_victory_points(5, **kwargs)
    with pytest.raises(ValueError, match=match):
        vp_column(**kwargs)
