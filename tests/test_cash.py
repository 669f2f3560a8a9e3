"""Cash tables, play money only: RULES.md M1."""

from __future__ import annotations

from typing import Any

import pytest

from cirulla.tournament import cash_settlement


@pytest.mark.parametrize(
    ("difference", "stake", "max_loss", "expected"),
    [
        (1, 1, 100, 1),
        (7, 10, 100, 70),  # under the cap
        (10, 10, 100, 100),  # exactly at the cap
        (11, 10, 100, 100),  # capped
        (51, 25, 500, 500),  # capped
        (3, 5, 1, 1),  # cap below one point's stake
        (0, 10, 100, 0),  # zero difference: the loser pays nothing
    ],
)
def test_M1_loser_pays_difference_times_stake_up_to_max_loss(
    difference: int, stake: int, max_loss: int, expected: int
) -> None:
    assert cash_settlement(difference, stake, max_loss) == expected
    assert cash_settlement(difference, stake, max_loss, cappotto=False) == expected


@pytest.mark.parametrize(
    ("difference", "stake", "max_loss"), [(0, 10, 100), (2, 10, 100), (50, 10, 100)]
)
def test_M1_cappotto_pays_max_loss(difference: int, stake: int, max_loss: int) -> None:
    assert cash_settlement(difference, stake, max_loss, cappotto=True) == max_loss


def test_M1_settlement_never_exceeds_max_loss() -> None:
    for difference in range(0, 40):
        for stake in (1, 2, 5, 10):
            paid = cash_settlement(difference, stake, 60)
            assert paid == min(difference * stake, 60)
            assert 0 <= paid <= 60


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((-1, 10, 100), r"difference must be >= 0, got -1"),
        ((5, 0, 100), r"stake must be > 0, got 0"),
        ((5, -10, 100), r"stake must be > 0, got -10"),
        ((5, 10, 0), r"max_loss must be > 0, got 0"),
        ((5, 10, -100), r"max_loss must be > 0, got -100"),
        ((5.0, 10, 100), r"difference must be an int, got float"),
        ((True, 10, 100), r"difference must be an int, got bool"),
        ((5, 2.5, 100), r"stake must be an int, got float"),
        ((5, True, 100), r"stake must be an int, got bool"),
        ((5, 10, "100"), r"max_loss must be an int, got str"),
        ((5, 10, None), r"max_loss must be an int, got NoneType"),
    ],
)
def test_M1_bad_input_raises_naming_the_argument(args: tuple[Any, Any, Any], match: str) -> None:
    difference, stake, max_loss = args
    with pytest.raises(ValueError, match=match):
        cash_settlement(difference, stake, max_loss)
    with pytest.raises(ValueError, match=match):
        cash_settlement(difference, stake, max_loss, cappotto=True)


@pytest.mark.parametrize("cappotto", [1, 0, "yes", None])
def test_M1_cappotto_must_be_a_bool(cappotto: Any) -> None:
    with pytest.raises(ValueError, match=r"cappotto must be a bool"):
        cash_settlement(5, 10, 100, cappotto=cappotto)
