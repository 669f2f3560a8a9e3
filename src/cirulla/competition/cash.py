"""Cash tables: the chips a table's new log records move (RULES.md M1, E6).

A pure function of the table's state and the records being written, so that the
movements ride in the same transaction as the records (store/tablelog.py `append`): a
crash leaves both or neither, and a table rebuilt on any node never settles twice.

- "sat" (a person): the maximum loss goes from the wallet into the (table, user) escrow.
- "stood", "closed": the escrow of whoever leaves goes back to the wallet.
- "ended": every escrow goes back, and each losing seat pays the winners M1's
  min(difference x stake, max_loss) (a cappotto: max_loss). Per seat: with pairs
  each loser pays from their own escrow and the two winners share equally; with
  three players each of the two losers pays the winner by their own difference. A
  timeout or abandon (E6): only the seats of the side that forfeited pay, by E6's
  difference (0 when that side was still ahead). The winners share the losers'
  payments equally; a remainder chip goes to the first winner seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..eventlog import LogRecord
from ..store.ledger import Movement, Posting, escrow, wallet
from ..tables.state import Seat, TableState
from ..tournament import cash_settlement

__all__ = ["settlement_postings", "table_movements"]


def table_movements(
    state: TableState, before: Sequence[Seat | None], new: Sequence[LogRecord]
) -> list[Movement]:
    """The movements `new` causes at a cash table (none at other tables). `state` is the
    table after `new`; `before` its seats before them."""
    cfg = state.config
    if cfg.stake <= 0:
        return []
    table = state.id
    users: list[str | None] = [None if s is None or s.bot else s.user for s in before]
    out: list[Movement] = []
    for rec in new:
        data = rec.data
        if rec.type == "sat":
            user = data.get("user")
            users[int(data["seat"])] = user if not data.get("bot") else None
            if user and not data.get("bot"):
                out.append(_escrow(table, user, cfg.max_loss, rec.version))
        elif rec.type == "stood":
            seat = int(data["seat"])
            user = users[seat]
            users[seat] = None
            if user:
                out.append(_release(table, [user], cfg.max_loss, rec.version, "stood up"))
        elif rec.type == "closed":
            left = [u for u in users if u]
            if left:
                out.append(_release(table, left, cfg.max_loss, rec.version, "table closed"))
            users = [None] * len(users)
        elif rec.type == "ended":
            postings = settlement_postings(state, users, data)
            out.append(Movement(f"settle:{table}", postings, table=table, note="partita settled"))
    return out


def _escrow(table: str, user: str, amount: int, version: int) -> Movement:
    return Movement(
        f"escrow:{table}:{user}:{version}",
        (Posting(wallet(user), -amount, "escrow"), Posting(escrow(table, user), amount, "escrow")),
        table=table,
        note="sat down at a cash table",
    )


def _release(table: str, users: list[str], amount: int, version: int, why: str) -> Movement:
    postings: list[Posting] = []
    for user in users:
        postings += [
            Posting(escrow(table, user), -amount, "release"),
            Posting(wallet(user), amount, "release"),
        ]
    return Movement(f"release:{table}:{version}", tuple(postings), table=table, note=why)


def settlement_postings(
    state: TableState, users: Sequence[str | None], result: dict[str, Any]
) -> tuple[Posting, ...]:
    """Every escrow back to its wallet, then M1's payments from losers to winners."""
    cfg = state.config
    table = state.id
    postings: list[Posting] = []
    for user in users:
        if user:
            postings += [
                Posting(escrow(table, user), -cfg.max_loss, "release"),
                Posting(wallet(user), cfg.max_loss, "release"),
            ]
    winner = result.get("winner")
    totals = result.get("totals") or []
    if winner is None or not totals:
        return tuple(postings)
    forfeit = state.forfeit
    cappotto = result.get("reason") == "cappotto"
    paid = 0
    winners: list[str] = []
    for seat, user in enumerate(users):
        if not user:
            continue
        side = state.side_of(seat)
        if side == winner:
            winners.append(user)
            continue
        if forfeit is not None and side != forfeit["side"]:
            continue  # E6: only the side that timed out or abandoned pays
        difference = max(0, int(totals[winner]) - int(totals[side]))
        amount = cash_settlement(difference, cfg.stake, cfg.max_loss, cappotto)
        if amount:
            postings.append(Posting(wallet(user), -amount, "loss"))
            paid += amount
    if not winners or not paid:
        return tuple(p for p in postings if p.kind == "release")
    share, rest = divmod(paid, len(winners))
    for i, user in enumerate(winners):
        amount = share + (rest if i == 0 else 0)
        if amount:
            postings.append(Posting(wallet(user), amount, "win"))
    return tuple(postings)
