"""The stronger search's options: inference from the play (`infer`), root parallelism
(`workers`) and the `maestro` level built on it (docs/strength.md, issue 16)."""

from __future__ import annotations

import random
import time

import pytest
from botutil import whimsical_position

from cirulla import Deal, Rules, bots
from cirulla.bots import LEVELS, Budget, SeatView, choose_move, level_bot
from cirulla.bots.inference import MISSED_SCOPA, SEARCHER_FACTORS, PlayEvidence
from cirulla.bots.levels import (
    CAMPIONE_2026_11_21,
    CAMPIONE_2026_11_27,
    CAMPIONE_2026_11_28,
    CAMPIONE_2026_12_06,
    CAMPIONE_2026_12_06_AVERAGED,
    CAMPIONE_OPTIONS,
)
from cirulla.bots.rootpool import search_in_parallel, shutdown
from cirulla.bots.search import IsmctsBot, worker_root_visits
from cirulla.determinize import determinize

RULES = Rules.preset("cirulla")


def _greedy_position(seed: int, plies: int) -> Deal:
    """A 4-player smazzata played by greedy bots for `plies` moves."""
    deal = Deal(RULES, 4, seed % 4, seed=seed)
    greedy = [bots.get("greedy", seed=s) for s in range(4)]
    for _ in range(plies):
        if deal.is_over:
            break
        seat = deal.to_move
        assert seat is not None
        deal.play(choose_move(greedy[seat], deal, seat))
    return deal


def _hidden(view: SeatView) -> list[int]:
    return [s for s in range(view.players) if s != view.seat and view.known_hand(s) is None]


def _positions() -> list[Deal]:
    """Positions deep in a stage (hidden seats have played in it), seat to move able to
    choose."""
    found = []
    for seed in range(40):
        for plies in (3, 6, 14, 18, 27, 30):
            deal = _greedy_position(seed, plies)
            if not deal.is_over and len(deal.legal_moves()) > 1:
                found.append(deal)
    return found


def test_infer_never_reads_hidden_cards_same_view_other_deal_same_move() -> None:
    """Two deals that agree on everything the seat to move knows (a second one drawn
    from its view) get the same move from an inferring bot with the same seed."""
    checked = 0
    for deal in _positions()[:60:6]:
        seat = deal.to_move
        assert seat is not None
        view = deal.view(seat)
        other = determinize(view, random.Random(99))
        assert other.view(seat) == view
        assert [other.hand(s) for s in range(4)] != [deal.hand(s) for s in range(4)]
        moves = [
            IsmctsBot(seed=7, budget=Budget(iterations=120), infer=True).choose(
                SeatView(d.view(seat))
            )
            for d in (deal, other)
        ]
        assert moves[0] == moves[1]
        assert moves[0] in deal.legal_moves()
        checked += 1
    assert checked >= 8


def test_play_evidence_favours_the_real_hands_of_greedy_players_p6_p7() -> None:
    """Against greedy players (who capture when they can and sweep when they can), the
    real hidden hands weigh more on average than uniform redraws of them."""
    real, drawn, informative = [], [], 0
    for deal in _positions()[:120]:
        seat = deal.to_move
        assert seat is not None
        view = SeatView(deal.view(seat))
        base = determinize(view.raw, random.Random(1))
        evidence = PlayEvidence(base, _hidden(view))
        informative += evidence.informative
        real.append(evidence.weight(deal))
        rng = random.Random(2)
        for _ in range(20):
            sample = base.copy()
            sample.redeal_unseen(seat, rng)
            drawn.append(evidence.weight(sample))
    assert informative >= 20
    assert sum(real) / len(real) > sum(drawn) / len(drawn) + 0.1
    assert all(0.0 < w <= 1.0 for w in real + drawn)


def test_play_evidence_missed_scopa_weighs_at_most_missed_scopa_p7() -> None:
    """A hidden hand that holds a card which could have swept the table when its player
    did not sweep weighs at most MISSED_SCOPA."""
    for deal in _positions():
        seat = deal.to_move
        assert seat is not None
        view = SeatView(deal.view(seat))
        hidden = _hidden(view)
        base = determinize(view.raw, random.Random(3))
        evidence = PlayEvidence(base, hidden)
        rng = random.Random(4)
        for _ in range(50):
            sample = base.copy()
            sample.redeal_unseen(seat, rng)
            weight = evidence.weight(sample)
            if weight <= MISSED_SCOPA + 1e-12:
                return  # found a sample the model calls a missed scopa
    pytest.fail("no sample with a missed scopa in 240 positions")


