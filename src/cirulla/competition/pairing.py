"""Who plays whom: knockout brackets, round-robin schedules and Swiss pairings.

Every function here is pure and deterministic: sides are numbered 0, 1, ... in seed
order (entry order: e1 is the top seed), and the same standings and history give the
same pairing, so a finished tournament can be checked by pairing it again
(docs/tournaments.md).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Sequence

__all__ = [
    "Pair",
    "PairingError",
    "bracket_order",
    "default_swiss_rounds",
    "has_perfect_matching",
    "knockout_first_round",
    "knockout_next_round",
    "max_swiss_rounds",
    "round_robin_rounds",
    "round_robin_schedule",
    "swiss_pairing",
]

# (side 0, side 1); side 1 is None for a bye.
Pair = tuple[int, int | None]


class PairingError(ValueError):
    """No pairing meets the rules (for example, every pairing repeats a match)."""


# ---- knockout --------------------------------------------------------------------------
def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order for a power-of-two draw.

    The standard seeding: 1 v size, and each round the best remaining seed meets the
    worst, so seeds 1 and 2 can only meet in the final, 1-4 only from the semi-finals.
    """
    if size < 1 or size & (size - 1):
        raise ValueError(f"a bracket's size is a power of two, not {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def knockout_first_round(sides: int) -> list[Pair]:
    """The first round of a knockout of `sides` sides: byes to the highest seeds.

    The draw is the next power of two; the seeds beyond `sides` are byes, and by the
    standard bracket each one faces a top seed, so seeds 1, 2, ... get the byes.
    """
    if sides < 2:
        raise ValueError(f"a knockout needs at least 2 sides, not {sides}")
    size = 1
    while size < sides:
        size *= 2
    order = bracket_order(size)
    pairs: list[Pair] = []
    for i in range(0, size, 2):
        a, b = order[i] - 1, order[i + 1] - 1
        pairs.append((a, b if b < sides else None))
    return pairs


def knockout_next_round(winners: Sequence[int]) -> list[Pair]:
    """The next round from the previous round's winners, in bracket order."""
    if len(winners) < 2 or len(winners) % 2:
        raise ValueError(f"a knockout round needs an even number of winners, not {len(winners)}")
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]


# ---- round robin -----------------------------------------------------------------------
def round_robin_rounds(sides: int) -> int:
    """Rounds of a single round robin: n - 1, or n when a bye is needed."""
    return sides - 1 if sides % 2 == 0 else sides


