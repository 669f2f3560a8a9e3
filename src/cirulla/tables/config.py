"""What a table is created with: game and preset, rule options, seats, clocks, privacy."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..bots.levels import LEVELS
from ..rules import PRESETS
from .games import GameKind, kind_of

__all__ = ["TableConfig"]


class TableConfig(BaseModel):
    """A table's settings, checked in full before the table exists (a bad one changes nothing).

    `game` is "cirulla" (with `preset` choosing Cirulla, Scopa, Cirullone and the
    house-rule sets) or "cirulo" (whose `options` are `cirulla.cirulo.CiruloRules`').

    The partita's length is a rule option (`target` points or `hands` smazzate);
    "carte viste" and "carte scoperte" (O1, O2) are rule options too.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field("", max_length=40)
    game: str = "cirulla"  # or "cirulo", the Spanish trick game (RULES.md section 13)
    preset: str = "cirulla"
    options: dict[str, Any] = Field(default_factory=dict)
    players: int = Field(4, ge=2, le=6)
    move_seconds: float | None = Field(60.0, ge=1, le=3600)
    partita_seconds: float | None = Field(None, ge=10, le=6 * 3600)
    private: bool = False
    bots: dict[int, str] = Field(default_factory=dict)  # seat -> level

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, value: str) -> str:
        if value not in PRESETS:
            raise ValueError(f"unknown preset {value!r} (presets: {', '.join(PRESETS)})")
        return value

    @field_validator("game")
    @classmethod
    def _known_game(cls, value: str) -> str:
        kind_of(value)  # ValueError naming the games
        return value

    @field_validator("bots")
    @classmethod
    def _known_levels(cls, value: dict[int, str]) -> dict[int, str]:
        for seat, level in value.items():
            if level not in LEVELS:
                raise ValueError(
                    f"seat {seat}: unknown bot level {level!r} (levels: {', '.join(LEVELS)})"
                )
        return value

    @model_validator(mode="after")
    def _playable(self) -> TableConfig:
        if self.game == "cirulo" and self.preset != "cirulla":
            raise ValueError("Cirulo has no presets: set its options (deck, point_value, hands)")
        rules = self.rules()  # ValueError names a bad option
        rules.check_players(self.players)
        for seat in self.bots:
            if not 0 <= seat < self.players:
                raise ValueError(f"bot seat {seat} is not a seat from 0 to {self.players - 1}")
        if len(self.bots) >= self.players:
            raise ValueError("at least one seat must be left for a person")
        return self

    @property
    def kind(self) -> GameKind:
        return kind_of(self.game)

    def rules(self) -> Any:
        """Cirulla's `Rules` (from the preset and options), or Cirulo's `CiruloRules`."""
        return kind_of(self.game).rules(self.preset, self.options)
