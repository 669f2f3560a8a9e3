"""The softmax model of the others' plays (`PlayEvidence(beta=, eps=)`, the ismcts option
`softmax`): a probability ratio of the plays made, read from public facts only."""

from __future__ import annotations

import math
import random

import pytest
from botutil import whimsical_position

from cirulla import Deal, Rules, bots
from cirulla.bots import Budget, SeatView, choose_move
from cirulla.bots.inference import SEARCHER_FACTORS, PlayEvidence, last_play, play_scores
from cirulla.bots.search import IsmctsBot
from cirulla.cards import Card
from cirulla.determinize import determinize

RULES = Rules.preset("cirulla")


def _greedy_positions(count: int) -> list[Deal]:
    """4-player positions of greedy players, seat 0 to move with a choice after every
    seat has played in the stage."""
    found = []
    for seed in range(count):
        deal = Deal(RULES, 4, seed % 4, seed=seed)
        greedy = [bots.get("greedy", seed=s) for s in range(4)]
        while not deal.is_over:
            seat = deal.to_move
            assert seat is not None
            if seat == 0 and deal._stage_plays >= 4 and len(deal.legal_moves()) > 1:
                found.append(deal.copy())
            deal.play(choose_move(greedy[seat], deal, seat))
    return found


def _stage_plays(deal: Deal, seat: int) -> list[tuple[Deal, Card]]:
    """`seat`'s plays of the stage being played: the deal just before each, and its card."""
    replay = Deal(RULES, deal.players, deal.dealer, deck=list(deal.initial_deck))
    out = []
    for move in deal.moves:
        if replay.stage == deal.stage and replay.to_move == seat and move.is_play:
            assert move.card is not None
            out.append((replay.copy(), move.card))
        replay.play(move)
    return out


def _probability(deal: Deal, seat: int, hand: list[Card], beta: float, eps: float) -> float:
    """By hand: the chance the model gives `seat`'s plays of the stage had it held `hand`
    now (each play a softmax over greedy's scores of every play of its hand then,
    mixed with a uniform choice of weight `eps`)."""
    plays = _stage_plays(deal, seat)
    moves = [m for m in deal.moves if m.is_play]
    p = 1.0
    for i, (before, card) in enumerate(plays):
        held = [c for _, c in plays[i:]] + hand
        scores = play_scores(before, held, last_play(before))
        made = next(m for m in moves if m.card is card)
        (made_score,) = [s for m, s in scores if m == made]
        z = sum(math.exp(beta * s) for _, s in scores)
        p *= (1.0 - eps) * math.exp(beta * made_score) / z + eps / len(scores)
    return p


@pytest.mark.parametrize(("beta", "eps"), [(1.0, 0.1), (3.0, 0.0), (0.5, 0.4)])
def test_softmax_weights_are_the_plays_probability_ratios_at_most_one(
    beta: float, eps: float
) -> None:
    checked = seen_declared = 0
    for seed in range(8):
        deal = whimsical_position(seed, 1)
        view = SeatView(deal.view(0))
        evidence = PlayEvidence(determinize(view.raw, random.Random(1)), [1], beta=beta, eps=eps)
        assert evidence.informative
        rng = random.Random(seed)
        declared = deal.declared(1)  # in every hand: shown to all (B7)
        free = [c for c in deal.hand(1) if c not in declared]
        pool = free + list(deal._deck)
        hands = [deal.hand(1)] + [declared + rng.sample(pool, len(free)) for _ in range(15)]
        weights = [evidence.hand_weight(1, h, declared) for h in hands]
        truth = [_probability(deal, 1, h, beta, eps) for h in hands]
        assert all(0.0 < w <= 1.0 + 1e-12 for w in weights)
        for w, t in zip(weights[1:], truth[1:], strict=True):
            assert w / weights[0] == pytest.approx(t / truth[0], rel=1e-9)
        checked += 1
        seen_declared += bool(declared)
    assert checked == 8
    assert seen_declared  # seed 5's seat 1 declared a cirulla


