"""A table's event log: versioned records, each chained to the one before by SHA-256.

The server appends one record per accepted table event; the chain lets anyone who
holds a finished table's log check that no record was changed, dropped or
inserted afterwards (`cirulla verify`). Pure: no I/O, shared by the tables, the
store and the verifier.

A record's hash is SHA-256 over the previous record's hash (hex), a newline, and
the canonical JSON (sorted keys, no spaces, UTF-8) of
``{"version", "type", "data", "at"}``. The first record's `prev` is 64 zeros.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["GENESIS", "ChainError", "LogRecord", "canonical_json", "chain_hash", "verify_chain"]

GENESIS: Final = "0" * 64


class ChainError(ValueError):
    """A log whose versions or hashes do not follow on."""


def canonical_json(value: Any) -> str:
    """The one JSON spelling of `value` that hashes are taken over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(prev: str, version: int, type: str, data: dict[str, Any], at: int) -> str:
    body = canonical_json({"version": version, "type": type, "data": data, "at": at})
    return hashlib.sha256(f"{prev}\n{body}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One table event. `at` is the server's clock in milliseconds since the epoch."""

    version: int
    type: str
    data: dict[str, Any]
    at: int
    prev: str
    hash: str

    @classmethod
    def first(cls, type: str, data: dict[str, Any], at: int) -> LogRecord:
        return cls(1, type, data, at, GENESIS, chain_hash(GENESIS, 1, type, data, at))

    def next(self, type: str, data: dict[str, Any], at: int) -> LogRecord:
        """The record that follows this one."""
        version = self.version + 1
        return LogRecord(
            version, type, data, at, self.hash, chain_hash(self.hash, version, type, data, at)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "type": self.type,
            "data": self.data,
            "at": self.at,
            "prev": self.prev,
            "hash": self.hash,
        }

    @classmethod
    def from_dict(cls, raw: Any) -> LogRecord:
        """A record from its JSON form; ChainError if a field is missing or mistyped."""
        if not isinstance(raw, dict):
            raise ChainError(f"a log record must be an object, not {type(raw).__name__}")
        kinds = {"version": int, "type": str, "data": dict, "at": int, "prev": str, "hash": str}
        for name, kind in kinds.items():
            value = raw.get(name)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise ChainError(f"log record field {name!r} must be {kind.__name__}: {value!r}")
        return cls(raw["version"], raw["type"], raw["data"], raw["at"], raw["prev"], raw["hash"])


def verify_chain(records: list[LogRecord]) -> None:
    """ChainError naming the first record whose version, link or hash is wrong."""
    prev = GENESIS
    for i, rec in enumerate(records):
        if rec.version != i + 1:
            raise ChainError(f"record {i + 1} has version {rec.version}")
        if rec.prev != prev:
            raise ChainError(f"record {rec.version} does not link to the record before it")
        if rec.hash != chain_hash(rec.prev, rec.version, rec.type, rec.data, rec.at):
            raise ChainError(
                f"record {rec.version} ({rec.type}) was altered: its hash does not match"
            )
        prev = rec.hash
