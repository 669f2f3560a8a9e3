"""`cirulla tournament run`: a whole tournament of bots, offline, with its record."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..rules import Rules
from .runner import BOT_CHOICES, TournamentRun, run_tournament
from .state import FORMATS, TournamentConfig

__all__ = ["add_cli", "parse_entrants", "parse_option"]


def parse_entrants(text: str) -> list[tuple[str, int]]:
    """'difficile:4,normale:4' -> [('difficile', 4), ('normale', 4)]."""
    out: list[tuple[str, int]] = []
    for part in text.split(","):
        level, sep, count = part.strip().partition(":")
        if not sep:
            raise argparse.ArgumentTypeError(f"expected LEVEL:COUNT, not {part.strip()!r}")
        if level not in BOT_CHOICES:
            raise argparse.ArgumentTypeError(
                f"unknown level {level!r} (levels and bots: {', '.join(BOT_CHOICES)})"
            )
        try:
            n = int(count)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{level}: count {count!r} is not a number") from None
        if n < 1:
            raise argparse.ArgumentTypeError(f"{level}: count must be at least 1, not {n}")
        out.append((level, n))
    return out


def parse_option(text: str) -> tuple[str, Any]:
    """'NAME=VALUE' -> (name, value): true/false, none, whole numbers, comma lists of
    whole numbers (stages=6,3), anything else a string (wild_card=7D)."""
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not {text!r}")
    raw = raw.strip()
    low = raw.lower()
    value: Any
    if low in ("true", "yes", "on"):
        value = True
    elif low in ("false", "no", "off"):
        value = False
    elif low in ("none", "null"):
        value = None
    else:
        try:
            numbers = [int(x) for x in raw.split(",")]
        except ValueError:
            value = raw
        else:
            value = tuple(numbers) if "," in raw or name == "stages" else numbers[0]
    return name, value


def add_cli(subparsers: Any) -> argparse.ArgumentParser:
    """Add `tournament` (with `run`) to the `cirulla` subparsers."""
    top: argparse.ArgumentParser = subparsers.add_parser(
        "tournament", help="tournaments of bots: knockout, Swiss, round robin"
    )
    sub = top.add_subparsers(dest="tournament_command", required=True)
    p: argparse.ArgumentParser = sub.add_parser(
        "run",
        help="play a whole tournament of bots and print its bracket or standings",
        description="Play a tournament of bots with the server's pairing, standings and"
        " tie-break rules (docs/tournaments.md). The same seed gives the same tournament.",
    )
    p.add_argument("--format", required=True, choices=FORMATS)
    p.add_argument(
        "--entrants",
        required=True,
        type=parse_entrants,
        metavar="LEVEL:COUNT,...",
        help="e.g. difficile:4,normale:4: entrants e1, e2, ... in that order (seed order)",
    )
    p.add_argument(
        "--players", type=int, choices=(2, 4), default=2, help="4: e1+e2, e3+e4 ... are pairs"
    )
    p.add_argument("--preset", choices=Rules.presets(), default="cirulla")
    p.add_argument(
        "--option",
        type=parse_option,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rules option (cirulla rules lists them), repeatable",
    )
    end = p.add_mutually_exclusive_group()
    end.add_argument("--target", type=int, help="points that end each partita")
    end.add_argument("--hands", type=int, help="smazzate of each partita instead of a target")
    p.add_argument("--rounds", type=int, help="Swiss rounds (default ceil(log2 sides))")
    p.add_argument(
        "--best-of", type=int, choices=(1, 3), default=1, help="knockout matches: 1 or 3 (E5)"
    )
    p.add_argument("--seed", type=int, default=0, help="the tournament's seed (default 0)")
    p.add_argument("--json", metavar="FILE", help="write the tournament record")
    p.add_argument("--quiet", action="store_true", help="print only the winner")
    p.set_defaults(func=_cmd_run, tournament_parser=p)
    return p


def config_from_args(args: argparse.Namespace) -> tuple[TournamentConfig, dict[str, str]]:
    """The configuration and each entrant's level; ValueError says what is wrong."""
    rules = Rules.preset(args.preset)
    options = dict(args.option)
    if "knockout" in options:
        raise ValueError("--option knockout: the format sets it (on for knockouts only)")
    if options:
        rules = rules.replace(**options)
    if args.target is not None:
        rules = rules.replace(target=args.target)
    elif args.hands is not None:
        rules = rules.replace(hands=args.hands)
    rules = rules.replace(knockout=args.format == "knockout")
    levels: dict[str, str] = {}
    for level, count in args.entrants:
        for _ in range(count):
            levels[f"e{len(levels) + 1}"] = level
    if args.seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, not {args.seed}")
    config = TournamentConfig(
        format=args.format,
        rules=rules,
        players=args.players,
        entrants=tuple(levels),
        seed=args.seed,
        rounds=args.rounds,
        best_of=args.best_of,
    )
    return config, levels


