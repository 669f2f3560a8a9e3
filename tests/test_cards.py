"""Cards and deck: RULES.md C1-C5, card names per deck style and language, parsing."""

from __future__ import annotations

import copy
import pickle

import pytest

import cirulla
from cirulla import Card, Deal, Rules

RANKS = ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"]
SUITS = ["D", "H", "C", "S"]


# ---- C1: the 40-card pack and capture values ------------------------------------------


def test_C1_full_deck_is_forty_distinct_cards_of_four_suits_and_ten_ranks() -> None:
    deck = cirulla.full_deck()
    assert len(deck) == 40
    assert len(set(deck)) == 40
    assert {c.suit for c in deck} == set(SUITS)
    assert {c.rank for c in deck} == set(RANKS)
    for suit in SUITS:
        assert sorted(c.rank for c in deck if c.suit == suit) == sorted(RANKS)
    # No 8, 9, 10 or jokers (C1: a French pack without them).
    for missing in ("8H", "9D", "10S", "TC"):
        with pytest.raises(ValueError):
            Card.parse(missing)


def test_C1_full_deck_has_a_fixed_order_suits_D_H_C_S_ranks_A_to_K() -> None:
    expected = [r + s for s in SUITS for r in RANKS]
    assert [str(c) for c in cirulla.full_deck()] == expected
    assert [str(c) for c in cirulla.full_deck()] == expected  # the same every call


def test_C1_full_deck_returns_a_fresh_list_each_call() -> None:
    deck = cirulla.full_deck()
    deck.reverse()
    deck.pop()
    assert len(cirulla.full_deck()) == 40
    assert str(cirulla.full_deck()[0]) == "AD"


@pytest.mark.parametrize(
    ("rank", "value"),
    [
        ("A", 1),
        ("2", 2),
        ("3", 3),
        ("4", 4),
        ("5", 5),
        ("6", 6),
        ("7", 7),
        ("J", 8),
        ("Q", 9),
        ("K", 10),
    ],
)
@pytest.mark.parametrize("suit", SUITS)
def test_C1_capture_values_ace_1_to_king_10(rank: str, value: int, suit: str) -> None:
    card = Card.parse(rank + suit)
    assert card.value == value
    assert card.rank == rank
    assert card.suit == suit


# ---- C2: suits and names per deck style ----------------------------------------------


@pytest.mark.parametrize(
    ("card", "style", "lang", "name"),
    [
        # French cards, English names
        ("KH", "french", "en", "King of hearts"),
        ("7D", "french", "en", "7 of diamonds"),
        ("AC", "french", "en", "Ace of clubs"),
        ("QS", "french", "en", "Queen of spades"),
        ("JD", "french", "en", "Jack of diamonds"),
        # French cards, Italian names (seed 000: quadri, cuori, fiori, picche)
        ("7D", "french", "it", "7 di quadri"),
        ("7H", "french", "it", "7 di cuori"),
        ("KC", "french", "it", "Re di fiori"),
        ("AS", "french", "it", "Asso di picche"),
        ("JH", "french", "it", "Fante di cuori"),
        # Italian (Latin-suited) decks: denari, coppe, bastoni, spade; Fante, Cavallo, Re
        ("7H", "napoletane", "it", "7 di coppe"),
        ("7D", "napoletane", "it", "7 di denari"),
        ("AD", "napoletane", "it", "Asso di denari"),
        ("KC", "napoletane", "it", "Re di bastoni"),
        ("QS", "napoletane", "it", "Cavallo di spade"),
        ("JH", "napoletane", "it", "Fante di coppe"),
        ("7H", "piacentine", "it", "7 di coppe"),
        ("QD", "piacentine", "it", "Cavallo di denari"),
        ("5S", "piacentine", "it", "5 di spade"),
        ("2C", "piacentine", "it", "2 di bastoni"),
        # Latin decks in English (seed 001: "the wild card is the 7 of cups", "coins")
        ("7H", "napoletane", "en", "7 of cups"),
        ("7D", "piacentine", "en", "7 of coins"),
        ("KH", "napoletane", "en", "King of cups"),
    ],
)
def test_C2_card_names_per_deck_style_and_language(
    card: str, style: str, lang: str, name: str
) -> None:
    assert Card.parse(card).name(style, lang) == name


