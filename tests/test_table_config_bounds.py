"""A table's config within the platform's bounds (issue 12, item 9): every number it can
carry is bounded, and every table has a clock, so that every table ends or expires."""

from __future__ import annotations

import math
from typing import Any

import pytest
from pydantic import ValidationError

from cirulla.tables.config import MAX_HANDS, MAX_POINT_VALUE, MAX_TARGET, TableConfig

CIRULO: dict[str, Any] = {"game": "cirulo", "players": 4}


def refused(config: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as caught:
        TableConfig.for_new_table(config)
    return str(caught.value)


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"options": {"target": MAX_TARGET + 1}}, "target"),
        ({"options": {"target": 10**30}}, "target"),
        ({"options": {"hands": MAX_HANDS + 1}}, "hands"),
        ({"options": {"hands": 10**9}}, "hands"),
        ({**CIRULO, "options": {"hands": MAX_HANDS + 1}}, "hands"),
        ({**CIRULO, "options": {"point_value": MAX_POINT_VALUE + 1}}, "point_value"),
        ({**CIRULO, "options": {"point_value": 10**40}}, "point_value"),
        ({"players": 7}, "players"),
        ({"move_seconds": 3601}, "move_seconds"),
        ({"move_seconds": math.inf}, "move_seconds"),
        ({"move_seconds": math.nan}, "move_seconds"),
        ({"partita_seconds": 6 * 3600 + 1}, "partita_seconds"),
        ({"partita_seconds": math.inf}, "partita_seconds"),
        ({"name": "x" * 41}, "name"),
    ],
)
def test_a_number_out_of_bounds_is_refused_naming_it(config: dict[str, Any], named: str) -> None:
    assert named in refused(config)


def test_a_huge_number_is_named_without_being_printed() -> None:
    message = refused({**CIRULO, "options": {"point_value": 10**5000}})
    assert "point_value" in message and "0" * 100 not in message


def test_a_table_with_neither_clock_is_refused_naming_both() -> None:
    message = refused({"move_seconds": None, "partita_seconds": None})
    assert "move_seconds" in message and "partita_seconds" in message
    assert "clock" in message


@pytest.mark.parametrize(
    "config",
    [
        {"options": {"target": MAX_TARGET}},
        {"options": {"hands": MAX_HANDS}},
        {**CIRULO, "options": {"hands": MAX_HANDS, "point_value": MAX_POINT_VALUE}},
        {"move_seconds": None, "partita_seconds": 600},
        {"move_seconds": 30, "partita_seconds": None},
        {"preset": "cirullone", "players": 4},  # target 101
        {"preset": "scopa", "players": 2},  # target 11
    ],
)
def test_the_bounds_themselves_and_the_presets_are_accepted(config: dict[str, Any]) -> None:
    TableConfig.for_new_table(config)


def test_a_table_made_before_the_bounds_still_reads_back_from_its_log() -> None:
    """The bounds are for new tables: a log written before them must still rebuild."""
    old = {"move_seconds": None, "partita_seconds": None}  # no clock: refused since
    assert TableConfig.model_validate(old).move_seconds is None
    with pytest.raises(ValidationError):
        TableConfig.for_new_table(old)
