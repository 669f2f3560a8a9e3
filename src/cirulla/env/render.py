"""Plain-text rendering of a view for the environments' render_mode "ansi"/"human".

It reads a view only, so rendering never shows a card the viewer may not see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["table_text"]


def table_text(
    view: Mapping[str, Any], prefix: Sequence[str] = (), legal: Sequence[str] = ()
) -> str:
    """The table as `view`'s seat (or a spectator) sees it, a few lines of text."""
    seat = view.get("seat")
    who = "spectator" if seat is None else f"player_{seat}"
    lines = [
        f"{view['game']}, {view['players']} players, dealer player_{view['dealer']},"
        f" stage {view['stage'] + 1}/{len(view['stages'])}, mano {view['mano'] + 1},"
        f" deck {view['deck']} (view of {who})"
    ]
    matta = view.get("matta")
    wild = matta["card"] if matta and matta.get("value") is not None else None
    table = " ".join(
        f"{t['card']}={t['value']}" if t["card"] == wild else t["card"] for t in view["table"]
    )
    lines.append(f"table: {table or '-'}")
    if matta and matta.get("value") is not None:
        lines.append(f"matta {matta['card']} counts {matta['value']}")
    for pile in view["piles"]:
        lines.append(
            f"side {pile['side']}: {pile['count']} cards taken, scope {pile['scope']},"
            f" bonus {pile['bonus']}"
        )
    for entry in view["hands"]:
        cards = entry.get("cards")
        shown = " ".join(cards) if cards is not None else f"{entry['count']} cards"
        if entry["declared"]:
            shown += f" (declared {' '.join(entry['declared'])})"
        mark = "*" if entry["seat"] == view["to_move"] else " "
        lines.append(f"{mark} player_{entry['seat']}: {shown}")
    if view.get("is_over"):
        score = view.get("score") or {}
        totals = [side.get("total") for side in score.get("sides", [])]
        lines.append(f"over: points per side {totals}")
    else:
        if prefix:
            lines.append(f"entering: {', '.join(prefix)}")
        if legal:
            lines.append(f"next actions: {', '.join(legal)}")
    return "\n".join(lines)
