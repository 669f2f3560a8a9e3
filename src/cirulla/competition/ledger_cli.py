"""`cirulla ledger check`: the chips ledger's invariants, checked against the database.

Exit 0 printing the totals when every rule holds; else exit 1 naming each movement
or account that breaks one (store/ledger.py `LedgerStore.check` lists the rules), a
line each; exit 2 if the data directory holds no database.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from ..settings import Settings
from ..store import Store
from ..store.ledger import CheckReport

__all__ = ["add_cli", "check_ledger"]


async def check_ledger(url: str) -> CheckReport:
    """Open the store at `url` (migrating it, as the server does) and check its ledger."""
    store = await Store.open(url)
    try:
        return await store.ledger.check()
    finally:
        await store.close()


def add_cli(subparsers: Any) -> argparse.ArgumentParser:
    """Add `ledger` (with `check`) to the `cirulla` subparsers."""
    top: argparse.ArgumentParser = subparsers.add_parser("ledger", help="the chips ledger")
    sub = top.add_subparsers(dest="ledger_command", required=True)
    p: argparse.ArgumentParser = sub.add_parser(
        "check",
        help="verify the chips ledger: movements sum to zero, balances, escrows, pools",
        description="Check every rule of the chips ledger (docs/chips.md) and print the"
        " totals; exit 1 naming each row that breaks one.",
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument("--data-dir", help="the server's data directory (SQLite)")
    where.add_argument("--database-url", help="a database URL, e.g. postgresql+asyncpg://...")
    p.set_defaults(func=_cmd_check)
    return p


def _cmd_check(args: argparse.Namespace) -> int:
    if args.data_dir is not None:  # the directory asked for, not a database from the env
        db = Path(args.data_dir) / "cirulla.db"
        if not db.exists():
            Console(stderr=True, soft_wrap=True).print(
                f"[red]error: no database in {escape(args.data_dir)}[/red]"
            )
            return 2
        url = f"sqlite+aiosqlite:///{db.resolve()}"
    else:
        url = Settings.from_env(database_url=args.database_url).db_url
    report = asyncio.run(check_ledger(url))
    out = Console(highlight=False, soft_wrap=True)  # a row's name is never cut in two
    totals = ", ".join(f"{k} {v}" for k, v in report.totals.items())
    if report.problems:
        for problem in report.problems:
            out.print(f"[red]{escape(problem)}[/red]")
        out.print(f"ledger check FAILED: {len(report.problems)} problems ({totals})")
        return 1
    out.print(f"ledger check ok: {totals}")
    return 0
