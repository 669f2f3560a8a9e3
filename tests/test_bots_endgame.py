"""The last stage at 2 players solved exactly (`bots.endgame`, `ismcts` option `endgame`;
docs/strength.md, 2026-12-07, a fifth): with the deck dealt out each player's hand is
every card the other has not seen, so the rest is a game of perfect information and
its minimax over the score sheet (S1-S7, P7, P8) is its exact worth."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from cirulla import Deal, Rules
from cirulla.bots import Budget, get, search
from cirulla.bots.base import SeatView, choose_move
from cirulla.bots.coach import advise
from cirulla.bots.endgame import (
    MAX_CARDS,
    MAX_SAMPLED_CARDS,
    hidden_stage,
    known_deal,
    sampled_stage,
    sampled_worths,
    solvable,
    solve,
    worth,
)
from cirulla.bots.levels import CAMPIONE_OPTIONS
from cirulla.bots.search import IsmctsBot
from cirulla.determinize import determinize


def _to_last_stage(seed: int, players: int = 2) -> Deal:
    """A real deal played by greedy-ish random choices to where the deck is dealt out."""
    rng = random.Random(seed)
    deal = Deal(Rules.preset("cirulla"), players, seed % players, seed=seed)
    while not deal.is_over and (deal.deck_left or deal.to_move is None):
        legal = deal.legal_moves()
        captures = [m for m in legal if m.captured]
        deal.play(rng.choice(captures or legal))
    return deal


def _plain_minimax(deal: Deal, side: int) -> float:
    """The same worth without pruning or move ordering: what alpha-beta must equal."""
    if deal.is_over:
        totals = deal.score().totals
        return float(totals[side] - totals[1 - side])
    mover = deal.to_move
    assert mover is not None
    values = []
    for move in deal.legal_moves():
        child = deal.copy()
        child.play(move)
        values.append(_plain_minimax(child, side))
    return max(values) if deal.side_of(mover) == side else min(values)


def _solvable_deals(count: int) -> list[Deal]:
    deals = [_to_last_stage(seed) for seed in range(count)]
    return [d for d in deals if not d.is_over and solvable(d)]


def test_P8_the_solved_worth_of_every_move_is_the_plain_minimax_of_the_score_sheet() -> None:
    deals = _solvable_deals(12)
    assert len(deals) >= 10
    for deal in deals:
        legal = deal.legal_moves()
        mover = deal.to_move
        assert mover is not None
        side = deal.side_of(mover)
        outcomes = solve(deal, legal)
        for move, totals in zip(legal, outcomes, strict=True):
            child = deal.copy()
            child.play(move)
            assert worth(totals, side) == _plain_minimax(child, side)


def test_the_solver_leaves_the_deal_it_is_given_as_it_was() -> None:
    deal = _solvable_deals(3)[0]
    before = (deal.view(0), deal.view(1), deal.legal_moves())
    solve(deal, deal.legal_moves())
    assert (deal.view(0), deal.view(1), deal.legal_moves()) == before


def test_only_two_players_with_the_deck_dealt_out_are_solved() -> None:
    deal = Deal(Rules.preset("cirulla"), 2, 0, seed=3)
    assert not solvable(deal)  # the deck still holds cards
    four = _to_last_stage(5, players=4)
    assert not four.is_over and four.deck_left == 0 and not solvable(four)
    last = _solvable_deals(2)[0]
    assert sum(len(last.hand(s)) for s in (0, 1)) <= MAX_CARDS
    while not last.is_over:
        last.play(last.legal_moves()[0])
    assert not solvable(last)


def _bot(endgame: str, seed: int = 7) -> IsmctsBot:
    options = {**CAMPIONE_OPTIONS, "endgame": endgame}
    return IsmctsBot(seed=seed, budget=Budget(iterations=200), **options)


def test_with_endgame_campione_never_plays_below_the_best_exact_worth() -> None:
    checked = 0
    for deal in _solvable_deals(10):
        bot = _bot("always")
        while not deal.is_over:
            mover = deal.to_move
            assert mover is not None
            view = SeatView(deal.view(mover))
            legal = view.legal
            move = choose_move(bot, deal, mover)
            if len(legal) > 1:
                values = [worth(t, deal.side_of(mover)) for t in solve(deal, legal)]
                assert values[legal.index(move)] == max(values)
                checked += 1
            deal.play(move)
    assert checked >= 20


def test_before_the_deck_is_dealt_out_the_search_alone_plays() -> None:
    # the same bot and seed play the same move when nothing is solved (the deck not out)
    deal = Deal(Rules.preset("cirulla"), 2, 0, seed=11)
    mover = deal.to_move
    assert mover is not None
    assert choose_move(_bot("always"), deal, mover) == choose_move(_bot("off"), deal, mover)
    assert _bot("off").solved(SeatView(deal.view(mover))) is None
    assert _bot("off").options()["endgame"] == "off"


def test_the_seat_view_alone_gives_the_true_deal_s_best_moves() -> None:
    # the bot solves the deal it rebuilds from the view: the true deal's best moves,
    # whatever its seed
    for deal in _solvable_deals(6):
        mover = deal.to_move
        assert mover is not None
        view = SeatView(deal.view(mover))
        first = _bot("always", seed=1).solved(view)
        assert first is not None and first == _bot("always", seed=99).solved(view)
        values = [worth(t, view.side) for t in solve(deal, view.legal)]
        assert {m.key for m in first} == {
            m.key for m, v in zip(view.legal, values, strict=True) if v == max(values)
        }


def _last_stage_against(
    opponent: str, seed: int, at: Callable[[Deal], bool] = solvable, players: int = 2
) -> SeatView | None:
    """Seat 0's side (random captures first) against `opponent` at the other ("greedy":
    normale's policy; "random": a player who skips greedy's play as often as chance has
    it), to that side's first choice where `at` holds (by default, once the deck is
    dealt out at 2 players)."""
    rng = random.Random(seed)
    deal = Deal(Rules.preset("cirulla"), players, seed % players, seed=seed)
    greedy = get("greedy", seed=seed)
    while not deal.is_over:
        mover = deal.to_move
        assert mover is not None
        legal = deal.legal_moves()
        if mover % 2 == 0 and at(deal) and len(legal) > 1:
            return SeatView(deal.view(mover))
        if mover % 2 == 1 and opponent == "greedy":
            deal.play(choose_move(greedy, deal, mover))
        else:
            deal.play(rng.choice([m for m in legal if m.captured] or legal))
    return None


def test_searchers_solves_against_a_player_who_skips_greedy_s_plays_only() -> None:
    judged = {"greedy": 0, "random": 0}
    for opponent in judged:
        views = [_last_stage_against(opponent, seed) for seed in range(12)]
        for view in [v for v in views if v is not None]:
            assert _bot("always").solved(view) is not None
            judged[opponent] += _bot("searchers").solved(view) is not None
    # greedy's finished stages read as greedy: the search alone plays against it
    assert judged["greedy"] == 0
    assert judged["random"] >= 6


def test_the_coach_values_the_last_stage_by_its_exact_worth_whatever_its_seed() -> None:
    for deal in _solvable_deals(6):
        mover = deal.to_move
        assert mover is not None
        view = deal.view(mover)
        advice = advise(view, samples=50, seed=3)
        assert advice.exact and advice.samples == 1
        assert advise(view, samples=5, seed=4) == advice
        side = deal.side_of(mover)
        legal = deal.legal_moves()
        for move, totals in zip(legal, solve(deal, legal), strict=True):
            assert advice.values[str(move)] == worth(totals, side)
            assert advice.totals[str(move)] == totals
    # before the deck is dealt out the coach still samples
    fresh = Deal(Rules.preset("cirulla"), 2, 0, seed=11)
    mover = fresh.to_move
    assert mover is not None
    sampled = advise(fresh.view(mover), samples=5, seed=3)
    assert not sampled.exact and sampled.samples == 5


# The stage before the last (`endgame_before`): the other hand and the last deal are
# hidden, so each move's exact worth is averaged over determinizations.


def _into_stage_before_last(seed: int, plays: int = 0, players: int = 2) -> Deal:
    """A real deal played (captures first, at random) into the stage before the last,
    `plays` cards into it."""
    rng = random.Random(seed)
    deal = Deal(Rules.preset("cirulla"), players, seed % players, seed=seed)
    into = -1
    while not deal.is_over:
        if deal.stage == len(deal.stages) - 2:
            into += deal.to_move is not None and deal.legal_moves()[0].kind == "play"
            if into >= plays:
                break
        legal = deal.legal_moves()
        captures = [m for m in legal if m.captured]
        deal.play(rng.choice(captures or legal))
    return deal


def _views_before_last(count: int, plays: int) -> list[tuple[Deal, SeatView]]:
    out = []
    for seed in range(count):
        deal = _into_stage_before_last(seed, plays)
        mover = deal.to_move
        if deal.is_over or mover is None:
            continue
        view = SeatView(deal.view(mover))
        if len(view.legal) > 1:
            out.append((deal, view))
    return out


def test_the_sampled_stage_is_the_stage_before_the_last_at_2_players_only() -> None:
    views = _views_before_last(8, 0)
    assert len(views) >= 6
    for deal, view in views:
        assert sampled_stage(view) and known_deal(view) is None
        assert deal.deck_left == 6
    last = _solvable_deals(3)[0]
    mover = last.to_move
    assert mover is not None and not sampled_stage(SeatView(last.view(mover)))
    first = Deal(Rules.preset("cirulla"), 2, 0, seed=3)
    assert first.to_move is not None and not sampled_stage(SeatView(first.view(first.to_move)))
    four = _into_stage_before_last(5, players=4)
    assert four.stage == len(four.stages) - 2 and four.to_move is not None
    assert not sampled_stage(SeatView(four.view(four.to_move)))
    assert MAX_SAMPLED_CARDS == 12


def _means_are_plain_minimax(deal: Deal) -> bool:
    """Asserts that each legal move's worth averaged over `deal` alone is its unpruned
    minimax; False where there is nothing to check (the smazzata over, nobody to move)."""
    mover = deal.to_move
    if deal.is_over or mover is None:
        return False
    legal = deal.legal_moves()
    means = sampled_worths(deal.copy, legal, deals=2)
    for move, mean in zip(legal, means, strict=True):
        child = deal.copy()
        child.play(move)
        assert mean == _plain_minimax(child, deal.side_of(mover))
    return True


def test_P8_averaged_over_the_true_deal_alone_a_move_s_worth_is_its_plain_minimax() -> None:
    # four cards into the stage: one each in hand and the last deal's six, small enough
    # for the unpruned minimax
    checked = 0
    for seed in range(8):
        deal = _into_stage_before_last(seed, plays=4)
        if _means_are_plain_minimax(deal):
            assert sum(len(deal.hand(s)) for s in (0, 1)) == 2 and deal.deck_left == 6
            checked += 1
    assert checked >= 6


def _two_stages(endgame: str, seed: int = 7, before: str = "sampled") -> IsmctsBot:
    options = {**CAMPIONE_OPTIONS, "endgame": endgame, "endgame_before": before}
    return IsmctsBot(seed=seed, budget=Budget(iterations=100), **options)


@pytest.fixture
def few_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Four determinizations a move in place of 32: the same logic, seconds sooner."""
    monkeypatch.setattr(search, "SAMPLED_DEALS", 4)