def _cmd_run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.tournament_parser
    try:
        config, levels = config_from_args(args)
    except ValueError as exc:
        parser.error(str(exc))
    if args.json is not None and not Path(args.json).resolve().parent.is_dir():
        parser.error(f"argument --json: no directory for {args.json}")
    err = Console(stderr=True)
    with err.status("playing the tournament") as status:

        def progress(number: int, done: int, total: int) -> None:
            status.update(f"round {number}: {done}/{total} matches")

        run = run_tournament(config, levels, progress if not args.quiet else None)
    if args.json is not None:
        Path(args.json).write_text(json.dumps(run.record, indent=1) + "\n")
    out = Console()
    if not args.quiet:
        for table in render(run):
            out.print(table)
    winner = run.record["winner"]
    names = " + ".join(f"{e} ({levels[e]})" for e in winner)
    out.print(f"[bold]winner: {escape(names)}[/bold]")
    if args.json is not None:
        out.print(f"record written to {escape(args.json)}")
    return 0


def _side(names: Sequence[str], levels: dict[str, str]) -> str:
    return " + ".join(f"{e} ({levels.get(e, '?')})" for e in names)


def _score(match: dict[str, Any]) -> str:
    parts = []
    for record in match["records"]:
        totals = "-".join(str(t) for t in record["totals"])
        reason = record["end_reason"]
        parts.append(totals if reason in ("target", "hands") else f"{totals} ({reason})")
    return ", ".join(parts)


def render(run: TournamentRun) -> list[Table]:
    """The bracket, round by round, and the standings (with VP and MP for VP formats)."""
    record = run.record
    levels: dict[str, str] = record.get("levels", {})
    knockout = record["format"] == "knockout"
    tables: list[Table] = []
    if knockout:
        for rnd in record["rounds"]:
            left = len(rnd["matches"]) * 2
            name = {2: "final", 4: "semi-finals", 8: "quarter-finals"}.get(left, f"last {left}")
            t = Table(title=f"Round {rnd['round']}: {name}")
            for col in ("match", "side 0", "side 1", "partite", "goes on"):
                t.add_column(col)
            for i, m in enumerate(rnd["matches"], start=1):
                a = _side(m["sides"][0], levels)
                if m["bye"]:
                    t.add_row(str(i), escape(a), "[dim]bye[/dim]", "", escape(a))
                    continue
                b = _side(m["sides"][1], levels)
                goes = a if m["winner"] == 0 else b
                t.add_row(str(i), escape(a), escape(b), escape(_score(m)), escape(goes))
            tables.append(t)
    t = Table(title=f"Standings ({record['format']})")
    cols = ["rank", "side"]
    if not knockout:
        cols += ["VP", "MP"]
        cols += ["Buchholz"] if record["format"] == "swiss" else ["head-to-head"]
    cols += ["played", "won", "byes"]
    for col in cols:
        t.add_column(col, justify="left" if col == "side" else "right")
    seen: set[str] = set()
    for row in record["standings"]:
        if row["entrant"] in seen:
            continue
        seen.update(row["side"])
        cells = [str(row["rank"]), escape(_side(row["side"], levels))]
        if not knockout:
            tie = row.get("buchholz", row.get("head_to_head", 0))
            cells += [str(row["vp"]), str(row["mp"]), str(tie)]
        cells += [str(row["played"]), str(row["won"]), str(row["byes"])]
        t.add_row(*cells)
    tables.append(t)
    return tables