def round_robin_schedule(sides: int) -> list[list[Pair]]:
    """Every round of a single round robin by the circle method.

    Side 0 stays put and the others turn one place a round; with an odd count a
    phantom side makes the byes. The fixed side alternates its seat (side 0 / side 1
    of the table) so that it does not always sit first.
    """
    if sides < 2:
        raise ValueError(f"a round robin needs at least 2 sides, not {sides}")
    slots: list[int | None] = list(range(sides))
    if sides % 2:
        slots.append(None)
    n = len(slots)
    rounds: list[list[Pair]] = []
    for r in range(n - 1):
        pairs: list[Pair] = []
        for i in range(n // 2):
            a, b = slots[i], slots[n - 1 - i]
            if i == 0 and r % 2 == 1:
                a, b = b, a
            if a is None:
                a, b = b, None
            assert a is not None
            pairs.append((a, b))
        pairs.sort(key=lambda p: p[1] is None)  # the bye last
        rounds.append(pairs)
        slots = [slots[0], slots[-1], *slots[1:-1]]
    return rounds


# ---- Swiss -----------------------------------------------------------------------------
def default_swiss_rounds(sides: int) -> int:
    """ceil(log2(sides)), at least 1: enough rounds for one side to stand alone."""
    return max(1, (sides - 1).bit_length())


def max_swiss_rounds(sides: int) -> int:
    """The most rounds a Swiss of `sides` sides may have so that a pairing with no
    repeat (and no second bye) always exists, whatever the results.

    Before round r the pairs not yet played form a graph in which every side (and
    the phantom "bye" side, when the count is odd) still has m - r possible
    opponents out of m = sides rounded up to even; by Dirac's theorem that graph has
    a Hamiltonian cycle, hence a perfect matching, while m - r >= m / 2. Beyond it a
    Swiss can reach a round with no legal pairing: play a round robin instead.
    """
    return (sides + 1) // 2


def swiss_pairing(
    ranking: Sequence[int],
    score: Callable[[int], object],
    played: Collection[frozenset[int]],
    had_bye: Collection[int],
) -> tuple[list[Pair], int | None]:
    """Pair one Swiss round; returns the pairs (higher-ranked side first) and the bye.

    `ranking` is every side, best first; `score` gives a side's score group (its VP);
    `played` holds the pairs that have already met. With an odd count the bye goes to
    the lowest-ranked side that has not had one and leaves a legal pairing. Then the
    best unpaired side meets, in order of preference: the top-half/bottom-half
    opponent of its score group (the group's lowest side floating down when the
    group is odd), the rest of the bottom half, the top half upwards, then everyone
    below; a backtracking search keeps the rule that no two sides meet twice.
    PairingError if no pairing keeps it.
    """
    order = list(ranking)
    if len(set(order)) != len(order):
        raise ValueError("a side is ranked twice")
    met = {p for p in played if len(p) == 2}
    if len(order) % 2 == 0:
        pairs = _pair(order, score, met)
        if pairs is None:
            raise PairingError("no pairing of this round avoids a repeated match")
        return pairs, None
    for bye in reversed(order):
        if bye in had_bye:
            continue
        rest = [s for s in order if s != bye]
        if not has_perfect_matching(rest, met):
            continue
        pairs = _pair(rest, score, met)
        if pairs is not None:
            return pairs, bye
    raise PairingError("no bye and pairing of this round avoids a repeat or a second bye")


def _group(rest: list[int], score: Callable[[int], object]) -> list[int]:
    """The top score group of `rest`, plus the next side down when it is odd."""
    top = score(rest[0])
    size = 1
    while size < len(rest) and score(rest[size]) == top:
        size += 1
    if size % 2 and size < len(rest):
        size += 1  # the group's odd side out meets the best of the next group
    return rest[:size]


def _pair(
    order: list[int], score: Callable[[int], object], met: set[frozenset[int]]
) -> list[Pair] | None:
    """The first pairing, in the preference order of `swiss_pairing`, with no repeat.

    A plain backtracking search finds it at once in nearly every round; should it run
    long (late rounds of a long Swiss), the same search is made again with each
    candidate checked first for a perfect matching of the sides left (Edmonds), so it
    never backtracks. Both give the same pairing: the first one that can be completed.
    """
    budget = [5_000]

    def search(rest: list[int], prune: bool) -> list[Pair] | None:
        if not rest:
            return []
        if not prune:
            budget[0] -= 1
            if budget[0] < 0:
                raise _OutOfSteps
        first = rest[0]
        group = _group(rest, score)
        half = len(group) // 2
        preferred = group[half:] + group[half - 1 : 0 : -1] if half else group[1:]
        candidates = preferred + [s for s in rest[1:] if s not in preferred]
        for other in candidates:
            if frozenset((first, other)) in met:
                continue
            remainder = [s for s in rest[1:] if s != other]
            if prune and not has_perfect_matching(remainder, met):
                continue
            tail = search(remainder, prune)
            if tail is not None:
                return [(first, other), *tail]
        return None

    try:
        return search(order, prune=False)
    except _OutOfSteps:
        if not has_perfect_matching(order, met):
            return None
        return search(order, prune=True)


class _OutOfSteps(Exception):
    pass


def has_perfect_matching(sides: Sequence[int], met: Collection[frozenset[int]]) -> bool:
    """Whether `sides` can all be paired with no pair in `met` (Edmonds' blossom
    algorithm for a maximum matching in a general graph, O(n^3))."""
    m = len(sides)
    if m % 2:
        return False
    adj = [
        [j for j in range(m) if j != i and frozenset((sides[i], sides[j])) not in met]
        for i in range(m)
    ]
    match = [-1] * m
    for i in range(m):  # a greedy start; augmenting paths do the rest
        if match[i] == -1:
            for j in adj[i]:
                if match[j] == -1:
                    match[i], match[j] = j, i
                    break
    # An exposed vertex with no augmenting path stays exposed in every maximum matching.
    return all(match[root] != -1 or _augment(root, adj, match) for root in range(m))


def _augment(root: int, adj: list[list[int]], match: list[int]) -> bool:
    """Find an augmenting path from the exposed `root` and flip it (blossoms contracted)."""
    m = len(adj)
    used = [False] * m
    parent = [-1] * m
    base = list(range(m))
    used[root] = True
    queue = deque([root])

    def lca(a: int, b: int) -> int:
        seen = [False] * m
        while True:
            a = base[a]
            seen[a] = True
            if match[a] == -1:
                break
            a = parent[match[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[match[b]]

    def mark(v: int, b: int, child: int, blossom: list[bool]) -> None:
        while base[v] != b:
            blossom[base[v]] = blossom[base[match[v]]] = True
            parent[v] = child
            child = match[v]
            v = parent[match[v]]

    while queue:
        v = queue.popleft()
        for to in adj[v]:
            if base[v] == base[to] or match[v] == to:
                continue
            if to == root or (match[to] != -1 and parent[match[to]] != -1):
                cur = lca(v, to)
                blossom = [False] * m
                mark(v, cur, to, blossom)
                mark(to, cur, v, blossom)
                for i in range(m):
                    if blossom[base[i]]:
                        base[i] = cur
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if match[to] == -1:
                    while to != -1:
                        pv = parent[to]
                        nxt = match[pv]
                        match[to], match[pv] = pv, to
                        to = nxt
                    return True
                used[match[to]] = True
                queue.append(match[to])
    return False