@pytest.mark.usefixtures("few_deals")
def test_two_stages_play_the_move_of_best_mean_worth_from_the_view_alone() -> None:
    views = _views_before_last(6, 2)[:3]
    assert len(views) == 3
    for deal, view in views:
        chosen = _two_stages("always").solved(view)
        assert chosen is not None and len(chosen) == 1 and chosen[0] in view.legal
        # another deal that fits the view: the advice is the same move
        other = determinize(view.raw, random.Random(5))
        mover = deal.to_move
        assert mover is not None
        assert _two_stages("always").solved(SeatView(other.view(mover))) == chosen
        assert choose_move(_two_stages("always"), deal, mover) == chosen[0]
        # the last stage only, or searched: nothing solved there
        assert _two_stages("always", before="off").solved(view) is None
        assert _two_stages("always", before="searched").solved(view) is None


def _before_last_against(opponent: str, seed: int) -> SeatView | None:
    """As `_last_stage_against`, to seat 0's first choice in the stage before the last."""
    return _last_stage_against(opponent, seed, lambda d: d.stage == len(d.stages) - 2)


@pytest.mark.usefixtures("few_deals")
def test_against_greedy_two_stages_leave_the_search_to_play_as_it_did() -> None:
    solved = {"greedy": 0, "random": 0}
    for opponent in solved:
        views = [_before_last_against(opponent, seed) for seed in range(10)]
        for view in [v for v in views if v is not None][:5]:
            solved[opponent] += _two_stages("searchers").solved(view) is not None
            if opponent == "greedy":  # the same move as the search's, its draws untouched
                one = _two_stages("searchers", before="off")
                assert _two_stages("searchers").choose(view) == one.choose(view)
                searched = _two_stages("searchers", before="searched")
                assert searched.choose(view) == _two_stages("searchers", before="off").choose(view)
    assert solved["greedy"] == 0
    assert solved["random"] >= 3


