"""Rich renderings for the terminal: score sheets, rule tables, move lists."""

from __future__ import annotations

from rich.table import Table

from .rules import OPTIONS, PRESETS, Rules
from .scoring import ITEMS, Score

__all__ = ["options_table", "presets_table", "score_table", "side_name"]

_ITEM_LABELS = {
    "scope": "Scope",
    "bonus": "Accusi (bonus)",
    "cards": "Carte",
    "diamonds": "Denari",
    "settebello": "Settebello",
    "primiera": "Primiera",
    "grande": "Grande",
    "piccola": "Piccola",
    "total": "Total",
}


def side_name(side: int, players: int) -> str:
    if players == 4:
        return f"seats {side} + {side + 2}"
    return f"seat {side}"


def score_table(score: Score, players: int, title: str = "Score sheet") -> Table:
    """The score sheet (S9): every item per side, with what was counted."""
    table = Table(title=title)
    table.add_column("item")
    for side in range(len(score.sides)):
        table.add_column(side_name(side, players), justify="right")
    for item in ITEMS:
        row = [_ITEM_LABELS[item]]
        for side, points in enumerate(score.sides):
            detail = _detail(score, side, item)
            row.append(f"{points[item]}{detail}")
        table.add_row(*row, style="bold" if item == "total" else None)
    return table


def _detail(score: Score, side: int, item: str) -> str:
    d = score.details[side]
    if item == "cards":
        return f"  ({d['cards']} cards)"
    if item == "diamonds":
        return f"  ({d['diamonds']} denari)"
    if item == "primiera":
        return f"  ({d['primiera'] if d['primiera'] is not None else '-'})"
    return ""


def options_table(rules: Rules | None = None) -> Table:
    defaults = Rules()
    table = Table(title="Rule options" if rules is None else "Rule options of these rules")
    table.add_column("option")
    table.add_column("default")
    if rules is not None:
        table.add_column("value")
    table.add_column("rule")
    table.add_column("meaning")
    for opt in OPTIONS:
        row = [opt.name, repr(getattr(defaults, opt.name))]
        if rules is not None:
            value = getattr(rules, opt.name)
            changed = value != getattr(defaults, opt.name)
            row.append(f"[bold]{value!r}[/bold]" if changed else repr(value))
        row += [opt.rule, opt.meaning]
        table.add_row(*row)
    return table


def presets_table() -> Table:
    defaults = Rules()
    table = Table(title="Presets")
    table.add_column("preset")
    table.add_column("players")
    table.add_column("options (besides the defaults)")
    for name, rules in PRESETS.items():
        changed = [
            f"{o.name}={getattr(rules, o.name)!r}"
            for o in OPTIONS
            if getattr(rules, o.name) != getattr(defaults, o.name)
        ]
        players = ", ".join(str(n) for n in (2, 3, 4) if _plays_with(rules, n))
        table.add_row(name, players, ", ".join(changed) or "none (the platform rules)")
    return table


def _plays_with(rules: Rules, players: int) -> bool:
    try:
        rules.check_players(players)
    except ValueError:
        return False
    return True
