"""A table as the fold of its event log: pure, no I/O, no clock of its own.

The table actor decides what happens (a move, a timeout, the next deal) and
writes it as a log record; this module applies records to the state. Rebuilding
a table after a crash, on another node, or in `cirulla verify` is folding the
same records again, so all three always agree with the table that was played.

Record types and their data (every record also has `version` and `at`):

- ``created``   ``{"config": TableConfig, "owner": user id | None, "shuffle": version}``;
  a table made in test mode may add ``"decks"`` (stacked decks for the first
  smazzate) and ``"dealer"`` (the first dealer), both public
- ``sat``       ``{"seat", "user", "name", "bot": level | None, "auto_declare": bool}``,
  plus ``"bot_account": true`` when the user is a bot account (docs/bots.md)
- ``stood``     ``{"seat"}``
- ``started``   ``{}``: every seat is taken; the partita begins
- ``committed`` ``{"deal": k, "commitment": hex, "shuffle": version}``: the SHA-256
  commitment to smazzata k's secret seed, published before its cards are dealt
- ``move``      ``{"deal", "seat", "move": notation, "by": "player" | "bot" | "auto",
  "clock": ms left on the seat's partita clock | None}``
- ``revealed``  ``{"deal": k, "seed": "<decimal digits>"}``: the seed, once smazzata k is over
- ``forfeit``   ``{"seat", "side", "reason": "timeout" | "abandon"}`` (E6)
- ``ended``     ``{"winner", "totals", "reason"}``
- ``closed``    ``{"reason"}``: the table shut before its partita began
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from ..eventlog import LogRecord
from ..shuffle import SHUFFLE_VERSION
from .config import TableConfig
from .errors import TableError
from .games import GameKind, kind_of

__all__ = ["STATUSES", "Seat", "TableError", "TableState", "commitment"]

STATUSES: Final = ("open", "playing", "finished", "closed")


def commitment(seed: int, shuffle: str = SHUFFLE_VERSION) -> str:
    """The published promise of a deal's seed: SHA-256 of "<shuffle version>:<seed>"."""
    return hashlib.sha256(f"{shuffle}:{seed}".encode("ascii")).hexdigest()


@dataclass(slots=True)
class Seat:
    user: str | None
    name: str
    bot: str | None = None
    auto_declare: bool = True
    #: A bot account (a program playing through the bot API), not a person: shown to all.
    bot_account: bool = False

    def public(self) -> dict[str, Any]:
        out: dict[str, Any] = {"user": self.user, "name": self.name, "bot": self.bot}
        if self.bot_account:
            out["bot_account"] = True
        return out


