"""Move-tree counts ("perft"), as chess engines keep them: a regression check that
catches any change in legal-move generation, and a speed probe for copy/play."""

from __future__ import annotations

from .deal import Deal

__all__ = ["perft", "perft_divide"]


def perft(deal: Deal, depth: int) -> int:
    """The number of move sequences of length `depth` from this position (fewer where the
    smazzata ends first: an ended line counts once)."""
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"depth must be a whole number >= 0, not {depth!r}")
    if depth == 0 or deal.is_over:
        return 1
    moves = deal.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = deal.copy()
        child.play(move)
        total += perft(child, depth - 1)
    return total


def perft_divide(deal: Deal, depth: int) -> dict[str, int]:
    """perft split by first move: where two engines disagree, this finds the move."""
    if depth < 1:
        raise ValueError("perft_divide needs depth >= 1")
    out: dict[str, int] = {}
    for move in deal.legal_moves():
        child = deal.copy()
        child.play(move)
        out[str(move)] = perft(child, depth - 1)
    return out
