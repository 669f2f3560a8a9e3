"""What an arena run plays: the bots of each side, the rules and counts, the seatings of
a deck and the seeds of decks, partite and bots (the design is in the package doc)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...cirulo import CiruloRules
from ...cirulo import bots as cirulo_bots
from ...game import derived_seed
from ...rules import Rules
from .. import get
from ..base import Bot, Budget


@dataclass(frozen=True)
class BotSpec:
    """How to make one side's bots: a registered name (or a `factory` taking
    seed=, budget= and the options), a budget per move and options.

    With several processes a factory must pickle (a module-level class or function).
    """

    name: str
    budget: Budget | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    factory: Callable[..., Bot] | None = None

    def make(self, seed: int) -> Bot:
        if self.factory is None:
            return get(self.name, seed=seed, budget=self.budget, **self.options)
        return self.factory(seed=seed, budget=self.budget, **self.options)

    def make_cirulo(self, seed: int) -> cirulo_bots.CiruloBot:
        """The same, from the Cirulo bots (`cirulla.cirulo.bots`)."""
        if self.factory is None:
            return cirulo_bots.get(self.name, seed=seed, budget=self.budget, **self.options)
        bot = self.factory(seed=seed, budget=self.budget, **self.options)
        if not isinstance(bot, cirulo_bots.CiruloBot):
            raise ValueError(f"bot {self.name!r} is not a Cirulo bot")
        return bot

    def to_dict(self) -> dict[str, Any]:
        budget = self.budget
        return {
            "name": self.name,
            "budget": None
            if budget is None
            else {"iterations": budget.iterations, "seconds": budget.seconds},
            "options": dict(self.options),
        }


def _spec(bot: BotSpec | str) -> BotSpec:
    return bot if isinstance(bot, BotSpec) else BotSpec(bot)


@dataclass(frozen=True)
class ArenaConfig:
    """An arena run. `a` and `b` are bot names or `BotSpec`s; `pairs` is the number of
    decks (each played by every seating, see `seatings`); `partite` the number of
    paired partite; `preset` a `Rules.presets()` name or a `Rules`. `game="cirulo"`
    plays Cirulo hands with `cirulo` rules (default `CiruloRules()`), no partite."""

    a: BotSpec | str
    b: BotSpec | str
    players: int = 4
    preset: str | Rules = "cirulla"
    pairs: int = 100
    partite: int = 0
    seed: int = 0
    processes: int = 1
    game: str = "cirulla"
    cirulo: CiruloRules | None = None

    @property
    def cirulo_rules(self) -> CiruloRules:
        return self.cirulo if self.cirulo is not None else CiruloRules()

    @property
    def bot_a(self) -> BotSpec:
        return _spec(self.a)

    @property
    def bot_b(self) -> BotSpec:
        return _spec(self.b)

    @property
    def rules(self) -> Rules:
        return self.preset if isinstance(self.preset, Rules) else Rules.preset(self.preset)

    def check(self) -> None:
        """ValueError naming the problem: bad counts, preset, players or bots."""
        for name in ("pairs", "partite", "seed"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, not {value!r}")
        if self.pairs == 0 and self.partite == 0:
            raise ValueError("nothing to play: pairs and partite are both 0")
        if (
            not isinstance(self.processes, int)
            or isinstance(self.processes, bool)
            or self.processes < 1
        ):
            raise ValueError(f"processes must be a positive integer, not {self.processes!r}")
        if self.game == "cirulo":
            self.cirulo_rules.check_players(self.players)
            if self.partite:
                raise ValueError("paired partite are not offered for Cirulo: use pairs")
            for spec in (self.bot_a, self.bot_b):
                spec.make_cirulo(0)  # an unknown name or a bad option fails here
            return
        if self.game != "cirulla":
            raise ValueError(f"game must be 'cirulla' or 'cirulo', not {self.game!r}")
        if self.players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, not {self.players!r}")
        self.rules.check_players(self.players)
        for spec in (self.bot_a, self.bot_b):
            spec.make(0)  # an unknown name or a bad option fails here, not in a worker

    def to_dict(self) -> dict[str, Any]:
        if self.game == "cirulo":
            preset: str | None = None
            rules_dict = self.cirulo_rules.to_dict()
        else:
            rules = self.rules
            preset = self.preset if isinstance(self.preset, str) else rules.preset_name()
            rules_dict = rules.to_dict()
        return {
            "a": self.bot_a.to_dict(),
            "b": self.bot_b.to_dict(),
            "game": self.game,
            "players": self.players,
            "preset": preset,
            "rules": rules_dict,
            "pairs": self.pairs,
            "partite": self.partite,
            "seed": self.seed,
            "processes": self.processes,
            "seatings": [list(s) for s in seatings(self.players, self.game)],
        }


def seatings(players: int, game: str = "cirulla") -> tuple[tuple[int, ...], ...]:
    """A's seats in each play of a deck (B has the others); see the module doc."""
    if game == "cirulo":  # A alone in each seat, then B alone in each seat
        CiruloRules().check_players(players)
        alone = tuple((s,) for s in range(players))
        return alone + tuple(tuple(t for t in range(players) if t != s) for s in range(players))
    if players == 2:
        return ((0,), (1,))
    if players == 4:
        return ((0, 2), (1, 3))
    if players == 3:
        return ((0,), (1,), (2,), (1, 2), (0, 2), (0, 1))
    raise ValueError(f"players must be 2, 3 or 4, not {players!r}")


def deck_seed(seed: int, index: int) -> int:
    """The shuffle seed of deck `index` (the same for all its plays)."""
    return derived_seed(seed, "arena:deck", index)


def partita_seed(seed: int, index: int) -> int:
    """The Game seed of paired partita `index` (the same for all its plays)."""
    return derived_seed(seed, "arena:partita", index)


def _bot_seed(seed: int, what: str, index: int, play: int, seat: int) -> int:
    return derived_seed(seed, f"arena:{what}-bot:{play}:{seat}", index)
