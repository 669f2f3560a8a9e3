"""Cirulo (RULES.md section 13, seed 004): every rule by its ID, the settlement,
the game with its running balances, views, records and copies."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import pytest

from cirulla.cirulo import (
    Card,
    CiruloRules,
    Deal,
    Game,
    IllegalMove,
    RecordError,
    amount_json,
    cirulo_game_record,
    draw_dealer,
    full_deck,
    parse_cards,
    removed_cards,
    replay_cirulo_game,
    settle,
)

DECKS = ("spanish48", "poker52")
PLAYERS = (4, 5, 6)
CONFIGS = [(deck, n) for deck in DECKS for n in PLAYERS]


# ---- helpers (other test_cirulo_* files import these) --------------------------------
def stack(
    rules: CiruloRules,
    players: int,
    dealer: int,
    hands: Mapping[int, Sequence[str]],
    avoid: Mapping[int, str] | None = None,
) -> list[str]:
    """A whole deck that deals `hands` (seat -> codes); unnamed cards fill the rest of
    the hands in the deck's fixed order, never a suit in `avoid[seat]` (those seats
    are filled first). The removed cards (CI2) go last."""
    removed = removed_cards(rules, players)
    per = (rules.deck_size - len(removed)) // players
    named = {s: parse_cards(h, rules.deck) for s, h in hands.items()}
    used = {c for h in named.values() for c in h}
    assert not used & set(removed), "a named card is one the deal removes"
    rest = [c for c in full_deck(rules.deck) if c not in used and c not in removed]
    avoid = avoid or {}
    full: list[list[Card]] = [list(named.get(seat, [])) for seat in range(players)]
    for seat in sorted(range(players), key=lambda s: s not in avoid):
        hand = full[seat]
        for card in [c for c in rest if c.suit not in avoid.get(seat, "")][: per - len(hand)]:
            hand.append(card)
            rest.remove(card)
        assert len(hand) == per, f"cannot fill seat {seat}"
    first = (dealer + 1) % players
    deck = [full[(first + k) % players][j] for j in range(per) for k in range(players)]
    return [str(c) for c in deck + removed]


def play_random(deal: Deal, rng: random.Random) -> Deal:
    while not deal.is_over:
        deal.play(rng.choice(deal.legal_moves()))
    return deal


def codes(cards: Sequence[Card]) -> list[str]:
    return [str(c) for c in cards]


# ---- CI1: players, decks, ranks ------------------------------------------------------
def test_CI1_two_decks_of_48_and_52_cards() -> None:
    spanish = full_deck("spanish48")
    poker = full_deck("poker52")
    assert len(spanish) == len(set(spanish)) == 48
    assert len(poker) == len(set(poker)) == 52
    assert {c.suit for c in spanish} == {c.suit for c in poker} == {"O", "C", "E", "B"}
    assert sorted({str(c)[:-1] for c in spanish}, key=int) == [str(r) for r in range(1, 13)]
    assert {str(c)[:-1] for c in poker} == {"A", *map(str, range(2, 11)), "J", "Q", "K"}


def test_CI1_notation_and_parse_errors_name_the_problem() -> None:
    assert Card.parse("12O", "spanish48").rank == 12  # rey de oros
    assert Card.parse("ko", "poker52") is Card(13, "O", "poker52")
    assert Card.parse("10E", "poker52").rank == 10
    assert str(Card(1, "B", "poker52")) == "AB"
    assert repr(Card.parse("7C")) == "Card('7C')"
    with pytest.raises(ValueError, match=r"no rank 'J'.*poker52"):
        Card.parse("JO", "spanish48")
    with pytest.raises(ValueError, match=r"no rank '12'.*spanish48"):
        Card.parse("12O", "poker52")
    with pytest.raises(ValueError, match="suit 'X'"):
        Card.parse("5X", "spanish48")
    with pytest.raises(ValueError, match="'13' is not a rank"):
        Card.parse("13O", "spanish48")
    with pytest.raises(ValueError, match="unknown deck"):
        Card.parse("1O", "french40")
    with pytest.raises(ValueError):
        Card.parse("", "spanish48")


@pytest.mark.parametrize("players", [1, 2, 3, 7, "4", True])
def test_CI1_four_five_or_six_players(players: object) -> None:
    with pytest.raises(ValueError, match="4, 5 or 6 players"):
        Deal(CiruloRules(), players)


@pytest.mark.parametrize(("deck", "players"), CONFIGS)
def test_CI1_every_player_count_with_both_decks(deck: str, players: int) -> None:
    deal = play_random(Deal(CiruloRules(deck=deck), players, seed=1), random.Random(1))
    assert deal.is_over and deal.trick_number == deal.tricks_per_hand


@pytest.mark.parametrize("deck", DECKS)
def test_CI1_ranks_high_to_low_ace_lowest_and_no_trumps(deck: str) -> None:
    rules = CiruloRules(deck=deck)
    top, low = ("12", "1") if deck == "spanish48" else ("K", "A")
    second = "11" if deck == "spanish48" else "Q"
    coin = "12O" if top == "12" else "KO"
    hands = {1: [f"{low}C"], 2: [f"{top}C"], 3: [f"{second}C"], 0: [coin]}
    deal = Deal(rules, 4, dealer=0, deck=stack(rules, 4, 0, hands, avoid={0: "C"}))
    for seat, card in ((1, f"{low}C"), (2, f"{top}C"), (3, f"{second}C")):
        deal.play(card, seat)
    deal.play(coin, 0)  # seat 0 has no cups: any card, but a coin never trumps
    trick = deal.events[-1]
    assert trick["type"] == "trick" and trick["winner"] == 2


# ---- CI2: the dealer, the deal, the uneven deck ---------------------------------------
@pytest.mark.parametrize(("deck", "players"), CONFIGS)
def test_CI2_dealer_drawn_highest_card_deals(deck: str, players: int) -> None:
    rules = CiruloRules(deck=deck)
    for seed in range(20):
        game = Game(rules, players, seed=seed)
        assert game.draw is not None
        last = game.draw["rounds"][-1]
        ranks = [Card.parse(c, deck).rank for c in last["cards"]]
        assert ranks.count(max(ranks)) == 1
        assert game.first_dealer == last["seats"][ranks.index(max(ranks))] == game.deal.dealer
        assert draw_dealer(rules, players, seed) == (game.first_dealer, game.draw)


def test_CI2_a_tie_for_the_highest_card_draws_again_among_the_tied() -> None:
    rules = CiruloRules()
    for seed in range(500):
        dealer, draw = draw_dealer(rules, 6, seed)
        if len(draw["rounds"]) > 1:
            break
    else:
        pytest.fail("no tie in 500 draws")
    first, second = draw["rounds"][:2]
    ranks = [Card.parse(c).rank for c in first["cards"]]
    tied = [s for s, r in zip(first["seats"], ranks, strict=True) if r == max(ranks)]
    assert len(tied) > 1 and second["seats"] == tied
    assert dealer in tied
    assert Game(rules, 6, seed=seed).events[0] == draw  # the draw is an event


def test_CI2_deal_passes_to_the_right_and_a_given_dealer_is_kept() -> None:
    rules = CiruloRules(hands=7)
    game = Game(rules, 5, seed=3, dealer=4)
    assert game.draw is None
    rng = random.Random(0)
    while True:
        play_random(game.deal, rng)
        if game.is_over:
            break
        game.next_deal()
    assert [d.dealer for d in game.deals] == [4, 0, 1, 2, 3, 4, 0]
    with pytest.raises(ValueError, match="game is over"):
        game.next_deal()


@pytest.mark.parametrize(("deck", "players"), CONFIGS)
def test_CI2_dealt_one_at_a_time_anticlockwise_from_the_dealers_right(
    deck: str, players: int
) -> None:
    rules = CiruloRules(deck=deck)
    order = full_deck(deck)
    random.Random(players).shuffle(order)
    dealer = players - 2
    deal = Deal(rules, players, dealer, deck=order)
    dealt = [c for c in order if c not in deal.removed]
    for k in range(players):
        seat = (dealer + 1 + k) % players  # the k-th seat to the right of the dealer
        assert set(deal.hand(seat)) == set(dealt[k::players])
    assert sum(len(deal.hand(s)) for s in range(players)) == len(dealt)


@pytest.mark.parametrize(
    ("deck", "players", "removed"),
    [
        ("spanish48", 4, []),
        ("spanish48", 5, ["1C", "1E", "1B"]),
        ("spanish48", 6, []),
        ("poker52", 4, []),
        ("poker52", 5, ["AC", "AE"]),
        ("poker52", 6, ["AC", "AE", "AB", "2C"]),
    ],
)
def test_CI2_uneven_deal_removes_the_fewest_low_non_coin_cards(
    deck: str, players: int, removed: list[str]
) -> None:
    rules = CiruloRules(deck=deck)
    deal = Deal(rules, players, seed=9)
    assert codes(deal.removed) == removed
    assert len(removed) == rules.deck_size % players  # the fewest that make it divide
    sizes = {len(deal.hand(s)) for s in range(players)}
    assert sizes == {(rules.deck_size - len(removed)) // players}
    in_hands = {c for s in range(players) for c in deal.hand(s)}
    assert in_hands.isdisjoint(deal.removed)
    assert all(c.suit != "O" for c in deal.removed)
    # Removed cards are public: in every view (a spectator's too) and in the deal event.
    for seat in (None, *range(players)):
        view = deal.view(seat)
        assert view["removed"] == removed
        assert view["history"][0]["removed"] == removed


def test_CI2_discard_order_option_picks_the_suits_of_equal_low_cards() -> None:
    rules = CiruloRules(deck="poker52", discard_order="BEC")
    assert codes(removed_cards(rules, 5)) == ["AB", "AE"]
    assert codes(removed_cards(rules, 6)) == ["AB", "AE", "AC", "2B"]
    with pytest.raises(ValueError, match="discard_order"):
        CiruloRules(discard_order="OCE")


def test_CI2_stacked_deck_removed_cards_taken_out_wherever_they_lie() -> None:
    rules = CiruloRules(deck="poker52")
    order = full_deck("poker52")  # the aces of cups and swords near the front
    deal = Deal(rules, 5, dealer=0, deck=order)
    dealt = [c for c in order if str(c) not in ("AC", "AE")]
    assert deal.hand(1) == sorted(dealt[0::5], key=lambda c: ("OCEB".index(c.suit), c.rank))


def test_CI2_bad_stacked_decks_are_refused() -> None:
    rules = CiruloRules()
    with pytest.raises(ValueError, match="each of the 48 cards exactly once"):
        Deal(rules, 4, deck=codes(full_deck())[:-1])
    with pytest.raises(ValueError, match="deck: bad card"):
        Deal(rules, 4, deck=["KO"] * 48)
    with pytest.raises(ValueError, match="list of the 48 cards"):
        Deal(rules, 4, deck="1O 2O")


def test_CI2_seeded_deals_are_reproducible_and_differ_by_seed() -> None:
    rules = CiruloRules()
    a, b, c = Deal(rules, 4, seed=5), Deal(rules, 4, seed=5), Deal(rules, 4, seed=6)
    assert a.initial_deck == b.initial_deck != c.initial_deck
    assert not a.stacked


# ---- CI3: the lead, following suit, the trick -----------------------------------------
@pytest.mark.parametrize(("deck", "players"), CONFIGS)
def test_CI3_the_player_right_of_the_dealer_leads(deck: str, players: int) -> None:
    for dealer in range(players):
        deal = Deal(CiruloRules(deck=deck), players, dealer, seed=dealer)
        assert deal.to_move == deal.leader == (dealer + 1) % players
        assert deal.events[0]["leader"] == deal.to_move


def _ci3_deal() -> Deal:
    rules = CiruloRules()
    hands = {
        1: ["3C", "9E", "2B"],
        2: ["7C", "5O", "4E"],
        3: ["1E", "6O", "8B"],  # no cups
        0: ["12C", "2C", "3O"],
    }
    return Deal(rules, 4, dealer=0, deck=stack(rules, 4, 0, hands, avoid={3: "C"}))


def test_CI3_must_follow_suit_and_an_illegal_card_changes_nothing() -> None:
    deal = _ci3_deal()
    deal.play("3C")
    before = (deal.view(None), deal.view(2), deal.events)
    assert all(c.suit == "C" for c in deal.legal_moves())
    with pytest.raises(IllegalMove, match="must follow suit: copas"):
        deal.play("5O")
    with pytest.raises(IllegalMove, match="not in seat 2's hand"):
        deal.play("12C")  # seat 0 holds it: the message does not say so
    with pytest.raises(IllegalMove, match="not your turn: seat 2 is to move"):
        deal.play("7C", seat=3)
    with pytest.raises(IllegalMove, match="bad card"):
        deal.play("7X")
    with pytest.raises(IllegalMove, match="a move is a card"):
        deal.play(7)
    with pytest.raises(IllegalMove, match="poker52 deck"):
        deal.play(Card(7, "C", "poker52"))
    assert (deal.view(None), deal.view(2), deal.events) == before
    assert isinstance(IllegalMove("x"), ValueError)


def test_CI3_a_void_player_may_play_any_card() -> None:
    deal = _ci3_deal()
    deal.play("3C")
    deal.play("7C")
    legal = deal.legal_moves()
    assert deal.to_move == 3 and not any(c.suit == "C" for c in deal.hand(3))
    assert set(legal) == set(deal.hand(3))


def test_CI3_highest_card_of_the_suit_led_wins_and_leads_next() -> None:
    deal = _ci3_deal()
    for card in ("3C", "7C", "6O", "2C"):  # a coin discarded does not win
        deal.play(card)
    trick = deal.events[-1]
    assert trick == {
        "type": "trick",
        "number": 1,
        "leader": 1,
        "cards": ["3C", "7C", "6O", "2C"],
        "seats": [1, 2, 3, 0],
        "winner": 2,
        "coins": 6,
        "encirculated": True,
    }
    assert deal.to_move == deal.leader == 2
    assert deal.tricks_won() == [0, 0, 1, 0]
    assert deal.trick_number == 2


def test_CI3_a_finished_hand_takes_no_more_cards() -> None:
    deal = play_random(Deal(CiruloRules(), 4, seed=2), random.Random(2))
    assert deal.to_move is None and deal.legal_moves() == [] and deal.leader is None
    with pytest.raises(IllegalMove, match="hand is over"):
        deal.play("1O")


# ---- CI4: coins -----------------------------------------------------------------------
@pytest.mark.parametrize(("deck", "total"), [("spanish48", 75), ("poker52", 85)])
def test_CI4_coin_values(deck: str, total: int) -> None:
    points = {str(c): c.points for c in full_deck(deck) if c.suit == "O"}
    if deck == "spanish48":
        expected = {f"{r}O": r for r in range(1, 10)} | {"10O": 10, "11O": 10, "12O": 10}
    else:
        expected = {f"{r}O": r for r in range(2, 10)} | {"AO": 1}
        expected |= {"10O": 10, "JO": 10, "QO": 10, "KO": 10}
    assert points == expected
    assert sum(points.values()) == total
    assert all(c.points == 0 for c in full_deck(deck) if c.suit != "O")


def test_CI4_tricks_with_coins_stay_with_their_winner_the_others_go_to_the_centre() -> None:
    deal = _ci3_deal()
    for card in ("3C", "7C", "6O", "2C"):  # encirculated: seat 2 keeps it
        deal.play(card)
    assert deal.coins() == [0, 0, 6, 0] and deal.encirculated() == [0, 0, 1, 0]
    assert codes(deal.taken(2)) == ["3C", "7C", "6O", "2C"]
    assert deal.center == []
    lead = deal.hand(2)[0]
    deal.play(lead)
    for _ in range(3):
        plain = [c for c in deal.legal_moves() if c.suit != "O"]
        deal.play(plain[0] if plain else deal.legal_moves()[0])
    last = deal.events[-1]
    if not last["encirculated"]:
        assert len(deal.center) == 4 and last["coins"] == 0
    view = deal.view(0)
    assert view["coins"] == deal.coins() and view["encirculated"] == deal.encirculated()


def test_CI4_and_CI5_one_player_takes_every_coin() -> None:
    rules = CiruloRules()
    suits = {1: "O", 2: "C", 3: "E", 0: "B"}  # seat 1 leads and holds every coin
    hands = {s: [f"{r}{suit}" for r in range(1, 13)] for s, suit in suits.items()}
    deal = Deal(rules, 4, dealer=0, deck=stack(rules, 4, 0, hands))
    while not deal.is_over:
        deal.play(deal.legal_moves()[0])
    s = deal.settlement()
    assert s.coins == (0, 75, 0, 0) and s.paid == (0, 75, 0, 0)
    assert s.receivers == (0, 2, 3) and s.share == 25 and s.carried == 0
    assert s.balances == (25, -75, 25, 25)
    assert deal.encirculated() == [0, 12, 0, 0]


# ---- CI5: settlement ------------------------------------------------------------------
def test_CI5_coin_takers_pay_in_and_the_others_share_the_pot() -> None:
    s = settle([10, 0, 40, 0, 0, 25], pot_in=0)
    assert s.pot == 75 and s.receivers == (1, 3, 4) and s.share == 25 and s.carried == 0
    assert s.shares == (0, 25, 0, 25, 25, 0)
    assert s.balances == (-10, 25, -40, 25, 25, -25)
    assert sum(s.balances) == 0


def test_CI5_pot_carried_over_when_everyone_took_coins() -> None:
    s = settle([10, 20, 30, 15], pot_in=0)
    assert s.receivers == () and s.share == 0 and s.carried == s.pot == 75
    assert s.balances == (-10, -20, -30, -15)
    nxt = settle([75, 0, 0, 0], pot_in=s.carried)  # shared with the next hand's payments
    assert nxt.pot == 150 and nxt.share == 50 and nxt.balances == (-75, 50, 50, 50)


def test_CI5_carried_over_pot_in_a_game() -> None:
    """Find a hand where everyone took coins: the next hand starts with its pot, and
    its receivers share that pot with the next hand's payments."""
    game = Game(CiruloRules(hands=40), 4, seed=1)
    rng = random.Random(4)
    while True:
        play_random(game.deal, rng)
        assert sum(game.balances) + game.pot == 0
        s = game.deal.settlement()
        if not s.receivers and len(game.deals) < game.hands:
            break
        assert not game.is_over, "no hand in 40 where every player took coins"
        game.next_deal()
    assert s.carried == s.pot == s.pot_in + sum(s.paid) == game.pot
    assert all(b < 0 for b in s.balances)
    game.next_deal()
    assert game.deal.pot_in == s.carried
    assert game.deal.view(0)["pot"] == s.carried
    assert game.deal.events[0]["pot"] == s.carried
    play_random(game.deal, rng)
    after = game.deal.settlement()
    assert after.pot_in == s.carried and after.pot == s.carried + sum(after.paid)
    assert sum(game.balances) + game.pot == 0