def test_C2_default_name_is_french_in_english() -> None:
    assert Card.parse("KH").name() == "King of hearts"
    assert Card.parse("7D").name(style="napoletane") == "7 of coins"
    assert Card.parse("7H").name(lang="it") == "7 di cuori"


@pytest.mark.parametrize(
    ("suit", "french_it", "latin_it", "french_en"),
    [
        ("D", "quadri", "denari", "diamonds"),
        ("H", "cuori", "coppe", "hearts"),
        ("C", "fiori", "bastoni", "clubs"),
        ("S", "picche", "spade", "spades"),
    ],
)
def test_C2_suits_correspond_denari_diamonds_coppe_hearts_bastoni_clubs_spade_spades(
    suit: str, french_it: str, latin_it: str, french_en: str
) -> None:
    card = Card.parse("5" + suit)
    assert card.name("french", "it") == f"5 di {french_it}"
    assert card.name("napoletane", "it") == f"5 di {latin_it}"
    assert card.name("piacentine", "it") == f"5 di {latin_it}"
    assert card.name("french", "en") == f"5 of {french_en}"


@pytest.mark.parametrize("style", ["french", "napoletane", "piacentine"])
@pytest.mark.parametrize("lang", ["it", "en"])
def test_C2_every_card_has_a_distinct_name_in_every_style(style: str, lang: str) -> None:
    names = [c.name(style, lang) for c in cirulla.full_deck()]
    assert len(set(names)) == 40
    assert all(isinstance(n, str) and n for n in names)


def test_C2_styles_are_french_napoletane_piacentine() -> None:
    assert set(cirulla.STYLES) >= {"french", "napoletane", "piacentine"}


@pytest.mark.parametrize(
    ("style", "lang", "word"),
    [("bergamasche", "it", "style"), ("", "en", "style"), ("french", "fr", "language")],
)
def test_C2_unknown_style_or_language_is_a_ValueError_naming_it(
    style: str, lang: str, word: str
) -> None:
    with pytest.raises(ValueError, match=word) as err:
        Card.parse("7H").name(style, lang)  # type: ignore[arg-type]
    assert repr(style if word == "style" else lang) in str(err.value)


# ---- C3: primiera values ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rank", "primiera"),
    [
        ("7", 21),
        ("6", 18),
        ("A", 16),
        ("5", 15),
        ("4", 14),
        ("3", 13),
        ("2", 12),
        ("J", 10),
        ("Q", 10),
        ("K", 10),
    ],
)
@pytest.mark.parametrize("suit", SUITS)
def test_C3_primiera_values(rank: str, primiera: int, suit: str) -> None:
    assert Card.parse(rank + suit).primiera == primiera


# ---- C4: the matta ------------------------------------------------------------------


def test_C4_matta_is_the_seven_of_hearts_by_default() -> None:
    assert Rules.preset("cirulla").matta() is Card.parse("7H")
    deal = Deal(Rules.preset("cirulla"), seed=3)
    assert deal.view(None)["matta"]["card"] == "7H"


def test_C4_option_wild_card_names_another_matta_eg_queen_of_hearts() -> None:
    rules = Rules.preset("cirulla").replace(wild_card="QH")
    assert rules.matta() is Card.parse("QH")
    assert Deal(rules, seed=3).view(None)["matta"]["card"] == "QH"
    # Lower case is accepted and normalised.
    assert Rules.preset("cirulla").replace(wild_card="qh").matta() is Card.parse("QH")


@pytest.mark.parametrize("bad", ["8H", "7X", "", "7H3C"])
def test_C4_bad_wild_card_is_a_ValueError_naming_the_option(bad: str) -> None:
    with pytest.raises(ValueError, match="wild_card"):
        Rules.preset("cirulla").replace(wild_card=bad)


