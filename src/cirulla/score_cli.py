"""`cirulla score`: a score keeper for a partita played with real cards.

The players enter each side's captured cards, scope and accusi after every
smazzata; the engine's `score_piles` makes the sheet and `standing` says who
leads and when the partita is over (E1, E2, E4, S8). Both are pure, so the
web score keeper (gateway/scorekeeper.py) answers with exactly the same sheet.

Pile notation (docs/score-keeper.md): cards as "7D" (rank A 2-7 J Q K, suit
D H C S, any case); "D" a whole suit; "7" the four sevens; "A-5D" a run in a
suit; "-7D" takes a card out again; "rest" (or "*") every card no other pile
holds. Tokens may be separated by spaces or commas.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .cards import RANKS, SUITS, Card, full_deck
from .rules import PRESETS, Rules
from .scoring import Score, score_piles
from .terminal import score_table

__all__ = [
    "Smazzata",
    "Standing",
    "add_cli",
    "instant_winner",
    "keeper_rules",
    "parse_pile",
    "parse_smazzata",
    "sides_for",
    "standing",
]

#: The whole deck in the grid's order (C1): piles are shown and completed in it.
DECK: Final = tuple(full_deck())
#: Smazzate a kept partita may have: far more than any partita needs.
MAX_SMAZZATE: Final = 200
_REST: Final = ("rest", "*", "resto")


# ---- rules and sides -------------------------------------------------------------------


def keeper_rules(preset: str, options: dict[str, Any] | None, players: int) -> Rules:
    """The house rules of a kept partita; ValueError for what cannot be kept."""
    rules = Rules.preset(preset)
    if options:
        if not isinstance(options, dict):
            raise ValueError("options must be an object of rules options")
        try:
            rules = rules.replace(**options)
        except TypeError as exc:  # a value of the wrong kind deep in the options
            raise ValueError(f"bad rules options: {exc}") from None
    rules.check_players(players)
    if rules.knockout:
        raise ValueError(
            "the score keeper does not keep knockout spareggi (E3): the last capture of the"
            " third one decides, and it is not entered"
        )
    return rules


def sides_for(players: int) -> int:
    """Sides of a partita: 4 players are 2 pairs."""
    return 3 if players == 3 else 2


def side_label(side: int) -> str:
    return "ABC"[side]


# ---- partita standing ------------------------------------------------------------------


@dataclass(frozen=True)
class Standing:
    """The partita after some smazzate: totals per side and, once over, the winner."""

    totals: list[int]
    over: bool
    winner: int | None
    reason: str | None  # "target", "hands" or "cappotto"
    smazzate: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "totals": list(self.totals),
            "over": self.over,
            "winner": self.winner,
            "reason": self.reason,
            "smazzate": self.smazzate,
        }


def instant_winner(rules: Rules, score: Score) -> int | None:
    """The side whose cappotto wins the partita at once (S8), if any."""
    if rules.is_scopa or rules.cappotto_scores_only:
        return None
    return score.cappotto


def standing(
    rules: Rules, points: Sequence[Sequence[int]], instant: Sequence[int | None] | None = None
) -> Standing:
    """The partita after smazzate that scored `points` (per side), `instant[k]` the
    cappotto winner of smazzata k. Like Game: E1 target, E2 fixed smazzate, E4 a tie at
    the top plays on, S8 cappotto. A smazzata after the end is a ValueError."""
    sides = len(points[0]) if points else 0
    totals = [0] * sides
    instant = list(instant) if instant is not None else [None] * len(points)
    over: Standing | None = None
    for number, row in enumerate(points, start=1):
        if over is not None:
            raise ValueError(f"the partita was already over after smazzata {over.smazzate}")
        if len(row) != sides:
            raise ValueError(f"smazzata {number} gives {len(row)} sides' points, not {sides}")
        totals = [t + p for t, p in zip(totals, row, strict=True)]
        won = instant[number - 1]
        if won is not None:
            over = Standing(list(totals), True, won, "cappotto", number)
            continue
        if rules.hands is not None:
            decided = number >= rules.hands
        else:
            decided = max(totals) >= (rules.target or 0)
        top = max(totals)
        leaders = [s for s in range(sides) if totals[s] == top]
        if decided and len(leaders) == 1:
            over = Standing(
                list(totals), True, leaders[0], "hands" if rules.hands else "target", number
            )
    return over or Standing(totals, False, None, None, len(points))


# ---- pile notation ---------------------------------------------------------------------


def _token_cards(token: str) -> list[Card]:
    t = token.upper()
    if t in SUITS:
        return [c for c in DECK if c.suit == t]
    if t in RANKS:
        return [c for c in DECK if c.rank == t]
    if len(t) == 4 and t[1] == "-" and t[3] in SUITS and t[0] in RANKS and t[2] in RANKS:
        lo, hi = RANKS.index(t[0]), RANKS.index(t[2])
        if lo > hi:
            raise ValueError(f"bad run {token!r}: from the lower rank up (A 2 ... 7 J Q K)")
        return [Card.parse(r + t[3]) for r in RANKS[lo : hi + 1]]
    try:
        return [Card.parse(t)]
    except ValueError:
        raise ValueError(
            f"bad card {token!r}: write 7D, a suit (D), a rank (7), a run (A-5D), -7D or rest"
        ) from None


def parse_pile(text: str) -> tuple[list[Card], bool]:
    """(cards, takes the rest) of a pile in the notation above."""
    cards: list[Card] = []
    rest = False
    for token in text.replace(",", " ").split():
        if token.lower() in _REST:
            rest = True
        elif token.startswith("-") and len(token) > 1:
            for card in _token_cards(token[1:]):
                if card not in cards:
                    raise ValueError(f"cannot take {card} out of a pile that does not hold it")
                cards.remove(card)
        else:
            # "D 7": shorthands may overlap; a card is in the pile once all the same
            cards.extend(c for c in _token_cards(token) if c not in cards)
    return cards, rest


def complete_rest(piles: list[list[Card]], rest: list[bool]) -> list[list[Card]]:
    """Give the pile marked "rest" every card no other pile holds."""
    takers = [i for i, r in enumerate(rest) if r]
    if len(takers) > 1:
        raise ValueError("only one pile can take the rest")
    if takers:
        held = {c for p in piles for c in p}
        piles[takers[0]] = piles[takers[0]] + [c for c in DECK if c not in held]
    return piles


@dataclass
class Smazzata:
    """One smazzata as entered: piles, scope and accusi (bonus) per side."""

    piles: list[list[Card]]
    scope: list[int]
    bonus: list[int]

    def score(self, rules: Rules) -> Score:
        return score_piles(rules, self.piles, scope=self.scope, bonus=self.bonus)


def _count(text: str, what: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"{what} must be a whole number, not {text!r}") from None
    if n < 0:
        raise ValueError(f"{what} must not be negative, not {n}")
    return n


def parse_smazzata(text: str, names: Sequence[str]) -> Smazzata:
    """ "A: D 7 s=2 a=3 | B: rest s=1": per side (in order, or by label / name) its
    cards, `s=` (scope) and `a=` (accusi); the side written last, left without cards,
    takes the rest."""
    n = len(names)
    parts = [p.strip() for p in text.split("|")]
    if len(parts) != n:
        raise ValueError(f"a smazzata needs {n} sides separated by '|', not {len(parts)}")
    by_side: dict[int, str] = {}
    for position, part in enumerate(parts):
        side = position
        head, sep, body = part.partition(":")
        if sep:
            side = _side_of(head.strip(), names)
            part = body
        if side in by_side:
            raise ValueError(f"side {names[side]} is given twice")
        by_side[side] = part
    last = list(by_side)[-1]
    piles: list[list[Card]] = []
    rest: list[bool] = []
    scope = [0] * n
    bonus = [0] * n
    for side in range(n):
        words = []
        for token in by_side[side].replace(",", " ").split():
            key, eq, value = token.partition("=")
            if eq and key.lower() in ("s", "scope"):
                scope[side] = _count(value, "scope")
            elif eq and key.lower() in ("a", "accusi", "bonus"):
                bonus[side] = _count(value, "accusi")
            else:
                words.append(token)
        cards, takes_rest = parse_pile(" ".join(words))
        if side == last and not cards and not takes_rest:
            takes_rest = True  # the side written last: the cards the others did not take
        piles.append(cards)
        rest.append(takes_rest)
    return Smazzata(complete_rest(piles, rest), scope, bonus)


def _side_of(label: str, names: Sequence[str]) -> int:
    for i, name in enumerate(names):
        if label.lower() in (name.lower(), side_label(i).lower()):
            return i
    raise ValueError(f"unknown side {label!r} (sides: {', '.join(names)})")


def smazzata_from_json(data: object, n: int) -> Smazzata:
    """{"piles": [[...] or "notation", ...], "scope": [...], "bonus": [...]}."""
    if not isinstance(data, dict):
        raise ValueError("each smazzata must be an object with piles, scope and bonus")
    raw = data.get("piles")
    if not isinstance(raw, list) or len(raw) != n:
        raise ValueError(f"piles must be a list of {n} piles")
    piles: list[list[Card]] = []
    rest: list[bool] = []
    for pile in raw:
        cards, takes = parse_pile(pile if isinstance(pile, str) else " ".join(map(str, pile)))
        piles.append(cards)
        rest.append(takes)
    scope = data.get("scope", [0] * n)
    bonus = data.get("bonus", [0] * n)
    return Smazzata(complete_rest(piles, rest), scope, bonus)


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
                scope[side] = _count(_ask(ask, f"{kept.names[side]}: scope", "0"), "scope")
                if not kept.rules.is_scopa:
                    bonus[side] = _count(_ask(ask, f"{kept.names[side]}: accusi", "0"), "accusi")
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
