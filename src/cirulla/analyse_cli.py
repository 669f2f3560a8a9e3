"""`cirulla analyse RECORD`: the coach's verdict on every move of a partita.

The coach (`cirulla.bots.coach`, docs/coach.md) judges each move from the mover's view
only. Positions are independent, each with a seed of its own, so they are spread over
worker processes when more than one core is free, with the same result as one process.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .bots.coach import (
    CLASSES,
    DEFAULT_SAMPLES,
    LEAST_SAMPLES,
    analyse_position,
    game_of,
    positions,
    report,
)
from .record import RecordError

__all__ = ["add_cli", "analyse_record", "free_cores"]

_STYLE = {"good": "green", "inaccuracy": "yellow", "mistake": "dark_orange", "blunder": "red"}


def free_cores() -> int:
    """Cores this process may use that the machine's load leaves free (at least 1)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    try:
        busy = round(os.getloadavg()[0])
    except (AttributeError, OSError):
        busy = 0
    return max(1, cores - busy)


def analyse_record(
    record: dict[str, Any],
    *,
    seat: int | None = None,
    samples: int | None = DEFAULT_SAMPLES,
    seconds: float | None = None,
    seed: int = 0,
    least: int = 1,
    processes: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Every move of the record's partita (or of `seat`) judged, and a summary per seat.
    With `seconds`, each move still gets at least `least` draws (see `advise`).

    RecordError if the record does not replay, ValueError for a bad seat or budget."""
    game = game_of(record)
    todo = list(positions(game, seat))
    if not isinstance(least, int) or isinstance(least, bool) or least < 1:
        raise ValueError(f"least must be a positive whole number, not {least!r}")
    job = partial(analyse_position, samples=samples, seconds=seconds, seed=seed, least=least)
    moves: list[dict[str, Any]] = []
    results: Iterable[dict[str, Any]]
    if processes > 1 and len(todo) > 1:
        with concurrent.futures.ProcessPoolExecutor(processes) as pool:
            results = pool.map(job, todo, chunksize=4)
            moves = _collect(results, len(todo), progress)
    else:
        moves = _collect(map(job, todo), len(todo), progress)
    return report(game, moves, seat=seat, seed=seed, samples=samples, seconds=seconds, least=least)


def _collect(
    results: Iterable[dict[str, Any]], total: int, progress: Callable[[int, int], None] | None
) -> list[dict[str, Any]]:
    out = []
    for entry in results:
        out.append(entry)
        if progress is not None:
            progress(len(out), total)
    return out


def _moves_table(moves: list[dict[str, Any]]) -> Table:
    table = Table(title="Moves", title_justify="left")
    for name in ("smazzata", "move", "seat", "played", "best", "loss", "mark"):
        table.add_column(name, justify="right" if name in ("smazzata", "move", "loss") else "left")
    for m in moves:
        style = _STYLE[m["class"]]
        mark = "forced" if m["forced"] else f"[{style}]{m['class']}[/{style}]"
        best = "" if m["best"] == m["played"] else m["best"]
        table.add_row(
            str(m["deal"] + 1),
            str(m["index"] + 1),
            str(m["seat"]),
            m["played"],
            best,
            f"{m['loss']:.2f}",
            mark,
        )
    return table


def _summary_table(summary: list[dict[str, Any]]) -> Table:
    table = Table(title="Per player (moves with a choice)", title_justify="left")
    for name in ("seat", "moves", "mean loss", *CLASSES):
        table.add_column(name, justify="right")
    for s in summary:
        if not s["moves"]:
            continue
        table.add_row(
            str(s["seat"]),
            str(s["moves"]),
            f"{s['mean_loss']:.3f}",
            *(str(s[c]) for c in CLASSES),
        )
    return table


def _cmd_analyse(args: argparse.Namespace) -> int:
    out = Console()
    err = Console(stderr=True)
    try:
        record = json.loads(Path(args.record).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        err.print(
            f"[red]cannot read {escape(args.record)}: {escape(str(exc))}[/red]", soft_wrap=True
        )
        return 2
    processes = args.processes if args.processes else free_cores()
    samples = (
        args.samples if args.samples is not None else (None if args.seconds else DEFAULT_SAMPLES)
    )
    try:
        result = analyse_record(
            record,
            seat=args.seat,
            samples=samples,
            seconds=args.seconds,
            seed=args.seed,
            least=args.least,
            processes=processes,
        )
    except RecordError as exc:
        err.print(f"[red]record rejected: {escape(str(exc))}[/red]", soft_wrap=True)
        return 1
    except ValueError as exc:
        err.print(f"[red]error: {escape(str(exc))}[/red]", soft_wrap=True)
        return 2
    if not args.quiet:
        out.print(_moves_table(result["moves"]))
    out.print(_summary_table(result["summary"]))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
        out.print(f"analysis written to {escape(args.json)}")
    return 0


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    return value


def add_cli(sub: Any) -> None:
    p = sub.add_parser(
        "analyse",
        help="the coach's verdict on every move of a partita record",
        description="Judges every move of a partita (or of one seat) from the mover's view"
        " only: each legal move's expected smazzata margin, the best move, the points the"
        " played one lost, and a summary per player (docs/coach.md).",
    )
    p.add_argument("record", help="a game record (cirulla game --record, or the server's)")
    p.add_argument("--seat", type=int, help="only this seat's moves")
    p.add_argument(
        "--samples",
        type=_positive_int,
        help=f"draws of the hidden cards per move (default {DEFAULT_SAMPLES};"
        " with --seconds alone, as many as fit)",
    )
    p.add_argument(
        "--seconds",
        type=_positive_float,
        help="at most this long per move, but see --least",
    )
    p.add_argument(
        "--least",
        type=_positive_int,
        default=LEAST_SAMPLES,
        help=f"with --seconds, at least this many draws per move however slow the machine"
        f" (default {LEAST_SAMPLES}; never more than --samples)",
    )
    p.add_argument("--seed", type=int, default=0, help="the coach's seed (default 0)")
    p.add_argument(
        "--processes", type=_positive_int, help="worker processes (default: the free cores)"
    )
    p.add_argument("--json", help="write the analysis (JSON) to this file")
    p.add_argument("--quiet", action="store_true", help="print the summary only")
    p.set_defaults(func=_cmd_analyse)
