"""Cirulo, the Spanish trick-taking game of seed 004 (RULES.md section 13).

The same shape as the Cirulla engine: `Deal` is one hand from a seed or a
stacked deck (`legal_moves`, `play`, `events`, `view(seat)`, `copy`,
`settlement`), `Game` a number of hands with the running balances, and
`cirulo_game_record` / `replay_cirulo_game` store and check finished games.
Bots are in `cirulla.cirulo.bots`; see docs/cirulo.md.
"""

from ..moves import IllegalMove
from .cards import DECKS, SUITS, Card, deck_size, full_deck, parse_cards
from .deal import Deal, removed_cards
from .game import Game, draw_dealer
from .record import CIRULO_FORMAT, RecordError, cirulo_game_record, replay_cirulo_game
from .rules import PLAYERS, CiruloRules
from .settlement import Amount, Settlement, amount_json, settle

__all__ = [
    "CIRULO_FORMAT",
    "DECKS",
    "PLAYERS",
    "SUITS",
    "Amount",
    "Card",
    "CiruloRules",
    "Deal",
    "Game",
    "IllegalMove",
    "RecordError",
    "Settlement",
    "amount_json",
    "cirulo_game_record",
    "deck_size",
    "draw_dealer",
    "full_deck",
    "parse_cards",
    "removed_cards",
    "replay_cirulo_game",
    "settle",
]
