"""What a table needs to know of the game it hosts: Cirulla (with Scopa and Cirullone,
which are Cirulla rules) or Cirulo. Both engines have the same shape (`Game`, `Deal`,
`legal_moves`, `play`, `view`, events); this module holds the few places they differ,
so the table, its actor and `cirulla verify` stay game-blind.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any, Final

from ..bots import get as get_bot
from ..bots.base import Budget, SeatView
from ..bots.levels import LEVELS
from ..bots.simple import best_declaration
from ..cirulo import Card as CiruloCard
from ..cirulo import CiruloRules, cirulo_game_record
from ..cirulo import Game as CiruloGame
from ..cirulo import bots as cirulo_bots
from ..cirulo.settlement import amount_json, norm_amount
from ..cirulo.views import filter_event as cirulo_filter_event
from ..explain import why_illegal
from ..game import Game
from ..moves import parse_move
from ..record import game_record
from ..rules import Rules
from ..views import deal_views, filter_event
from .errors import TableError

__all__ = ["GAMES", "CirullaKind", "CiruloKind", "GameKind", "kind_of"]


class GameKind:
    """The Cirulla family: two sides in 4-player games, E6 for timeouts and abandons."""

    name = "cirulla"
    players: tuple[int, ...] = (2, 3, 4)

    def rules(self, preset: str, options: dict[str, Any]) -> Any:
        return Rules.preset(preset).replace(**options)

    def new_game(self, rules: Any, players: int, seed: int, dealer: int | None, deck: Any) -> Any:
        return Game(rules, players, seed=seed, dealer=dealer, deck=deck, deal_seed=seed)

    def side_of(self, seat: int, players: int) -> int:
        return seat % 2 if players == 4 else seat

    def is_over(self, game: Any, forfeit: dict[str, Any] | None) -> bool:
        return bool(game.is_over)

    def forfeit(self, game: Any, side: int, reason: str) -> None:
        game.forfeit(side, reason)

    def totals(self, game: Any, forfeit: dict[str, Any] | None) -> list[Any]:
        settled = game.forfeit_result
        return list(settled.totals) if settled is not None else list(game.totals)

    def winner(self, game: Any, forfeit: dict[str, Any] | None) -> int | None:
        winner: int | None = game.winner
        return winner

    def end_reason(self, game: Any, forfeit: dict[str, Any] | None) -> str | None:
        reason: str | None = game.end_reason
        return reason

    def extra_view(self, game: Any) -> dict[str, Any]:
        return {"spareggio": game.spareggio}

    def score(self, deal: Any) -> dict[str, Any] | None:
        if not deal.is_over:
            return None
        score = deal.score()
        return {
            "sides": [dict(s) for s in score.sides],
            "details": score.details,
            "cappotto": score.cappotto,
            "instant_winner": deal.instant_winner,
        }

    def filter_event(self, event: dict[str, Any], deal: Any, viewer: int | None) -> Any:
        return filter_event(event, deal, viewer)

    def deal_views(
        self, deal: Any, viewers: Iterable[int | None], history: bool
    ) -> dict[int | None, dict[str, Any]]:
        """Each viewer's `deal.view`, made together (see `cirulla.views.deal_views`)."""
        return deal_views(deal, viewers, history=history)

    def check_move(self, deal: Any, notation: str) -> Any:
        try:
            move = parse_move(notation)
        except ValueError as exc:
            raise TableError("bad_move", str(exc)) from None
        legal = deal.legal_moves()
        if move not in legal:
            raise TableError("illegal_move", why_illegal(deal, move, legal))
        return move

    def auto_move(self, deal: Any, seat: int) -> str | None:
        """The declaration the server makes for a player with automatic declaration (B8)."""
        moves = deal.legal_moves()
        if not any(m.kind in ("declare", "pass") for m in moves):
            return None
        best = best_declaration(moves, SeatView(deal.view(seat)))
        if best is not None:
            return str(best)
        if all(m.kind in ("declare", "pass") for m in moves):
            passes = [m for m in moves if m.kind == "pass"]
            if passes:
                return str(passes[0])
        return None

    #: The cheap bot that plays a search bot's move when its worker cannot answer in time
    #: (tables/botpool.py): well under a millisecond a move.
    fallback_level = "difficile"

    def searches(self, level: str) -> bool:
        """Whether `level`'s bot searches for a budget (it then runs in a worker process)."""
        spec = LEVELS.get(level)
        return spec is not None and spec.budget is not None

    def bot(self, level: str, seed: int, max_seconds: float | None = None) -> Any:
        """A new bot of `level`; `max_seconds` bounds its search's time a move."""
        spec = LEVELS.get(level)
        if spec is None:
            raise ValueError(f"unknown level {level!r} (levels: {', '.join(LEVELS)})")
        budget = _capped(spec.budget, max_seconds)
        return get_bot(spec.bot, seed=seed, budget=budget, **spec.options)

    def bot_move(self, bot: Any, view: dict[str, Any]) -> str:
        return str(bot.choose(SeatView(view)))  # a bot sees a seat's view, nothing more

    def record(self, game: Any) -> dict[str, Any]:
        return game_record(game)


class CirullaKind(GameKind):
    pass