def test_CI5_indivisible_split_carry_keeps_whole_points() -> None:
    s = settle([85, 0, 0, 0], pot_in=0)
    assert s.share == 28 and s.carried == 1 and s.balances == (-85, 28, 28, 28)
    assert sum(s.balances) + s.carried == 0


def test_CI5_indivisible_split_exact_uses_fractions() -> None:
    s = settle([85, 0, 0, 0], pot_in=0, split="exact", point_value=3)
    assert s.share == Fraction(85, 3) and s.carried == 0
    assert s.balances == (-85, Fraction(85, 3), Fraction(85, 3), Fraction(85, 3))
    assert s.chips == (-255, 85, 85, 85)
    data = s.to_dict()
    assert data["share"] == "85/3" and data["chips"] == [-255, 85, 85, 85]
    json.dumps(data)


def test_CI5_point_value_turns_points_into_chips() -> None:
    rules = CiruloRules(point_value=5, hands=3)
    game = Game(rules, 5, seed=2)
    rng = random.Random(1)
    while True:
        play_random(game.deal, rng)
        s = game.deal.settlement()
        assert s.chips == tuple(b * 5 for b in s.balances)
        if game.is_over:
            break
        game.next_deal()
    assert game.chips == [b * 5 for b in game.balances]
    assert sum(game.chips) + game.pot * 5 == 0