def test_searched_searches_the_other_player_s_moves_against_searchers_only() -> None:
    # the same seed and draws: the root's visits change exactly where the opponent is
    # judged a searcher, its tree moves then searched, not drawn by greedy's policy
    judged = {"greedy": 0, "random": 0}
    for opponent in judged:
        views = [_before_last_against(opponent, seed) for seed in range(10)]
        for view in [v for v in views if v is not None][:5]:
            searched = _two_stages("searchers", before="searched")
            plays = searched._before_last(view)
            off = _two_stages("searchers", before="off").root_visits(view)
            assert (searched.root_visits(view) != off) == plays
            judged[opponent] += plays
    assert judged["greedy"] == 0 and judged["random"] >= 3


# The last stage at 4 players (`endgame_hidden`): the deck dealt out, three hands hidden,
# two sides; each move's exact worth averaged over determinizations, as the stage before
# the last at 2.


def _into_last_stage_of_four(seed: int, plays: int = 0) -> Deal:
    """A real 4-player deal played (captures first, at random) `plays` cards into its
    last stage."""
    rng = random.Random(seed)
    deal = Deal(Rules.preset("cirulla"), 4, seed % 4, seed=seed)
    into = -1
    while not deal.is_over:
        if not deal.deck_left and deal.to_move is not None:
            into += deal.legal_moves()[0].kind == "play"
            if into >= plays:
                break
        legal = deal.legal_moves()
        deal.play(rng.choice([m for m in legal if m.captured] or legal))
    return deal


