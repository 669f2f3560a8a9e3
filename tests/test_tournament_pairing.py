"""Tournament pairings and standings (docs/tournaments.md): knockout brackets and byes,
round-robin schedules, Swiss pairings that never repeat a match, and the tie-breaks."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cirulla import Game, Rules
from cirulla.competition import (
    MatchResult,
    Tournament,
    TournamentConfig,
    bracket_order,
    bye_points,
    has_perfect_matching,
    knockout_first_round,
    max_swiss_rounds,
    partita_points,
    round_robin_schedule,
    standings,
)
from cirulla.competition.pairing import knockout_next_round

RULES_1 = Rules().replace(hands=1)


@given(st.integers(min_value=2, max_value=300))
def test_knockout_bracket_gives_byes_to_the_top_seeds_and_keeps_1_and_2_apart(n: int) -> None:
    pairs = knockout_first_round(n)
    size = 2 * len(pairs)
    assert size >= n > size // 2 or size == 2
    seen = [s for p in pairs for s in p if s is not None]
    assert sorted(seen) == list(range(n))
    byes = sorted(a for a, b in pairs if b is None)
    assert byes == list(range(size - n))  # the highest seeds, in order
    # the better seed always wins: the final is seed 1 against seed 2, and every round
    # pairs the best remaining seed with the worst
    winners = [min(a, b) if b is not None else a for a, b in pairs]
    while len(winners) > 1:
        nxt = knockout_next_round(winners)
        if len(nxt) == 2:  # semi-finals: 1 v 4 and 2 v 3 (when they are all there)
            assert {frozenset(p) for p in nxt} == {frozenset((0, 3)), frozenset((1, 2))}
        winners = [min(a, b) for a, b in nxt if b is not None]
    assert winners == [0]
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]


@given(st.integers(min_value=2, max_value=40))
def test_round_robin_meets_every_pair_once_and_every_side_once_a_round(n: int) -> None:
    rounds = round_robin_schedule(n)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    met: list[frozenset[int]] = []
    byes: list[int] = []
    for pairs in rounds:
        sides = [s for p in pairs for s in p if s is not None]
        assert sorted(sides) == list(range(n))
        met += [frozenset((a, b)) for a, b in pairs if b is not None]
        byes += [a for a, b in pairs if b is None]
    assert sorted(met, key=sorted) == sorted(
        (frozenset(p) for p in combinations(range(n), 2)), key=sorted
    )
    assert sorted(byes) == (list(range(n)) if n % 2 else [])


def _random_result(rng: random.Random, a: int, b: int) -> MatchResult:
    winner = rng.randrange(2)
    margin = rng.choice([1, 2, 3, 5, 9])
    win_vp = {1: 11, 2: 12, 3: 13, 5: 15, 9: 17}[margin]
    vp = (win_vp, 20 - win_vp) if winner == 0 else (20 - win_vp, win_vp)
    mp = (margin, -margin) if winner == 0 else (-margin, margin)
    return MatchResult(a, b, winner, vp, mp, (1 - winner, winner))


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=40), st.data())
def test_swiss_never_repeats_a_match_and_gives_each_side_one_bye_at_most(
    n: int, data: st.DataObject
) -> None:
    rounds = data.draw(st.integers(min_value=1, max_value=max_swiss_rounds(n)), label="rounds")
    rng = random.Random(data.draw(st.integers(0, 2**32), label="results"))
    entrants = tuple(f"e{i + 1}" for i in range(n))
    t = Tournament(TournamentConfig("swiss", RULES_1, 2, entrants, rounds=rounds))
    met: set[frozenset[int]] = set()
    had_bye: set[int] = set()
    while not t.is_over:
        before = {s.side: (s.vp, s.mp) for s in t.standings()}
        pairs = t.pair_next_round()
        sides = [s for p in pairs for s in p if s is not None]
        assert sorted(sides) == list(range(n))  # every side once a round
        results = []
        for a, b in pairs:
            if b is None:
                assert a not in had_bye
                # the bye: the lowest-ranked side without one, unless that leaves no pairing
                lowest = min(
                    (s for s in range(n) if s not in had_bye),
                    key=lambda s: (before[s][0], before[s][1], -s),
                )
                assert a == lowest or len(t.results) > 0
                had_bye.add(a)
                results.append(t.bye_result(a))
                continue
            pair = frozenset((a, b))
            assert pair not in met
            met.add(pair)
            results.append(_random_result(rng, a, b))
        t.record_round(results)
    assert len(t.results) == rounds


def test_swiss_pairs_top_half_against_bottom_half_in_the_first_round() -> None:
    entrants = tuple(f"e{i + 1}" for i in range(8))
    t = Tournament(TournamentConfig("swiss", RULES_1, 2, entrants))
    assert t.pair_next_round() == [(0, 4), (1, 5), (2, 6), (3, 7)]
    t5 = Tournament(TournamentConfig("swiss", RULES_1, 2, entrants[:5]))
    assert t5.pair_next_round() == [(0, 2), (1, 3), (4, None)]  # the last seed has the bye


def test_swiss_refuses_more_rounds_than_a_no_repeat_pairing_allows() -> None:
    entrants = tuple(f"e{i + 1}" for i in range(6))
    TournamentConfig("swiss", RULES_1, 2, entrants, rounds=3)
    with pytest.raises(ValueError, match="1 to 3 rounds"):
        TournamentConfig("swiss", RULES_1, 2, entrants, rounds=4)


def test_round_robin_ties_are_broken_head_to_head() -> None:
    results = [
        MatchResult(0, 1, 1, (8, 12), (-4, 4)),
        MatchResult(0, 2, 0, (12, 8), (4, -4)),
        MatchResult(1, 3, 1, (8, 12), (-4, 4)),
        MatchResult(0, 3, 0, (11, 9), (1, -1)),
        MatchResult(1, 2, 0, (11, 9), (1, -1)),
        MatchResult(2, 3, 0, (11, 9), (1, -1)),
    ]
    table = standings("round-robin", 4, results)
    assert [(s.side, s.vp, s.mp) for s in table] == [
        (1, 31, 1),
        (0, 31, 1),
        (3, 30, 2),
        (2, 28, -4),
    ]
    assert (table[0].head_to_head, table[1].head_to_head) == (12, 8)
    assert [s.rank for s in table] == [1, 2, 3, 4]


def test_swiss_ties_are_broken_by_buchholz_then_seed_order() -> None:
    results = [
        MatchResult(0, 1, 0, (12, 8), (4, -4)),
        MatchResult(2, 3, 0, (12, 8), (4, -4)),
        MatchResult(1, 3, 1, (5, 15), (-10, 10)),
    ]
    table = standings("swiss", 4, results)
    assert [s.side for s in table] == [3, 1, 2, 0]  # 2 and 0 tie: 2 met the stronger side
    assert (table[2].buchholz, table[3].buchholz) == (23, 13)
    even = standings("swiss", 2, [MatchResult(0, 1, 0, (10, 10), (0, 0), (1, 0))])
    assert [s.side for s in even] == [0, 1]  # then partite won
    even = standings("swiss", 2, [MatchResult(0, 1, 1, (10, 10), (0, 0), (0, 1))])
    assert [s.side for s in even] == [1, 0]


def test_a_bye_is_worth_a_forfeit_win_of_14_vp() -> None:
    assert bye_points(RULES_1) == (14, 4)  # 1 smazzata: the 14-6 row starts at 4 MP
    assert bye_points(Rules()) == (14, 12)  # 51 points: the 14-6 row starts at 12
    entrants = ("e1", "e2", "e3")
    t = Tournament(TournamentConfig("round-robin", RULES_1, 2, entrants))
    pairs = t.pair_next_round()
    bye = next(a for a, b in pairs if b is None)
    results = [
        t.bye_result(a) if b is None else MatchResult(a, b, 0, (12, 8), (2, -2)) for a, b in pairs
    ]
    t.record_round(results)
    row = next(s for s in t.standings() if s.side == bye)
    assert (row.vp, row.mp, row.byes, row.played) == (14, 4, 1, 0)


def _brute_force_pairable(sides: list[int], met: set[frozenset[int]]) -> bool:
    if not sides:
        return True
    first, rest = sides[0], sides[1:]
    return any(
        frozenset((first, o)) not in met and _brute_force_pairable([s for s in rest if s != o], met)
        for o in rest
    )


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=5), st.data())
def test_perfect_matching_check_agrees_with_brute_force(half: int, data: st.DataObject) -> None:
    n = 2 * half
    edges = list(combinations(range(n), 2))
    met = {frozenset(e) for e in data.draw(st.lists(st.sampled_from(edges), unique=True))}
    assert has_perfect_matching(list(range(n)), met) == _brute_force_pairable(list(range(n)), met)


def test_a_long_swiss_pairs_every_round_without_a_repeat() -> None:
    # 64 sides, 32 rounds: late rounds need the matching-checked search, not plain backtracking
    entrants = tuple(f"e{i + 1}" for i in range(64))
    t = Tournament(TournamentConfig("swiss", RULES_1, 2, entrants, rounds=32))
    rng = random.Random(5)
    met: set[frozenset[int]] = set()
    while not t.is_over:
        pairs = t.pair_next_round()
        assert all(frozenset(p) not in met for p in pairs)
        met.update(frozenset(p) for p in pairs)
        t.record_round([_random_result(rng, a, b) for a, b in pairs if b is not None])
    assert len(met) == 64 * 32 // 2


def test_a_partita_lost_by_timeout_gives_the_offender_0_vp() -> None:
    game = Game(RULES_1, 2, seed=3)
    game.forfeit(0, "timeout")  # V3: side 0 timed out at the first move
    vp, mp = partita_points(game)
    assert vp[0] == 0 and vp[1] >= 14
    assert mp[1] > 0 > mp[0]