def test_infer_off_by_default_and_checked() -> None:
    bot = bots.get("ismcts")
    assert isinstance(bot, IsmctsBot) and bot.infer is False and bot.workers == 1
    for bad in ({"infer": "yes"}, {"workers": 0}, {"workers": 1.5}, {"exploration": -1.0}):
        with pytest.raises(ValueError):
            bots.get("ismcts", **bad)


def test_root_parallel_sums_visits_of_independent_searches_same_in_pool_and_here() -> None:
    """The worker pool gives each seed's search exactly what it gives in this process."""
    deal = _greedy_position(5, 6)
    seat = deal.to_move
    assert seat is not None
    view = deal.view(seat)
    budget = Budget(iterations=150)
    options = IsmctsBot().options()
    try:
        pooled = search_in_parallel(view, [11, 12], budget, options)
    finally:
        shutdown()
    here = [worker_root_visits(view, s, budget, options) for s in (11, 12)]
    assert pooled == here
    for texts, visits, done in pooled:
        assert done == 150
        assert len(texts) == len(visits) and sum(v for v in visits if v > 0) == 150


def test_workers_bot_plays_legal_move_and_counts_every_worker() -> None:
    deal = _greedy_position(8, 3)
    seat = deal.to_move
    assert seat is not None
    bot = bots.get("ismcts", seed=3, budget=Budget(iterations=100), workers=2)
    try:
        move = bot.choose(SeatView(deal.view(seat)))
    finally:
        shutdown()
    assert move in deal.legal_moves()
    assert bot.last_iterations == 200


def test_maestro_level_searches_on_several_workers_and_returns_legal_move_in_budget() -> None:
    """maestro: the campione search with a larger budget on several processes; with a
    seconds cap it answers a legal move within the cap (plus the workers' start)."""
    spec = LEVELS["maestro"]
    assert spec.bot == "ismcts" and spec.options["workers"] > 1
    assert spec.budget is not None and spec.budget.seconds is not None
    campione = LEVELS["campione"].budget
    assert campione is not None and campione.iterations is not None
    assert spec.budget.iterations is not None and spec.budget.iterations > campione.iterations
    assert isinstance(level_bot("maestro"), IsmctsBot)
    deal = _greedy_position(9, 2)
    seat = deal.to_move
    assert seat is not None
    bot = bots.get(spec.bot, seed=1, budget=Budget(iterations=10**6, seconds=1.0), **spec.options)
    try:
        bot.choose(SeatView(deal.view(seat)))  # starts the workers
        start = time.perf_counter()
        move = bot.choose(SeatView(deal.view(seat)))
        elapsed = time.perf_counter() - start
    finally:
        shutdown()
    assert move in deal.legal_moves()
    assert elapsed < 20.0  # 1 s a worker; generous for a loaded machine
    assert bot.last_iterations > 0


def test_greedy_model_evidence_tells_greedy_players_hands_better_than_the_rules_model() -> None:
    """Modelling the others as greedy (`missed_greedy`, P5-P7 and greedy's score) and as
    always declaring (`missed_bonus`, B7) separates the real hands of greedy players from
    uniform redraws far more than the default model does."""
    gaps = []
    for factors in ((), (1.0, 1.0, 0.05, 0.05)):
        real, drawn = [], []
        for deal in _positions()[:120]:
            seat = deal.to_move
            assert seat is not None
            view = SeatView(deal.view(seat))
            base = determinize(view.raw, random.Random(1))
            evidence = PlayEvidence(base, _hidden(view), *factors)
            real.append(evidence.weight(deal))
            rng = random.Random(2)
            for _ in range(20):
                sample = base.copy()
                sample.redeal_unseen(seat, rng)
                drawn.append(evidence.weight(sample))
        gaps.append(sum(real) / len(real) - sum(drawn) / len(drawn))
    assert gaps[1] > gaps[0] + 0.2


