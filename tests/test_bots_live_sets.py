"""The grande and the piccola read live by the playouts' greedy policy
(`evaluate.live_adjustment`, `ismcts` option `live`; docs/strength.md, 2026-12-07, a
third): a set card is worth what it does to the chance of finishing the set (S6, S7),
nothing once both sides hold one of it."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from cirulla import Deal, Rules
from cirulla.bots import Budget
from cirulla.bots.base import choose_move
from cirulla.bots.evaluate import FINISH_CHANCE, live_adjustment, set_holdings, touches_set
from cirulla.bots.levels import CAMPIONE_OPTIONS
from cirulla.bots.policies import LIVE, UNSEEN, policy_move
from cirulla.bots.search import IsmctsBot
from cirulla.cards import Card
from cirulla.moves import Move

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import live_sets

#: campione's search without the live sets, whatever campione plays today
SEARCH = {k: v for k, v in CAMPIONE_OPTIONS.items() if k not in ("live", "live_players")}
GRANDE_CARD = 0.9  # what evaluate's fixed weights give a grande card for the grande
PICCOLA_CARD = 0.55


def _cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def _play(card: str, captured: str = "") -> Move:
    return Move.play(Card.parse(card), tuple(_cards(captured)))


def _adjust(move: Move, ours: str, theirs: str) -> float:
    return live_adjustment(move, [_cards(ours), _cards(theirs)], 0)


def test_plays_without_a_set_card_are_left_as_greedy_scores_them() -> None:
    assert _adjust(_play("5C", "5S"), "JD", "QD") == 0.0
    assert _adjust(_play("4D"), "AD 2D", "") == 0.0  # the piccola's run is not read live
    assert live_adjustment(Move.pass_(), [[], []], 0) == 0.0


def test_S6_a_grande_card_is_worth_nothing_of_it_once_both_sides_hold_one() -> None:
    assert _adjust(_play("KC", "KD"), "JD", "QD") == pytest.approx(-GRANDE_CARD)


def test_S6_the_last_grande_card_the_others_need_is_worth_killing_their_grande() -> None:
    expected = 5.0 * FINISH_CHANCE[2] - GRANDE_CARD
    assert _adjust(_play("KC", "KD"), "", "JD QD") == pytest.approx(expected)


def test_S6_taking_two_grande_cards_at_once_counts_both_steps() -> None:
    # none held: the first card takes the chance from 0 to FINISH_CHANCE[1], the second
    # from there to FINISH_CHANCE[2]
    expected = 5.0 * FINISH_CHANCE[2] - 2 * GRANDE_CARD
    assert _adjust(_play("QD", "JD"), "", "") == pytest.approx(expected)
    # holding two: the third finishes it
    expected = 5.0 * (1.0 - FINISH_CHANCE[2]) - GRANDE_CARD
    assert _adjust(_play("KC", "KD"), "JD QD", "4S") == pytest.approx(expected)


def test_S7_offering_a_piccola_card_offers_the_others_the_kill_of_ours() -> None:
    # played without capturing: greedy charges half the card's worth to the others; live,
    # that worth is killing a piccola we hold two of
    expected = -0.5 * (3.0 * FINISH_CHANCE[2] - PICCOLA_CARD)
    assert _adjust(_play("3D"), "AD 2D", "") == pytest.approx(expected)
    # dead: nothing of the set offered either
    assert _adjust(_play("3D"), "AD", "2D") == pytest.approx(0.5 * PICCOLA_CARD)


def test_S6_two_other_sides_each_holding_a_card_is_a_dead_grande_at_three_sides() -> None:
    piles = [_cards(""), _cards("JD"), _cards("QD")]
    assert live_adjustment(_play("KC", "KD"), piles, 0) == pytest.approx(-GRANDE_CARD)
    piles = [_cards(""), _cards("JD QD"), _cards("")]
    expected = 5.0 * FINISH_CHANCE[2] - GRANDE_CARD
    assert live_adjustment(_play("KC", "KD"), piles, 0) == pytest.approx(expected)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_piles_counted_once_a_decision_give_every_play_the_same_adjustment(
    players: int,
) -> None:
    rules = Rules.preset("cirulla")
    touched = 0
    for seed in range(30):
        deal = Deal(rules, players, seed % players, seed=seed)
        rng = random.Random(seed)
        while not deal.is_over:
            legal = deal.legal_moves()
            seat = deal.to_move
            assert seat is not None
            side = deal._side[seat]
            holdings = set_holdings(deal._piles, side)
            for move in legal:
                once = live_adjustment(move, deal._piles, side, holdings)
                assert once == live_adjustment(move, deal._piles, side)
                assert (once != 0.0) <= touches_set(move)
                touched += touches_set(move)
            assert holdings == set_holdings(deal._piles, side)  # read, never counted up
            deal.play(rng.choice(legal))
    assert touched > 0


@pytest.mark.parametrize("players", [2, 4])
def test_the_live_policy_differs_from_greedy_only_where_a_set_card_is_played_or_taken(
    players: int,
) -> None:
    rules = Rules.preset("cirulla")
    sets = {0, 1, 2, 7, 8, 9}
    differed = 0
    for seed in range(40):
        deal = Deal(rules, players, seed % players, seed=seed)
        while not deal.is_over:
            legal = deal.legal_moves()
            plain = policy_move(deal, legal, UNSEEN, random.Random(seed))
            live = policy_move(deal, legal, UNSEEN + LIVE, random.Random(seed))
            if live != plain:
                differed += 1
                touched = {c.id for m in (live, plain) for c in (m.card, *m.captured) if c}
                assert touched & sets, (str(live), str(plain))
            deal.play(live)
    assert differed > 0


def test_the_live_option_is_checked_and_carried_to_the_workers() -> None:
    with pytest.raises(ValueError, match="live must be true or false"):
        IsmctsBot(live="yes")  # type: ignore[arg-type]
    bot = IsmctsBot(live=True, **SEARCH)
    assert bot.live is True
    again = IsmctsBot(**bot.checked.as_dict())
    assert again.live is True and again.checked == bot.checked
    assert IsmctsBot().live is False


def test_live_players_keeps_the_live_sets_to_the_counts_it_names() -> None:
    with pytest.raises(ValueError, match="live_players"):
        IsmctsBot(live_players=[4])  # without live
    for bad in ([], [1], [9], "4", [4.0], [True]):
        with pytest.raises(ValueError, match="live_players"):
            IsmctsBot(live=True, live_players=bad)  # type: ignore[arg-type]
    bot = IsmctsBot(live=True, live_players=[4, 2, 4])
    assert bot.live_players == (2, 4)
    assert bot.checked.as_dict()["live_players"] == [2, 4]
    four = IsmctsBot(live=True, live_players=[4]).checked
    assert four.reads_live(4) and not four.reads_live(2)
    assert IsmctsBot(live=True).checked.reads_live(3)
    assert not IsmctsBot().checked.reads_live(4)


@pytest.mark.parametrize("players", [2, 4])
def test_the_search_reads_the_sets_live_only_where_live_players_says(players: int) -> None:
    """At a count it does not name, the search is the plain one move for move."""
    rules = Rules.preset("cirulla")
    other = 2 if players == 4 else 4
    deal = Deal(rules, players, 0, seed=3)
    budget = Budget(iterations=150)
    plain = IsmctsBot(seed=1, budget=budget, **SEARCH)
    elsewhere = IsmctsBot(seed=1, budget=budget, live=True, live_players=[other], **SEARCH)
    while not deal.is_over:
        move = choose_move(plain, deal)
        assert choose_move(elsewhere, deal) == move
        deal.play(move)


def test_the_live_option_changes_the_search() -> None:
    rules = Rules.preset("cirulla")
    changed = 0
    for seed in range(6):  # the same seeds: any difference is the option's
        deal = Deal(rules, 4, 0, seed=seed)
        plain = IsmctsBot(seed=1, budget=Budget(iterations=200), **SEARCH)
        live = IsmctsBot(seed=1, budget=Budget(iterations=200), live=True, **SEARCH)
        while not deal.is_over and not changed:
            a = choose_move(plain, deal)
            b = choose_move(live, deal)
            changed += a != b
            deal.play(b)
    assert changed > 0


def test_live_sets_measures_the_finish_chances_and_the_paired_margin(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "live.json"
    argv = ["live_sets.py", "--players", "2", "--decks", "30", "--seed", "3", "--json", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    assert live_sets.main() == 0
    result = json.loads(out.read_text())
    assert result["decks"] == 30 and result["chances"] == list(FINISH_CHANCE)
    for sets in result["finish"].values():
        for row in sets.values():
            assert 0 <= row["finished"] <= row["times"]
            assert row["times"] > 0
    low, high = result["live_vs_plain"]["ci95"]
    assert low <= result["live_vs_plain"]["mean"] <= high
    # the same decks: the same figures
    assert live_sets.run(2, 30, 3, FINISH_CHANCE) == result
    # other chances are played, then put back
    assert live_sets.run(2, 5, 3, (0.0, 0.1, 0.2, 1.0))["chances"] == [0.0, 0.1, 0.2, 1.0]
    from cirulla.bots import evaluate

    assert evaluate.FINISH_CHANCE == FINISH_CHANCE


@pytest.mark.parametrize("bad", ["0,0.5,1", "0.1,0.2,0.5,1", "0,0.6,0.5,1", "a,b,c,d"])
def test_live_sets_refuses_chances_that_are_not_four_rising_from_0_to_1(
    monkeypatch: pytest.MonkeyPatch, bad: str
) -> None:
    monkeypatch.setattr(sys, "argv", ["live_sets.py", "--chances", bad])
    with pytest.raises(SystemExit):
        live_sets.main()
