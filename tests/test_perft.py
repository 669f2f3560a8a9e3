"""Move-tree counts ("perft") as a regression table, checked against a brute-force generator.

`cirulla.perft(deal, d)` counts the move sequences of length d from a position (a line that
ends earlier counts once). The table below pins those counts for fixed positions: any change
in legal-move generation (captures, declarations, turn order, stage changes) changes them.

The numbers were computed with the engine, then verified before being written down: a
perft that takes its moves from `brute_force_moves` below (every subset of the table for
every hand card, checked against RULES.md P1-P6 and SC3; declarations by B2-B5, B7, CR3;
the matta's value tracked from the events by B6) instead of `legal_moves()` gives the same
counts at every depth of the table. The tests keep a cheaper form of that check: the two
generators agree at every node of the depth-2 tree of every position (Cirulla, Scopa and
Cirullone), brute-force perft(3) matches the table, and they agree along random playouts.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from conftest import stack

import cirulla
from cirulla import Card, Deal, Rules

MATTA = Card.parse("7H")
RANKS = "A234567JQK"
SUITS = "DHCS"


# ---- the positions ------------------------------------------------------------------------


def _stacked_matta_deck() -> list[Card]:
    """Seat 1 (first to play) holds the matta with two 2s: a decino (=2) or a cirulla (=A)."""
    return stack(
        players=4,
        dealer=0,
        hands=[["KC", "QS", "JD"], ["7H", "2C", "2S"], ["6D", "4H", "KS"], ["5H", "QC", "JC"]],
        table=["2D", "5C", "JS", "3H"],
    )


POSITIONS: dict[str, dict[str, Any]] = {
    # table 5D KS 2D 5S (two equal 5s, P5); seat 0 holds the matta: 7H KH 3C
    "cirulla-4p": {"rules": "cirulla", "players": 4, "dealer": 3, "seed": 3},
    # table 3H 3C 4C AH: an ace on the table (P4); seat 0 holds KC AC 4S
    "cirulla-2p": {"rules": "cirulla", "players": 2, "dealer": 1, "seed": 1},
    # table QD QC 2C 2H; seats 0 (AC AD 5S) and 1 (AS 5H 3S) may declare a cirulla
    "cirulla-3p": {"rules": "cirulla", "players": 3, "dealer": 1, "seed": 7},
    # ace_choice, matta_choice, matta_keeps_value; table 3D AS 3C 4C, seat 0 holds 7H 3S KH
    "pagat-2p": {"rules": "pagat", "players": 2, "dealer": 1, "seed": 3},
    # SC3: table AD 2S 7C JC; seat 1 plays first (KD 6D 2D), then seat 0 holds JD, which
    # must take JC alone, never AD+7C
    "scopa-2p": {"rules": "scopa", "players": 2, "dealer": 0, "seed": 6},
    # table 5D KS 2D 5S, seat 0 holds 7H KH 3C (two ways to make 7)
    "scopa-4p": {"rules": "scopa", "players": 4, "dealer": 3, "seed": 3},
    # table 4D 6H 5D AH
    "dossena-4p": {"rules": "dossena", "players": 4, "dealer": 1, "seed": 5},
    # nine cards each, table QD 6D 5S 3S
    "cirullone-4p": {"rules": "cirullone", "players": 4, "dealer": 2, "seed": 2},
    # declaration round: seat 3 (2D 3H 4C) and seat 0 (2S AH AD) may declare a cirulla
    "declare_at_deal-4p": {"rules": "declare_at_deal", "players": 4, "dealer": 2, "seed": 42},
    # a stacked deck: seat 1 holds 7H 2C 2S, table 2D 5C JS 3H
    "stacked-matta-4p": {"rules": "cirulla", "players": 4, "dealer": 0, "deck": "matta"},
    "stacked-matta-pagat-4p": {"rules": "pagat", "players": 4, "dealer": 0, "deck": "matta"},
}


def rules_of(name: str) -> Rules:
    if name == "declare_at_deal":
        return Rules.preset("cirulla").replace(declare_at_deal=True)
    return Rules.preset(name)


def position(name: str) -> Deal:
    spec = POSITIONS[name]
    deck = _stacked_matta_deck() if spec.get("deck") == "matta" else None
    return Deal(
        rules_of(spec["rules"]),
        players=spec["players"],
        dealer=spec["dealer"],
        deck=deck,
        seed=spec.get("seed", 0),
    )


# perft(position, d) for d = 1, 2, ...; computed with the engine and verified with
# `brute_force_perft` at every depth listed (see the module docstring).
PERFT: dict[str, list[int]] = {
    "cirulla-4p": [8, 25, 78, 240, 498, 1002, 2044, 4440, 4496, 4512, 4588, 5000],
    "cirulla-2p": [7, 22, 48, 103, 103, 107, 352, 1083, 2283, 4850, 5107, 5522, 18382],
    "cirulla-3p": [8, 32, 120, 349, 796, 1629, 2534, 2896, 2896, 4436, 12362, 39320],
    "pagat-2p": [9, 29, 68, 137, 142, 148, 466, 1516, 3043, 6654, 6916, 7363, 22922],
    "scopa-2p": [4, 12, 24, 48, 52, 52, 176, 534, 1074, 2170, 2170, 2181, 6543, 19653, 39306],
    "scopa-4p": [4, 14, 47, 145, 306, 626, 1304, 2676, 2748, 2756, 2980, 2988, 9136],
    "dossena-4p": [5, 20, 76, 263, 616, 1268, 2672, 5604, 7764, 8104, 8488],
    "cirullone-4p": [17, 238, 2612, 68650],
    "declare_at_deal-4p": [2, 4, 4, 4, 12, 44, 140, 464, 976, 1984, 4096, 8224, 8720],
    "stacked-matta-4p": [11, 45, 156, 506, 1208, 2494, 5306, 11218, 16252, 16646],
    "stacked-matta-pagat-4p": [14, 69, 230, 765, 2018, 4156, 8754, 18696, 31724],
}


# ---- an independent, brute-force move generator -------------------------------------------


def card_key(card: Card) -> tuple[int, int]:
    """Notation order: suits D, H, C, S, then ranks A..K."""
    text = str(card)
    return SUITS.index(text[1]), RANKS.index(text[0])


def play_text(card: Card, captured: tuple[Card, ...] = ()) -> str:
    if not captured:
        return str(card)
    return f"{card}x" + "".join(str(c) for c in sorted(captured, key=card_key))


def matta_value_now(deal: Deal) -> int | None:
    """The matta's value from the events alone (B5, B6): set by a declaration, gone when
    the matta captures or is captured; laid on the table without capturing, it lasts to
    the end of that mano (the whole smazzata with matta_keeps_value). The dealer's bonus
    takes the matta off the table at once, so it leaves no value behind."""
    n = deal.players
    keeps = deal.rules.matta_keeps_value
    value: int | None = None
    laid_mano: int | None = None
    plays = 0
    for event in deal.events:
        kind = event["type"]
        if kind == "deal":
            plays = 0
            if laid_mano is not None and not keeps:
                value, laid_mano = None, None
        elif kind == "declare" and event["matta_value"] is not None:
            value, laid_mano = event["matta_value"], None
        elif kind == "play":
            if event["card"] == "7H" or "7H" in event["captured"]:
                if event["captured"]:
                    value, laid_mano = None, None
                elif value is not None:
                    laid_mano = plays // n
            plays += 1
            if laid_mano is not None and not keeps and plays // n > laid_mano:
                value, laid_mano = None, None
    return value


def value_of(card: Card, matta_value: int | None) -> int:
    if card is MATTA and matta_value is not None:
        return matta_value
    return RANKS.index(str(card)[0]) + 1


def captures(
    value: int, table: list[Card], rules: Rules, matta_value: int | None
) -> list[tuple[Card, ...]]:
    """Every subset of the table the played value may take (P1-P5, SC3), by brute force."""
    values = {c: value_of(c, matta_value) for c in table}
    subsets = [sub for k in range(1, len(table) + 1) for sub in itertools.combinations(table, k)]
    total = {sub: sum(values[c] for c in sub) for sub in subsets}
    if rules.is_scopa:  # SC3: a single equal card if there is one, else any sum
        equal = [(c,) for c in table if values[c] == value]
        return equal or [sub for sub in subsets if total[sub] == value]
    if value == 1:  # P4: an ace takes an ace, or the whole table when it holds none
        aces = [(c,) for c in table if values[c] == 1]
        out = aces or [tuple(table)]
        if rules.ace_choice:  # or any fifteen
            out += [sub for sub in subsets if total[sub] == 14 and sub not in out]
        return out
    return [sub for sub in subsets if total[sub] in (value, 15 - value)]  # P1, P2, P3


def trio_declarations(trio: tuple[Card, ...], rules: Rules) -> list[str]:
    """The ways to declare three cards (B2-B5), in notation."""
    cards = "".join(str(c) for c in sorted(trio, key=card_key))
    decino_ok = not rules.no_decino
    if MATTA not in trio:
        a, b, c = (value_of(x, None) for x in trio)
        if a == b == c and decino_ok:
            return [f"!decino:{cards}"]
        return [f"!cirulla:{cards}"] if a + b + c <= 9 else []
    a, b = (value_of(x, None) for x in trio if x is not MATTA)
    out = []
    if a == b and decino_ok:
        out.append(f"!decino:{cards}={RANKS[a - 1]}")
    for x in range(1, 11) if rules.matta_choice else (1,):
        if a + b + x <= 9 and not (a == b == x and decino_ok):  # B4: both is a decino
            out.append(f"!cirulla:{cards}={RANKS[x - 1]}")
    return out


def declarations(cards: list[Card], rules: Rules) -> list[str]:
    """Every declaration of any three of these cards (B2-B5, CR3)."""
    if rules.is_scopa:
        return []
    return [d for trio in itertools.combinations(cards, 3) for d in trio_declarations(trio, rules)]


def brute_force_moves(deal: Deal) -> set[str]:
    """The legal moves of a position, worked out from RULES.md (and the brief) alone."""
    if deal.is_over:
        return set()
    rules, seat, n = deal.rules, deal.to_move, deal.players
    assert seat is not None
    events = deal.events
    deals = [i for i, e in enumerate(events) if e["type"] == "deal"]
    stage_events = events[deals[-1] + 1 :]
    sizes = rules.stages or (3,) * (36 // (3 * n))  # D5, CR2
    hand = deal.hand(seat)
    first_turn = len(hand) == sizes[len(deals) - 1]
    # Declared cards still in this seat's hand (B7, CR3), from the events.
    pending: list[Card] = []
    for e in events:
        if e.get("seat") != seat:
            continue
        if e["type"] == "declare":
            pending += [Card.parse(c) for c in e["cards"]]
        elif e["type"] == "play" and Card.parse(e["card"]) in pending:
            pending.remove(Card.parse(e["card"]))
    free = [c for c in hand if c not in pending]
    if rules.declare_at_deal and not rules.is_scopa:
        assert not rules.declare_all_at_once, "not handled here"
        turns = [e for e in stage_events if e["type"] in ("declare", "pass")]
        if len(turns) < n:  # the declaration round: one declaration or pass per seat
            return {*declarations(free, rules), "!pass"}
    out: set[str] = set()
    last = events[-1]
    declared_now = last["type"] == "declare" and last["seat"] == seat  # this very turn
    if rules.declare_all_at_once:
        may_declare = first_turn and not rules.declare_at_deal
    else:
        may_declare = (
            not declared_now
            and not (rules.declared_first and pending)
            and not (rules.declare_at_deal and first_turn)
        )
    if may_declare:
        out.update(declarations(free, rules))
    playable = pending if rules.declared_first and pending else hand
    matta_value = matta_value_now(deal)
    table = deal.table
    for card in playable:
        if not table:
            out.add(play_text(card))
            continue
        found = captures(value_of(card, matta_value), table, rules, matta_value)
        out.update(play_text(card, sub) for sub in found)
        if not found or rules.may_decline_capture:  # P6: a card that can capture must
            out.add(play_text(card))
    return out


def engine_moves(deal: Deal) -> set[str]:
    moves = [str(m) for m in deal.legal_moves()]
    assert len(moves) == len(set(moves)), f"duplicate legal moves: {moves}"
    return set(moves)


def brute_force_perft(deal: Deal, depth: int) -> int:
    """perft with the moves of `brute_force_moves` (the engine only plays them)."""
    if depth == 0 or deal.is_over:
        return 1
    moves = sorted(brute_force_moves(deal))
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = deal.copy()
        child.play(move)
        total += brute_force_perft(child, depth - 1)
    return total


# ---- the tests ----------------------------------------------------------------------------


def test_the_table_covers_every_position() -> None:
    assert set(PERFT) == set(POSITIONS)
    for counts in PERFT.values():
        assert len(counts) >= 4
        assert all(b >= a for a, b in itertools.pairwise(counts))  # lines only grow


@pytest.mark.parametrize("name", list(PERFT))
def test_perft_counts(name: str) -> None:
    deal = position(name)
    before = (deal.view(None), deal.events, [str(m) for m in deal.legal_moves()])
    counts = [cirulla.perft(deal, depth) for depth in range(1, len(PERFT[name]) + 1)]
    assert counts == PERFT[name]
    assert cirulla.perft(deal, 0) == 1
    assert counts[0] == len(deal.legal_moves())
    # perft searches on copies: the position itself is untouched
    assert (deal.view(None), deal.events, [str(m) for m in deal.legal_moves()]) == before


@pytest.mark.parametrize("name", ["cirulla-4p", "scopa-2p", "stacked-matta-pagat-4p"])
def test_perft_divide_splits_perft_by_first_move(name: str) -> None:
    deal = position(name)
    divide = cirulla.perft_divide(deal, 3)
    assert set(divide) == {str(m) for m in deal.legal_moves()}
    assert sum(divide.values()) == PERFT[name][2]
    assert all(count >= 1 for count in divide.values())


def test_perft_of_a_finished_smazzata_is_one_and_bad_depths_are_refused() -> None:
    deal = position("cirulla-2p")
    with pytest.raises(ValueError):
        cirulla.perft(deal, -1)
    with pytest.raises(ValueError):
        cirulla.perft_divide(deal, 0)
    while not deal.is_over:
        deal.play(deal.legal_moves()[-1])
    assert [cirulla.perft(deal, d) for d in range(4)] == [1, 1, 1, 1]


def test_the_positions_are_what_the_table_says() -> None:
    """If the shuffle or the deal order changes, the positions (not the move generator)
    changed: this test says so before the counts do."""
    roots = {name: position(name) for name in POSITIONS}
    assert roots["cirulla-4p"].table == [Card.parse(c) for c in ("5D", "KS", "2D", "5S")]
    assert roots["cirulla-4p"].hand(0) == [Card.parse(c) for c in ("7H", "KH", "3C")]
    assert roots["cirulla-2p"].table == [Card.parse(c) for c in ("3H", "3C", "4C", "AH")]
    assert roots["scopa-2p"].table == [Card.parse(c) for c in ("AD", "2S", "7C", "JC")]
    assert roots["scopa-2p"].hand(0) == [Card.parse(c) for c in ("JD", "AH", "3H")]
    assert engine_moves(roots["scopa-2p"]) == {"KDxJC2S", "KDxAD7C2S", "2Dx2S", "6D"}
    assert roots["cirullone-4p"].stages == (9,)
    assert all(len(roots["cirullone-4p"].hand(s)) == 9 for s in range(4))
    dad = roots["declare_at_deal-4p"]
    assert dad.to_move == 3 and engine_moves(dad) == {"!cirulla:2D3H4C", "!pass"}
    matta = roots["stacked-matta-4p"]
    assert matta.to_move == 1 and sorted(map(str, matta.hand(1))) == ["2C", "2S", "7H"]
    assert {m for m in engine_moves(matta) if m.startswith("!")} == {
        "!decino:7H2C2S=2",
        "!cirulla:7H2C2S=A",
    }
    pagat = roots["stacked-matta-pagat-4p"]
    assert {m for m in engine_moves(pagat) if m.startswith("!")} == {
        "!decino:7H2C2S=2",
        # matta_choice: any value making <= 9, but as a 2 it is a decino (B4)
        *(f"!cirulla:7H2C2S={v}" for v in "A345"),
    }
    for name, deal in roots.items():
        assert not deal.is_over and deal.misdeals == 0, name


CHECKED = list(POSITIONS)  # the Cirulla and Scopa positions, and Cirullone too


def tree(deal: Deal, depth: int) -> list[Deal]:
    """Every node of the move tree down to `depth` (the root included)."""
    nodes, frontier = [deal], [deal]
    for _ in range(depth):
        children = []
        for node in frontier:
            for move in node.legal_moves():
                child = node.copy()
                child.play(move)
                children.append(child)
        nodes += children
        frontier = children
    return nodes


@pytest.mark.parametrize("name", CHECKED)
def test_brute_force_agrees_with_legal_moves_at_every_node_of_the_depth_2_tree(name: str) -> None:
    nodes = tree(position(name), 2)
    assert len(nodes) == 1 + PERFT[name][0] + PERFT[name][1]
    for node in nodes:
        assert brute_force_moves(node) == engine_moves(node), [str(m) for m in node.moves]


@pytest.mark.parametrize("name", [n for n in CHECKED if n != "cirullone-4p"])
def test_brute_force_perft_gives_the_table_at_depth_3(name: str) -> None:
    assert brute_force_perft(position(name), 3) == PERFT[name][2]


@pytest.mark.parametrize("name", CHECKED)
def test_brute_force_agrees_along_random_playouts(name: str) -> None:
    """Deeper than the trees: whole smazzate (stage changes, the matta's value expiring)."""
    rng = random.Random(name)
    for _ in range(8):
        deal = position(name)
        while True:
            legal = engine_moves(deal)
            assert brute_force_moves(deal) == legal, [str(m) for m in deal.moves]
            if deal.is_over:
                break
            deal.play(rng.choice(sorted(legal)))


# ---- the brute-force generator checked on the rules' own examples --------------------------


def _cards(texts: str) -> list[Card]:
    return [Card.parse(t) for t in texts.split()]


def _caps(value: int, table: str, rules: Rules) -> set[str]:
    return {" ".join(map(str, sub)) for sub in captures(value, _cards(table), rules, None)}


def test_brute_force_captures_follow_the_rules_examples() -> None:
    cirulla_rules, scopa = Rules.preset("cirulla"), Rules.preset("scopa")
    # U1: table 4, 7, 2 and a 4 in hand: the 4 alone, or 4 + 7 (= 15 with the played 4)
    assert _caps(4, "4C 7S 2D", cirulla_rules) == {"4C", "4C 7S"}
    # P5: two equal 5s are two captures; P3: 5 + the two 5s = 15
    assert _caps(5, "5D 5S KC", cirulla_rules) == {"5D", "5S", "5D 5S", "KC"}
    # P4: an ace takes an ace, or the whole table without one; ace_choice adds the fifteens
    assert _caps(1, "AD AS 5C", cirulla_rules) == {"AD", "AS"}
    assert _caps(1, "2D 5S 7C", cirulla_rules) == {"2D 5S 7C"}
    assert _caps(1, "AD 7C 7S", Rules.preset("pagat")) == {"AD", "7C 7S"}
    # SC3: an equal card is taken alone, never a sum; otherwise any sum
    assert _caps(8, "JC AD 7C", scopa) == {"JC"}
    assert _caps(10, "AD 2S 7C JC", scopa) == {"AD 2S 7C", "2S JC"}
    assert _caps(3, "4C 5C", scopa) == set()
    # B4, B5: the matta makes a decino with a pair, a cirulla as an ace (or more with choice)
    hand = _cards("7H 2C 2S")
    assert declarations(hand, cirulla_rules) == ["!decino:7H2C2S=2", "!cirulla:7H2C2S=A"]
    assert declarations(_cards("2C 2S 2D"), cirulla_rules) == ["!decino:2D2C2S"]
    assert declarations(_cards("2C 2S 2D"), cirulla_rules.replace(no_decino=True)) == [
        "!cirulla:2D2C2S"
    ]
