"""What a table is created with: game and preset, rule options, seats, clocks, privacy."""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..bots.levels import LEVELS
from ..rules import PRESETS
from .games import GameKind, kind_of

__all__ = ["MAX_HANDS", "MAX_POINT_VALUE", "MAX_TARGET", "TableConfig"]

#: Platform bounds of a partita's numbers (tighter than the engine's): the presets use
#: targets of 11 to 101, and the web form offers at most these.
MAX_TARGET = 1000  # points (Cirulla's `target`)
MAX_HANDS = 100  # smazzate or hands (`hands`, Cirulla and Cirulo)
MAX_POINT_VALUE = 1000  # Cirulo's chips per point (`point_value`)


def _shown(value: int) -> str:
    """A number for an error message (a 5,000-digit one would not even print)."""
    return str(value) if abs(value) < 10**15 else "a larger number"


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
    move_seconds: float | None = Field(60.0, ge=1, le=3600, allow_inf_nan=False)
    partita_seconds: float | None = Field(None, ge=10, le=6 * 3600, allow_inf_nan=False)
    private: bool = False
    bots: dict[int, str] = Field(default_factory=dict)  # seat -> level
    # A cash table (RULES.md M1, docs/chips.md): chips a point of difference (0: not a
    # cash table) and the most a player can lose, held in escrow from sitting down.
    stake: int = Field(0, ge=0, strict=True)
    max_loss: int = Field(0, ge=0, strict=True)
    # Rated (docs/ratings.md): counts for the ratings when, besides, no seat is a bot and
    # it is a 1v1 or pairs Cirulla/Scopa/Cirullone partita.
    rated: bool = True

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

    @classmethod
    def for_new_table(cls, raw: Any) -> TableConfig:
        """A config for a table about to be made: within the platform's bounds too (a
        table's log is read back without them, so older tables still rebuild)."""
        return cls.model_validate(raw, context={"new_table": True})

    @model_validator(mode="after")
    def _playable(self, info: ValidationInfo) -> TableConfig:
        if self.game == "cirulo" and self.preset != "cirulla":
            raise ValueError("Cirulo has no presets: set its options (deck, point_value, hands)")
        new = bool(info.context and info.context.get("new_table"))
        if new:
            self._within_bounds()
        rules = self.rules()  # ValueError names a bad option
        rules.check_players(self.players)
        for seat in self.bots:
            if not 0 <= seat < self.players:
                raise ValueError(f"bot seat {seat} is not a seat from 0 to {self.players - 1}")
        if len(self.bots) >= self.players:
            raise ValueError("at least one seat must be left for a person")
        self._cash_table()
        if new and self.move_seconds is None and self.partita_seconds is None:
            # Every table must end: a partita with no clock stalls once a player leaves it.
            raise ValueError(
                "move_seconds, partita_seconds: a table needs a clock; set move_seconds"
                " (each move) or partita_seconds (each seat's partita), or both"
            )
        return self

    def _cash_table(self) -> None:
        """A stake needs a maximum loss and people only (a bot has no wallet); the
        settings' upper bounds are the table manager's to check."""
        if self.stake == 0:
            if self.max_loss != 0:
                raise ValueError("max_loss: only a cash table (stake above 0) has a maximum loss")
            return
        if self.max_loss <= 0:
            raise ValueError("max_loss: a cash table needs a maximum loss above 0")
        if self.game != "cirulla":
            raise ValueError("stake: cash tables are for Cirulla, Scopa and Cirullone only")
        if self.bots:
            raise ValueError("stake: a cash table cannot have bot seats (bots have no chips)")

    def _within_bounds(self) -> None:
        """The platform's bounds, checked before the rules see the numbers (presets fit)."""
        bounds = {"target": MAX_TARGET, "hands": MAX_HANDS, "point_value": MAX_POINT_VALUE}
        for name, most in bounds.items():
            value = self.options.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and value > most:
                raise ValueError(f"options.{name} may be at most {most}, not {_shown(value)}")

    @property
    def kind(self) -> GameKind:
        return kind_of(self.game)

    def rules(self) -> Any:
        """Cirulla's `Rules` (from the preset and options), or Cirulo's `CiruloRules`."""
        return kind_of(self.game).rules(self.preset, self.options)
