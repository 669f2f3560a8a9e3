"""Determinization for search bots: deals consistent with what one seat knows."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from conftest import PRESET_PLAYERS, stack

import cirulla
from cirulla import Card, Deal, Rules, determinize, unseen_cards

PUBLIC = ["to_move", "stage", "mano", "deck", "table", "hand", "piles", "last_capture", "matta"]


def _positions(rules: Rules, players: int, seeds: range):
    for seed in seeds:
        rng = random.Random(seed)
        deal = Deal(rules, players, seed % players, seed=seed)
        while not deal.is_over:
            yield deal
            deal.play(rng.choice(deal.legal_moves()))


@pytest.mark.parametrize(("preset", "players"), PRESET_PLAYERS)
def test_determinized_deal_agrees_with_the_seats_view(preset: str, players: int) -> None:
    rules = Rules.preset(preset)
    for deal in _positions(rules, players, range(6)):
        seat = deal.to_move
        view = deal.view(seat)
        sample = determinize(view, random.Random(7))
        again = sample.view(seat)
        for key in PUBLIC:
            assert again[key] == view[key], key
        assert [h["count"] for h in again["hands"]] == [h["count"] for h in view["hands"]]
        assert [h["declared"] for h in again["hands"]] == [h["declared"] for h in view["hands"]]
        assert {str(m) for m in sample.legal_moves()} == {str(m) for m in deal.legal_moves()}


def _placed_elsewhere(deal: Deal, seat: int) -> set[Card]:
    """Cards `seat` knows are not hidden: its hand, table, piles, declared cards."""
    known = set(deal.hand(seat)) | set(deal.table)
    for side in range(deal.sides):
        known |= set(deal.captured(side))
    for other in range(deal.players):
        known |= set(deal.declared(other))
    return known


def test_determinization_never_moves_a_card_the_seat_knows() -> None:
    rules = Rules.preset("pagat")
    for deal in _positions(rules, 4, range(8)):
        seat = deal.to_move
        view = deal.view(seat)
        known = _placed_elsewhere(deal, seat)
        hidden = set(unseen_cards(view))
        assert not hidden & known
        assert hidden == {c for s in range(4) if s != seat for c in deal.hand(s)} - known | set(
            deal._deck
        )
        sample = determinize(view, random.Random(len(deal.moves)))
        for other in range(4):
            if other != seat:
                assert set(sample.declared(other)) == set(deal.declared(other))
                assert not (set(sample.hand(other)) - set(sample.declared(other))) & known
        for side in range(2):
            assert sorted(sample.captured(side)) == sorted(deal.captured(side))


def test_O2_determinization_keeps_the_partners_hand() -> None:
    rules = Rules.preset("cirulla").replace(carte_scoperte=True)
    for deal in _positions(rules, 4, range(4)):
        seat = deal.to_move
        partner = (seat + 2) % 4
        sample = determinize(deal.view(seat), random.Random(1))
        assert sample.hand(partner) == deal.hand(partner)
        copy = sample.copy()
        copy.redeal_unseen(seat, random.Random(2))
        assert copy.hand(partner) == deal.hand(partner)


def test_redeal_unseen_keeps_what_the_seat_sees_and_every_card() -> None:
    deal = Deal(Rules.preset("cirulla"), 4, 0, seed=3)
    for _ in range(5):
        deal.play(deal.legal_moves()[0])
    seat = deal.to_move
    before = deal.view(seat)
    copy = deal.copy()
    copy.redeal_unseen(seat, random.Random(9))
    after = copy.view(seat)
    for key in ("hand", "table", "piles", "deck"):
        assert after[key] == before[key]
    everything = lambda d: sorted(  # noqa: E731
        [c for s in range(4) for c in d.hand(s)] + d.table + d._deck
    )
    assert everything(copy) == everything(deal)
    assert [copy.hand(s) for s in range(4)] != [deal.hand(s) for s in range(4)]
    assert deal.view(seat) == before  # the original is untouched


def test_redeal_unseen_keeps_declared_cards_in_their_hand() -> None:
    deck = stack(hands=[[], ["AS", "2S", "3S"]], table=["6C", "7C", "JC", "KC"])
    deal = Deal(Rules.preset("cirulla"), 4, 0, deck=deck)
    deal.play("!cirulla:AS2S3S")
    deal.play(next(m for m in deal.legal_moves() if m.kind == "play"))
    copy = deal.copy()
    copy.redeal_unseen(2, random.Random(4))
    assert set(copy.declared(1)) <= set(copy.hand(1))
    assert set(copy.declared(1)) == set(deal.declared(1))


def test_determinization_draws_hidden_cards_uniformly() -> None:
    deal = Deal(Rules.preset("cirulla"), 2, 0, seed=11)
    view = deal.view(deal.to_move)
    other = 1 - deal.to_move
    hidden = unseen_cards(view)
    counts: Counter[Card] = Counter()
    trials = 2000
    rng = random.Random(5)
    for _ in range(trials):
        counts.update(determinize(view, rng).hand(other))
    expected = trials * 3 / len(hidden)
    assert set(counts) == set(hidden)
    for card in hidden:  # each hidden card lands in the hand about equally often
        assert abs(counts[card] - expected) < 5 * expected**0.5, card


def test_determinize_rejects_a_spectators_view_and_a_finished_deal() -> None:
    deal = Deal(Rules.preset("cirulla"), 2, 0, seed=1)
    with pytest.raises(ValueError, match="spectator"):
        determinize(deal.view(None), random.Random(0))
    while not deal.is_over:
        deal.play(deal.legal_moves()[0])
    with pytest.raises(ValueError, match="over"):
        determinize(deal.view(0), random.Random(0))


def test_determinize_is_reproducible_for_a_seed() -> None:
    deal = Deal(Rules.preset("cirulla"), 4, 2, seed=8)
    view = deal.view(deal.to_move)
    a = determinize(view, random.Random(3))
    b = determinize(view, random.Random(3))
    assert [a.hand(s) for s in range(4)] == [b.hand(s) for s in range(4)]
    assert cirulla.perft(a, 2) == cirulla.perft(b, 2)


def test_redeal_unseen_draws_hidden_cards_uniformly() -> None:
    deal = Deal(Rules.preset("cirulla"), 4, 0, seed=12)
    seat = deal.to_move
    hidden = unseen_cards(deal.view(seat))
    counts: Counter[Card] = Counter()
    trials = 3000
    rng = random.Random(6)
    other = (seat + 1) % 4
    for _ in range(trials):
        copy = deal.copy()
        copy.redeal_unseen(seat, rng)
        counts.update(copy.hand(other))
    expected = trials * 3 / len(hidden)
    assert set(counts) == set(hidden)
    for card in hidden:
        assert abs(counts[card] - expected) < 5 * expected**0.5, card
