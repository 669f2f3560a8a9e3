"""Cirulla, Cirullone and Scopa: a pure, deterministic rules engine.

>>> import cirulla
>>> deal = cirulla.Deal(cirulla.Rules.preset("cirulla"), players=4, dealer=0, seed=1)
>>> deal.play(deal.legal_moves()[0])
"""

from .bonuses import BonusOption, DealerBonus, dealer_bonus, hand_bonus_options
from .cards import RANKS, STYLES, SUITS, Card, full_deck
from .deal import Deal
from .moves import IllegalMove, Move, parse_move
from .rules import OPTIONS, PRESETS, Rules
from .scoring import ITEMS, Score, score_piles
from .shuffle import SHUFFLE_VERSION, SeededStream

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
    "IllegalMove",
    "Move",
    "Rules",
    "Score",
    "SeededStream",
    "dealer_bonus",
    "full_deck",
    "hand_bonus_options",
    "parse_move",
    "score_piles",
]
