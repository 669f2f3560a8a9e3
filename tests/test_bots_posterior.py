"""The samplers of hidden hands (bots/posterior.py): the Metropolis chain draws from the
opponent model's posterior, which is checked against the exact posterior, enumerated, in small
positions; and `Deal.assign_unseen`, which it writes its draws with, moves hidden
cards and refuses anything else."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from cirulla import Card, Deal, Rules, bots
from cirulla.bots import Budget, choose_move, level_bot
from cirulla.bots.base import SeatView
from cirulla.bots.inference import PlayEvidence
from cirulla.bots.posterior import PosteriorSampler, RejectionSampler
from cirulla.determinize import determinize
from cirulla.views import visible_hands

MODEL = {"missed_greedy": 0.05, "missed_bonus": 0.05}
Marginals = dict[tuple[int, Card], float]  # (seat, card) -> P(the seat holds it)


def _informative(players: int, want_deck: bool) -> tuple[Deal, Deal, PlayEvidence, list[int]]:
    """A position of greedy players where seat 0 is to move and the model has evidence:
    (the real deal, seat 0's determinization, the evidence, the hidden seats)."""
    rules = Rules.preset("cirulla")
    rng = random.Random(5)
    for seed in range(200):
        deal = Deal(rules, players=players, dealer=1, seed=seed)
        greedy = [level_bot("normale", seed=s) for s in range(players)]
        while not deal.is_over:
            seat = deal.to_move
            assert seat is not None
            if seat == 0 and (deal.deck_left > 0) == want_deck:
                base = determinize(deal.view(0), rng)
                hidden = [s for s in range(players) if s not in visible_hands(deal, 0)]
                evidence = PlayEvidence(base, hidden, **MODEL)
                first = itertools.islice(_assignments(base, hidden), 60)
                spread = {evidence.weight(_with(base, hidden, h)) for h in first}
                if evidence.informative and len(spread) > 2:
                    return deal, base, evidence, hidden
            deal.play(greedy[seat].choose(SeatView(deal.view(seat))))
    raise AssertionError("no informative position found")


def _free(deal: Deal, seat: int) -> list[Card]:
    declared = deal.declared(seat)
    return [c for c in deal.hand(seat) if c not in declared]


def _assignments(base: Deal, hidden: list[int]) -> Iterator[dict[int, tuple[Card, ...]]]:
    """Every way to put the unseen cards in the hidden seats' free slots (the rest in
    the deck, whose order no weight reads)."""
    pool = sorted({c for s in hidden for c in _free(base, s)} | set(base._deck), key=str)
    sizes = [len(_free(base, s)) for s in hidden]

    def fill(i: int, left: list[Card]) -> Iterator[dict[int, tuple[Card, ...]]]:
        if i == len(hidden):
            yield {}
            return
        for combo in itertools.combinations(left, sizes[i]):
            for rest in fill(i + 1, [c for c in left if c not in combo]):
                yield {hidden[i]: combo, **rest}

    return fill(0, pool)


def _with(base: Deal, hidden: list[int], hands: dict[int, tuple[Card, ...]]) -> Deal:
    used = {c for h in hands.values() for c in h}
    pool = {c for s in hidden for c in _free(base, s)} | set(base._deck)
    deal = base.copy()
    deal.assign_unseen(0, {s: list(hands[s]) for s in hidden}, sorted(pool - used, key=str))
    return deal


def _exact_marginals(base: Deal, evidence: PlayEvidence, hidden: list[int]) -> Marginals:
    """P(seat s holds card c) under the posterior, by enumeration."""
    total = 0.0
    mass: dict[tuple[int, Card], float] = {}
    for hands in _assignments(base, hidden):
        w = evidence.weight(_with(base, hidden, hands))
        total += w
        for s, cards in hands.items():
            for c in cards:
                mass[(s, c)] = mass.get((s, c), 0.0) + w
    return {k: v / total for k, v in mass.items()}


def _sampled_marginals(draw: Callable[[], Deal], hidden: list[int], n: int) -> Marginals:
    counts: Counter[tuple[int, Card]] = Counter()
    for _ in range(n):
        deal = draw()
        for s in hidden:
            for c in _free(deal, s):
                counts[(s, c)] += 1
    return {k: v / n for k, v in counts.items()}


def _distance(a: Marginals, b: Marginals) -> float:
    return max(abs(a.get(k, 0.0) - b.get(k, 0.0)) for k in set(a) | set(b))


@pytest.mark.parametrize(("players", "want_deck"), [(2, True), (4, False), (3, False)])
def test_the_chain_draws_the_models_posterior(players: int, want_deck: bool) -> None:
    """Each hidden card's chance to be in each hidden hand, sampled by the chain, is the
    enumerated posterior's; a uniform redraw is measurably not (so the position tells)."""
    _, base, evidence, hidden = _informative(players, want_deck)
    exact = _exact_marginals(base, evidence, hidden)
    rng = random.Random(11)
    chain = PosteriorSampler(base, 0, evidence, rng)

    def uniform() -> Deal:
        deal = base.copy()
        deal.redeal_unseen(0, rng)
        return deal

    n = 6000
    assert _distance(_sampled_marginals(chain, hidden, n), exact) < 0.035
    assert _distance(_sampled_marginals(uniform, hidden, n), exact) > 0.06


def _full_shuffle_rejection(
    base: Deal, evidence: PlayEvidence, rng: random.Random, tries: int
) -> Callable[[], Deal]:
    """The rejection sampler as it was until 2026-11-29: every draw a copy of the deal
    with all its hidden cards shuffled, then weighed. The law the new one must keep."""

    def sample() -> Deal:
        best, best_weight = base, -1.0
        for _ in range(tries):
            deal = base.copy()
            deal.redeal_unseen(0, rng)
            weight = evidence.weight(deal)
            if weight >= 1.0 or rng.random() < weight:
                return deal
            if weight > best_weight:
                best, best_weight = deal, weight
        return best

    return sample


def _first_of_deck(draw: Callable[[], Deal], n: int) -> dict[Card, float]:
    counts = Counter(draw()._deck[0] for _ in range(n))
    return {c: k / n for c, k in counts.items()}


@pytest.mark.parametrize(("players", "want_deck"), [(2, True), (4, False)])
def test_the_rejection_sampler_with_enough_tries_draws_the_models_posterior(
    players: int, want_deck: bool
) -> None:
    """Shuffling only the cards the hands get draws each hidden hand as the full shuffle
    did: with tries enough never to give up, the enumerated posterior."""
    _, base, evidence, hidden = _informative(players, want_deck)
    exact = _exact_marginals(base, evidence, hidden)
    unlimited = RejectionSampler(base, 0, evidence, random.Random(7), 100_000)
    assert _distance(_sampled_marginals(unlimited, hidden, 6000), exact) < 0.035


@pytest.mark.parametrize("players", [2, 4])
def test_the_rejection_sampler_keeps_the_law_of_a_full_shuffle(players: int) -> None:
    """With campione's 20 tries, the same best-of-twenty as the full shuffle of every
    draw (the sampler until 2026-11-29), in the hands and in the deck's first card."""
    _, base, evidence, hidden = _informative(players, True)
    n = 6000
    new = RejectionSampler(base, 0, evidence, random.Random(8), 20)
    old = _full_shuffle_rejection(base, evidence, random.Random(9), 20)
    assert _distance(_sampled_marginals(new, hidden, n), _sampled_marginals(old, hidden, n)) < 0.035
    new_first, old_first = _first_of_deck(new, n), _first_of_deck(old, n)
    assert set(new_first) == set(old_first)
    assert max(abs(new_first[c] - p) for c, p in old_first.items()) < 0.035


def test_the_samplers_shuffle_draws_what_random_shuffle_draws() -> None:
    """The samplers shuffle the undealt deck with `draws.shuffle` (compiled, unlike
    `random.shuffle`): the same order and the same draws, so the law and the pinned moves
    stay the same."""
    from cirulla.bots.draws import shuffle
    from cirulla.cards import full_deck

    for seed in range(50):
        for n in (0, 1, 2, 3, 17, 40):
            ours, theirs = full_deck()[:n], full_deck()[:n]
            a, b = random.Random(seed), random.Random(seed)
            shuffle(a, ours)
            b.shuffle(theirs)
            assert ours == theirs
            assert a.getrandbits(64) == b.getrandbits(64)


def test_the_rejection_sampler_deals_what_the_view_allows_and_refuses_no_tries() -> None:
    real, base, evidence, hidden = _informative(4, True)
    sampler = RejectionSampler(base, 0, evidence, random.Random(4), 20)
    view = real.view(0)
    for _ in range(50):
        deal = sampler()
        assert deal.view(0)["hand"] == view["hand"]
        assert deal.table == real.table and deal.deck_left == real.deck_left
        for s in hidden:
            assert len(deal.hand(s)) == len(real.hand(s))
            assert deal.declared(s) == real.declared(s)
        everything = [c for s in range(4) for c in deal.hand(s)] + deal._deck + deal.table
        assert len(set(everything)) == len(everything) == 40 - len(deal._piles[0] + deal._piles[1])
    with pytest.raises(ValueError, match="tries"):
        RejectionSampler(base, 0, evidence, random.Random(4), 0)


def test_chain_samples_are_deals_consistent_with_the_view() -> None:
    real, base, evidence, hidden = _informative(4, True)
    chain = PosteriorSampler(base, 0, evidence, random.Random(3))
    view = real.view(0)
    for _ in range(50):
        deal = chain()
        assert deal.view(0)["hand"] == view["hand"]
        assert deal.table == real.table
        assert deal.deck_left == real.deck_left
        assert sorted(map(str, deal.hand(0))) == sorted(map(str, real.hand(0)))
        for s in hidden:
            assert len(deal.hand(s)) == len(real.hand(s))
            assert deal.declared(s) == real.declared(s)
        everything = [c for s in range(4) for c in deal.hand(s)] + deal._deck + deal.table
        assert len(set(everything)) == len(everything)


def test_assign_unseen_refuses_cards_it_cannot_place_and_changes_nothing() -> None:
    _, base, _, hidden = _informative(4, True)
    before = (base.view(None), [base.hand(s) for s in range(4)], list(base._deck))
    hands = {s: _free(base, s) for s in hidden}
    deck = list(base._deck)
    seen = base.hand(0)[0]
    with pytest.raises(ValueError, match="cannot see"):  # a card seat 0 holds
        base.assign_unseen(0, {**hands, hidden[0]: [seen, *hands[hidden[0]][1:]]}, deck)
    with pytest.raises(ValueError, match="holds"):  # a card too many
        base.assign_unseen(0, {**hands, hidden[0]: [*hands[hidden[0]], deck[0]]}, deck[1:])
    with pytest.raises(ValueError, match="exactly the seats"):
        base.assign_unseen(0, {hidden[0]: hands[hidden[0]]}, deck)
    with pytest.raises(ValueError, match="cannot see"):  # a card lost
        base.assign_unseen(0, hands, deck[1:])
    assert (base.view(None), [base.hand(s) for s in range(4)], list(base._deck)) == before
    # and a legal exchange does move them
    a, b = hands[hidden[0]][0], deck[0]
    base.assign_unseen(0, {**hands, hidden[0]: [b, *hands[hidden[0]][1:]]}, [a, *deck[1:]])
    assert b in base.hand(hidden[0]) and a not in base.hand(hidden[0])


def test_ismcts_with_the_chain_plays_legal_moves_and_refuses_a_bad_sampler() -> None:
    with pytest.raises(ValueError, match="sampler"):
        bots.get("ismcts", sampler="mcmc")
    real, _, _, _ = _informative(4, True)
    budget = Budget(iterations=100)
    bot = bots.get("ismcts", seed=1, budget=budget, infer=True, sampler="chain", **MODEL)
    assert bot.options()["sampler"] == "chain"
    move = choose_move(bot, real)
    assert move in real.legal_moves()


@pytest.mark.parametrize(("players", "like"), [(2, "chain"), (4, "reject")])
def test_the_auto_sampler_draws_by_the_chain_at_2_players_and_by_rejection_at_4(
    players: int, like: str
) -> None:
    """`sampler="auto"` is the chain at 2 players and rejection at more: the same move
    and the same draws as that sampler, not the other's."""
    real, _, _, _ = _informative(players, True)
    budget = Budget(iterations=100)

    def search(sampler: str) -> tuple[str, int]:
        bot = bots.get("ismcts", seed=3, budget=budget, infer=True, sampler=sampler, **MODEL)
        return choose_move(bot, real).text, bot.rng.getrandbits(32)

    other = "reject" if like == "chain" else "chain"
    assert search("auto") == search(like)
    assert search("auto")[1] != search(other)[1]
