"""Which table cards a played card may take (P1-P6, SC3), as bitmasks of table positions.

The subset sums of the table are computed once per table and cached by the
tuple of its capture values: the same few tables come back again and again,
in play and far more in the bots' search.
"""

from __future__ import annotations

from typing import Final

__all__ = ["capture_masks", "captures_by_value", "subset_sums"]

_MAX_SUM: Final = 14  # no capture needs more: a sum to 10 (P2) or to 15 - 1 (P3)
# Caches hold tuples of ints, which the garbage collector stops tracking: a big
# cache of lists would make every full collection walk it.
_cache: dict[tuple[int, ...], dict[int, tuple[int, ...]]] = {}


def subset_sums(values: tuple[int, ...]) -> dict[int, tuple[int, ...]]:
    """Map each sum 1..14 to the masks of the table positions whose values add up to it."""
    found = _cache.get(values)
    if found is not None:
        return found
    sums: dict[int, list[int]] = {0: [0]}
    for i, v in enumerate(values):
        bit = 1 << i
        # Each card joins only the subsets made before it: collect first, then merge.
        added = [
            (s + v, [m | bit for m in masks]) for s, masks in sums.items() if s + v <= _MAX_SUM
        ]
        for t, extended in added:
            have = sums.get(t)
            if have is None:
                sums[t] = extended
            else:
                have.extend(extended)
    del sums[0]
    result = {s: tuple(sorted(masks)) for s, masks in sums.items()}
    if len(_cache) > 200_000:
        _cache.clear()
    _cache[values] = result
    return result


def capture_masks(
    value: int,
    table: tuple[int, ...],
    *,
    scopa: bool = False,
    ace_choice: bool = False,
    sums: dict[int, tuple[int, ...]] | None = None,
) -> list[int]:
    """Every capture a card of capture `value` can make on a table of capture values.

    Cirulla: equal (P1) and sums (P2) are the subsets adding up to `value`, the
    fifteens (P3) those adding up to 15 - `value`; an ace takes an ace, or all
    the table when it holds none (P4; with `ace_choice` also any fifteen).
    Scopa (SC3): a single equal card when there is one, otherwise any sum.
    Masks are distinct sets of positions, so two equal cards give two captures (P5).
    """
    if not table:
        return []
    if sums is None:
        sums = subset_sums(table)
    if scopa:
        same = sums.get(value, ())
        singles = [m for m in same if m & (m - 1) == 0]
        return singles or list(same)
    if value == 1:
        aces = [1 << i for i, v in enumerate(table) if v == 1]
        out = aces if aces else [(1 << len(table)) - 1]
        if ace_choice:
            out = out + [m for m in sums.get(14, ()) if m not in out]
        return out
    return [*sums.get(value, ()), *sums.get(15 - value, ())]


_by_value: dict[tuple[bool, bool], dict[tuple[int, ...], tuple[tuple[int, ...], ...]]] = {}


def captures_by_value(
    table: tuple[int, ...], scopa: bool, ace_choice: bool
) -> tuple[tuple[int, ...], ...]:
    """`capture_masks` for every played value 1..10 (index 0 unused), cached per table."""
    cache = _by_value.get((scopa, ace_choice))
    if cache is None:
        cache = _by_value[scopa, ace_choice] = {}
    found = cache.get(table)
    if found is not None:
        return found
    sums = subset_sums(table)
    found = tuple(
        tuple(capture_masks(v, table, scopa=scopa, ace_choice=ace_choice, sums=sums)) if v else ()
        for v in range(11)
    )
    if len(cache) > 200_000:
        cache.clear()
    cache[table] = found
    return found
