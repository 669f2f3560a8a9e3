"""`cirulla arena`: the subcommand's options, its progress bar and its output."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ...cirulo import CiruloRules
from ...rules import Rules
from .. import names
from ..base import Budget
from .config import ArenaConfig, BotSpec
from .play import run_arena
from .report import _fmt, _unit, plot_running, result_table
from .results import ArenaProgress


def parse_budget(text: str) -> Budget:
    """'200' -> 200 iterations per move, '0.2s' -> 0.2 seconds per move."""
    text = text.strip().lower()
    try:
        if text.endswith("s"):
            return Budget(seconds=float(text[:-1]))
        return Budget(iterations=int(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"bad budget {text!r}: iterations (e.g. 200) or seconds with 's' (e.g. 0.2s): {exc}"
        ) from None


def _count(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {value}")
        return value

    return parse


def add_cli(subparsers: Any) -> argparse.ArgumentParser:
    """Add `arena` to a `cirulla` subparsers object; its handler is `args.func`."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "arena",
        help="bot A against bot B on paired decks",
        description="Play bot A against bot B: every deck twice with the sides swapped "
        "(six times with 3 players), so the luck of the cards cancels.",
    )
    p.add_argument("a", help="bot A: a registered name (e.g. greedy) or a level (e.g. campione)")
    p.add_argument("b", help="bot B")
    p.add_argument(
        "--game",
        choices=("cirulla", "cirulo"),
        default="cirulla",
        help="cirulla (with --preset) or cirulo, the Spanish trick game (4-6 players)",
    )
    p.add_argument("--players", type=int, choices=(2, 3, 4, 5, 6), default=4)
    p.add_argument("--preset", choices=Rules.presets(), default="cirulla")
    p.add_argument(
        "--deck",
        choices=("spanish48", "poker52"),
        default="spanish48",
        help="Cirulo's deck (only with --game cirulo)",
    )
    p.add_argument("--pairs", type=_count(0), default=100, help="paired decks (default 100)")
    p.add_argument(
        "--partite", type=_count(0), default=0, help="paired partite to the target (default 0)"
    )
    for side in ("a", "b"):
        p.add_argument(
            f"--budget-{side}",
            type=parse_budget,
            default=None,
            metavar="BUDGET",
            help=f"bot {side.upper()}'s budget per move: iterations (200) or seconds (0.2s)",
        )
    p.add_argument("--seed", type=_count(0), default=0, help="base seed (default 0)")
    p.add_argument("--processes", type=_count(1), default=1, help="worker processes (default 1)")
    p.add_argument("--json", metavar="PATH", help="write every figure and the config as JSON")
    p.add_argument("--plot", metavar="PATH", help="write a PNG of the running margin")
    p.add_argument("--quiet", action="store_true", help="no progress bar or table: one line")
    p.set_defaults(func=_cmd_arena, arena_parser=p)
    return p


def _progress_text(update: ArenaProgress) -> str:
    e = update.margin
    text = f"{update.phase}: A-B {_fmt(e.mean)}"
    if e.low is not None:
        text += f" [{_fmt(e.low)} .. {_fmt(e.high)}]"
    if update.wins is not None:
        text += f", won {update.wins[0]}/{update.wins[1]}"
    return escape(text)


def spec_for(name: str, budget: Budget | None = None) -> BotSpec:
    """A bot name, or a player level (facile, normale, difficile, campione) with its
    bot, options and budget; `budget` overrides the level's."""
    from ..levels import LEVELS

    level = LEVELS.get(name)
    if level is None or name in names():
        return BotSpec(name, budget)
    return BotSpec(level.bot, budget or level.budget, dict(level.options))


def _cmd_arena(args: argparse.Namespace) -> int:
    err = Console(stderr=True)
    allowed = (4, 5, 6) if args.game == "cirulo" else (2, 3, 4)
    if args.players not in allowed:  # a usage error, as argparse's choices would give
        parser: argparse.ArgumentParser = args.arena_parser
        parser.error(
            f"argument --players: {args.game} is for {', '.join(map(str, allowed))} players,"
            f" not {args.players}"
        )
    for option in ("json", "plot"):
        path = getattr(args, option)
        if path is not None and not Path(path).resolve().parent.is_dir():
            err.print(f"[red]error: --{option}: no directory for {escape(path)}[/red]")
            return 2
    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        err.print("[red]error: --plot needs matplotlib (pip install matplotlib)[/red]")
        return 2
    cirulo = args.game == "cirulo"
    config = ArenaConfig(
        a=BotSpec(args.a, args.budget_a) if cirulo else spec_for(args.a, args.budget_a),
        b=BotSpec(args.b, args.budget_b) if cirulo else spec_for(args.b, args.budget_b),
        players=args.players,
        preset=args.preset,
        pairs=args.pairs,
        partite=args.partite,
        seed=args.seed,
        processes=args.processes,
        game=args.game,
        cirulo=CiruloRules(deck=args.deck) if cirulo else None,
    )
    try:
        config.check()
    except ValueError as exc:
        err.print(f"[red]error: {escape(str(exc))}[/red]")
        return 2
    if args.quiet:
        result = run_arena(config)
    else:
        # No auto-refresh thread: the pool forks while the bar is shown.
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=err,
            auto_refresh=False,
            transient=False,
        ) as bar:
            tasks = {
                phase: bar.add_task(phase, total=total)
                for phase, total in (("smazzate", config.pairs), ("partite", config.partite))
                if total
            }
            shown = [0.0]

            def report(update: ArenaProgress) -> None:
                bar.update(
                    tasks[update.phase], completed=update.done, description=_progress_text(update)
                )
                now = time.monotonic()
                if now - shown[0] > 0.1 or update.done == update.total:
                    shown[0] = now
                    bar.refresh()

            result = run_arena(config, report)
    data = result.to_dict()
    if args.json is not None:
        Path(args.json).write_text(json.dumps(data, indent=1) + "\n")
    if args.plot is not None and result.pairs:
        plot_running(result, args.plot)
    out = Console()
    if args.quiet:
        m = result.margin()
        line = f"A-B per {_unit(config)} {_fmt(m.mean)}" if result.pairs else "no smazzate"
        if m.low is not None:
            line += f" (95% {_fmt(m.low)} .. {_fmt(m.high)})"
        if result.partite:
            t = result.partite_tally()
            line += f"; partite won by A {t.won}/{t.played}"
        out.print(escape(line))
    else:
        out.print(result_table(result))
        for option, what in (("json", "JSON"), ("plot", "plot")):
            path = getattr(args, option)
            if path is not None and (option == "json" or result.pairs):
                out.print(f"{what} written to {escape(path)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m cirulla.bots.arena A B ...`: the subcommand without the rest of the CLI."""
    parser = argparse.ArgumentParser(prog="cirulla")
    add_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["arena", *(sys.argv[1:] if argv is None else argv)])
    handler: Callable[[argparse.Namespace], int] = args.func
    return handler(args)
