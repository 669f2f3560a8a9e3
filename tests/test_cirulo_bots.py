"""Cirulo bots: legal in thousands of random positions (4, 5, 6 players, both
decks), see only their view, the heuristic's rules of thumb, the search bot's
sampling of hidden hands and its determinization."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from test_cirulo import CONFIGS, stack

from cirulla.cirulo import Card, CiruloRules, Deal
from cirulla.cirulo import bots as cbots
from cirulla.cirulo.bots import Budget, CiruloView
from cirulla.cirulo.bots.search import determinize, distinct_cards, sample_hands


def _positions(deck: str, players: int, hands: int, seed: int) -> list[Deal]:
    """Every position of `hands` random hands (copies)."""
    rng = random.Random(seed)
    out = []
    for k in range(hands):
        deal = Deal(CiruloRules(deck=deck), players, k % players, seed=seed * 100 + k)
        while not deal.is_over:
            out.append(deal.copy())
            deal.play(rng.choice(deal.legal_moves()))
    return out


@pytest.mark.parametrize(("deck", "players"), CONFIGS)
def test_random_and_heuristic_are_legal_in_random_positions(deck: str, players: int) -> None:
    positions = _positions(deck, players, hands=10, seed=players)
    assert len(positions) >= 400  # 2400+ positions over the six configurations
    bots = [cbots.get("random", seed=1), cbots.get("heuristic", seed=1)]
    for deal in positions:
        seat = deal.to_move
        assert seat is not None
        view = CiruloView(deal.view(seat))
        legal = deal.legal_moves()
        for bot in bots:
            assert bot.choose(view) in legal


@pytest.mark.parametrize(("deck", "players"), CONFIGS)
def test_search_is_legal_in_random_positions(deck: str, players: int) -> None:
    positions = _positions(deck, players, hands=8, seed=players + 7)
    assert len(positions) >= 360  # 2300+ positions over the six configurations
    bot = cbots.get("search", seed=3, budget=Budget(iterations=3))
    for deal in positions:
        assert cbots.choose_card(bot, deal) in deal.legal_moves()


@pytest.mark.parametrize(("deck", "players"), CONFIGS)
def test_sampled_hands_agree_with_the_view(deck: str, players: int) -> None:
    rng = random.Random(players)
    for deal in _positions(deck, players, hands=2, seed=players + 11)[::3]:
        seat = deal.to_move
        assert seat is not None
        view = CiruloView(deal.view(seat))
        hands = sample_hands(view, rng)
        assert hands[seat] == deal.hand(seat)
        assert [len(h) for h in hands] == [len(deal.hand(s)) for s in range(players)]
        others = [c for s, h in enumerate(hands) if s != seat for c in h]
        assert Counter(others) == Counter(view.unseen)
        for s, hand in enumerate(hands):
            assert not {c.suit for c in hand} & view.voids[s]
        # The rebuilt hand is the same position: the seat's view is unchanged.
        assert determinize(view, hands).view(seat) == deal.view(seat)


def test_voids_are_read_from_failing_to_follow_suit() -> None:
    rules = CiruloRules()
    deal = Deal(rules, 4, 0, deck=stack(rules, 4, 0, {1: ["3C"], 2: ["5O"]}, avoid={2: "C"}))
    deal.play("3C")
    deal.play("5O")
    view = CiruloView(deal.view(3))
    assert view.voids[2] == frozenset("C") and view.voids[1] == frozenset()
    for _ in range(20):
        hands = sample_hands(view, random.Random(_))
        assert not [c for c in hands[2] if c.suit == "C"]


def _bots_play(deck: str, players: int, names: list[str], seed: int) -> Deal:
    deal = Deal(CiruloRules(deck=deck), players, 0, seed=seed)
    bots = [cbots.get(n, seed=s, budget=Budget(iterations=20)) for s, n in enumerate(names)]
    return cbots.play_deal(deal, bots)


def test_bots_are_reproducible_for_a_seed() -> None:
    names = ["random", "heuristic", "search", "heuristic", "random"]
    a = _bots_play("poker52", 5, names, 4)
    b = _bots_play("poker52", 5, names, 4)
    assert a.moves == b.moves and a.settlement() == b.settlement()


def test_search_respects_its_budget() -> None:
    deal = Deal(CiruloRules(), 4, 0, seed=5)
    bot = cbots.SearchBot(seed=1, budget=Budget(iterations=30))
    bot.choose(CiruloView(deal.view(deal.to_move)))
    assert bot.last_iterations == 30
    timed = cbots.SearchBot(seed=1, budget=Budget(seconds=0.05))
    timed.choose(CiruloView(deal.view(deal.to_move)))
    assert timed.last_iterations > 0
    # a budget spent before the search starts still plays every card out once
    late = cbots.SearchBot(seed=1, budget=Budget(seconds=1e-6))
    view = CiruloView(deal.view(deal.to_move))
    late.choose(view)
    assert late.last_iterations == len(distinct_cards(view, view.legal)) > 1


def test_equivalent_cards_are_searched_once() -> None:
    rules = CiruloRules()
    hand = ["5C", "6C", "8C", "10O", "11O", "3O", "1E", "3E", "5E", "1B", "3B", "5B"]
    deal = Deal(rules, 4, 0, deck=stack(rules, 4, 0, {1: hand}))
    view = CiruloView(deal.view(1))
    kept = {str(c) for c in distinct_cards(view, view.legal)}
    assert "5C" in kept and "6C" not in kept and "8C" in kept  # 7C is out: 8C differs
    assert "10O" in kept and "11O" not in kept  # worth 10 each, nothing between
    assert "3O" in kept and len(kept) == 10


def test_registry_and_views() -> None:
    assert cbots.names() == ["heuristic", "random", "search"]
    with pytest.raises(ValueError, match="unknown Cirulo bot 'greedy'"):
        cbots.get("greedy")
    with pytest.raises(ValueError, match="bad option"):
        cbots.get("heuristic", depth=3)
    with pytest.raises(ValueError, match="epsilon"):
        cbots.get("search", epsilon=2.0)
    deal = Deal(CiruloRules(), 4, 0, seed=1)
    with pytest.raises(ValueError, match="spectator"):
        CiruloView(deal.view(None))
    with pytest.raises(ValueError, match="Cirulo view"):
        CiruloView({"seat": 0})
    with pytest.raises(ValueError, match="not that seat's turn"):
        cbots.choose_card(cbots.get("random"), deal, 3)
    with pytest.raises(ValueError, match="4 players need 4 bots"):
        cbots.play_deal(deal, [cbots.get("random")])

    class Custom(cbots.RandomBot):
        name = "custom"

    cbots.register("custom-test", Custom)
    try:
        assert isinstance(cbots.get("custom-test", seed=2), Custom)
    finally:
        cbots._REGISTRY.pop("custom-test")


# ---- the heuristic's rules of thumb ---------------------------------------------------
def _position(hands: dict[int, list[str]], plays: list[str], avoid: dict[int, str]) -> CiruloView:
    rules = CiruloRules()
    deal = Deal(rules, 4, 0, deck=stack(rules, 4, 0, hands, avoid))
    for card in plays:
        deal.play(card)
    assert deal.to_move is not None
    return CiruloView(deal.view(deal.to_move))


def _heuristic(view: CiruloView) -> str:
    return str(cbots.HeuristicBot(seed=0).choose(view))


def test_heuristic_ducks_under_a_trick_with_coins() -> None:
    view = _position({1: ["5O"], 2: ["9O", "2O", "7O", "12O"]}, ["5O"], {})
    assert _heuristic(view) == "2O"  # under the 5: the highest that still ducks


def test_heuristic_dumps_its_worst_coin_when_void() -> None:
    view = _position({1: ["5C"], 2: ["3O", "12O", "1E"]}, ["5C"], {2: "C"})
    assert _heuristic(view) == "12O"


def test_heuristic_last_to_a_clean_trick_sheds_its_highest() -> None:
    hands = {1: ["5C"], 2: ["6C"], 3: ["7C"], 0: ["2C", "12C", "1E"]}
    view = _position(hands, ["5C", "6C", "7C"], {})
    assert _heuristic(view) == "12C"


def test_heuristic_sheds_a_top_card_early_while_tricks_are_clean() -> None:
    hand = ["11E", "12E", "1C", "2C", "1B", "2B", "3B", "4B", "5B", "6B", "7B", "8B"]
    view = _position({1: hand}, [], {})
    assert _heuristic(view) in ("11E", "12E")  # nobody is void yet: winning costs nothing


def test_heuristic_leads_low_where_higher_cards_are_out_once_a_void_shows() -> None:
    hand = ["11E", "12E", "1C", "2C", "1B", "2B", "3B", "4B", "5B", "6B", "7B", "8B"]
    hands = {1: hand, 2: ["5C"], 3: ["2E"], 0: ["3E"]}
    # Seat 2 shows it has no espadas (and may dump coins); seat 1 wins and leads again.
    view = _position(hands, ["11E", "5C", "2E", "3E"], {2: "E"})
    assert view.seat == 1 and view.voids[2] == frozenset("E")
    assert _heuristic(view) == "2C"  # the 1 is its own: whoever follows must go over


def test_heuristic_beats_random() -> None:
    total = 0.0
    for seed in range(6):
        for hero in range(4):
            deal = Deal(CiruloRules(), 4, seed % 4, seed=seed)
            bots = [cbots.get("heuristic" if s == hero else "random", seed=s) for s in range(4)]
            cbots.play_deal(deal, bots)
            total += float(deal.settlement().balances[hero])
    assert total / 24 > 5  # points per hand: the heuristic avoids coins


def test_card_from_another_deck_is_not_legal() -> None:
    deal = Deal(CiruloRules(deck="poker52"), 4, 0, seed=1)
    assert Card.parse("KO", "poker52").deck == "poker52"
    assert all(c.deck == "poker52" for c in deal.legal_moves())