@pytest.mark.parametrize("split", ["carry", "exact"])
def test_CI5_game_balances_and_pot_sum_to_zero_at_every_moment(split: str) -> None:
    game = Game(CiruloRules(split=split, deck="poker52"), 6, seed=8)
    rng = random.Random(8)
    assert game.hands == 6  # one round: every player deals once
    while True:
        while not game.deal.is_over:
            assert sum(game.balances) + game.pot == 0
            game.deal.play(rng.choice(game.deal.legal_moves()))
        assert sum(game.balances) + game.pot == 0
        if game.is_over:
            break
        game.next_deal()
    if split == "exact":
        assert any(isinstance(b, Fraction) for b in game.balances) or game.pot == 0
    summary = game.summary()
    assert summary["type"] == "game_end" and summary["hands_played"] == 6
    json.dumps(game.events)


def test_rules_options_are_checked_and_round_trip() -> None:
    rules = CiruloRules(deck="poker52", point_value=2, hands=3, split="exact")
    assert CiruloRules.from_dict(rules.to_dict()) == rules
    assert rules.replace(deck="spanish48").deck == "spanish48"
    with pytest.raises(ValueError, match="unknown Cirulo option 'trumps'"):
        rules.replace(trumps="O")
    with pytest.raises(ValueError, match="deck must be"):
        CiruloRules(deck="french40")
    with pytest.raises(ValueError, match="point_value"):
        CiruloRules(point_value=0)
    with pytest.raises(ValueError, match="hands"):
        CiruloRules(hands=0)
    with pytest.raises(ValueError, match="split"):
        CiruloRules(split="round")
    with pytest.raises(ValueError, match="pot must be a non-negative whole number"):
        Deal(CiruloRules(), 4, pot=Fraction(1, 2))
    with pytest.raises(ValueError, match="dealer must be"):
        Deal(CiruloRules(), 4, dealer=4)
    with pytest.raises(ValueError, match="rules must be a CiruloRules"):
        Deal("cirulo", 4)


