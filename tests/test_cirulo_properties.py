"""Cirulo properties over random hands: cards are conserved, the pot always
balances (what is paid in is paid out or carried), and no view shows a card
hidden from its seat."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cirulla.cirulo import CiruloRules, Deal, Game, full_deck

DECKS = st.sampled_from(["spanish48", "poker52"])
PLAYERS = st.sampled_from([4, 5, 6])
SPLITS = st.sampled_from(["carry", "exact"])


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _check_conserved(deal: Deal) -> None:
    held = [c for s in range(deal.players) for c in deal.hand(s)]
    held += [c for _, c in deal.trick] + deal.center + list(deal.removed)
    held += [c for s in range(deal.players) for c in deal.taken(s)]
    assert Counter(held) == Counter(full_deck(deal.rules.deck))


def _check_views(deal: Deal) -> None:
    hands = [{str(c) for c in deal.hand(s)} for s in range(deal.players)]
    for seat in range(deal.players):
        hidden = set().union(*(h for s, h in enumerate(hands) if s != seat))
        shown = set(_strings(deal.view(seat)))
        assert not shown & hidden, f"seat {seat} sees {shown & hidden}"
    assert not set(_strings(deal.view(None))) & set().union(*hands)


def _check_settlement(deal: Deal) -> None:
    s = deal.settlement()
    total = sum(c.points for c in full_deck(deal.rules.deck))
    assert sum(s.coins) == total  # every coin ends in someone's encirculated tricks
    assert s.paid == s.coins
    for seat in range(deal.players):
        assert s.coins[seat] == sum(c.points for c in deal.taken(seat))
        assert (s.coins[seat] == 0) == (seat in s.receivers)
    assert not [c for c in deal.center if c.suit == "O"]
    # What is paid in (with the pot carried in) is paid out or carried on.
    assert s.pot == s.pot_in + sum(s.paid)
    assert s.pot == s.share * len(s.receivers) + s.carried
    assert sum(s.balances) == s.pot_in - s.carried
    if s.receivers:
        assert 0 <= s.carried < max(1, len(s.receivers))
    else:
        assert s.carried == s.pot and s.share == 0
    if deal.rules.split == "carry":
        assert all(isinstance(b, int) for b in s.balances)


@settings(max_examples=60, deadline=None)
@given(
    deck=DECKS,
    players=PLAYERS,
    seed=st.integers(0, 2**40),
    dealer=st.integers(0, 5),
    pot=st.integers(0, 200),
    split=SPLITS,
    choices=st.lists(st.integers(0, 50), max_size=60),
)
def test_cards_conserved_views_hide_and_pot_balances(
    deck: str, players: int, seed: int, dealer: int, pot: int, split: str, choices: list[int]
) -> None:
    deal = Deal(CiruloRules(deck=deck, split=split), players, dealer % players, seed=seed, pot=pot)
    rng = random.Random(seed)
    step = 0
    while not deal.is_over:
        _check_conserved(deal)
        if step % 7 == 0:
            _check_views(deal)
        legal = deal.legal_moves()
        pick = choices[step] if step < len(choices) else rng.randrange(len(legal))
        deal.play(legal[pick % len(legal)])
        step += 1
    _check_conserved(deal)
    _check_views(deal)
    _check_settlement(deal)


@settings(max_examples=25, deadline=None)
@given(
    deck=DECKS,
    players=PLAYERS,
    seed=st.integers(0, 2**40),
    hands=st.integers(1, 8),
    split=SPLITS,
    point_value=st.integers(1, 5),
)
def test_game_balances_and_pot_always_sum_to_zero(
    deck: str, players: int, seed: int, hands: int, split: str, point_value: int
) -> None:
    rules = CiruloRules(deck=deck, hands=hands, split=split, point_value=point_value)
    game = Game(rules, players, seed=seed)
    rng = random.Random(seed)
    paid_in = 0
    paid_out = 0
    while True:
        deal = game.deal
        assert deal.pot_in == (game.deals[-2].settlement().carried if len(game.deals) > 1 else 0)
        while not deal.is_over:
            deal.play(rng.choice(deal.legal_moves()))
        s = deal.settlement()
        paid_in += sum(s.paid)
        paid_out += s.share * len(s.receivers)
        assert sum(game.balances) + game.pot == 0
        assert paid_in == paid_out + game.pot  # nothing created or lost over the game
        assert game.chips == [b * point_value for b in game.balances]
        if game.is_over:
            break
        game.next_deal()
    assert len(game.deals) == hands
