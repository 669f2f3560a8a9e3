"""The WebSocket protocol's client commands, validated (docs/protocol.md describes them)."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator, model_validator

__all__ = ["CHAT_MAX", "COMMAND", "PHRASES", "Command"]

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


#: The quick phrases: ids, each client shows them in its reader's language.
PHRASES = (
    "ciao",
    "bravo",
    "grazie",
    "buona_fortuna",
    "che_fortuna",
    "ben_giocato",
    "peccato",
    "un_attimo",
    "arrivederci",
)
#: The longest chat message, in characters after stripping.
CHAT_MAX = 200


class Chat(_Base):
    """Say something at a table (`table`) or in the lobby (`table` null): a text or a
    quick phrase (docs/chat.md)."""

    type: Literal["chat"]
    table: TableId | None = None
    text: Annotated[str, Field(max_length=4 * CHAT_MAX)] | None = None
    phrase: Literal[PHRASES] | None = None  # type: ignore[valid-type]

    @field_validator("text")
    @classmethod
    def _text(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip()
        if not value:
            raise ValueError("the message is empty")
        if len(value) > CHAT_MAX:
            raise ValueError(f"a message holds at most {CHAT_MAX} characters, not {len(value)}")
        if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in value):
            raise ValueError("a message may not hold control characters")
        return value

    @model_validator(mode="after")
    def _one(self) -> Chat:
        if (self.text is None) == (self.phrase is None):
            raise ValueError("a chat message is either a text or a phrase")
        return self


Command = Annotated[
    Ping | Lobby | Join | Leave | Sit | Stand | Play | Abandon | AutoDeclare | Chat,
    Field(discriminator="type"),
]
COMMAND: TypeAdapter[Any] = TypeAdapter(Command)
