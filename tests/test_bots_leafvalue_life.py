"""The leaf value's life features (bots/leafvalue.py `LIFE`, `ismcts` option
`value="cheater_life"`; docs/strength.md, 2026-12-07, later): whether a grande or a
piccola can still be made (S6, S7) and whether a majority is won (S2, S3), which the
piles' counts alone cannot say to a linear value."""

from __future__ import annotations

import json
import random
from importlib.resources import files

import pytest

from cirulla import Deal, Rules, bots
from cirulla.bots import Budget
from cirulla.bots.base import SeatView
from cirulla.bots.leafvalue import FEATURES, LIFE, LeafValue, features, leaf_model, life
from cirulla.bots.levels import LEVELS
from cirulla.cards import Card, full_deck


def _with_piles(ours: str, theirs: str, rules: Rules | None = None) -> Deal:
    """A 4-player deal, its piles replaced: `ours` the side to move's, `theirs` the other's."""
    deal = Deal(rules or Rules.preset("cirulla"), 4, 0, seed=5)
    seat = deal.to_move
    assert seat is not None
    us = deal.side_of(seat)
    deal._piles[us] = [Card.parse(t) for t in ours.split()]
    deal._piles[1 - us] = [Card.parse(t) for t in theirs.split()]
    return deal


def _life(ours: str, theirs: str, rules: Rules | None = None) -> dict[str, float]:
    return dict(zip(LIFE, life(_with_piles(ours, theirs, rules)), strict=True))


def test_S6_a_grande_is_alive_while_the_other_side_holds_none_of_its_cards() -> None:
    row = _life("JD QD 4C", "7S")
    assert row["grande_ours_alive"] == 2 and row["grande_ours_alive_two"] == 1
    assert row["grande_theirs_alive"] == 0 and row["grande_dead"] == 0
    row = _life("JD QD", "KD")  # the king taken by the others: nobody's grande
    assert row["grande_ours_alive"] == row["grande_theirs_alive"] == 0
    assert row["grande_ours_alive_two"] == row["grande_theirs_alive_two"] == 0
    assert row["grande_dead"] == 1
    row = _life("", "KD")
    assert row["grande_theirs_alive"] == 1 and row["grande_theirs_alive_two"] == 0
    assert row["grande_ours_alive"] == 0 and row["grande_dead"] == 0


def test_S7_a_piccola_is_alive_while_the_other_side_holds_none_of_ace_two_three() -> None:
    row = _life("AD 2D", "5D")
    assert row["piccola_ours_alive"] == 2 and row["piccola_ours_alive_two"] == 1
    assert row["piccola_dead"] == 0 and row["piccola_ours_runs_on"] == 0
    row = _life("AD", "3D 2D")
    assert row["piccola_ours_alive"] == 0 and row["piccola_theirs_alive"] == 0
    assert row["piccola_dead"] == 1


def test_S7_a_made_piccola_runs_on_while_its_next_card_can_still_come() -> None:
    assert _life("AD 2D 3D", "5D")["piccola_ours_runs_on"] == 1  # the 4 still out
    assert _life("AD 2D 3D", "4D")["piccola_ours_runs_on"] == 0  # the 4 taken
    assert _life("AD 2D 3D 4D", "6D")["piccola_ours_runs_on"] == 1  # the 5 still out
    # at the six the run is as long as it goes, unless it may run to the seven
    assert _life("AD 2D 3D 4D 5D 6D", "")["piccola_ours_runs_on"] == 0
    seven = Rules.preset("cirulla").replace(piccola_to_seven=True)
    assert _life("AD 2D 3D 4D 5D 6D", "", seven)["piccola_ours_runs_on"] == 1
    assert _life("4C", "AD 2D 3D")["piccola_theirs_runs_on"] == 1
    assert _life("AD 2D", "")["piccola_ours_runs_on"] == 0  # no piccola yet


def test_S2_S3_a_majority_won_and_one_card_short() -> None:
    deck = [c for c in full_deck() if c.suit != "D"]
    ours = " ".join(str(c) for c in deck[:21])
    theirs = " ".join(str(c) for c in deck[21:30]) + " AD 2D 3D 4D 5D 6D"
    row = _life(ours, theirs)
    assert row["cards_won"] == 1.0 and row["cards_one_short"] == 0.0
    assert row["denari_won"] == -1.0 and row["denari_one_short"] == 0.0
    row = _life(" ".join(str(c) for c in deck[:20]), "AD 2D 3D 4D 5D")
    assert row["cards_won"] == 0.0 and row["cards_one_short"] == 1.0
    assert row["denari_one_short"] == -1.0


