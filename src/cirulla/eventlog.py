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
import re
from dataclasses import dataclass
from typing import Any, Final

import orjson

__all__ = ["GENESIS", "ChainError", "LogRecord", "canonical_json", "chain_hash", "verify_chain"]

GENESIS: Final = "0" * 64


class ChainError(ValueError):
    """A log whose versions or hashes do not follow on."""


#: orjson refuses (TypeError, so json takes over) subclasses of the builtin types,
#: dataclasses and datetimes, which json would spell differently or refuse.
_ORJSON_OPTIONS: Final = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)
#: A float in exponent form, or below 1e-4 in fixed form (orjson writes 1e-05 as
#: 0.00001 and 1e-07 as 1e-7). A match inside a string only costs the slow path.
_RISKY_FLOAT: Final = re.compile(r"[0-9]e[-+]|0\.0000")


def _json_canonical(value: Any) -> str:
    """The canonical spelling by definition: every stored hash was taken over it."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _orjson_canonical(value: Any) -> tuple[bytes, str] | None:
    """`_json_canonical(value)` (UTF-8 and text) by orjson, or None where orjson might
    spell it otherwise; several times faster than json.

    orjson agrees with json on strings (the same escapes, nothing at or above U+007F
    escaped), key order (by code point), ints and every float's digits. It raises on
    non-str keys, ints beyond 64 bits and lone surrogates; writes floats of decimal
    exponent -5 to -9 its own way (found by `_RISKY_FLOAT`); and writes NaN and the
    infinities as null, so a value whose output holds "null" must read back equal.
    One gap, for non-JSON values only: orjson spells a plain Enum or a UUID, which
    json refuses, so canonical_json does too unless its output holds "null".
    """
    try:
        out = orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError is one
        return None
    text = out.decode()  # str searches are cheaper than bytes ones
    if ("e-" in text or "e+" in text or "0.0000" in text) and _RISKY_FLOAT.search(text):
        return None
    if "null" in text and orjson.loads(out) != value:  # None != NaN
        return None
    return out, text


def canonical_json(value: Any) -> str:
    """The one JSON spelling of `value` that hashes are taken over."""
    fast = _orjson_canonical(value)
    return fast[1] if fast is not None else _json_canonical(value)


def chain_hash(prev: str, version: int, type: str, data: dict[str, Any], at: int) -> str:
    record = {"version": version, "type": type, "data": data, "at": at}
    fast = _orjson_canonical(record)
    body = fast[0] if fast is not None else _json_canonical(record).encode()
    return hashlib.sha256(prev.encode() + b"\n" + body).hexdigest()


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