def test_softmax_model_never_reads_hidden_cards_same_view_same_weights_same_move() -> None:
    """Built from two determinizations of one view, the model weighs every hand alike;
    a bot using it picks the same move from two deals that agree on the view."""
    for seed in range(6):
        deal = whimsical_position(seed, 1, players=4)
        view = SeatView(deal.view(0))
        first = determinize(view.raw, random.Random(1))
        second = determinize(view.raw, random.Random(2))
        assert [first.hand(s) for s in range(4)] != [second.hand(s) for s in range(4)]
        a = PlayEvidence(first, [1, 2, 3], beta=2.0, eps=0.2)
        b = PlayEvidence(second, [1, 2, 3], beta=2.0, eps=0.2)
        rng = random.Random(seed)
        for _ in range(10):
            sample = first.copy()
            sample.redeal_unseen(0, rng)
            assert a.weight(sample) == b.weight(sample)
        other = determinize(view.raw, random.Random(99))
        moves = [
            IsmctsBot(seed=7, budget=Budget(iterations=100), infer=True, softmax=[2.0, 0.2]).choose(
                SeatView(d.view(0))
            )
            for d in (deal, other)
        ]
        assert moves[0] == moves[1] and moves[0] in deal.legal_moves()


def test_a_sharp_softmax_knows_greedy_players_hands_better_than_a_uniform_draw() -> None:
    """Greedy players' real hands weigh more, on average, than redraws of them under a
    softmax sharp enough to be near greedy's choice."""
    real: list[float] = []
    drawn: list[float] = []
    for n, deal in enumerate(_greedy_positions(30)):
        view = SeatView(deal.view(0))
        evidence = PlayEvidence(determinize(view.raw, random.Random(1)), [1, 2, 3], beta=4.0)
        real.append(evidence.weight(deal))
        rng = random.Random(n)
        for _ in range(10):
            sample = deal.copy()
            sample.redeal_unseen(0, rng)
            drawn.append(evidence.weight(sample))
    assert len(real) > 60
    assert sum(real) / len(real) > 1.5 * sum(drawn) / len(drawn)


def test_with_adapt_only_seats_found_searchers_are_read_by_the_softmax() -> None:
    """`adapt` with the softmax: a seat whose finished stages skipped greedy's play
    often is weighed by the softmax alone; greedy players keep the greedy factors."""
    campione = (0.4, 0.1, 0.05, 0.05)
    flagged = 0
    for seed in range(12):
        deal = whimsical_position(seed, 3)
        base = determinize(SeatView(deal.view(0)).raw, random.Random(1))
        both = PlayEvidence(base, [1], *campione, searcher=SEARCHER_FACTORS, beta=3.0, eps=0.3)
        if 1 not in both._per_seat:
            assert 1 not in both._soft
            continue
        flagged += 1
        assert 1 in both._soft and 1 not in both._factors
        alone = PlayEvidence(base, [1], *SEARCHER_FACTORS, beta=3.0, eps=0.3)
        rng = random.Random(seed)
        free = [c for c in deal.hand(1) if c not in deal.declared(1)]
        pool = free + list(deal._deck)
        for _ in range(10):
            hand = deal.declared(1) + rng.sample(pool, len(free))
            assert both.hand_weight(1, hand, deal.declared(1)) == alone.hand_weight(
                1, hand, deal.declared(1)
            )
    assert flagged >= 6
    for deal in _greedy_positions(8):
        base = determinize(SeatView(deal.view(0)).raw, random.Random(1))
        both = PlayEvidence(base, [1, 2, 3], *campione, searcher=SEARCHER_FACTORS, beta=3.0)
        plain = PlayEvidence(base, [1, 2, 3], *campione)
        assert not both._soft and not both._per_seat
        assert both.weight(deal) == plain.weight(deal)


@pytest.mark.parametrize(
    "bad",
    [
        {"softmax": [1.0]},
        {"softmax": [-1.0, 0.1]},
        {"softmax": [1.0, 1.0]},
        {"softmax": [25.0, 0.1]},
        {"softmax": "1,0.1"},
        {"softmax": [True, 0.1]},
        {"softmax": [1.0, 0.1], "mixture": True},
    ],
)
def test_bad_softmax_options_are_value_errors(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="softmax"):
        bots.get("ismcts", **bad)


def test_softmax_option_round_trips_through_options_and_is_off_by_default() -> None:
    assert IsmctsBot().options()["softmax"] is None
    bot = IsmctsBot(infer=True, softmax=(1, 0.1))
    assert bot.options()["softmax"] == [1.0, 0.1]
    again = bots.get("ismcts", **bot.options())
    assert isinstance(again, IsmctsBot) and again.softmax == (1.0, 0.1)


def test_play_evidence_softmax_arguments_are_checked() -> None:
    deal = whimsical_position(3, 1)
    base = determinize(deal.view(0), random.Random(1))
    for kwargs in ({"beta": -0.5}, {"beta": 1.0, "eps": 1.0}, {"beta": 1.0, "eps": -0.1}):
        with pytest.raises(ValueError):
            PlayEvidence(base, [1], **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="mixture"):
        PlayEvidence(base, [1], beta=1.0, searcher=SEARCHER_FACTORS, mixture=True)
