"""A portable, verifiable shuffle driven by SHA-256 / SHAKE-256 of the seed.

Anyone can re-check a deal from its revealed seed in any language, which Python's
`random` module would not allow. The algorithm, version `SHUFFLE_VERSION`:

- the seed is a non-negative integer, written in decimal ASCII (or raw bytes);
- block k (k = 0, 1, ...) is SHA-256(seed_bytes + b":" + str(k)); the stream is
  the blocks' bytes read as big-endian unsigned 32-bit words;
- `randbelow(n)` draws words until one is below 2**32 - (2**32 % n) and returns
  it modulo n (no bias);
- `shuffle(items)`, the k-th shuffle of the stream (k = 0, 1, ...): the n items
  get the keys SHAKE-256(seed_bytes + b":shuffle:" + str(k)) read as n big-endian
  unsigned 64-bit words, and are sorted by key (equal keys, a 2**-58 event for
  40 cards, keep their order). A deal from a seed is shuffle 0 and its re-deals
  after misdeals are shuffles 1, 2, ... of the cards as they lay; a stacked deck
  is not shuffled, so its re-deals are shuffles 0, 1, ...
"""

from __future__ import annotations

import hashlib
import struct
from typing import Final, TypeVar

__all__ = ["SHUFFLE_VERSION", "SeededStream"]

SHUFFLE_VERSION: Final = "shake256-sort-1"
T = TypeVar("T")
_WORDS = struct.Struct(">8I")


class SeededStream:
    """Deterministic random draws from a seed (see the module docstring)."""

    __slots__ = ("_block", "_key", "_pos", "_shuffles", "_words")

    def __init__(self, seed: int | bytes | object) -> None:  # object: checked here
        if isinstance(seed, bytes):
            self._key = seed
        elif isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0:
            self._key = str(seed).encode("ascii")
        else:
            raise ValueError(f"seed must be a non-negative integer or bytes, not {seed!r}")
        self._block = 0
        self._shuffles = 0
        self._words: tuple[int, ...] = ()
        self._pos = 8

    def _word(self) -> int:
        if self._pos == 8:
            digest = hashlib.sha256(self._key + b":" + str(self._block).encode("ascii")).digest()
            self._words = _WORDS.unpack(digest)
            self._block += 1
            self._pos = 0
        word = self._words[self._pos]
        self._pos += 1
        return word

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError("randbelow needs n >= 1")
        limit = 0x100000000 - (0x100000000 % n)
        word = self._word()
        while word >= limit:
            word = self._word()
        return word % n

    def shuffle(self, items: list[T]) -> None:
        """Reorder `items` by random 64-bit keys, the k-th shuffle of this stream using
        SHAKE-256(seed_bytes + b":shuffle:" + str(k)) (see the module docstring)."""
        n = len(items)
        digest = hashlib.shake_256(
            self._key + b":shuffle:" + str(self._shuffles).encode("ascii")
        ).digest(8 * n)
        self._shuffles += 1
        keys = struct.unpack(f">{n}Q", digest)
        order = sorted(range(n), key=keys.__getitem__)
        items[:] = [items[i] for i in order]

    def copy(self) -> SeededStream:
        """An independent stream at the same point (for `Deal.copy`)."""
        new = SeededStream(self._key)
        new._block = self._block
        new._shuffles = self._shuffles
        new._words = self._words
        new._pos = self._pos
        return new