def test_bonus_evidence_keeps_greedy_hands_and_rejects_undeclared_bonuses_b7() -> None:
    """Greedy declares every bonus, so with only the bonus evidence on, its real hands
    weigh 1, while some redraws give a player who did not declare a cirulla or decino."""
    rejected = 0
    for deal in _positions()[:60]:
        seat = deal.to_move
        assert seat is not None
        view = SeatView(deal.view(seat))
        base = determinize(view.raw, random.Random(5))
        evidence = PlayEvidence(base, _hidden(view), 1.0, 1.0, 0.05)
        assert evidence.weight(deal) == 1.0
        rng = random.Random(6)
        for _ in range(10):
            sample = base.copy()
            sample.redeal_unseen(seat, rng)
            rejected += evidence.weight(sample) == 0.05
    assert rejected >= 10


@pytest.mark.parametrize(
    "options",
    [
        {"expand": "policy"},
        {"others": "policy", "epsilon": 0.1},
        {"threats": "unseen"},
        {"threats": "sampled"},
        {"threats": "lookahead"},
        {"trees": 4},
        {"infer": True, "missed_greedy": 0.05, "missed_bonus": 0.05},
        {"infer": True, "missed_greedy": 0.05, "infer_partner": False},
        {"others": "policy", "epsilon": 0.1, "others_epsilon": 0.0},
        {"infer": True, "missed_greedy": 0.05, "adapt": True},
        {"infer": True, "missed_greedy": 0.05, "mixture": True},
        {"others": "policy", "epsilon": 0.1, "playout": "expert"},
    ],
)
def test_search_options_play_legal_moves_the_same_for_a_seed(options: dict[str, object]) -> None:
    for deal in _positions()[:40:8]:
        seat = deal.to_move
        assert seat is not None
        view = SeatView(deal.view(seat))
        moves = [
            IsmctsBot(seed=3, budget=Budget(iterations=80), **options).choose(view)  # type: ignore[arg-type]
            for _ in range(2)
        ]
        assert moves[0] == moves[1] and moves[0] in view.legal


Factors = tuple[float, float, float, float]
CAMPIONE_FACTORS: Factors = (0.4, 0.1, 0.05, 0.05)


def _evidence(
    deal: Deal, factors: Factors, searcher: bool = True, mixture: bool = False
) -> PlayEvidence:
    seat = deal.to_move
    assert seat is not None
    view = SeatView(deal.view(seat))
    base = determinize(view.raw, random.Random(1))
    capture, scopa, bonus, greedy = factors
    return PlayEvidence(
        base,
        _hidden(view),
        capture,
        scopa,
        bonus,
        greedy,
        searcher=SEARCHER_FACTORS if searcher else None,
        mixture=mixture,
    )


def test_adapt_reads_a_player_far_from_greedy_with_the_searcher_factors() -> None:
    """A seat whose finished stages, their hands known now, show greedy's play skipped
    often is weighed with SEARCHER_FACTORS; greedy players never are, and nothing is
    judged before a stage is over."""
    flagged = differs = 0
    for seed in range(12):
        deal = whimsical_position(seed, 3)
        adapted = _evidence(deal, CAMPIONE_FACTORS)
        if 1 not in adapted._per_seat:
            continue
        flagged += 1
        as_searcher = _evidence(deal, SEARCHER_FACTORS, searcher=False)
        as_greedy = _evidence(deal, CAMPIONE_FACTORS, searcher=False)
        rng = random.Random(seed)
        pool = deal.hand(1) + list(deal._deck)
        hands = [deal.hand(1)] + [rng.sample(pool, len(deal.hand(1))) for _ in range(20)]
        weights = [adapted.hand_weight(1, h, []) for h in hands]
        assert weights == [as_searcher.hand_weight(1, h, []) for h in hands]
        differs += weights != [as_greedy.hand_weight(1, h, []) for h in hands]
    assert differs >= 3
    assert flagged >= 9
    for seed in range(12):
        assert not _evidence(whimsical_position(seed, 0), CAMPIONE_FACTORS)._per_seat  # first stage
    for deal in _positions()[:80]:
        assert not _evidence(deal, CAMPIONE_FACTORS)._per_seat