# ---- views ----------------------------------------------------------------------------
def test_views_show_own_hand_counts_of_others_and_legal_moves_to_the_mover() -> None:
    deal = Deal(CiruloRules(), 5, dealer=2, seed=4)
    deal.play(deal.legal_moves()[0])
    mover = deal.to_move
    for seat in range(5):
        view = deal.view(seat)
        assert view["hand"] == codes(deal.hand(seat))
        for entry in view["hands"]:
            assert entry["count"] == len(deal.hand(entry["seat"]))
            assert ("cards" in entry) == (entry["seat"] == seat)
        assert ("legal_moves" in view) == (seat == mover)
        deal_event = view["history"][0]
        assert deal_event["hands"][seat] == codes(deal.events[0]["hands"][seat])
        assert all(h is None for s, h in enumerate(deal_event["hands"]) if s != seat)
        assert view["trick"] == [{"seat": 3, "card": deal.events[1]["card"]}]
        json.dumps(view)
    spectator = deal.view(None)
    assert spectator["hand"] is None and "legal_moves" not in spectator
    assert all(h is None for h in spectator["history"][0]["hands"])
    assert deal.events_for(None) == spectator["history"]


# ---- records, copies ------------------------------------------------------------------
def _played_game(rules: CiruloRules, players: int, seed: int) -> Game:
    game = Game(rules, players, seed=seed)
    rng = random.Random(seed)
    while True:
        play_random(game.deal, rng)
        if game.is_over:
            return game
        game.next_deal()


