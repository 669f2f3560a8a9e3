"""Playban (competition/playban.py): strikes, growing bans, decay, and which tables."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest

from cirulla.competition.playban import DECAY, DURATIONS, WINDOW, check_sit, playban
from cirulla.tables.config import TableConfig
from cirulla.tables.errors import TableError

T0 = datetime(2026, 1, 1, 12, tzinfo=UTC)
MIN = timedelta(minutes=1)


def test_first_forfeit_is_free_then_bans_grow_with_repeats() -> None:
    assert playban([(T0, "abandon")], T0 + MIN) is None
    forfeits = [(T0, "abandon"), (T0 + MIN, "timeout")]
    ban = playban(forfeits, T0 + 2 * MIN)
    assert ban is not None and ban.strikes == 2 and ban.until == T0 + MIN + DURATIONS[1]
    assert "timeout" in ban.reason
    third = playban([*forfeits, (T0 + 20 * MIN, "abandon")], T0 + 21 * MIN)
    assert third is not None and third.until == T0 + 20 * MIN + DURATIONS[2]
    many = [(T0 + k * MIN, "abandon") for k in range(10)]
    longest = playban(many, T0 + 10 * MIN)
    assert longest is not None and longest.until == T0 + 9 * MIN + DURATIONS[-1]


def test_ban_ends_and_strikes_decay_after_clean_play() -> None:
    forfeits = [(T0, "abandon"), (T0 + MIN, "abandon")]
    assert playban(forfeits, T0 + MIN + DURATIONS[1]) is None  # served
    later = [*forfeits, (T0 + MIN + 2 * DECAY, "abandon")]  # two strikes forgiven: one stands
    assert playban(later, T0 + MIN + 2 * DECAY + MIN) is None
    old = [(T0 - WINDOW - MIN, "abandon"), (T0, "abandon")]  # outside the window: forgotten
    assert playban(old, T0 + MIN) is None


def test_order_of_forfeits_does_not_matter() -> None:
    forfeits = [(T0 + MIN, "timeout"), (T0, "abandon")]
    assert playban(forfeits, T0 + 2 * MIN) == playban(sorted(forfeits), T0 + 2 * MIN)


def test_a_ban_refuses_rated_and_cash_tables_only() -> None:
    ban = playban([(T0, "abandon"), (T0, "timeout")], T0 + MIN)
    assert ban is not None
    rated = TableConfig.model_validate({"players": 2, "move_seconds": 30})
    with pytest.raises(TableError) as raised:
        check_sit(ban, rated)
    assert raised.value.code == "playban" and ban.until.isoformat() in raised.value.message
    unrated = TableConfig.model_validate({"players": 2, "move_seconds": 30, "rated": False})
    check_sit(ban, unrated)  # free to play where nothing is at stake
    with pytest.raises(TableError):  # a config without the options is rated by default
        check_sit(ban, SimpleNamespace())
    with pytest.raises(TableError):  # a stake always needs a clean record
        check_sit(ban, SimpleNamespace(rated=False, stake=5))
    check_sit(None, rated)
