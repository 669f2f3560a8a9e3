"""Draws from a `random.Random` exactly as its own methods draw them, without their
Python layers: the playouts and the samplers are compiled (setup.py) and must decide
the same for the same seed in both builds (tests/test_bots_search_pinned.py)."""

from __future__ import annotations

import random

from ..cards import Card

__all__ = ["below", "shuffle"]


def below(rng: random.Random, n: int) -> int:
    """`rng.randrange(n)` for n >= 1, drawing exactly what it draws (`Random._randbelow`:
    getrandbits of n's bit length until one falls below n), without its Python layers."""
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def shuffle(rng: random.Random, items: list[Card]) -> None:
    """`rng.shuffle(items)`, drawing exactly what it draws (from the last place down,
    each a `_randbelow` of its place + 1), without its Python layers."""
    i = len(items) - 1
    while i > 0:
        j = below(rng, i + 1)
        items[i], items[j] = items[j], items[i]
        i -= 1