def test_mixture_weighs_each_seat_as_greedy_or_searcher_by_its_finished_stages() -> None:
    """With `mixture` a seat's weight is the greedy model's and the searcher's, mixed by
    the chance its finished stages give it of being a searcher: even before any, near
    0 for a greedy player after a few clean stages, near 1 for one far from greedy."""

    def check(deal: Deal, seat: int) -> float:
        mixed = _evidence(deal, CAMPIONE_FACTORS, mixture=True)
        share = mixed._share.get(seat, 0.5)
        as_greedy = _evidence(deal, CAMPIONE_FACTORS, searcher=False)
        as_searcher = _evidence(deal, SEARCHER_FACTORS, searcher=False)
        rng = random.Random(seat)
        pool = deal.hand(seat) + list(deal._deck)
        size = len(deal.hand(seat))
        for hand in [deal.hand(seat)] + [rng.sample(pool, size) for _ in range(20)]:
            g = as_greedy.hand_weight(seat, hand, [])
            s = as_searcher.hand_weight(seat, hand, [])
            assert mixed.hand_weight(seat, hand, []) == pytest.approx((1 - share) * g + share * s)
        hands = [list(h) for h in deal._hands]
        declared = [list(d) for d in deal._pending]
        weight = 1.0
        for other in _hidden(SeatView(deal.view(deal.to_move))):
            weight *= mixed.hand_weight(other, hands[other], declared[other])
        assert mixed.weight(deal) == pytest.approx(weight)
        return share

    whimsical = [check(whimsical_position(seed, 3), 1) for seed in range(8)]
    assert min(whimsical) > 0.9
    assert check(whimsical_position(0, 0), 1) == 0.5  # no finished stage: even odds
    greedy = []
    for deal in _positions()[:120]:
        if deal.stage >= 2:
            seat = deal.to_move
            assert seat is not None
            greedy.append(check(deal, (seat + 1) % 4))
    assert greedy and max(greedy) < 0.5 and sum(greedy) / len(greedy) < 0.35
    with pytest.raises(ValueError, match="searcher"):
        PlayEvidence(_positions()[0], [1], mixture=True)


