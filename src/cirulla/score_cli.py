"""`cirulla score`: a score keeper for a partita played with real cards.

The players enter each side's captured cards, scope and accusi after every
smazzata, as arguments, a JSON file or at the prompts; the sheets and the standing
come from score_keeping.py, the pure half the web score keeper shares.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .cards import Card
from .rules import PRESETS, Rules
from .score_keeping import (
    MAX_SMAZZATE,
    Smazzata,
    Standing,
    complete_rest,
    instant_winner,
    keeper_rules,
    parse_count,
    parse_pile,
    parse_smazzata,
    side_label,
    sides_for,
    smazzata_from_json,
    standing,
)
from .scoring import Score
from .terminal import score_table

__all__ = ["add_cli"]

# ---- the command -----------------------------------------------------------------------


@dataclass
class Kept:
    """A kept partita: rules, side names and the smazzate entered so far."""

    rules: Rules
    players: int
    names: list[str]
    sheets: list[Score]

    def standing(self) -> Standing:
        return standing(
            self.rules,
            [s.totals for s in self.sheets],
            [instant_winner(self.rules, s) for s in self.sheets],
        )

    def add(self, smazzata: Smazzata) -> Score:
        if self.standing().over:
            raise ValueError(f"the partita is already over after smazzata {len(self.sheets)}")
        if len(self.sheets) >= MAX_SMAZZATE:
            raise ValueError(f"at most {MAX_SMAZZATE} smazzate")
        sheet = smazzata.score(self.rules)
        self.sheets.append(sheet)
        return sheet

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "players": self.players,
            "names": self.names,
            "scores": [s.to_dict() for s in self.sheets],
            **self.standing().to_dict(),
        }


def _option_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null"):
        return None
    try:
        return int(text)
    except ValueError:
        return text


def _options(pairs: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        name, eq, value = pair.partition("=")
        out[name.strip()] = _option_value(value.strip()) if eq else True
    return out


def _names(text: str | None, n: int) -> list[str]:
    if not text:
        return [side_label(i) for i in range(n)]
    names = [x.strip() for x in text.split(",")]
    if len(names) != n or not all(names) or len(set(map(str.lower, names))) != n:
        raise ValueError(f"--names needs {n} different names separated by commas")
    return names


def _print_sheet(out: Console, kept: Kept, sheet: Score) -> None:
    n = len(kept.sheets)
    table = score_table(sheet, kept.players, title=f"Smazzata {n}")
    for i, name in enumerate(kept.names):  # the names the players gave, not seat numbers
        table.columns[i + 1].header = escape(name)
    out.print(table)
    st = kept.standing()
    totals = Table(title="Partita", show_header=True)
    for name in kept.names:
        totals.add_column(escape(name), justify="right")
    totals.add_row(*(str(t) for t in st.totals))
    out.print(totals)
    goal = f"{kept.rules.hands} smazzate" if kept.rules.hands else f"{kept.rules.target} points"
    if st.over and st.winner is not None:
        why = {"cappotto": "cappotto", "hands": goal, "target": goal}[st.reason or "target"]
        out.print(f"[bold]{escape(kept.names[st.winner])} wins the partita ({why})[/bold]")
    elif kept.rules.hands is None and max(st.totals) >= (kept.rules.target or 0):
        out.print(f"tie at the top past {goal}: another smazzata (E1)")


def _load_file(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the file must hold a JSON object")
    return data


def _cmd_score(args: argparse.Namespace) -> int:
    out = Console()
    err = Console(stderr=True)
    try:
        return _run(args, out, input)
    except ValueError as exc:
        err.print(f"[red]error: {escape(str(exc))}[/red]", soft_wrap=True)
        return 2
    except (EOFError, KeyboardInterrupt):
        err.print("stopped")
        return 1


def _run(args: argparse.Namespace, out: Console, ask: Callable[[str], str]) -> int:
    data = _load_file(args.file) if args.file else {}
    interactive = not args.file and not args.smazzata
    preset = data.get("preset", args.preset)
    players = data.get("players", args.players)
    options = {**data.get("options", {}), **_options(args.set or [])}
    if args.target is not None:
        options["target"] = args.target
    if args.hands is not None:
        options["hands"] = args.hands
    if interactive and not args.preset_given:
        preset = _ask(ask, f"Rules ({', '.join(PRESETS)})", preset)
        players = int(_ask(ask, "Players (2, 3, or 4 as 2 pairs)", str(players)))
    rules = keeper_rules(preset, options, players)
    n = sides_for(players)
    names = data.get("names") or _names(args.names, n)
    if not isinstance(names, list) or len(names) != n:
        raise ValueError(f"names must give {n} names")
    kept = Kept(rules, players, [str(x) for x in names], [])
    if interactive:
        return _interactive(kept, out, ask)
    entries: list[Smazzata] = [parse_smazzata(s, kept.names) for s in args.smazzata or []]
    raw = data.get("smazzate", [])
    if not isinstance(raw, list):
        raise ValueError("smazzate must be a list")
    entries = [smazzata_from_json(s, n) for s in raw] + entries
    for number, entry in enumerate(entries, start=1):
        try:
            sheet = kept.add(entry)
        except ValueError as exc:
            raise ValueError(f"smazzata {number}: {exc}") from None
        if not args.json:
            _print_sheet(out, kept, sheet)
    if args.json:
        out.print_json(json.dumps(kept.to_dict()))
    elif not kept.standing().over:
        st = kept.standing()
        out.print(f"partita goes on: {' - '.join(map(str, st.totals))}")
    return 0


def _ask(ask: Callable[[str], str], prompt: str, default: str) -> str:
    answer = ask(f"{prompt} [{default}]: ").strip()
    return answer or default


def _interactive(kept: Kept, out: Console, ask: Callable[[str], str]) -> int:
    n = len(kept.names)
    out.print(
        "Enter each side's captured cards: 7D, a suit D, a rank 7, a run A-5D, -7D to take one"
        " out, 'rest' for the cards left. The last side takes the rest when left empty."
        " 'undo' drops the last smazzata, 'quit' stops."
    )
    while not kept.standing().over:
        number = len(kept.sheets) + 1
        out.print(f"[bold]Smazzata {number}[/bold]")
        piles: list[list[Card]] = []
        rest: list[bool] = []
        scope = [0] * n
        bonus = [0] * n
        side = 0
        while side < n:
            text = ask(f"{kept.names[side]}: cards{' [rest]' if side == n - 1 else ''}: ").strip()
            if text.lower() in ("quit", "q"):
                return 1
            if text.lower() == "undo":
                if kept.sheets:
                    kept.sheets.pop()
                    out.print(f"smazzata {len(kept.sheets) + 1} removed")
                return _interactive(kept, out, ask)
            try:
                cards, takes = parse_pile(text)
                scope[side] = parse_count(_ask(ask, f"{kept.names[side]}: scope", "0"), "scope")
                if not kept.rules.is_scopa:
                    bonus[side] = parse_count(
                        _ask(ask, f"{kept.names[side]}: accusi", "0"), "accusi"
                    )
            except ValueError as exc:
                out.print(f"[red]{escape(str(exc))}[/red]")
                continue
            piles.append(cards)
            rest.append(takes or (side == n - 1 and not cards))
            side += 1
        try:
            sheet = kept.add(Smazzata(complete_rest(piles, rest), scope, bonus))
        except ValueError as exc:
            out.print(f"[red]{escape(str(exc))}: enter the smazzata again[/red]")
            continue
        _print_sheet(out, kept, sheet)
    return 0


class _PresetGiven(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.preset_given = True


def add_cli(sub: Any) -> None:
    p = sub.add_parser(
        "score",
        help="keep the score of a partita played with real cards",
        description="Enter each side's captured cards, scope and accusi after each smazzata;"
        " prints the score sheet and the totals until a side wins. Without --smazzata or"
        " --file it asks for them.",
    )
    p.add_argument("--preset", choices=list(PRESETS), default="cirulla", action=_PresetGiven)
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2, action=_PresetGiven)
    p.add_argument("--target", type=int, help="points that end the partita (E1)")
    p.add_argument("--hands", type=int, help="a fixed number of smazzate instead (E2)")
    p.add_argument(
        "--set",
        action="append",
        metavar="OPTION=VALUE",
        help="another rules option, e.g. piccola_to_seven=true (repeatable)",
    )
    p.add_argument("--names", help="side names, comma separated (default A,B[,C])")
    p.add_argument(
        "--smazzata",
        action="append",
        metavar="'A: CARDS s=N a=N | B: rest'",
        help="one smazzata's piles, scope (s=) and accusi (a=), in order (repeatable)",
    )
    p.add_argument("--file", help="a JSON file: {preset, options, players, names, smazzate}")
    p.add_argument("--json", action="store_true", help="print the sheets and totals as JSON")
    p.set_defaults(func=_cmd_score, preset_given=False)