@pytest.mark.parametrize("split", ["carry", "exact"])
def test_record_replays_to_the_same_game(split: str) -> None:
    game = _played_game(CiruloRules(split=split, hands=5), 5, seed=3)
    record = json.loads(json.dumps(cirulo_game_record(game)))
    assert record["format"] == "cirulla.cirulo/1"
    again = replay_cirulo_game(record)
    assert again.balances == game.balances and again.pot == game.pot
    assert [d.moves for d in again.deals] == [d.moves for d in game.deals]
    assert cirulo_game_record(again) == record


def test_record_with_a_given_dealer_and_a_stacked_deck() -> None:
    rules = CiruloRules(hands=2)
    deck = codes(full_deck())
    game = Game(rules, 4, seed=1, dealer=2, deck=deck)
    rng = random.Random(0)
    play_random(game.deal, rng)
    game.next_deal()
    play_random(game.deal, rng)
    record = json.loads(json.dumps(cirulo_game_record(game)))
    assert record["deals"][0]["deck"] == deck and record["draw"] is None
    assert replay_cirulo_game(record).balances == game.balances


def test_records_that_do_not_replay_are_rejected_saying_where() -> None:
    game = _played_game(CiruloRules(hands=3), 4, seed=6)
    good = cirulo_game_record(game)

    def broken(change: Any) -> dict[str, Any]:
        record: dict[str, Any] = json.loads(json.dumps(good))
        change(record)
        return record

    def swap_moves(r: dict[str, Any]) -> None:
        moves = r["deals"][1]["moves"]
        moves[0], moves[1] = moves[1], moves[0]

    cases = [
        (lambda r: r.update(format="cirulla.game/1"), "unknown record format"),
        (swap_moves, "hand 2, move"),
        (lambda r: r["deals"][2]["settlement"].update(share=99), "hand 3: recorded settlement"),
        (lambda r: r["deals"][1].update(dealer=0), "deal passes to"),
        (lambda r: r["deals"][1].update(pot_in=7), "hand 2: recorded pot"),
        (lambda r: r.update(balances=[0, 0, 0, 0]), "record balances"),
        (lambda r: r.update(players=3), "4, 5 or 6 players"),
        (lambda r: r["deals"][0].pop("moves"), "hand 1: missing 'moves'"),
        (lambda r: r.update(deals=[]), "no hands"),
        (lambda r: r["draw"]["rounds"][0].update(cards=["1O"] * 4), "draw"),
    ]
    for change, message in cases:
        with pytest.raises(RecordError, match=message):
            replay_cirulo_game(broken(change))
    with pytest.raises(RecordError):
        replay_cirulo_game("not a record")  # type: ignore[arg-type]


def test_copy_is_independent() -> None:
    deal = Deal(CiruloRules(deck="poker52"), 6, seed=12)
    rng = random.Random(5)
    for _ in range(9):
        deal.play(rng.choice(deal.legal_moves()))
    copy = deal.copy()
    before = deal.view(None), deal.events
    play_random(copy, rng)
    assert (deal.view(None), deal.events) == before
    assert copy.is_over and not deal.is_over
    assert copy.moves[:9] == deal.moves


def test_amount_json() -> None:
    assert amount_json(5) == 5
    assert amount_json(Fraction(10, 2)) == 5
    assert amount_json(Fraction(-7, 3)) == "-7/3"
