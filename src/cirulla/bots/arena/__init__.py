"""The arena: bot A against bot B on paired decks, so the luck of the cards cancels.

Every deck is played once per seating and the seatings mirror each other:

- 2 players: A at seat 0, B at seat 1; then swapped.
- 4 players: A (both partners) at seats 0 and 2, B at 1 and 3; then swapped.
- 3 players: each side alone against two of the other, in every seat: A alone at
  seat 0, 1, 2, then B alone at seat 0, 1, 2 (six plays; play i and play 3 + i are
  mirror images). This keeps the result antisymmetric: swapping A and B negates
  the margin, as with 2 and 4 players, and every seat is played by both bots.

A play's margin is the mean of A's seats' points minus the mean of B's seats'
points (with 2 and 4 players simply A's side minus B's side); a deck's margin is
the mean over its plays. Deck k is shuffled from `deck_seed(seed, k)` and dealt by
seat k % players in all its plays. Each play gets fresh bots, seeded from the
pair, the play and the seat, so a run is reproducible for a seed (unless a bot
has a budget in seconds) and the same with any number of processes: work is
assigned by pair index and results are gathered in pair order.

Paired partite work the same way: partita j is a `cirulla.Game` seeded with
`partita_seed(seed, j)`, first dealer j % players, played once per seating. A Game
shuffles its k-th smazzata from (game seed, k), so every play of the partita sees
the same decks at the same indexes however long it lasts (checked as it runs).

Cirulo (`game="cirulo"`, 4 to 6 players, no sides) uses the 3-player design for
any number of players: A alone in each seat against B everywhere else, then B
alone in each seat (2 * players plays of every deck, play i and play players + i
mirror images). A play's margin is A's mean balance for the hand minus B's
(points: share of the pot less coins paid in, CI5); every hand starts with an
empty pot. Paired partite are not offered for Cirulo.

A budget in seconds makes a bot depend on the machine's speed and load: such a
run is not reproducible, and it should use no more processes than free cores.
Statistics (normal intervals, Wilson for win rates) are in `stats.py`. The
command: `cirulla arena A B [--players 4 --preset cirulla --pairs 100 ...]`, or
`cirulla arena heuristic random --game cirulo --players 5 --deck poker52`.
"""

from __future__ import annotations

from .cli import add_cli, main, parse_budget, spec_for
from .config import ArenaConfig, BotSpec, deck_seed, partita_seed, seatings
from .play import play_pair, play_partita_pair, run_arena
from .report import plot_running, result_table
from .results import (
    CONFIDENCE,
    ArenaProgress,
    ArenaResult,
    PairResult,
    PartitaPairResult,
    PartitaPlay,
    PlayResult,
)

__all__ = [
    "CONFIDENCE",
    "ArenaConfig",
    "ArenaProgress",
    "ArenaResult",
    "BotSpec",
    "PairResult",
    "PartitaPairResult",
    "PartitaPlay",
    "PlayResult",
    "add_cli",
    "deck_seed",
    "main",
    "parse_budget",
    "partita_seed",
    "play_pair",
    "play_partita_pair",
    "plot_running",
    "result_table",
    "run_arena",
    "seatings",
    "spec_for",
]
