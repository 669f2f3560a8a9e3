"""The WebSocket protocol's client commands, validated (docs/protocol.md describes them)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

__all__ = ["COMMAND", "Command"]

ActionId = Annotated[str, Field(min_length=1, max_length=64)]
TableId = Annotated[str, Field(min_length=1, max_length=64)]
Version = Annotated[int, Field(ge=0)]


class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)  # "1" is not a seat

    action: ActionId


class Ping(_Base):
    type: Literal["ping"]


class Lobby(_Base):
    """Receive the list of open tables now and whenever it changes."""

    type: Literal["lobby"]
    watch: bool = True


class Join(_Base):
    """Watch a table (as its player or a spectator); `since` is the last version seen."""

    type: Literal["join"]
    table: TableId
    since: Version | None = None
    invite: str | None = Field(None, max_length=64)


class Leave(_Base):
    """Stop watching a table; before the partita it also frees your seat."""

    type: Literal["leave"]
    table: TableId


class Sit(_Base):
    type: Literal["sit"]
    table: TableId
    version: Version
    seat: Annotated[int, Field(ge=0, le=5)] | None = None
    invite: str | None = Field(None, max_length=64)


class Stand(_Base):
    type: Literal["stand"]
    table: TableId
    version: Version


class Play(_Base):
    """Play a card (capturing what the notation names) or declare: move notation."""

    type: Literal["play"]
    table: TableId
    version: Version
    move: Annotated[str, Field(min_length=1, max_length=64)]


class Abandon(_Base):
    """Leave a partita in play: it ends by E6."""

    type: Literal["abandon"]
    table: TableId
    version: Version


class AutoDeclare(_Base):
    """Switch automatic declaration (B8) for this and future partite."""

    type: Literal["auto_declare"]
    on: bool


Command = Annotated[
    Ping | Lobby | Join | Leave | Sit | Stand | Play | Abandon | AutoDeclare,
    Field(discriminator="type"),
]
COMMAND: TypeAdapter[Any] = TypeAdapter(Command)