def test_infer_partner_off_reads_only_the_other_sides_plays() -> None:
    """With infer_partner=False the opponent model weighs the opponents' hands only: a
    partner who searches is no greedy player to be read as one (4 players; at 2 players
    there is no partner and nothing changes)."""
    deal = _positions()[0]
    seat = deal.to_move
    assert seat is not None
    view = SeatView(deal.view(seat))
    both = IsmctsBot(infer=True).evidence_seats(view)
    opponents = IsmctsBot(infer=True, infer_partner=False).evidence_seats(view)
    partner = (seat + 2) % 4
    assert sorted(both) == sorted([s for s in range(4) if s != seat])
    assert sorted(opponents) == sorted([(seat + 1) % 4, (seat + 3) % 4])
    assert partner in both and partner not in opponents
    two = Deal(RULES, 2, 0, seed=5)
    view2 = SeatView(two.view(two.to_move))
    assert IsmctsBot(infer_partner=False).evidence_seats(view2) == [1 - view2.seat]
    with pytest.raises(ValueError, match="infer_partner"):
        IsmctsBot(infer_partner="no")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "bad",
    [
        {"expand": "greedy"},
        {"others": "none"},
        {"threats": "all"},
        {"trees": 0},
        {"trees": True},
        {"missed_greedy": 0.0},
        {"missed_bonus": 1.5},
        {"missed_capture": "x"},
        {"adapt": "yes"},
        {"mixture": 1},
        {"adapt": True, "mixture": True},
        {"playout": "random"},
        {"playout": "expert", "trees": 2},
    ],
)
def test_bad_search_options_are_value_errors(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        bots.get("ismcts", **bad)


def test_campione_plays_the_averaged_cut_and_the_solved_last_stage_and_the_old_ones_stay() -> None:
    """campione searches with CAMPIONE_OPTIONS (since 2026-12-07, a fifth: the search of
    2026-11-27 with its playouts cut, the value averaged over the hands just dealt, at
    2 players waiting until two stages are left, and there the last stage solved
    against searchers), 3,000 iterations in at most a second, maestro with the same
    options on several workers; the campione without the solve, the one with the cut at
    4 players only, the one before the cut, the one with 1,500 iterations and the one
    before that stay reachable."""
    campione = level_bot("campione", seed=1)
    assert isinstance(campione, IsmctsBot)
    assert campione.options() == {**IsmctsBot().options(), **CAMPIONE_OPTIONS}
    assert (campione.options()["leaf"], campione.options()["cut_within"]) == ("cut_mean", 2)
    assert campione.options()["endgame"] == "searchers"
    assert [campione.checked.cuts(n) for n in (2, 4)] == [True, True]
    assert campione.budget == Budget(3000, 1.0)
    assert LEVELS["maestro"].options == {**CAMPIONE_OPTIONS, "workers": 4}
    averaged = CAMPIONE_2026_12_06_AVERAGED
    assert (averaged.bot, averaged.budget) == ("ismcts", Budget(3000, 1.0))
    assert averaged.options == {k: v for k, v in CAMPIONE_OPTIONS.items() if k != "endgame"}
    whole = {
        k: v for k, v in CAMPIONE_OPTIONS.items() if k not in ("leaf", "cut_within", "endgame")
    }
    cut = CAMPIONE_2026_12_06
    assert (cut.bot, cut.budget) == ("ismcts", Budget(3000, 1.0))
    assert cut.options == {**whole, "leaf": "cut", "cut_players": [4]}
    for before, iterations in ((CAMPIONE_2026_11_28, 3000), (CAMPIONE_2026_11_27, 1500)):
        assert (before.bot, before.options, before.budget) == (
            "ismcts",
            whole,
            Budget(iterations, 1.0),
        )
    old = CAMPIONE_2026_11_21
    assert (old.bot, old.options, old.budget) == ("ismcts", {}, Budget(1500, 1.0))


def test_others_epsilon_gives_the_other_sides_the_policy_in_playouts() -> None:
    """others_epsilon=0 with epsilon=1: the bot's side plays at random, the others always
    the greedy policy (as greedy players do); the playout equals one played that way."""
    from cirulla.bots.draws import below
    from cirulla.bots.playouts import playout
    from cirulla.bots.policies import UNSEEN, policy_move

    differs = 0
    for i, deal in enumerate(_positions()[:30:3]):
        seat = deal.to_move
        assert seat is not None
        side = deal.side_of(seat)
        got = playout(deal.copy(), random.Random(i), 1.0, UNSEEN, side, 0.0)
        rng = random.Random(i)
        mirror = deal.copy()
        while not mirror.is_over:
            legal = mirror.legal_moves()
            if len(legal) > 1:
                rng.random()
                if mirror.side_of(mirror.to_move) == side:
                    move = legal[below(rng, len(legal))]
                else:
                    move = policy_move(mirror, legal, UNSEEN, rng)
            else:
                move = legal[0]
            mirror.play(move)
        assert got == mirror.score().totals
        differs += got != playout(deal.copy(), random.Random(i), 1.0, UNSEEN)
    assert differs > 0
    with pytest.raises(ValueError, match="others_epsilon"):
        IsmctsBot(others_epsilon=1.5)


def test_unseen_threats_are_every_value_the_others_and_the_deck_hold() -> None:
    """threats="unseen" reads the deck only until all ten values are in: the set must be
    the values of every card out of the mover's hand, at every point of a smazzata."""
    from cirulla.bots.policies import UNSEEN, sweep_threats

    rng = random.Random(3)
    checked = short = 0
    for players in (2, 4):
        for seed in range(12):
            deal = Deal(Rules.preset("cirulla"), players, seed % players, seed=seed)
            while not deal.is_over:
                seat = deal.to_move
                assert seat is not None
                others = [c for s in range(players) if s != seat for c in deal.hand(s)]
                want = {c.value for c in others + list(deal._deck)}
                assert sweep_threats(deal, seat, UNSEEN, rng) == want
                checked += 1
                short += len(want) < 10
                deal.play(deal.legal_moves()[0])
    assert checked > 500 and short > 20  # late plays, where some value is out


def test_expert_playouts_play_every_seat_as_the_expert_from_its_own_view() -> None:
    """playout="expert" with epsilon 0: the playout is the smazzata the expert (difficile)
    finishes at every seat, each from its own view of the determinization; the greedy
    policy finishes some of them otherwise, and the option reaches the playouts."""
    from cirulla.bots.playouts import playout
    from cirulla.bots.policies import UNSEEN
    from cirulla.bots.search import _expert_move

    expert = bots.get("expert")
    differs = 0
    for i, deal in enumerate(_positions()[:30:3]):
        got = playout(deal.copy(), random.Random(i), 0.0, UNSEEN, policy=_expert_move)
        mirror = deal.copy()
        while not mirror.is_over:
            legal = mirror.legal_moves()
            mirror.play(legal[0] if len(legal) == 1 else choose_move(expert, mirror))
        assert got == mirror.score().totals
        differs += got != playout(deal.copy(), random.Random(i), 0.0, UNSEEN)
    assert differs > 0
    bot = IsmctsBot(playout="expert")
    assert bot.options()["playout"] == "expert"
    assert IsmctsBot().options()["playout"] == "greedy"
