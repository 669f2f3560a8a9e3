"""Cirulla, Cirullone and Scopa: a pure, deterministic rules engine.

>>> import cirulla
>>> deal = cirulla.Deal(cirulla.Rules.preset("cirulla"), players=4, dealer=0, seed=1)
>>> deal.play(deal.legal_moves()[0])
"""

from .bonuses import BonusOption, DealerBonus, dealer_bonus, hand_bonus_options
from .cards import RANKS, STYLES, SUITS, Card, full_deck
from .deal import Deal
from .determinize import determinize, unseen_cards
from .game import Forfeit, Game, Match, forfeit_settlement
from .moves import IllegalMove, Move, parse_move
from .perft import perft, perft_divide
from .record import RecordError, deal_record, game_record, replay_deal, replay_game
from .rules import OPTIONS, PRESETS, Rules
from .scoring import ITEMS, Score, score_piles
from .shuffle import SHUFFLE_VERSION, SeededStream
from .tournament import (
    ForfeitPoints,
    VPRow,
    cappotto_victory_points,
    cash_settlement,
    forfeit_victory_points,
    victory_points,
    vp_column,
)

__version__ = "0.1.0"

__all__ = [
    "ITEMS",
    "OPTIONS",
    "PRESETS",
    "RANKS",
    "SHUFFLE_VERSION",
    "STYLES",
    "SUITS",
    "BonusOption",
    "Card",
    "Deal",
    "DealerBonus",
    "Forfeit",
    "ForfeitPoints",
    "Game",
    "IllegalMove",
    "Match",
    "Move",
    "RecordError",
    "Rules",
    "Score",
    "SeededStream",
    "VPRow",
    "cappotto_victory_points",
    "cash_settlement",
    "deal_record",
    "dealer_bonus",
    "determinize",
    "forfeit_settlement",
    "forfeit_victory_points",
    "full_deck",
    "game_record",
    "hand_bonus_options",
    "parse_move",
    "perft",
    "perft_divide",
    "replay_deal",
    "replay_game",
    "score_piles",
    "unseen_cards",
    "victory_points",
    "vp_column",
]
