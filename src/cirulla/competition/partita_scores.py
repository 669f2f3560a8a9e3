"""Each partita of a tournament match as the bracket shows it: the points each side
made, the spareggi (E3) apart, and how it ended.

The log holds only each match's result (tournament_log.py); the partite themselves
are the tables' game records, public to whoever may see the tournament once
finished (gateway/history.py), so the view is made from them and nothing else.
"""

from __future__ import annotations

from typing import Any

from ..game import Game

__all__ = ["partita_score", "unscored"]


def _spareggi_played(game: Game) -> int:
    """How many of the partita's smazzate were spareggi (E3): the last ones."""
    if game.forfeit_result is None:
        return game.spareggio
    # A timeout or abandon ends the partita where it stands and the engine then
    # reports no spareggio; its finished smazzate still say which spareggio was due:
    # begun (the halted smazzata) or not yet dealt (the last smazzata is over).
    due = game.spareggio_due
    return due if not game.deals[-1].is_over else max(0, due - 1)


def partita_score(table: str, game: Game) -> dict[str, Any]:
    """A finished two-sided partita: `points` per side before the spareggi, each
    finished spareggio's points per side, the winning side and why it won."""
    deals = game.deals
    spareggi = _spareggi_played(game)
    regular = deals[: len(deals) - spareggi] if spareggi else deals
    points = [0] * game.sides
    for deal in regular:
        if deal.is_over:
            for side, p in enumerate(deal.score().totals):
                points[side] += p
    return {
        "table": table,
        "status": "finished",
        "points": points,
        "spareggi": [d.score().totals for d in deals[len(regular) :] if d.is_over],
        "winner": game.winner,
        "end": game.end_reason,
    }


def unscored(table: str, finished: bool) -> dict[str, Any]:
    """A partita still being played (its table only: private until it ends), or one
    over whose record is not at hand yet."""
    return {
        "table": table,
        "status": "finished" if finished else "playing",
        "points": None,
        "spareggi": [],
        "winner": None,
        "end": None,
    }