def test_C4_scopa_has_no_matta() -> None:
    assert Rules.preset("scopa").matta() is None


# ---- C5: diamonds = denari = quadri = coins --------------------------------------------


def test_C5_the_settebello_suit_is_diamonds_denari_coins() -> None:
    settebello = Card.parse("7D")
    assert settebello.suit == "D"
    assert settebello.name("french", "en") == "7 of diamonds"
    assert settebello.name("napoletane", "it") == "7 di denari"
    assert settebello.name("napoletane", "en") == "7 of coins"
    assert settebello.name("french", "it") == "7 di quadri"


# ---- Card.parse, str and identity ---------------------------------------------------------


@pytest.mark.parametrize("text", [r + s for s in SUITS for r in RANKS])
def test_card_parse_and_str_round_trip_for_all_forty(text: str) -> None:
    card = Card.parse(text)
    assert str(card) == text
    assert Card.parse(str(card)) is card


@pytest.mark.parametrize(("text", "expected"), [("7h", "7H"), ("qs", "QS"), ("aD", "AD")])
def test_card_parse_accepts_lower_case(text: str, expected: str) -> None:
    assert str(Card.parse(text)) == expected
    assert Card.parse(text) is Card.parse(expected)


def test_card_parse_accepts_a_card() -> None:
    card = Card.parse("5C")
    assert Card.parse(card) is card


def test_cards_are_interned_singletons_equal_by_rank_and_suit() -> None:
    assert Card.parse("7H") is Card.parse("7h")
    # A card built directly equals the interned one, and parse() hands back the interned one.
    assert Card("7", "H") == Card.parse("7H")
    assert Card.parse(Card("7", "H")) is Card.parse("7H")
    assert Card.parse("7H") == Card("7", "H")
    assert Card.parse("7H") != Card.parse("7D")
    assert hash(Card.parse("7H")) == hash(Card("7", "H"))
    assert len({Card.parse("7H"), Card.parse("7h"), Card("7", "H")}) == 1
    deck = cirulla.full_deck()
    assert all(a is b for a, b in zip(deck, cirulla.full_deck(), strict=True))


def test_cards_stay_singletons_through_copy_deepcopy_and_pickle() -> None:
    card = Card.parse("QS")
    assert copy.copy(card) is card
    assert copy.deepcopy(card) is card
    assert pickle.loads(pickle.dumps(card)) is card
    assert copy.deepcopy([card, card])[0] is card


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("8H", "rank"),  # no 8s
        ("9D", "rank"),
        ("XS", "rank"),
        ("7X", "suit"),
        ("7Z", "suit"),
        ("", "rank"),  # empty
        ("7", "rank"),  # too short
        ("7HH", "rank"),  # too long
        ("10H", "rank"),  # a ten is no card of this pack
        ("  ", "rank"),
    ],
)
def test_card_parse_bad_string_raises_ValueError_saying_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(ValueError) as err:
        Card.parse(text)
    message = str(err.value)
    assert repr(text) in message  # names the bad input
    assert why in message  # says what is wrong
    assert "7H" in message or "D H C S" in message or "A 2" in message  # and what is right


@pytest.mark.parametrize("bad", [None, 7, 7.0, b"7H", ["7H"], ("7", "H")])
def test_card_parse_non_string_raises_ValueError(bad: object) -> None:
    with pytest.raises(ValueError, match="string"):
        Card.parse(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(("rank", "suit"), [("8", "H"), ("7", "X"), ("10", "S"), ("", "")])
def test_card_constructor_rejects_unknown_rank_or_suit(rank: str, suit: str) -> None:
    with pytest.raises(ValueError, match="no such card"):
        Card(rank, suit)


def test_cards_sort_by_id_suits_D_H_C_S_then_ranks_A_to_K() -> None:
    shuffled = [Card.parse(t) for t in ("KS", "AD", "7H", "2C", "AH", "QD")]
    assert [str(c) for c in sorted(shuffled)] == ["AD", "QD", "AH", "7H", "2C", "KS"]
