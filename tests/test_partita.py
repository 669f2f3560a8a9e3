"""The partita: RULES.md D3 (dealer rotation), E1-E6 (end, ties, best of three, timeout and
abandon), S8 / D7 instant wins, and the victory points (V1-V3) of real partite.

Smazzate with a wanted outcome (a tie, a leader, a last capturer) are found by a search over
seeds with a fixed bound, each deal played with the first legal move; every search asserts it
found one. Instant wins use stacked decks.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from conftest import play_out, stack

import cirulla
from cirulla import Deal, Forfeit, Game, Match, Move, Rules

CIRULLA = Rules.preset("cirulla")
SCOPA = Rules.preset("scopa")
LUZZATI = Rules.preset("luzzati")
BOUND = 3000

# Seed 000's VP columns for a partita of 1 smazzata (7 points) and of 6 smazzate (51 points),
# as (winner VP, loser VP, MP from, MP to); the 51 column with the V1 correction (22 -> 16-4).
VP_1_HAND = [
    (10, 10, 0, 0),
    (11, 9, 1, 1),
    (12, 8, 2, 2),
    (13, 7, 3, 3),
    (14, 6, 4, 4),
    (15, 5, 5, 6),
    (16, 4, 7, 8),
    (17, 3, 9, None),
]
VP_51 = [
    (10, 10, 0, 2),
    (11, 9, 3, 5),
    (12, 8, 6, 8),
    (13, 7, 9, 11),
    (14, 6, 12, 15),
    (15, 5, 16, 18),
    (16, 4, 19, 22),
    (17, 3, 23, 25),
    (18, 2, 26, 28),
    (19, 1, 29, 32),
    (20, 0, 33, None),
]


# ---- helpers -------------------------------------------------------------------------------


def _played(rules: Rules, players: int, dealer: int, seed: int) -> Deal:
    return play_out(Deal(rules, players=players, dealer=dealer, seed=seed))


def _seed_where(rules: Rules, players: int, dealer: int, pred: Callable[[Deal], bool]) -> int:
    """The first seed below BOUND whose smazzata (first legal moves) satisfies `pred`."""
    for seed in range(BOUND):
        if pred(_played(rules, players, dealer, seed)):
            return seed
    raise AssertionError(f"no seed below {BOUND} gives the smazzata wanted")


def _tied(deal: Deal) -> bool:
    totals = deal.score().totals
    return totals.count(max(totals)) > 1


def _leader(points: list[int]) -> int | None:
    top = max(points)
    return points.index(top) if points.count(top) == 1 else None


def _start(rules: Rules, players: int, dealer: int, seed: int) -> Game:
    game = Game(rules, players=players, dealer=dealer, deal_seed=seed)
    play_out(game.deal)
    return game


def _next(game: Game, seed: int) -> Deal:
    return play_out(game.next_deal(seed=seed))


def _play_game(game: Game) -> Game:
    while True:
        play_out(game.deal)
        if game.is_over:
            return game
        game.next_deal()


def _play_match(match: Match) -> Match:
    while True:
        _play_game(match.game)
        if match.is_over:
            return match
        match.next_game()


# A smazzata in which the dealer's side takes every card: the dealer turns KD QD 5D 6D (30),
# then captures each card the other player lays on the empty table with its partner card
# (equal value, or making 15). Pairs: (card of the player who leads, dealer's partner card).
_PAIRS = [
    ("AH", "AD"),
    ("AS", "AC"),
    ("2H", "2D"),
    ("2S", "2C"),
    ("3H", "3D"),
    ("3S", "3C"),
    ("4H", "4D"),
    ("4S", "4C"),
    ("7H", "7D"),
    ("7S", "7C"),
    ("JH", "JD"),
    ("JS", "JC"),
    ("5H", "KH"),
    ("KC", "5C"),
    ("5S", "KS"),
    ("6H", "QH"),
    ("QC", "6C"),
    ("6S", "QS"),
]
_PARTNER = dict(_PAIRS)


def _cappotto_deck(dealer: int) -> list[cirulla.Card]:
    opener = 1 - dealer
    stages = []
    for k in range(6):
        pairs = _PAIRS[3 * k : 3 * k + 3]
        hands: list[list[str]] = [[], []]
        hands[opener] = [a for a, _ in pairs]
        hands[dealer] = [b for _, b in pairs]
        stages.append(hands)
    return stack(
        players=2, dealer=dealer, hands=stages[0], table=["KD", "QD", "5D", "6D"], later=stages[1:]
    )


def _cappotto_choice(moves: list[Move]) -> Move:
    plays = [m for m in moves if m.kind == "play"]
    captures = [m for m in plays if m.captured]
    for m in captures:
        if len(m.captured) == 1 and _PARTNER.get(str(m.captured[0])) == str(m.card):
            return m
    return captures[0] if captures else plays[0]


def _declare(deal: Deal, kind: str) -> Move:
    move = next(m for m in deal.legal_moves() if m.kind == "declare" and m.bonus == kind)
    deal.play(move)
    return move


def _bonus_and_cirulla_game() -> Game:
    """Dealer 0 turns 2C 3C 4C 6C (15): 1 point; then seat 1 declares a cirulla: 3 points."""
    hands = [[], ["AS", "2S", "3S"]]
    deck = stack(players=2, dealer=0, hands=hands, table=["2C", "3C", "4C", "6C"])
    game = Game(CIRULLA, players=2, dealer=0, deck=deck)
    _declare(game.deal, "cirulla")
    return game


def _decino_game() -> Game:
    """Seat 1 (dealer 0) declares a decino of 5s: 10 points."""
    game = Game(CIRULLA, players=2, dealer=0, deck=stack(players=2, hands=[[], ["5C", "5S", "5H"]]))
    _declare(game.deal, "decino")
    return game


# ---- D3: the dealer rotates ----------------------------------------------------------------


@pytest.mark.parametrize("players,dealer", [(n, d) for n in (2, 3, 4) for d in range(n)])
def test_D3_the_deal_passes_to_the_next_seat_after_each_smazzata(players: int, dealer: int) -> None:
    game = Game(CIRULLA.replace(hands=5), players=players, seed=11, dealer=dealer)
    play_out(game.deal)
    for _ in range(4):
        play_out(game.next_deal())
    expected = [(dealer + k) % players for k in range(5)]
    assert [d.dealer for d in game.deals] == expected
    assert [next(e["dealer"] for e in d.events if e["type"] == "deal") for d in game.deals] == (
        expected
    )


def test_D3_the_first_dealer_is_drawn_from_the_seed() -> None:
    firsts = [Game(CIRULLA, players=4, seed=s).first_dealer for s in range(60)]
    assert set(firsts) == {0, 1, 2, 3}  # random: every seat deals first for some seed
    for seed in range(10):
        game = Game(CIRULLA, players=4, seed=seed)
        assert game.deal.dealer == game.first_dealer == firsts[seed]  # and reproducible
    assert Game(CIRULLA, players=4, seed=5, dealer=2).deal.dealer == 2


def test_D3_a_misdeal_keeps_the_dealer_and_the_next_smazzata_still_passes_on() -> None:
    deck = stack(players=4, dealer=2, table=["AD", "AH", "5C", "JS"])
    game = Game(CIRULLA, players=4, dealer=2, deck=deck, deal_seed=3)
    assert game.deal.misdeals >= 1 and game.deal.dealer == 2
    play_out(game.deal)
    assert game.next_deal().dealer == 3


def test_D3_the_deal_keeps_rotating_across_the_partite_of_a_match() -> None:
    for players in (2, 3, 4):
        match = _play_match(Match(CIRULLA.replace(hands=1), players=players, seed=4))
        assert len(match.games) >= 2
        dealers = [d.dealer for g in match.games for d in g.deals]
        assert all(b == (a + 1) % players for a, b in itertools.pairwise(dealers))
        for before, after in itertools.pairwise(match.games):
            assert after.first_dealer == (before.deal.dealer + 1) % players


# ---- E1: target score ----------------------------------------------------------------------


def test_E1_no_winner_before_a_side_reaches_the_target() -> None:
    game = _start(CIRULLA, 2, 0, 1)
    assert game.deal.is_over and max(game.totals) < 51
    assert (game.is_over, game.winner, game.end_reason) == (False, None, None)


def test_E1_reaching_the_target_exactly_ends_the_partita_for_the_strict_leader() -> None:
    seed = _seed_where(CIRULLA, 2, 0, lambda d: not _tied(d) and max(d.score().totals) > 0)
    totals = _played(CIRULLA, 2, 0, seed).score().totals
    top = max(totals)
    not_yet = _start(CIRULLA.replace(target=top + 1), 2, 0, seed)
    assert not not_yet.is_over and not_yet.winner is None
    game = _start(CIRULLA.replace(target=top), 2, 0, seed)
    assert game.totals == totals
    assert (game.is_over, game.winner, game.end_reason) == (True, totals.index(top), "target")


def test_E1_the_most_points_win_not_the_first_side_to_reach_the_target() -> None:
    first = _seed_where(CIRULLA, 2, 0, lambda d: (lambda t: t[0] > t[1])(d.score().totals))
    a = _played(CIRULLA, 2, 0, first).score().totals

    def overtakes(deal: Deal) -> bool:
        b = deal.score().totals
        return b[0] > 0 and a[1] + b[1] > a[0] + b[0]

    second = _seed_where(CIRULLA, 2, 1, overtakes)
    b = _played(CIRULLA, 2, 1, second).score().totals
    target = a[0] + b[0]  # side 0 reaches it, side 1 goes past it
    game = _start(CIRULLA.replace(target=target), 2, 0, first)
    assert not game.is_over  # side 0 led after the first smazzata, below the target
    _next(game, second)
    assert game.totals == [a[0] + b[0], a[1] + b[1]]
    assert min(game.totals) >= target
    assert (game.is_over, game.winner, game.end_reason) == (True, 1, "target")


def test_E1_a_tie_at_the_top_plays_another_smazzata() -> None:
    rules = CIRULLA.replace(target=1)
    tie0 = _seed_where(rules, 2, 0, lambda d: _tied(d) and max(d.score().totals) >= 1)
    tie1 = _seed_where(rules, 2, 1, lambda d: _tied(d) and max(d.score().totals) >= 1)
    lead0 = _seed_where(rules, 2, 0, lambda d: not _tied(d))
    game = _start(rules, 2, 0, tie0)
    assert game.totals[0] == game.totals[1] >= 1
    assert (game.is_over, game.winner, game.end_reason) == (False, None, None)
    _next(game, tie1)  # tied again: still no winner
    assert game.totals[0] == game.totals[1]
    assert not game.is_over
    last = _next(game, lead0)
    assert (game.is_over, game.winner, game.end_reason) == (
        True,
        _leader(last.score().totals),
        "target",
    )
    assert game.spareggio == 0  # no knockout: plain further smazzate


def test_E1_three_players_a_tie_at_the_top_is_no_win() -> None:
    rules = CIRULLA.replace(target=1)

    def top_tie_over_a_third(deal: Deal) -> bool:
        t = sorted(deal.score().totals)
        return t[2] == t[1] > t[0]

    seed = _seed_where(rules, 3, 0, top_tie_over_a_third)
    game = _start(rules, 3, 0, seed)
    assert max(game.totals) >= 1
    assert (game.is_over, game.winner) == (False, None)

    def lone_top_others_tied(deal: Deal) -> bool:
        t = sorted(deal.score().totals)
        return t[2] > t[1] == t[0]

    seed = _seed_where(rules, 3, 0, lone_top_others_tied)
    game = _start(rules, 3, 0, seed)
    assert (game.is_over, game.winner) == (True, _leader(game.totals))


def test_E1_is_over_and_winner_reflect_a_deal_finished_through_game_deal_play() -> None:
    seed = _seed_where(CIRULLA, 2, 0, lambda d: not _tied(d))
    expected = _played(CIRULLA, 2, 0, seed).score().totals
    game = Game(CIRULLA.replace(target=1), players=2, dealer=0, deal_seed=seed)
    while True:
        assert (game.is_over, game.winner, game.totals) == (False, None, [0, 0])
        moves = game.deal.legal_moves()
        game.deal.play(moves[0])
        if game.deal.is_over:
            break
    assert game.totals == expected
    assert (game.is_over, game.winner, game.end_reason) == (True, _leader(expected), "target")


# ---- E2: a fixed number of smazzate --------------------------------------------------------


@pytest.mark.parametrize("hands", [1, 2, 3])
def test_E2_a_fixed_number_of_smazzate_ends_after_exactly_that_many(hands: int) -> None:
    rules = CIRULLA.replace(hands=hands)
    for seed in range(BOUND):
        game = Game(rules, players=2, seed=seed)
        play_out(game.deal)
        for _ in range(hands - 1):
            assert not game.is_over
            play_out(game.next_deal())
        if _leader(game.totals) is not None:
            break
    else:
        raise AssertionError("no partita without a final tie")
    assert len(game.deals) == hands
    assert (game.is_over, game.winner, game.end_reason) == (True, _leader(game.totals), "hands")
    with pytest.raises(ValueError):
        game.next_deal()
    assert len(game.deals) == hands


def test_E2_a_fixed_length_partita_ignores_the_target_score() -> None:
    # cappotto_scores_only: the dealer's side takes every card and scores 34, no instant win.
    rules = CIRULLA.replace(hands=3, cappotto_scores_only=True)
    game = Game(rules, players=2, dealer=0, deck=_cappotto_deck(0))
    play_out(game.deal, _cappotto_choice)
    assert game.totals == [34, 0]
    play_out(game.next_deal(deck=_cappotto_deck(1)), _cappotto_choice)
    assert game.totals == [34, 34] and not game.is_over
    play_out(game.next_deal(deck=_cappotto_deck(0)), _cappotto_choice)
    assert game.totals == [68, 34]
    assert (game.is_over, game.winner, game.end_reason) == (True, 0, "hands")
    # The same smazzate to a target of 51: over after the third too, but by the target.
    target = Game(CIRULLA.replace(cappotto_scores_only=True), 2, dealer=0, deck=_cappotto_deck(0))
    play_out(target.deal, _cappotto_choice)
    play_out(target.next_deal(deck=_cappotto_deck(1)), _cappotto_choice)
    play_out(target.next_deal(deck=_cappotto_deck(0)), _cappotto_choice)
    assert (target.is_over, target.winner, target.end_reason) == (True, 0, "target")


# ---- E4: outside knockouts, further smazzate until one side leads --------------------------


@pytest.mark.parametrize("players", [2, 4])
def test_E4_a_tie_after_the_fixed_smazzate_plays_on_until_one_side_leads(players: int) -> None:
    rules = CIRULLA.replace(hands=1)
    seeds = [_seed_where(rules, players, d, _tied) for d in (0, 1)]
    lead = _seed_where(rules, players, 2 % players, lambda d: not _tied(d))
    game = _start(rules, players, 0, seeds[0])
    assert (game.is_over, game.winner, game.spareggio) == (False, None, 0)
    _next(game, seeds[1])
    assert (game.is_over, game.winner, game.spareggio) == (False, None, 0)
    last = _next(game, lead)
    assert game.totals[0] != game.totals[1]
    assert _leader(game.totals) == _leader(last.score().totals)
    assert (game.is_over, game.winner, game.end_reason) == (True, _leader(game.totals), "hands")
    assert len(game.deals) == 3 and game.spareggio == 0


def test_E4_SC6_scopa_ties_play_further_smazzate() -> None:
    rules = SCOPA.replace(target=1)
    tie = _seed_where(rules, 2, 0, lambda d: _tied(d) and max(d.score().totals) >= 1)
    lead = _seed_where(rules, 2, 1, lambda d: not _tied(d))
    game = _start(rules, 2, 0, tie)
    assert game.totals[0] == game.totals[1] >= 1 and not game.is_over
    last = _next(game, lead)
    assert (game.is_over, game.winner) == (True, _leader(last.score().totals))


# ---- E3: knockout spareggi -----------------------------------------------------------------

KNOCKOUT = CIRULLA.replace(hands=1, knockout=True)


def test_E3_a_tie_starts_the_first_spareggio() -> None:
    game = _start(KNOCKOUT, 2, 0, _seed_where(KNOCKOUT, 2, 0, _tied))
    assert (game.is_over, game.winner, game.end_reason, game.spareggio) == (False, None, None, 1)
    no_tie = _start(KNOCKOUT, 2, 0, _seed_where(KNOCKOUT, 2, 0, lambda d: not _tied(d)))
    assert (no_tie.is_over, no_tie.end_reason, no_tie.spareggio) == (True, "hands", 0)


@pytest.mark.parametrize("number", [1, 2, 3])
def test_E3_each_spareggio_decides_by_itself(number: int) -> None:
    ties = [_seed_where(KNOCKOUT, 2, d, _tied) for d in (0, 1)]
    game = _start(KNOCKOUT, 2, 0, ties[0])
    for k in range(1, number):  # spareggi 1 .. number-1 are tied
        assert game.spareggio == k
        _next(game, ties[k % 2])
    assert (game.is_over, game.spareggio) == (False, number)
    dealer = number % 2
    decider = _seed_where(KNOCKOUT, 2, dealer, lambda d: not _tied(d))
    last = _next(game, decider)
    assert last.dealer == dealer
    assert (game.is_over, game.winner, game.end_reason, game.spareggio) == (
        True,
        _leader(last.score().totals),
        "spareggio",
        number,
    )
    with pytest.raises(ValueError):
        game.next_deal()


@pytest.mark.parametrize("last_capturer", [0, 1])
def test_E3_third_spareggio_tied_the_last_capturer_loses(last_capturer: int) -> None:
    ties = [_seed_where(KNOCKOUT, 2, d, _tied) for d in (0, 1)]
    third = _seed_where(KNOCKOUT, 2, 1, lambda d: _tied(d) and d.last_capture == last_capturer)
    game = _start(KNOCKOUT, 2, 0, ties[0])
    _next(game, ties[1])  # spareggio 1: tied
    _next(game, ties[0])  # spareggio 2: tied
    assert (game.is_over, game.spareggio) == (False, 3)
    last = _next(game, third)  # spareggio 3: tied too
    assert _tied(last) and last.last_capture == last_capturer
    assert (game.is_over, game.winner, game.end_reason, game.spareggio) == (
        True,
        1 - last_capturer,
        "last_capture",
        3,
    )
    assert len(game.deals) == 4
    with pytest.raises(ValueError):
        game.next_deal()


def test_E3_four_players_the_spareggio_is_between_the_partnerships() -> None:
    rules = KNOCKOUT
    tie = _seed_where(rules, 4, 0, _tied)
    decider = _seed_where(rules, 4, 1, lambda d: not _tied(d))
    game = _start(rules, 4, 0, tie)
    assert game.spareggio == 1 and not game.is_over
    last = _next(game, decider)
    assert (game.is_over, game.winner, game.end_reason) == (
        True,
        _leader(last.score().totals),
        "spareggio",
    )


def test_E3_knockout_with_a_target_score_ties_at_the_top_go_to_spareggi() -> None:
    rules = CIRULLA.replace(target=1, knockout=True)
    tie = _seed_where(rules, 2, 0, lambda d: _tied(d) and max(d.score().totals) >= 1)
    decider = _seed_where(rules, 2, 1, lambda d: not _tied(d))
    game = _start(rules, 2, 0, tie)
    assert (game.is_over, game.spareggio) == (False, 1)
    last = _next(game, decider)
    assert (game.is_over, game.winner, game.end_reason) == (
        True,
        _leader(last.score().totals),
        "spareggio",
    )


# ---- E5: best of three ---------------------------------------------------------------------


def test_E5_the_revenge_then_a_third_partita_decides() -> None:
    match = Match(CIRULLA, players=2, seed=7)
    match.game.forfeit(1)
    assert (match.wins, match.is_over, match.winner) == ([1, 0], False, None)
    match.next_game()
    match.game.forfeit(0)  # the revenge goes to the other side
    assert (match.wins, match.is_over, match.winner) == ([1, 1], False, None)
    match.next_game()
    match.game.forfeit(1)
    assert (match.wins, match.is_over, match.winner) == ([2, 1], True, 0)
    assert len(match.games) == 3
    with pytest.raises(ValueError):
        match.next_game()


def test_E5_the_same_side_winning_twice_ends_the_match() -> None:
    match = Match(CIRULLA, players=4, seed=8)
    match.game.forfeit(0)
    match.next_game()
    match.game.forfeit(0)
    assert (match.wins, match.is_over, match.winner) == ([0, 2], True, 1)
    assert len(match.games) == 2
    with pytest.raises(ValueError):
        match.next_game()


def test_E5_next_game_before_the_partita_ends_raises() -> None:
    match = Match(CIRULLA, players=2, seed=1)
    with pytest.raises(ValueError):
        match.next_game()
    assert len(match.games) == 1


def test_E5_matches_played_out_go_to_two_or_three_partite() -> None:
    rules = CIRULLA.replace(hands=1)
    lengths: dict[int, Match] = {}
    for seed in range(BOUND):
        match = _play_match(Match(rules, players=2, seed=seed))
        lengths.setdefault(len(match.games), match)
        if 2 in lengths and 3 in lengths:
            break
    assert set(lengths) == {2, 3}
    for n, match in lengths.items():
        winners = [g.winner for g in match.games]
        assert match.is_over and match.winner is not None
        assert winners.count(match.winner) == 2 and winners[-1] == match.winner
        assert match.wins[match.winner] == 2 and sum(match.wins) == n
        if n == 3:
            assert winners[0] != winners[1]  # 1-1 after the revenge
        else:
            assert winners[0] == winners[1]


def test_E5_bad_match_input_raises() -> None:
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError):
            Match(CIRULLA, players=2, wins_needed=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Match(CIRULLA, players=5)
    with pytest.raises(ValueError):
        Match(SCOPA, players=3)


# ---- S8 and D7: instant wins end the partita -----------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1])
def test_S8_a_cappotto_ends_the_partita_at_once(dealer: int) -> None:
    game = Game(CIRULLA.replace(target=101), players=2, dealer=dealer, deck=_cappotto_deck(dealer))
    play_out(game.deal, _cappotto_choice)
    assert game.deal.score().cappotto == dealer
    assert max(game.totals) < 101
    assert (game.is_over, game.winner, game.end_reason) == (True, dealer, "cappotto")
    with pytest.raises(ValueError):
        game.next_deal()


def test_S8_a_cappotto_in_a_later_smazzata_wins_for_the_side_behind() -> None:
    rules = CIRULLA.replace(hands=3)
    # side 0 takes every card but, with cappotto_scores_only off, wins at once;
    # first give side 1 a lead with an ordinary smazzata dealt by seat 1.
    seed = _seed_where(rules, 2, 1, lambda d: (lambda t: t[1] > t[0])(d.score().totals))
    game = _start(rules, 2, 1, seed)
    assert game.totals[1] > game.totals[0] and not game.is_over
    play_out(game.next_deal(deck=_cappotto_deck(0)), _cappotto_choice)
    assert (game.is_over, game.winner, game.end_reason) == (True, 0, "cappotto")


def test_S8_cappotto_scores_only_does_not_end_the_partita() -> None:
    rules = CIRULLA.replace(target=101, cappotto_scores_only=True)
    game = Game(rules, players=2, dealer=0, deck=_cappotto_deck(0))
    play_out(game.deal, _cappotto_choice)
    assert game.deal.score().cappotto == 0 and game.deal.instant_winner is None
    assert (game.is_over, game.winner, game.end_reason) == (False, None, None)


@pytest.mark.parametrize(
    "players,dealer,table",
    [
        (2, 0, ["5D", "5H", "5C", "5S"]),
        (2, 1, ["JD", "JH", "JC", "JS"]),
        (4, 2, ["5D", "5S", "5C", "7H"]),
        (4, 3, ["KD", "KH", "7H", "KS"]),
    ],
)
def test_D7_a_luzzati_table_wins_the_partita_for_the_dealers_side(
    players: int, dealer: int, table: list[str]
) -> None:
    deck = stack(players=players, dealer=dealer, table=table)
    game = Game(LUZZATI, players=players, dealer=dealer, deck=deck)
    side = dealer % 2
    assert (game.is_over, game.winner, game.end_reason) == (True, side, "luzzati_table")
    assert len(game.deals) == 1
    with pytest.raises(ValueError):
        game.next_deal()
    plain = Game(CIRULLA, players=players, dealer=dealer, deck=deck)
    assert not plain.is_over  # without the option it is an ordinary deal


def test_D7_a_luzzati_table_wins_even_for_the_side_behind() -> None:
    seed = _seed_where(LUZZATI, 2, 1, lambda d: (lambda t: t[1] > t[0])(d.score().totals))
    game = _start(LUZZATI, 2, 1, seed)
    assert game.totals[1] > game.totals[0] and not game.is_over
    game.next_deal(deck=stack(players=2, dealer=0, table=["3D", "3H", "3C", "3S"]))
    assert game.totals[1] > game.totals[0]
    assert (game.is_over, game.winner, game.end_reason) == (True, 0, "luzzati_table")


@pytest.mark.parametrize("players,dealer", [(2, 0), (2, 1), (4, 0), (4, 3)])
def test_D7_three_misdeals_in_a_row_the_other_side_wins(players: int, dealer: int) -> None:
    deck = stack(players=players, dealer=dealer, table=["4D", "4H", "4C", "JS"])  # misdeal 1
    for seed in range(20_000):
        if Deal(LUZZATI, players, dealer, deck=deck, seed=seed).misdeals == 3:
            break
    else:
        raise AssertionError("no seed re-deals two more misdeals")
    game = Game(LUZZATI, players=players, dealer=dealer, deck=deck, deal_seed=seed)
    assert game.deal.instant_reason == "luzzati_three_misdeals"
    assert (game.is_over, game.winner, game.end_reason) == (
        True,
        1 - dealer % 2,
        "luzzati_three_misdeals",
    )


# ---- E6: timeout and abandon ---------------------------------------------------------------


def test_E6_abandon_credits_six_to_the_opponents_on_top_of_the_points_made() -> None:
    game = _bonus_and_cirulla_game()
    assert game.deal.bonus() == [1, 3]
    result = game.forfeit(0, "abandon")
    assert result == Forfeit(
        loser=0, winner=1, reason="abandon", credited=6, totals=(1, 9), difference=8
    )
    assert game.forfeit_result == result
    assert (game.is_over, game.winner, game.end_reason) == (True, 1, "abandon")


def test_E6_a_loser_still_ahead_loses_with_a_difference_of_0() -> None:
    game = _decino_game()
    assert game.deal.bonus() == [0, 10]
    result = game.forfeit(1, "timeout")
    assert result == Forfeit(
        loser=1, winner=0, reason="timeout", credited=6, totals=(6, 10), difference=0
    )
    assert (game.is_over, game.winner, game.end_reason) == (True, 0, "timeout")


def test_E6_scopa_credits_the_four_card_points_plus_one_scopa() -> None:
    deck = stack(players=2, dealer=0, hands=[[], ["KS"]], table=["AC", "2C", "3C", "4C"])
    game = Game(SCOPA, players=2, dealer=0, deck=deck)
    game.deal.play("KSxAC2C3C4C")
    assert game.deal.scope() == [0, 1]
    assert cirulla.forfeit_settlement(game, 0, "timeout") == Forfeit(
        loser=0, winner=1, reason="timeout", credited=5, totals=(0, 6), difference=6
    )
    assert cirulla.forfeit_settlement(game, 1, "abandon") == Forfeit(
        loser=1, winner=0, reason="abandon", credited=5, totals=(5, 1), difference=4
    )
    assert not game.is_over  # the settlement alone ends nothing
    game.forfeit(1, "abandon")
    assert (game.is_over, game.winner, game.end_reason) == (True, 0, "abandon")


@pytest.mark.parametrize(
    "rules,players,credited",
    [(Rules.preset(name), 4, 5 if name == "scopa" else 6) for name in Rules.presets()]
    + [
        (Rules.preset("cirulla"), 2, 6),
        (Rules.preset("cirulla"), 3, 6),
        (Rules.preset("scopa"), 2, 5),
        (CIRULLA.replace(piccola_to_seven=True), 2, 6),
        (CIRULLA.replace(hands=2), 2, 6),
    ],
)
def test_E6_credited_points_are_at_most_6_and_5_in_scopa(
    rules: Rules, players: int, credited: int
) -> None:
    game = Game(rules, players=players, seed=21)
    made = [s + b for s, b in zip(game.deal.scope(), game.deal.bonus(), strict=True)]
    result = game.forfeit(0, "timeout")
    assert result.credited == credited
    assert result.totals[0] == made[0]
    assert all(result.totals[s] == made[s] + credited for s in range(1, len(made)))


def test_E6_finished_smazzate_count_in_the_settlement() -> None:
    def well_ahead(deal: Deal) -> bool:
        t = deal.score().totals
        return t[0] - t[1] > 6

    def behind(deal: Deal) -> bool:
        t = deal.score().totals
        return t[1] > t[0]

    differences = []
    for pred in (well_ahead, behind):
        game = _start(CIRULLA, 2, 0, _seed_where(CIRULLA, 2, 0, pred))
        t = game.totals
        game.next_deal(deck=stack(players=2, dealer=1))  # no dealer bonus, nothing made yet
        assert game.deal.bonus() == [0, 0]
        result = game.forfeit(0, "abandon")
        assert result.totals == (t[0], t[1] + 6)
        assert (result.winner, game.winner, game.end_reason) == (1, 1, "abandon")
        differences.append((result.difference, t[1] + 6 - t[0]))
    (ahead, _), (behind_by, expected) = differences
    assert ahead == 0  # side 0 leaves still ahead: it loses by 0
    assert behind_by == expected > 6


def test_E6_forfeit_between_smazzate_counts_the_finished_ones_only() -> None:
    game = _start(CIRULLA, 2, 0, 3)
    t = game.totals
    result = game.forfeit(1, "timeout")
    assert result.totals == (t[0] + 6, t[1])
    assert game.totals == t  # totals stay those of the finished smazzate


def test_E6_four_players_the_partnership_loses() -> None:
    game = Game(CIRULLA, players=4, dealer=0, deck=stack(players=4, dealer=0))
    result = game.forfeit(1, "abandon")
    assert (result.totals, result.difference, result.winner) == ((6, 0), 6, 0)
    assert (game.is_over, game.winner) == (True, 0)


def test_E6_three_players_the_best_opponent_wins() -> None:
    deck = stack(players=3, dealer=0, hands=[[], ["AS", "2S", "3S"]])
    game = Game(CIRULLA, players=3, dealer=0, deck=deck)
    fresh = cirulla.forfeit_settlement(game, 1, "timeout")
    assert fresh.totals == (6, 0, 6)
    assert fresh.winner == 2  # a tie: the first opponent in play order after the loser
    _declare(game.deal, "cirulla")  # seat 1: 3 points
    result = game.forfeit(0, "timeout")
    assert result.totals == (0, 9, 6)
    assert (result.winner, result.difference) == (1, 9)


def test_E6_bad_forfeits_raise() -> None:
    game = Game(CIRULLA, players=2, seed=2)
    for side in (2, -1, True, "0", None):
        with pytest.raises(ValueError):
            game.forfeit(side)  # type: ignore[arg-type]
    for reason in ("quit", "", None):
        with pytest.raises(ValueError):
            game.forfeit(0, reason)  # type: ignore[arg-type]
    assert not game.is_over
    game.forfeit(0, "timeout")
    with pytest.raises(ValueError):
        game.forfeit(1, "abandon")  # already over
    with pytest.raises(ValueError):
        cirulla.forfeit_settlement(game, 1, "abandon")
    assert game.forfeit_result is not None and game.forfeit_result.loser == 0
    with pytest.raises(ValueError):
        game.next_deal()


def test_E6_a_partita_won_normally_cannot_be_forfeited() -> None:
    game = _start(
        CIRULLA.replace(hands=1), 2, 0, _seed_where(CIRULLA, 2, 0, lambda d: not _tied(d))
    )
    assert game.is_over
    with pytest.raises(ValueError):
        game.forfeit(game.winner or 0)


# ---- next_deal and the constructor ---------------------------------------------------------


def test_next_deal_before_the_smazzata_is_over_raises() -> None:
    game = Game(CIRULLA, players=2, seed=3)
    with pytest.raises(ValueError):
        game.next_deal()
    game.deal.play(game.deal.legal_moves()[0])
    with pytest.raises(ValueError):
        game.next_deal()
    assert len(game.deals) == 1


def test_next_deal_with_a_bad_deck_or_seed_raises_and_changes_nothing() -> None:
    game = _start(CIRULLA, 2, 0, 4)
    for kw in (
        {"deck": cirulla.full_deck()[:39]},
        {"deck": [*cirulla.full_deck()[:39], cirulla.full_deck()[0]]},
        {"deck": ["XX"] * 40},
        {"seed": -1},
    ):
        with pytest.raises(ValueError):
            game.next_deal(**kw)  # type: ignore[arg-type]
        assert len(game.deals) == 1
    assert game.next_deal(seed=9).dealer == 1


@pytest.mark.parametrize(
    "args,kwargs",
    [
        (("cirulla",), {}),
        ((None,), {}),
        ((CIRULLA,), {"players": 1}),
        ((CIRULLA,), {"players": 5}),
        ((CIRULLA,), {"players": "4"}),
        ((CIRULLA,), {"players": True}),
        ((CIRULLA,), {"players": 4, "dealer": 4}),
        ((CIRULLA,), {"players": 2, "dealer": -1}),
        ((CIRULLA,), {"players": 2, "dealer": True}),
        ((CIRULLA,), {"players": 2, "dealer": "0"}),
        ((SCOPA,), {"players": 3}),
        ((Rules.preset("cirullone"),), {"players": 2}),
        ((CIRULLA.replace(knockout=True),), {"players": 3}),
        ((LUZZATI,), {"players": 3}),
        ((CIRULLA,), {"seed": -1}),
        ((CIRULLA,), {"deal_seed": -5}),
        ((CIRULLA,), {"deck": cirulla.full_deck()[:30]}),
        ((CIRULLA,), {"deck": "AD 2D"}),
    ],
)
def test_game_rejects_bad_constructor_input(
    args: tuple[object, ...], kwargs: dict[str, object]
) -> None:
    with pytest.raises(ValueError):
        Game(*args, **kwargs)  # type: ignore[arg-type]


# ---- V1-V3: victory points of real partite -------------------------------------------------


def _vp(column: list[tuple[int, int, int, int | None]], mp: int) -> tuple[int, int]:
    for w, loser, lo, hi in column:
        if lo <= mp and (hi is None or mp <= hi):
            return w, loser
    raise AssertionError(mp)


def test_V1_victory_points_of_one_smazzata_partite() -> None:
    rules = CIRULLA.replace(hands=1)
    rows = set()
    for seed in range(200):
        game = _play_game(Game(rules, players=2, seed=seed))
        if len(game.deals) != 1 or game.end_reason != "hands":
            continue
        assert game.winner is not None
        mp = game.totals[game.winner] - game.totals[1 - game.winner]
        assert mp > 0
        vp = cirulla.victory_points(mp, hands=1)
        assert vp == _vp(VP_1_HAND, mp) == cirulla.victory_points(mp, target=7)
        rows.add(vp)
    assert len(rows) >= 4


def test_V1_victory_points_of_partite_to_51() -> None:
    rows = set()
    for seed in range(40):
        game = _play_game(Game(CIRULLA, players=2, seed=seed))
        if game.end_reason != "target":
            continue
        assert game.winner is not None and max(game.totals) >= 51
        mp = game.totals[game.winner] - game.totals[1 - game.winner]
        vp = cirulla.victory_points(mp, target=51)
        assert vp == _vp(VP_51, mp)
        assert sum(vp) == 20
        rows.add(vp)
    assert len(rows) >= 3


def test_V2_a_cappotto_partita_gets_the_top_row() -> None:
    game = Game(CIRULLA, players=2, dealer=1, deck=_cappotto_deck(1))
    play_out(game.deal, _cappotto_choice)
    assert game.end_reason == "cappotto" and game.winner == 1
    assert cirulla.cappotto_victory_points(target=CIRULLA.target) == (20, 0, 33)
    assert cirulla.cappotto_victory_points(hands=1) == (17, 3, 9)


def test_V3_a_forfeit_difference_gives_the_offender_0_vp() -> None:
    game = _bonus_and_cirulla_game()
    result = game.forfeit(0, "abandon")
    assert result.difference == 8  # 8 MP would be 12-8: the stayers get at least 14
    fp = cirulla.forfeit_victory_points(result.difference, target=51)
    assert (fp.winner_vp, fp.loser_vp, fp.winner_mp) == (14, 0, 12)
    ahead = _decino_game()
    zero = ahead.forfeit(1, "timeout")
    assert zero.difference == 0
    assert cirulla.forfeit_victory_points(zero.difference, target=51).winner_vp == 14