@dataclass(slots=True)
class TableState:
    """Everything the log says about one table. `secrets` holds the seeds of deals
    whose commitments are published but not yet revealed (server side only)."""

    id: str
    config: TableConfig
    kind: GameKind
    rules: Any
    owner: str | None
    secrets: dict[int, int] = field(default_factory=dict)
    version: int = 0
    last: LogRecord | None = None
    status: str = "open"
    seats: list[Seat | None] = field(default_factory=list)
    game: Any = None  # a cirulla.Game or a cirulla.cirulo.Game
    commitments: dict[int, str] = field(default_factory=dict)
    revealed: dict[int, int] = field(default_factory=dict)
    clocks: list[int | None] = field(default_factory=list)  # ms left per seat
    forfeit: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    # raw engine events each record caused: (deal index, events), by version
    emitted: dict[int, tuple[int, list[dict[str, Any]]]] = field(default_factory=dict)
    turn_since: int = 0  # `at` of the record after which the seat to move began its turn
    decks: list[list[str]] = field(default_factory=list)  # test mode: stacked decks
    first_dealer: int | None = None  # test mode: the first dealer
    _view_cache: tuple[int, dict[str, Any]] | None = None
    _sheet_cache: tuple[tuple[int, bool, bool], dict[str, Any]] | None = None
    _config_json: dict[str, Any] = field(default_factory=dict)

    # ---- building -----------------------------------------------------------------
    @classmethod
    def from_log(
        cls, table_id: str, records: list[LogRecord], secrets: dict[int, int] | None = None
    ) -> TableState:
        """The table its records describe. Seeds come from `secrets` or `revealed` records."""
        if not records or records[0].type != "created":
            raise TableError("bad_log", f"table {table_id}: the log must start with 'created'")
        known = dict(secrets or {})
        for rec in records:
            if rec.type == "revealed":
                known.setdefault(int(rec.data["deal"]), int(rec.data["seed"]))
        state = cls.created(table_id, records[0], known)
        for rec in records[1:]:
            state.apply(rec)
        return state

    @classmethod
    def created(cls, table_id: str, record: LogRecord, secrets: dict[int, int]) -> TableState:
        config = TableConfig.model_validate(record.data["config"])
        kind = kind_of(config.game)
        state = cls(table_id, config, kind, config.rules(), record.data.get("owner"), dict(secrets))
        state._config_json = config.model_dump(mode="json")
        state.decks = [list(d) for d in record.data.get("decks", [])]
        state.first_dealer = record.data.get("dealer")
        state.seats = [None] * config.players
        state.clocks = [None] * config.players
        state.version, state.last, state.turn_since = record.version, record, record.at
        return state

    # ---- folding ------------------------------------------------------------------
    def apply(self, rec: LogRecord) -> None:
        """Fold one record in; TableError (state unchanged) if it cannot follow."""
        if rec.version != self.version + 1:
            raise TableError("bad_log", f"record {rec.version} cannot follow {self.version}")
        handler = getattr(self, f"_on_{rec.type}", None)
        if handler is None:
            raise TableError("bad_log", f"unknown record type {rec.type!r}")
        handler(rec)
        self.version, self.last = rec.version, rec

    def _on_sat(self, rec: LogRecord) -> None:
        d = rec.data
        seat = self._seat_index(d["seat"])
        if self.status != "open" or self.seats[seat] is not None:
            raise TableError("bad_log", f"seat {seat} cannot be taken now")
        self.seats[seat] = Seat(
            d.get("user"),
            str(d["name"]),
            d.get("bot"),
            d.get("auto_declare", True),
            bool(d.get("bot_account", False)),
        )

    def _on_stood(self, rec: LogRecord) -> None:
        seat = self._seat_index(rec.data["seat"])
        if self.status != "open":
            raise TableError("bad_log", "seats are fixed once the partita has begun")
        self.seats[seat] = None

    def _on_started(self, rec: LogRecord) -> None:
        if self.status != "open" or any(s is None for s in self.seats):
            raise TableError("bad_log", "the partita needs every seat taken")
        self.status = "playing"
        if self.config.partita_seconds is not None:
            self.clocks = [int(self.config.partita_seconds * 1000)] * self.config.players

    def _on_committed(self, rec: LogRecord) -> None:
        k = int(rec.data["deal"])
        if self.status != "playing" or k != self.deals_started:
            raise TableError("bad_log", f"deal {k} cannot be committed now")
        seed = self.secrets.get(k)
        if seed is None:
            raise TableError("bad_log", f"the seed of deal {k} is unknown")
        if commitment(seed, str(rec.data["shuffle"])) != rec.data["commitment"]:
            raise TableError("bad_log", f"deal {k}: the seed does not match its commitment")
        if rec.data["shuffle"] != SHUFFLE_VERSION:
            raise TableError("bad_log", f"unknown shuffle {rec.data['shuffle']!r}")
        self.commitments[k] = rec.data["commitment"]
        deck = self.decks[k] if k < len(self.decks) else None
        if self.game is None:
            self.game = self.kind.new_game(
                self.rules, self.config.players, seed, self.first_dealer, deck
            )
        else:
            self.game.next_deal(deck=deck, seed=seed)
        self.emitted[rec.version] = (k, self.game.deal.events_from(0))
        self.turn_since = rec.at

    def _on_move(self, rec: LogRecord) -> None:
        d = rec.data
        deal = self._live_deal()
        if int(d["deal"]) != self.deals_started - 1 or d["seat"] != deal.to_move:
            raise TableError("bad_log", f"record {rec.version}: not seat {d['seat']}'s turn")
        start = deal.event_count
        deal.play(str(d["move"]))  # IllegalMove leaves the deal unchanged
        self.emitted[rec.version] = (self.deals_started - 1, deal.events_from(start))
        if d.get("clock") is not None:
            self.clocks[d["seat"]] = int(d["clock"])
        self.turn_since = rec.at

    def _on_revealed(self, rec: LogRecord) -> None:
        k, seed = int(rec.data["deal"]), int(rec.data["seed"])
        if k not in self.commitments or k in self.revealed:
            raise TableError("bad_log", f"deal {k} has no commitment to reveal")
        if commitment(seed) != self.commitments[k]:
            raise TableError("bad_log", f"deal {k}: the revealed seed does not match")
        assert self.game is not None
        deal = self.game.deals[k]
        if not deal.is_over and self.forfeit is None:
            raise TableError("bad_log", f"deal {k} is still being played")
        self.revealed[k] = seed
        self.secrets.pop(k, None)

    def _on_forfeit(self, rec: LogRecord) -> None:
        if self.status != "playing" or self.game is None or self.forfeit is not None:
            raise TableError("bad_log", "nothing to forfeit")
        self.kind.forfeit(self.game, int(rec.data["side"]), rec.data["reason"])
        self.forfeit = dict(rec.data)

    def _on_ended(self, rec: LogRecord) -> None:
        if self.game is None or not self.kind.is_over(self.game, self.forfeit):
            raise TableError("bad_log", "the partita is not over")
        self.status = "finished"
        self.result = dict(rec.data)

    def _on_closed(self, rec: LogRecord) -> None:
        if self.status != "open":
            raise TableError("bad_log", "only a table not yet started can close")
        self.status = "closed"

    # ---- facts --------------------------------------------------------------------
    def _seat_index(self, value: Any) -> int:
        if (
            not isinstance(value, int)
            or isinstance(value, bool)
            or not 0 <= value < len(self.seats)
        ):
            raise TableError("bad_seat", f"seat must be 0 to {len(self.seats) - 1}, not {value!r}")
        return value

    def _live_deal(self) -> Any:
        if self.status != "playing" or self.game is None or self.forfeit is not None:
            raise TableError("not_playing", "no smazzata is being played at this table")
        deal = self.game.deal
        if deal.is_over:
            raise TableError("not_playing", "the smazzata is over; the next one is coming")
        return deal

    @property
    def deals_started(self) -> int:
        return 0 if self.game is None else len(self.game.deals)

    @property
    def to_move(self) -> int | None:
        """The seat whose turn it is, or None (between deals, before or after the partita)."""
        if self.status != "playing" or self.game is None or self.forfeit is not None:
            return None
        seat: int | None = self.game.deal.to_move
        return seat

    @property
    def totals(self) -> list[int] | None:
        """Points per side: after a timeout or abandon, E6's settlement."""
        if self.game is None:
            return None
        return self.kind.totals(self.game, self.forfeit)

    @property
    def winner(self) -> int | None:
        return None if self.game is None else self.kind.winner(self.game, self.forfeit)

    @property
    def end_reason(self) -> str | None:
        return None if self.game is None else self.kind.end_reason(self.game, self.forfeit)

    def timed_out(self, seat: int | None) -> bool:
        """Whether `seat` lost this partita on time."""
        f = self.forfeit
        return seat is not None and f is not None and f["reason"] == "timeout" and f["seat"] == seat

    def seat_of(self, user: str) -> int | None:
        for i, s in enumerate(self.seats):
            if s is not None and s.user == user:
                return i
        return None

    def side_of(self, seat: int) -> int:
        return self.kind.side_of(seat, self.config.players)

    def legal_moves(self, seat: int) -> list[Any]:
        """The moves `seat` may make now ([] when it is not that seat's turn)."""
        if self.to_move != seat:
            return []
        assert self.game is not None
        return list(self.game.deal.legal_moves())

    def check_move(self, seat: int, notation: Any) -> Any:
        """The legal move `notation` stands for; TableError saying why not otherwise."""
        if not isinstance(notation, str):
            raise TableError("bad_move", "a move must be a string in move notation")
        deal = self._live_deal()
        if deal.to_move != seat:
            raise TableError("not_your_turn", f"it is seat {deal.to_move}'s turn, not yours")
        return self.kind.check_move(deal, notation)

    def needs(self) -> str | None:
        """What the table must do next on its own: 'start', 'reveal', 'commit', 'end' or None."""
        if self.status == "open":
            return "start" if self.seats and all(s is not None for s in self.seats) else None
        if self.status != "playing" or self.game is None:
            return None
        k = self.deals_started - 1
        if (self.game.deal.is_over or self.forfeit is not None) and k not in self.revealed:
            return "reveal"
        if self.kind.is_over(self.game, self.forfeit):
            return "end"
        if self.game.deal.is_over:
            return "commit"
        return None

    # ---- what each viewer may see ---------------------------------------------------
    def public_record(self, rec: LogRecord, viewer: int | None) -> dict[str, Any]:
        """A record as `viewer` (a seat, or None for a spectator) may see it."""
        out: dict[str, Any] = {"type": rec.type, "version": rec.version, "at": rec.at}
        out.update(rec.data)
        if rec.type == "created":
            out["config"] = self.config.model_dump(mode="json")
        emitted = self.emitted.get(rec.version)
        if emitted is not None and self.game is not None:
            k, events = emitted
            deal = self.game.deals[k]
            out["events"] = [self.kind.filter_event(e, deal, viewer) for e in events]
        if rec.type == "revealed" and self.game is not None:
            out["score"] = self.kind.score(self.game.deals[int(rec.data["deal"])])
        return out

    def view(self, viewer: int | None, history: bool = True) -> dict[str, Any]:
        """The whole table as `viewer` may see it: the deal through `deal.view` (whose
        `legal_moves` only the seat to move gets), clocks, scores so far.

        Without `history`, the deal's history is left out: a client that follows the
        events has it already (each event carries its engine events), and it is most
        of a view's bytes."""
        return self.views((viewer,), history)[viewer]

    def views(
        self, viewers: Iterable[int | None], history: bool = True
    ) -> dict[int | None, dict[str, Any]]:
        """`view` for several viewers at once, sharing what they have in common (a
        broadcast's views are only encoded, never changed)."""
        viewers = tuple(viewers)
        deals = (
            self.kind.deal_views(self.game.deal, viewers, history) if self.game is not None else {}
        )
        out = {}
        for viewer in viewers:
            view = dict(self._shared())
            view["you"] = viewer
            if self.game is not None:
                view["deal"] = deals[viewer]
            out[viewer] = view
        return out

    def _sheets(self, game: Any) -> dict[str, Any]:
        """Totals and score sheets, which change only when a smazzata ends or a side
        forfeits: made again only then, not after every move."""
        key = (len(game.deals), game.deal.is_over, self.forfeit is not None)
        cached = self._sheet_cache
        if cached is None or cached[0] != key:
            sheets = {
                "totals": self.totals,
                "scores": [self.kind.score(d) for d in game.deals if d.is_over],
            }
            cached = self._sheet_cache = (key, sheets)
        return cached[1]

    def _shared(self) -> dict[str, Any]:
        """The part of every viewer's view that is the same for all, made once a version
        (a server sends a view to each seat after every move)."""
        cached = self._view_cache
        if cached is not None and cached[0] == self.version:
            return cached[1]
        game = self.game
        out: dict[str, Any] = {
            "table": self.id,
            "game": self.kind.name,
            "version": self.version,
            "status": self.status,
            "config": self._config_json,
            "owner": self.owner,
            "seats": [None if s is None else s.public() for s in self.seats],
            "you": None,
            "clocks": list(self.clocks),
            "turn_since": self.turn_since,
            "commitments": {str(k): v for k, v in self.commitments.items()},
            "revealed": {str(k): str(v) for k, v in self.revealed.items()},
            "deal_index": self.deals_started - 1,
            "deal": None,
            "totals": None,
            "scores": [],
            "forfeit": self.forfeit,
            "result": self.result,
        }
        if game is not None:
            out.update(self._sheets(game))
            out.update(self.kind.extra_view(game))
        self._view_cache = (self.version, out)
        return out