#: The Cirulo bot behind each level a player may choose.
CIRULO_LEVELS: Final = {
    "facile": ("random", None),
    "normale": ("heuristic", None),
    "difficile": ("search", cirulo_bots.Budget(iterations=100, seconds=1.0)),
    "campione": ("search", cirulo_bots.Budget(iterations=600, seconds=1.0)),
}


class CiruloKind(GameKind):
    """Cirulo: every player for themselves; a timeout or abandon ends the game (no
    source rules it: the hand in play is void, the balances of the finished hands
    stand, and the pot they carried is shared by the players who stayed)."""

    name = "cirulo"
    players = (4, 5, 6)

    def rules(self, preset: str, options: dict[str, Any]) -> Any:
        return CiruloRules().replace(**options)

    def new_game(self, rules: Any, players: int, seed: int, dealer: int | None, deck: Any) -> Any:
        return CiruloGame(rules, players, seed=seed, dealer=dealer, deck=deck, deal_seed=seed)

    def side_of(self, seat: int, players: int) -> int:
        return seat

    def is_over(self, game: Any, forfeit: dict[str, Any] | None) -> bool:
        return forfeit is not None or bool(game.is_over)

    def forfeit(self, game: Any, side: int, reason: str) -> None:
        return None  # the table's forfeit record ends the game; see `totals`

    def totals(self, game: Any, forfeit: dict[str, Any] | None) -> list[Any]:
        balances: list[Any] = list(game.balances)
        if forfeit is not None:
            finished = [d for d in game.deals if d.is_over]
            pot = finished[-1].settlement().carried if finished else 0
            if game.deal.is_over and len(finished) == len(game.deals):
                pot = game.deal.settlement().carried
            stayed = [s for s in range(len(balances)) if s != forfeit["seat"]]
            if pot:
                share = Fraction(pot) / len(stayed)
                for s in stayed:
                    balances[s] += share
        return [amount_json(norm_amount(b)) for b in balances]

    def winner(self, game: Any, forfeit: dict[str, Any] | None) -> int | None:
        return None  # no sides and no winner: each player ends with a balance

    def end_reason(self, game: Any, forfeit: dict[str, Any] | None) -> str | None:
        if forfeit is not None:
            return str(forfeit["reason"])
        return "hands" if game.is_over else None

    def extra_view(self, game: Any) -> dict[str, Any]:
        return {
            "chips": [amount_json(c) for c in game.chips],
            "pot": amount_json(game.pot),
            "hands": game.hands,
        }

    def score(self, deal: Any) -> dict[str, Any] | None:
        if not deal.is_over:
            return None
        s = deal.settlement()
        j = amount_json
        return {
            "coins": list(s.coins),
            "paid": list(s.paid),
            "pot_in": j(s.pot_in),
            "pot": j(s.pot),
            "receivers": list(s.receivers),
            "share": j(s.share),
            "carried": j(s.carried),
            "balances": [j(b) for b in s.balances],
        }

    def filter_event(self, event: dict[str, Any], deal: Any, viewer: int | None) -> Any:
        return cirulo_filter_event(event, viewer)

    def deal_views(
        self, deal: Any, viewers: Iterable[int | None], history: bool
    ) -> dict[int | None, dict[str, Any]]:
        out: dict[int | None, dict[str, Any]] = {}
        for viewer in viewers:
            view = out[viewer] = deal.view(viewer)
            if not history:
                view.pop("history", None)
        return out

    def check_move(self, deal: Any, notation: str) -> Any:
        try:
            card = CiruloCard.parse(notation, deal.rules.deck)
        except ValueError as exc:
            raise TableError("bad_move", str(exc)) from None
        if card not in deal.legal_moves():
            try:
                deal.copy().play(card)
            except ValueError as exc:
                raise TableError("illegal_move", str(exc)) from None
            raise TableError("illegal_move", f"{notation} cannot be played now")
        return card

    def auto_move(self, deal: Any, seat: int) -> str | None:
        return None

    fallback_level = "normale"

    def searches(self, level: str) -> bool:
        spec = CIRULO_LEVELS.get(level)
        return spec is not None and spec[1] is not None

    def bot(self, level: str, seed: int, max_seconds: float | None = None) -> Any:
        name, budget = CIRULO_LEVELS[level]
        return cirulo_bots.get(name, seed=seed, budget=_capped(budget, max_seconds))

    def bot_move(self, bot: Any, view: dict[str, Any]) -> str:
        return str(bot.choose(cirulo_bots.CiruloView(view)))

    def record(self, game: Any) -> dict[str, Any]:
        return cirulo_game_record(game)


def _capped(budget: Budget | None, seconds: float | None) -> Budget | None:
    """`budget` with its time bounded by `seconds` (the server's CIRULLA_BOT_MOVE_SECONDS)."""
    if budget is None or seconds is None:
        return budget
    limit = seconds if budget.seconds is None else min(budget.seconds, seconds)
    return Budget(iterations=budget.iterations, seconds=limit)


GAMES: Final[dict[str, GameKind]] = {"cirulla": CirullaKind(), "cirulo": CiruloKind()}


def kind_of(game: str) -> GameKind:
    kind = GAMES.get(game)
    if kind is None:
        raise ValueError(f"unknown game {game!r} (games: {', '.join(GAMES)})")
    return kind
