"""Opening a table: the checks before anyone sits, and the table's first records.

Apart from the manager because it is one idea with its own rules (the account's limits,
the sit guards such as a playban, a cash table's stake against the wallet, stacked decks
only in test mode) that finding, rebuilding and reaping tables never need.
"""

from __future__ import annotations

import hashlib
import secrets as _secrets
from typing import TYPE_CHECKING, Any

from ..eventlog import LogRecord
from ..shuffle import SHUFFLE_VERSION
from .actor import TableActor, now_ms
from .config import TableConfig
from .ids import new_id
from .state import TableError, TableState

if TYPE_CHECKING:
    from .manager import TableManager
    from .relay import RemoteTable

__all__ = ["Opening", "invite_hash"]


def invite_hash(token: str) -> str:
    """What the store keeps of a private table's invite: never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


class Opening:
    """How the manager's tables are made: by a person over HTTP, or fully seated by a
    tournament's director."""

    def __init__(self, manager: TableManager) -> None:
        self.manager = manager

    async def create(
        self,
        owner: str,
        owner_name: str,
        config: TableConfig,
        *,
        seat: int | None = None,
        auto_declare: bool = True,
        decks: list[list[str]] | None = None,
        dealer: int | None = None,
        bot_account: bool = False,
    ) -> tuple[TableActor, str | None]:
        """A new table with its bots seated and its creator at `seat` (the first free one
        if None); returns the actor and, for a private table, the invite token. The
        account's limits are checked first (one creation at a time per account here).
        `bot_account`: the creator is a bot account (docs/bots.md), marked on its seat."""
        async with self.manager.account_limits.creating(owner, config):
            return await self._create(
                owner,
                owner_name,
                config,
                seat=seat,
                auto_declare=auto_declare,
                decks=decks,
                dealer=dealer,
                bot_account=bot_account,
            )

    async def _create(
        self,
        owner: str,
        owner_name: str,
        config: TableConfig,
        *,
        seat: int | None,
        auto_declare: bool,
        decks: list[list[str]] | None,
        dealer: int | None,
        bot_account: bool = False,
    ) -> tuple[TableActor, str | None]:
        if (decks is not None or dealer is not None) and not self.manager.test_mode:
            raise TableError("test_mode_only", "stacked decks are only for a server in test mode")
        if seat is not None and (seat in config.bots or not 0 <= seat < config.players):
            raise TableError("bad_seat", f"seat {seat} is not free at this table")
        await self.check_sit(owner, config)
        await self._check_stake(owner, config)
        table_id = new_id()
        if self.manager.cluster is not None and not await self.manager.cluster.bus.claim(table_id):
            raise TableError("unavailable", "could not reserve a table id: try again")
        token = _secrets.token_urlsafe(16) if config.private else None
        extra: dict[str, Any] = {}
        if decks is not None:
            extra["decks"] = decks
        if dealer is not None:
            extra["dealer"] = dealer
        first, state = _first_record(table_id, config, owner, extra)
        if decks is not None:
            _check_decks(decks, config)
        hashed = invite_hash(token) if token else None
        actor = await self._store(table_id, config, owner, first, state, config.private, hashed)
        self.manager.expiry.created(table_id)  # made over HTTP: nobody watches it yet
        async with actor._lock:
            steps: list[tuple[str, dict[str, Any]]] = [
                (
                    "sat",
                    {
                        "seat": s,
                        "user": None,
                        "name": _bot_name(level, s),
                        "bot": level,
                        "auto_declare": True,
                    },
                )
                for s, level in sorted(config.bots.items())
            ]
            free = [i for i in range(config.players) if i not in config.bots]
            mine = free[0] if seat is None else seat
            steps.append(
                (
                    "sat",
                    {
                        "seat": mine,
                        "user": owner,
                        "name": owner_name,
                        "bot": None,
                        "auto_declare": auto_declare,
                        **({"bot_account": True} if bot_account else {}),
                    },
                )
            )
            try:
                await actor._commit(steps)
            except TableError as exc:
                if exc.code == "insufficient_chips":  # spent meanwhile: the empty table goes
                    await actor._commit([("closed", {"reason": "the creator could not sit"})])
                raise
        return actor, token

    async def check_sit(self, user: str, table: TableConfig | TableActor | RemoteTable) -> None:
        """TableError if one of `sit_guards` refuses `user` a seat at such a table."""
        if not self.manager.sit_guards:
            return
        if isinstance(table, TableActor):
            config = table.state.config
        elif isinstance(table, TableConfig):
            config = table
        else:  # played on another node: its stored config
            row = await self.manager.store.get_table(table.id)
            if row is None:
                raise TableError("unknown_table", f"there is no table {table.id!r}")
            config = TableConfig.model_validate(row.config)
        for guard in self.manager.sit_guards:
            await guard(user, config)

    async def _check_stake(self, owner: str, config: TableConfig) -> None:
        """A cash table within the settings' bounds, made by someone who can sit at it
        (checked again, for certain, when the creator's seat is written)."""
        if config.stake <= 0:
            return
        limits = self.manager.limits
        if config.stake > limits.max_stake:
            raise TableError(
                "bad_config", f"stake may be at most {limits.max_stake}, not {config.stake}"
            )
        if config.max_loss > limits.max_max_loss:
            raise TableError(
                "bad_config",
                f"max_loss may be at most {limits.max_max_loss}, not {config.max_loss}",
            )
        chips, _ = await self.manager.store.ledger.balances(owner)
        if chips < config.max_loss:
            raise TableError(
                "insufficient_chips",
                f"this cash table needs {config.max_loss} chips in your wallet (its maximum"
                f" loss, held until the partita ends); you have {chips}",
            )

    async def create_seated(
        self,
        table_id: str,
        config: TableConfig,
        seats: list[dict[str, Any]],
        *,
        tournament: dict[str, Any],
        dealer: int | None = None,
        decks: list[list[str]] | None = None,
    ) -> TableActor | None:
        """A table made with every seat taken (`seats`: the "sat" data of seats 0, 1, ...,
        people by user id, bots by level), so it starts at once; for tournaments. The id
        is chosen by the caller beforehand (it is in the tournament's log), so asking
        again after a crash makes nothing: it returns the table if it is played here,
        None if it exists but not here (ended and put away, or on another node)."""
        actor = self.manager.tables.get(table_id)
        if actor is not None:
            # made, but a crash came before its seats were taken: take them now
            async with actor._lock:
                st = actor.state
                if st.status == "open":
                    missing = [s for s in seats if st.seats[s["seat"]] is None]
                    await actor._commit([("sat", s) for s in missing])
            return actor
        if await self.manager.store.get_table(table_id) is not None:
            return None
        if self.manager.cluster is not None and not await self.manager.cluster.bus.claim(table_id):
            raise TableError("unavailable", f"table {table_id}: another node holds its lease")
        extra: dict[str, Any] = {"tournament": tournament}
        if dealer is not None:
            extra["dealer"] = dealer
        if decks is not None:  # a tournament made in test mode (gateway/tournaments.py)
            if not self.manager.test_mode:
                raise TableError("test_mode_only", "stacked decks are only for test mode")
            extra["decks"] = decks
        first, state = _first_record(table_id, config, None, extra)
        # private with an invite nobody holds: the seated players enter, nobody else
        hashed = invite_hash(_secrets.token_urlsafe(16))
        actor = await self._store(table_id, config, None, first, state, True, hashed)
        async with actor._lock:
            await actor._commit([("sat", seat) for seat in seats])
        return actor

    async def _store(
        self,
        table_id: str,
        config: TableConfig,
        owner: str | None,
        first: LogRecord,
        state: TableState,
        private: bool,
        hashed: str | None,
    ) -> TableActor:
        """Store the new table with its first record and play it on this node."""
        await self.manager.store.create_table(
            table_id,
            game=config.preset,
            config=config.model_dump(mode="json"),
            private=private,
            invite_hash=hashed,
            owner=owner,
            first=first,
        )
        self.manager.invites[table_id] = hashed
        return self.manager.add_actor(state, [first])


def _first_record(
    table_id: str, config: TableConfig, owner: str | None, extra: dict[str, Any]
) -> tuple[LogRecord, TableState]:
    """A table's "created" record and the state it folds to (which checks decks and
    dealer), before anything is stored."""
    data = {"config": config.model_dump(mode="json"), "owner": owner, "shuffle": SHUFFLE_VERSION}
    first = LogRecord.first("created", {**data, **extra}, now_ms())
    return first, TableState.from_log(table_id, [first])


def _bot_name(level: str, seat: int) -> str:
    return f"bot {level} {seat + 1}"


def _check_decks(decks: list[list[str]], config: TableConfig) -> None:
    rules = config.rules()
    for deck in decks:
        try:
            config.kind.new_game(rules, config.players, 0, 0, deck)
        except ValueError as exc:
            raise TableError("bad_deck", f"stacked deck: {exc}") from None