def _reference(deal: Deal) -> list[float]:
    """`life` written the plain way, from the cards' names."""
    seat = deal.to_move
    assert seat is not None
    us = deal.side_of(seat)
    ours = {str(c) for c in deal._piles[us]}
    theirs = {str(c) for c in deal._piles[1 - us]}
    row: list[float] = []
    for names in (("JD", "QD", "KD"), ("AD", "2D", "3D")):
        a = sum(n in ours for n in names)
        b = sum(n in theirs for n in names)
        row += [a if not b else 0, float(a == 2 and not b), b if not a else 0]
        row += [float(b == 2 and not a), float(a > 0 and b > 0)]
    run = ["AD", "2D", "3D", "4D", "5D", "6D"]
    for mine, other in ((ours, theirs), (theirs, ours)):
        k = 0
        while k < 6 and run[k] in mine:
            k += 1
        row.append(float(3 <= k < 6 and run[k] not in other))
    d_ours = sum(n.endswith("D") for n in ours)
    d_theirs = sum(n.endswith("D") for n in theirs)
    row.append(float(len(ours) >= 21) - float(len(theirs) >= 21))
    row.append(float(d_ours >= 6) - float(d_theirs >= 6))
    row.append(float(len(ours) == 20) - float(len(theirs) == 20))
    row.append(float(d_ours == 5) - float(d_theirs == 5))
    return [float(x) for x in row]


@pytest.mark.parametrize("players", [2, 4])
def test_life_matches_the_plain_reading_through_whole_smazzate(players: int) -> None:
    checked = 0
    for seed in range(12):
        deal = Deal(Rules.preset("cirulla"), players, seed % players, seed=seed)
        rng = random.Random(seed)
        while not deal.is_over:
            assert life(deal) == _reference(deal)
            # the piles are public: every determinization reads the same
            det = deal.copy()
            seat = deal.to_move
            assert seat is not None
            det.redeal_unseen(seat, rng)
            assert life(det) == life(deal)
            checked += 1
            deal.play(rng.choice(deal.legal_moves()))
    assert checked > 300


def test_the_shipped_life_value_reads_the_features_and_life() -> None:
    data = json.loads((files("cirulla") / "data" / "leaf_value_life.json").read_text())
    assert data["features"] == list(FEATURES) + list(LIFE)
    assert sorted(data["models"]) == ["2", "4"]
    plain = json.loads((files("cirulla") / "data" / "leaf_value.json").read_text())
    for n, model in data["models"].items():
        assert len(model["weights"]) == len(FEATURES) + len(LIFE)
        # fitted on the same games, it errs less out of sample than the value without
        assert model["cv"]["mse"] < plain["models"][n]["cv"]["mse"]
        w = dict(zip(LIFE, model["weights"][len(FEATURES) :], strict=True))
        # two of the grande's cards are worth more alive than dead, for either side
        assert w["grande_ours_alive_two"] > 0 > w["grande_theirs_alive_two"]
    cirulla = Rules.preset("cirulla")
    four = leaf_model(cirulla, 4, "cheater_life")
    assert isinstance(four, LeafValue) and four.life and not leaf_model(cirulla, 4).life
    deal = _with_piles("JD QD 7C", "AS")
    row = features(deal) + life(deal)
    assert four.value(deal) == pytest.approx(
        four.intercept + sum(w * f for w, f in zip(four.weights, row, strict=True))
    )
    assert leaf_model(cirulla, 3, "cheater_life") is None


def test_a_leaf_value_takes_the_features_weights_with_or_without_life() -> None:
    assert LeafValue([0.0] * (len(FEATURES) + len(LIFE)), 0.0).life
    assert not LeafValue([0.0] * len(FEATURES), 0.0).life
    with pytest.raises(ValueError, match="or 100 with the life features, not 85"):
        LeafValue([0.0] * (len(FEATURES) + 1), 0.0)


def test_the_life_value_option_is_checked_and_changes_the_search() -> None:
    options = {**LEVELS["campione"].options, "value": "cheater_life"}
    bot = bots.get("ismcts", **options)
    assert bot.options()["value"] == "cheater_life"
    deal = Deal(Rules.preset("cirulla"), 4, 1, seed=71)
    rng = random.Random(71)
    for _ in range(14):
        deal.play(rng.choice(deal.legal_moves()))
    seat = deal.to_move
    assert seat is not None
    visits = []
    for opts in (options, LEVELS["campione"].options):
        searcher = bots.get("ismcts", seed=71, budget=Budget(iterations=300), **opts)
        visits.append(searcher.root_visits(SeatView(deal.view(seat)))[1])
    assert visits[0] != visits[1]
