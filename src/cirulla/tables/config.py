"""What a table is created with: game and preset, rule options, seats, clocks, privacy."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..bots.levels import LEVELS
from ..rules import PRESETS, Rules

__all__ = ["TableConfig"]


class TableConfig(BaseModel):
    """A table's settings, checked in full before the table exists (a bad one changes nothing).

    The partita's length is a rule option (`target` points or `hands` smazzate);
    "carte viste" and "carte scoperte" (O1, O2) are rule options too.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field("", max_length=40)
    preset: str = "cirulla"
    options: dict[str, Any] = Field(default_factory=dict)
    players: int = Field(4, ge=2, le=4)
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
        rules = self.rules()  # ValueError names a bad option
        rules.check_players(self.players)
        for seat in self.bots:
            if not 0 <= seat < self.players:
                raise ValueError(f"bot seat {seat} is not a seat from 0 to {self.players - 1}")
        if len(self.bots) >= self.players:
            raise ValueError("at least one seat must be left for a person")
        return self

    def rules(self) -> Rules:
        return Rules.preset(self.preset).replace(**self.options)

    @property
    def game(self) -> str:
        return self.rules().game
