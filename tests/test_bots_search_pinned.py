"""The search bots' decisions, pinned: for a seed and an iteration budget, ismcts (with
its default options: campione until 2026-11-27; campione's options of 2026-11-27, of
2026-12-06 and since), cheater and pimc choose exactly these moves, and draw exactly
as much from their generator.

Arena runs compare bots over thousands of smazzate and rely on a bot deciding the
same for the same seed, in the pure build and in the compiled one (CI runs this
file on both). A change to the search that changes a decision here is a change of
play: it fails here on purpose, and its new values need a reason.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from cirulla import Deal, Rules, bots
from cirulla.bots import Budget, choose_move
from cirulla.bots.levels import CAMPIONE_2026_11_28, CAMPIONE_2026_12_06, CAMPIONE_OPTIONS

#: campione's search of 2026-11-27, whole playouts: the base its variants below change.
WHOLE = CAMPIONE_2026_11_28.options
#: campione's search from 2026-12-06 until the averaged cut: the cut at 4 players.
CUT_AT_4 = CAMPIONE_2026_12_06.options


def _position(preset: str, players: int, seed: int, plies: int, options: dict[str, Any]) -> Deal:
    rules = Rules.preset(preset)
    if options:
        rules = rules.replace(**options)
    deal = Deal(rules, players, seed % players, seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        deal.play(rng.choice(deal.legal_moves()))
    return deal


# The position: preset, players, rule options, deal seed, random plies played before.
Where = tuple[str, int, dict[str, Any], int, int]

# bot, its options, where, bot seed, iterations -> the move, and the bot's next 32 random
# bits after it (the search drew exactly as many numbers as before).
MOVES: list[tuple[str, dict[str, Any], Where, int, int, str, int]] = [
    ("ismcts", {}, ("cirulla", 4, {}, 1, 0), 0, 300, "4SxQH2S", 2957452083),
    ("ismcts", {}, ("cirulla", 4, {}, 2, 12), 1, 200, "!cirulla:AD4D4C", 3274188135),
    ("ismcts", {"prior": "expert"}, ("cirulla", 4, {}, 3, 12), 2, 200, "5C", 2728224196),
    (
        "ismcts",
        {"epsilon": 0.0, "exploration": 1.2},
        ("pagat", 2, {}, 4, 6),
        3,
        200,
        "KH",
        3971185105,
    ),
    ("ismcts", {}, ("scopa", 2, {}, 5, 12), 4, 150, "4Sx4D", 180077137),
    ("ismcts", {}, ("cirullone", 4, {}, 6, 3), 5, 150, "3C", 1768090537),
    ("ismcts", {}, ("pagat", 4, {"declare_at_deal": True}, 7, 4), 6, 150, "KSxKD", 1543593189),
    (
        "ismcts",
        {},
        ("luzzati", 4, {"may_decline_capture": True}, 8, 7),
        7,
        150,
        "5DxKH",
        3154787079,
    ),
    # campione's options from 2026-11-27 to 2026-12-06, 4 and 2 players; re-pinned on
    # 2026-11-29, when the rejection sampler stopped shuffling every hidden card of every
    # draw (bots/posterior.py: the same law, other draws).
    ("ismcts", WHOLE, ("cirulla", 4, {}, 26, 14), 25, 300, "3Dx4SJS", 523712191),
    ("ismcts", WHOLE, ("cirulla", 2, {}, 27, 7), 26, 300, "AHx4DKH2C", 3751447881),
    # campione's options on 2026-12-06 before the averaged cut (the playouts cut where
    # their stage ends, a learned value scoring the rest, at 4 players; at 2 it searched
    # as before, the same move and draws as the pin above).
    ("ismcts", CUT_AT_4, ("cirulla", 4, {}, 26, 14), 25, 300, "3Dx4SJS", 186440198),
    ("ismcts", CUT_AT_4, ("cirulla", 2, {}, 27, 7), 26, 300, "AHx4DKH2C", 3751447881),
    # campione's options since 2026-12-06, a fourth (levels.CAMPIONE_OPTIONS: the cut's
    # value averaged over the hands just dealt, at 2 players the cut waiting until the
    # value has two stages left to score)
    ("ismcts", CAMPIONE_OPTIONS, ("cirulla", 4, {}, 26, 14), 25, 300, "3Dx4SJS", 1834156456),
    ("ismcts", CAMPIONE_OPTIONS, ("cirulla", 2, {}, 27, 7), 26, 300, "KDxKH", 1586737880),
    # the cut at 2 players too, as measured on 2026-12-06
    (
        "ismcts",
        {**WHOLE, "leaf": "cut"},
        ("cirulla", 2, {}, 27, 7),
        26,
        300,
        "KDxKH",
        2416002633,
    ),
    # The options of the 2026-11-27 session (docs/strength.md), off by default.
    ("ismcts", {"threats": "lookahead"}, ("cirulla", 4, {}, 25, 6), 21, 200, "3Hx3D", 4002162418),
    (
        "ismcts",
        {"threats": "sampled", "expand": "policy"},
        ("cirulla", 4, {}, 22, 12),
        22,
        200,
        "KS",
        2405096931,
    ),
    (
        "ismcts",
        {"threats": "unseen", "others": "policy", "epsilon": 0.1},
        ("cirulla", 2, {}, 23, 6),
        23,
        200,
        "4D",
        2555661505,
    ),
    (
        "ismcts",
        {"trees": 4, "infer": True, "missed_greedy": 0.05, "missed_bonus": 0.05},
        ("cirulla", 4, {}, 24, 12),
        24,
        200,
        "6C",
        2246381801,
    ),
    # campione's model drawn by the Metropolis chain (sampler="chain", bots/posterior.py).
    (
        "ismcts",
        {**WHOLE, "sampler": "chain"},
        ("cirulla", 4, {}, 31, 18),
        30,
        300,
        "JCx3S4S",
        1621762471,
    ),
    (
        "ismcts",
        {**WHOLE, "sampler": "chain"},
        ("cirulla", 4, {}, 37, 6),
        36,
        300,
        "4Cx2DQS",
        2645972190,
    ),
    (
        "ismcts",
        {**WHOLE, "sampler": "chain"},
        ("cirulla", 2, {}, 47, 13),
        46,
        300,
        "QSx3H6C",
        686193183,
    ),
    # campione's model read as a greedy player's or a searcher's (2026-11-29, a fifth),
    # deep enough in the smazzata that finished stages judge the hidden seats.
    (
        "ismcts",
        {**WHOLE, "mixture": True},
        ("cirulla", 4, {}, 53, 27),
        52,
        300,
        "2Hx3HKH",
        2740970524,
    ),
    (
        "ismcts",
        {**WHOLE, "adapt": True},
        ("cirulla", 4, {}, 53, 27),
        52,
        300,
        "2Hx3HKH",
        504626659,
    ),
    (
        "ismcts",
        {**WHOLE, "mixture": True},
        ("cirulla", 2, {}, 58, 19),
        57,
        300,
        "ADx7D2C4S",
        2836402163,
    ),
    (
        "ismcts",
        {**WHOLE, "adapt": True},
        ("cirulla", 2, {}, 58, 19),
        57,
        300,
        "ADx7D2C4S",
        3596088386,
    ),
    ("cheater", {}, ("cirulla", 4, {}, 9, 12), 8, 300, "AHx4DQC", 3777871676),
    ("cheater", {}, ("dossena", 3, {}, 10, 9), 9, 200, "2SxJD5C", 3410255658),
    ("cheater", {}, ("cirulla", 2, {}, 11, 24), 10, 200, "4Sx7H4C", 3864447237),
    ("pimc", {}, ("cirulla", 4, {}, 12, 2), 11, 240, "7Cx7S", 4162875770),
    ("pimc", {"epsilon": 1.0}, ("scopa", 4, {}, 13, 7), 12, 150, "KDx7D3S", 2441679636),
    ("pimc", {}, ("pagat", 3, {}, 14, 11), 13, 200, "KSxKC", 1462449857),
]


@pytest.mark.parametrize(
    ("name", "options", "where", "seed", "iterations", "expected", "next_bits"), MOVES
)
def test_a_search_bot_chooses_the_pinned_move(
    name: str,
    options: dict[str, Any],
    where: Where,
    seed: int,
    iterations: int,
    expected: str,
    next_bits: int,
) -> None:
    preset, players, rule_options, deal_seed, plies = where
    deal = _position(preset, players, deal_seed, plies, rule_options)
    assert len(deal.legal_moves()) >= 3  # a real choice
    bot = bots.get(name, seed=seed, budget=Budget(iterations=iterations), **options)
    assert choose_move(bot, deal).text == expected
    assert bot.rng.getrandbits(32) == next_bits  # the same draws, in the same number


Seat = tuple[str, int, int, dict[str, Any]]  # bot, seed, iterations, options

# Whole smazzate between search bots on small budgets (noisy decisions, so any
# change in what they draw shows), and one of greedy bots: every move, the score,
# each bot's next bits.
SMAZZATE: list[tuple[str, dict[str, Any], int, list[Seat], str, list[int], list[int]]] = [
    (
        "cirulla",
        {},
        77,
        [
            ("ismcts", 11, 16, {}),
            ("pimc", 12, 24, {}),
            ("cheater", 13, 16, {}),
            ("ismcts", 14, 16, {"prior": "expert"}),
        ],
        "4Dx2D2S QDx6S 7H 4Cx4H7H AC JC 7CxJC 5S 7S 3Cx5S7S KS KHxKS 3H 4Sx3HAC 2H ADx2H JS "
        "ASxJS 6H JH 6Dx6H KC 5CxKC 6C 7DxJH JD QCx6C QS 5D AHx5DJDQS 5H 2C QH 3D KDx3D5H2C 3S",
        [2, 7],
        [3405968647, 363433625, 1575315368, 1179075847],
    ),
    (
        "pagat",
        {"declare_at_deal": True},
        78,
        [("ismcts", 21, 20, {"epsilon": 0.1}), ("cheater", 22, 20, {"exploration": 0.3})],
        "!decino:4H4C4S !pass 4Cx3HAC 6S 4Hx5H6S QS 4S 6CxQS !pass !pass 3D JSx3D4S 7Sx7D 3C "
        "3Sx3C AD !pass !pass KH 6H QHx6H 7C KSxKH 2H !pass !pass JDxAD7C 7H JCx7H 2Dx2H QC KD "
        "!pass !pass 2C 5SxKD 5D JHx5D2C 6DxQC 4D !pass !cirulla:AH5C2S ASx4D 2S QD AHxQD2S KC "
        "5CxKC",
        [5, 17],
        [1011261008, 1178730644],
    ),
    (
        "dossena",
        {},
        79,
        [("pimc", 31, 18, {"epsilon": 0.5}), ("ismcts", 32, 12, {}), ("cheater", 33, 12, {})],
        "5Dx4C6C 3Dx3S 4S ASx4S6S KC 4H JS QH JHxJS 4Dx4H KSxKC QCxQH 2H ACx2H 3C 5H QD 7Cx5H3C "
        "6DxQD 5S 5Cx5S 2D AHx2D 7S JDx7S 7D 3H KHx7D3H KD 2C 2Sx2C 6H 7H QSx6H ADxKD7H JC",
        [6, 2, 8],
        [3948175174, 837305332, 2148300941],
    ),
    (  # greedy's score is the playouts' policy, and compiled with it
        "cirulla",
        {},
        80,
        [
            ("greedy", 41, 1, {}),
            ("greedy", 42, 1, {"epsilon": 0.35}),
            ("greedy", 43, 1, {}),
            ("greedy", 44, 1, {"epsilon": 0.35}),
        ],
        "7Dx3C4C ASx6HKH JC !cirulla:AH7H3S=A 7HxJC 7C 4S KC AHx7CKC4S 2S 6S KD 3SxKD2S QDx6S "
        "5H 6D 4Hx6D5H 3H KS 2Hx3HKS 2C 4D 5D QHx4D5D 5S 6C ADx2C6C5S 2D !cirulla:3DAC5C ACx2D "
        "JD JSxJD QC 5C JH QSxQC 7SxJH 3D",
        [15, 3],
        [1636471393, 2410529190, 165578901, 2538313555],
    ),
]


@pytest.mark.parametrize(
    ("preset", "rule_options", "deal_seed", "seats", "moves", "totals", "next_bits"), SMAZZATE
)
def test_search_bots_play_the_pinned_smazzata(
    preset: str,
    rule_options: dict[str, Any],
    deal_seed: int,
    seats: list[Seat],
    moves: str,
    totals: list[int],
    next_bits: list[int],
) -> None:
    deal = _position(preset, len(seats), deal_seed, 0, rule_options)
    players = [
        bots.get(name, seed=seed, budget=Budget(iterations=iterations), **options)
        for name, seed, iterations, options in seats
    ]
    bots.play_deal(deal, players)
    assert " ".join(m.text for m in deal.moves) == moves
    assert deal.score().totals == totals
    assert [b.rng.getrandbits(32) for b in players] == next_bits