def _hidden(endgame: str = "always", seed: int = 7, hidden: str = "sampled") -> IsmctsBot:
    options = {**CAMPIONE_OPTIONS, "endgame": endgame, "endgame_hidden": hidden}
    return IsmctsBot(seed=seed, budget=Budget(iterations=100), **options)


def test_the_hidden_stage_is_the_last_stage_at_4_players_only() -> None:
    seen = 0
    for seed in range(6):
        deal = _into_last_stage_of_four(seed)
        mover = deal.to_move
        if deal.is_over or mover is None:
            continue
        view = SeatView(deal.view(mover))
        assert hidden_stage(view) and known_deal(view) is None and not sampled_stage(view)
        assert deal.deck_left == 0 and deal.stage == len(deal.stages) - 1
        seen += 1
    assert seen >= 5
    before = _into_stage_before_last(5, players=4)
    assert before.to_move is not None and not hidden_stage(SeatView(before.view(before.to_move)))
    last = _solvable_deals(3)[0]
    assert last.to_move is not None and not hidden_stage(SeatView(last.view(last.to_move)))


def test_P8_at_4_players_averaged_over_the_true_deal_a_move_s_worth_is_its_plain_minimax() -> None:
    # the two sides' points, minimax by side: the partner plays for the mover's side
    checked = 0
    for seed in range(8):
        deal = _into_last_stage_of_four(seed, plays=4)
        if _means_are_plain_minimax(deal):
            assert 6 <= sum(len(deal.hand(s)) for s in range(4)) <= 8 and not deal.deck_left
            checked += 1
    assert checked >= 6


@pytest.mark.usefixtures("few_deals")
def test_at_4_players_the_last_stage_is_played_by_mean_worth_from_the_view_alone() -> None:
    checked = 0
    for seed in range(5):
        deal = _into_last_stage_of_four(seed, plays=1)
        mover = deal.to_move
        if deal.is_over or mover is None or len(deal.legal_moves()) < 2:
            continue
        view = SeatView(deal.view(mover))
        chosen = _hidden().solved(view)
        assert chosen is not None and len(chosen) == 1 and chosen[0] in view.legal
        # another deal that fits the view: the same advice
        other = determinize(view.raw, random.Random(5))
        assert _hidden().solved(SeatView(other.view(mover))) == chosen
        assert choose_move(_hidden(), deal, mover) == chosen[0]
        # without the option, or with endgame alone, nothing is solved at 4 players
        assert _hidden(hidden="off").solved(view) is None
        checked += 1
    assert checked >= 3


def _four_against(opponent: str, seed: int) -> SeatView | None:
    """Seats 0 and 2 against `opponent` at seats 1 and 3, to their first choice in the
    last stage (`_last_stage_against` at 4 players)."""
    return _last_stage_against(opponent, seed, lambda d: not d.deck_left, players=4)


@pytest.mark.usefixtures("few_deals")
def test_at_4_players_searchers_samples_against_players_who_skip_greedy_s_plays_only() -> None:
    # both opponents' finished stages, their log-odds summed, judge the other side
    judged = {"greedy": 0, "random": 0}
    for opponent in judged:
        views = [_four_against(opponent, seed) for seed in range(12)]
        for view in [v for v in views if v is not None][:8]:
            plays = _hidden("searchers")._judged(view)
            assert (_hidden("searchers").solved(view) is not None) == plays
            if opponent == "greedy":  # the search's move, its draws untouched
                assert _hidden("searchers").choose(view) == _hidden(hidden="off").choose(view)
            judged[opponent] += plays
    assert judged["greedy"] == 0
    assert judged["random"] >= 4
