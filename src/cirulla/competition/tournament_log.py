"""A tournament on the server as the fold of its event log, and the views of it that
the API gives (summary, rounds, standings).

The director (director.py) is the only writer; this module only reads records, so
the node that directs a tournament, the nodes that merely take commands for it, and
`cirulla verify` fold the same log the same way.
Record types and their data (every record also has `version` and `at`):

- ``created``      ``{"name", "format", "config": table config, "rounds", "best_of",
  "max_entrants", "private", "organiser": {"id", "name"} | None, "starts_at": ms | None,
  "entry_fee": chips, "prizes": [% by place]}`` (the last two absent in old logs), and
  ``"allow_bots": true`` when bot accounts may enter (docs/bots.md);
  a test-mode server's tournament also has ``"decks"`` and ``"dealer"``, given to the
  first tables of round 1 (``POST /api/test/tournaments``)
- ``registered``   ``{"entrants": [{"id", "name", "user", "bot", "fee"}, ...]}`` (with
  ``"bot_account": true`` for a bot account): one
  entrant, or (4 players) two partners registered together; ``fee``: the chips each paid
  into the pool (fees.py; absent in old logs: 0)
- ``unregistered`` ``{"entrants": [id, ...]}``
- ``cancelled``    ``{"reason"}``
- ``started``      ``{"seed", "entrants": [id, ...] in seed order, "withdrawn": [id, ...]}``
- ``paired``       ``{"round", "matches": [{"a", "b": side | None, "table": id | None}]}``:
  the table ids are chosen here, before the tables are made, so that a crash between
  the record and the tables only leaves tables to make on restart
- ``partita``      ``{"round", "match", "table", "dealer"}``: the next partita of a best
  of three (E5), at a new table whose first dealer follows the last partita's
- ``result``       ``{"round", "match", "winner", "vp", "mp", "partite"}``
- ``ended``        ``{"winner": [id, ...]}``
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Final

from ..eventlog import LogRecord
from ..tables.config import TableConfig
from .standings import MatchResult, check_vp_length
from .state import Tournament, TournamentConfig

__all__ = [
    "STATUSES",
    "DirectorError",
    "Entrant",
    "MatchState",
    "TournamentState",
    "now_ms",
    "rounds_view",
    "standings_view",
    "summary",
]

STATUSES: Final = ("registering", "running", "finished", "cancelled")


def now_ms() -> int:
    return int(time.time() * 1000)


class DirectorError(Exception):
    """A command the tournament refuses: a stable code and a readable message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(slots=True)
class Entrant:
    id: str
    name: str
    user: str | None
    bot: str | None
    partner: str | None = None  # 4 players: the entrant registered with this one
    fee: int = 0  # chips paid into the pool on registering (fees.py)
    bot_account: bool = False  # a bot account (docs/bots.md) entered by its token

    def public(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "user": self.user, "bot": self.bot}
        out["partner"] = self.partner
        if self.bot_account:
            out["bot_account"] = True
        return out


@dataclass(slots=True)
class MatchState:
    a: int
    b: int | None
    tables: list[str]
    result: MatchResult | None = None
    games: int = 0  # partite finished (best of three)

    @property
    def status(self) -> str:
        if self.result is not None:
            return "finished"
        return "playing" if self.tables else "waiting"


@dataclass(slots=True)
class TournamentState:
    """Everything the log says about one tournament."""

    id: str
    name: str = ""
    format: str = "knockout"
    config: dict[str, Any] = field(default_factory=dict)  # the tables' config (JSON)
    rounds_wanted: int | None = None  # Swiss: the organiser's number of rounds
    best_of: int = 1
    max_entrants: int = 64
    entry_fee: int = 0  # chips a person pays to enter (fees.py)
    allow_bots: bool = False  # bot accounts may enter (docs/bots.md); people only if not
    prizes: list[int] = field(default_factory=lambda: [60, 30, 10])  # % of the pool by place
    private: bool = False
    organiser: dict[str, Any] | None = None
    starts_at: int | None = None
    created: int = 0
    status: str = "registering"
    entrants: dict[str, Entrant] = field(default_factory=dict)  # in registration order
    numbered: int = 0  # entrants ever registered (ids are e1, e2, ... never reused)
    seed: int | None = None
    order: list[str] = field(default_factory=list)  # seed order, once started
    withdrawn: list[str] = field(default_factory=list)
    t: Tournament | None = None
    rounds: list[list[MatchState]] = field(default_factory=list)
    winner: list[str] | None = None
    cancel_reason: str | None = None
    version: int = 0
    last: LogRecord | None = None

    # ---- folding ------------------------------------------------------------------
    @classmethod
    def from_log(cls, tournament_id: str, records: list[LogRecord]) -> TournamentState:
        if not records or records[0].type != "created":
            raise DirectorError("bad_log", f"tournament {tournament_id}: no 'created' record")
        state = cls(tournament_id)
        for rec in records:
            state.apply(rec)
        return state

    def apply(self, rec: LogRecord) -> None:
        if rec.version != self.version + 1:
            raise DirectorError("bad_log", f"record {rec.version} cannot follow {self.version}")
        handler = getattr(self, f"_on_{rec.type}", None)
        if handler is None:
            raise DirectorError("bad_log", f"unknown record type {rec.type!r}")
        handler(rec.data, rec.at)
        self.version, self.last = rec.version, rec

    def _on_created(self, d: dict[str, Any], at: int) -> None:
        self.name = d["name"]
        self.format = d["format"]
        self.config = dict(d["config"])
        self.rounds_wanted = d.get("rounds")
        self.best_of = int(d.get("best_of", 1))
        self.max_entrants = int(d.get("max_entrants", 64))
        self.private = bool(d.get("private", False))
        self.organiser = d.get("organiser")
        self.starts_at = d.get("starts_at")
        self.entry_fee = int(d.get("entry_fee", 0))
        self.allow_bots = bool(d.get("allow_bots", False))
        self.prizes = list(d.get("prizes", self.prizes))
        self.created = at

    def _on_registered(self, d: dict[str, Any], at: int) -> None:
        self._registering()
        new = [
            Entrant(
                e["id"],
                e["name"],
                e.get("user"),
                e.get("bot"),
                fee=int(e.get("fee", 0)),
                bot_account=bool(e.get("bot_account", False)),
            )
            for e in d["entrants"]
        ]
        if len(new) == 2:
            new[0].partner, new[1].partner = new[1].id, new[0].id
        for e in new:
            if e.id in self.entrants:
                raise DirectorError("bad_log", f"entrant {e.id} is registered already")
            self.entrants[e.id] = e
        self.numbered += len(new)

    def _on_unregistered(self, d: dict[str, Any], at: int) -> None:
        self._registering()
        for eid in d["entrants"]:
            gone = self.entrants.pop(eid)
            if gone.partner is not None and gone.partner in self.entrants:
                self.entrants[gone.partner].partner = None

    def _on_cancelled(self, d: dict[str, Any], at: int) -> None:
        self._registering()
        self.status = "cancelled"
        self.cancel_reason = d.get("reason")

    def _on_started(self, d: dict[str, Any], at: int) -> None:
        self._registering()
        order = list(d["entrants"])
        if sorted(order + list(d.get("withdrawn", []))) != sorted(self.entrants):
            raise DirectorError("bad_log", "the seed order is not the entry list")
        self.seed = int(d["seed"])
        self.order = order
        self.withdrawn = list(d.get("withdrawn", []))
        self.t = Tournament(self.tournament_config(order, self.seed))
        self.status = "running"

    def _on_paired(self, d: dict[str, Any], at: int) -> None:
        t = self._running()
        if d["round"] != len(self.rounds) + 1:
            raise DirectorError("bad_log", f"round {d['round']} cannot be paired now")
        pairs = t.pair_next_round()
        got = [(m["a"], m["b"]) for m in d["matches"]]
        if got != list(pairs):
            raise DirectorError(
                "bad_log", f"round {d['round']}: pairs {got}, but the pairing gives {pairs}"
            )
        matches = []
        for m in d["matches"]:
            match = MatchState(m["a"], m["b"], [] if m["table"] is None else [m["table"]])
            if m["b"] is None:
                match.result = t.bye_result(m["a"])
            matches.append(match)
        self.rounds.append(matches)
        self._round_done()

    def _on_partita(self, d: dict[str, Any], at: int) -> None:
        match = self._match(d["round"], d["match"])
        match.games += 1
        match.tables.append(d["table"])

    def _on_result(self, d: dict[str, Any], at: int) -> None:
        match = self._match(d["round"], d["match"])
        assert match.b is not None
        match.result = MatchResult(
            match.a,
            match.b,
            int(d["winner"]),
            (int(d["vp"][0]), int(d["vp"][1])),
            (int(d["mp"][0]), int(d["mp"][1])),
            (int(d["partite"][0]), int(d["partite"][1])),
        )
        self._round_done()

    def _on_ended(self, d: dict[str, Any], at: int) -> None:
        t = self._running()
        if not t.is_over:
            raise DirectorError("bad_log", "the tournament is not over")
        self.status = "finished"
        self.winner = list(d["winner"])

    def _round_done(self) -> None:
        t = self.t
        assert t is not None
        current = self.rounds[-1]
        if len(t.results) < len(self.rounds) and all(m.result is not None for m in current):
            t.record_round([m.result for m in current if m.result is not None])

    def _registering(self) -> None:
        if self.status != "registering":
            raise DirectorError("bad_log", "registration is closed")

    def _running(self) -> Tournament:
        if self.status != "running" or self.t is None:
            raise DirectorError("bad_log", "the tournament is not running")
        return self.t

    def _match(self, number: Any, index: Any) -> MatchState:
        self._running()
        try:
            match = self.rounds[int(number) - 1][int(index)]
        except (IndexError, ValueError, TypeError):
            raise DirectorError("bad_log", f"no match {index} in round {number}") from None
        if match.result is not None or match.b is None:
            raise DirectorError("bad_log", f"round {number}, match {index} is decided")
        return match

    # ---- facts --------------------------------------------------------------------
    @property
    def players(self) -> int:
        return int(self.config.get("players", 2))

    def table_config(self) -> TableConfig:
        options = dict(self.config.get("options", {}))
        options["knockout"] = self.format == "knockout"
        raw = {**self.config, "options": options, "private": True, "bots": {}}
        return TableConfig.model_validate(raw)

    def tournament_config(self, entrants: list[str], seed: int = 0) -> TournamentConfig:
        sides = len(entrants) // (2 if self.players == 4 else 1)
        rounds = self.rounds_wanted if self.format == "swiss" else None
        if rounds is not None:
            rounds = min(rounds, (sides + 1) // 2)  # at most what the field allows
        return TournamentConfig(
            format=self.format,  # type: ignore[arg-type]
            rules=self.table_config().rules(),
            players=self.players,
            entrants=tuple(entrants),
            seed=seed,
            rounds=rounds,
            best_of=self.best_of,
        )

    @property
    def with_vp(self) -> bool:
        try:
            check_vp_length(self.table_config().rules())
        except ValueError:
            return False
        return True

    def sides(self) -> list[list[str]]:
        """The sides in seed order (once started), else as they stand now."""
        if self.t is not None:
            return [list(s) for s in self.t.config.sides]
        return [list(s) for s in self.planned_sides()[0]]

    def planned_sides(self) -> tuple[list[tuple[str, ...]], list[str]]:
        """The sides the entry list makes now, and who would be left without a partner.

        With 4 players, partners registered together are a side; those registered
        alone are paired in the order they registered, and an odd one out is withdrawn
        at the start."""
        if self.players != 4:
            return [(eid,) for eid in self.entrants], []
        sides: list[tuple[str, ...]] = []
        alone: list[str] = []
        paired: set[str] = set()
        for eid, e in self.entrants.items():
            if e.partner is None or e.partner not in self.entrants:
                alone.append(eid)
            elif eid not in paired:
                sides.append((eid, e.partner))
                paired.update((eid, e.partner))
        for i in range(0, len(alone) - 1, 2):
            sides.append((alone[i], alone[i + 1]))
        left = [alone[-1]] if len(alone) % 2 else []
        return sides, left

    def entrant_of(self, user: str | None) -> Entrant | None:
        if user is None:
            return None
        for e in self.entrants.values():
            if e.user == user:
                return e
        return None

    def side_index(self, entrant: str) -> int | None:
        if self.t is None:
            return None
        for i, side in enumerate(self.t.config.sides):
            if entrant in side:
                return i
        return None

    def current_table(self, entrant: str) -> str | None:
        """The entrant's table in the current round, while it is being played."""
        side = self.side_index(entrant)
        if side is None or not self.rounds or self.status != "running":
            return None
        for m in self.rounds[-1]:
            if side in (m.a, m.b) and m.result is None and m.tables:
                return m.tables[-1]
        return None

    def total_rounds(self) -> int | None:
        if self.t is not None:
            return self.t.config.total_rounds
        sides, _ = self.planned_sides()
        if len(sides) < 2:
            return None
        try:
            return self.tournament_config([e for s in sides for e in s]).total_rounds
        except ValueError:
            return None


def summary(state: TournamentState) -> dict[str, Any]:
    """A tournament as the list shows it (docs/protocol.md, "Tournaments")."""
    from .fees import prize_view  # (fees.py folds this module's state)

    cfg = state.config
    try:
        rules = state.table_config().rules()
        target, hands = rules.target, rules.hands
    except ValueError:
        target = hands = None
    order = state.order if state.t is not None else list(state.entrants)
    entrants = [state.entrants[e].public() for e in order if e in state.entrants]
    return {
        "id": state.id,
        "name": state.name,
        "format": state.format,
        "status": state.status,
        "game": cfg.get("game", "cirulla"),
        "preset": cfg.get("preset", "cirulla"),
        "options": cfg.get("options", {}),
        "players": state.players,
        "move_seconds": cfg.get("move_seconds"),
        "partita_seconds": cfg.get("partita_seconds"),
        "target": target,
        "hands": hands,
        "best_of": state.best_of,
        "rounds": state.total_rounds(),
        "round": len(state.rounds),
        "private": state.private,
        "organiser": state.organiser,
        "starts_at": state.starts_at,
        "max_entrants": state.max_entrants,
        "entrants": entrants,
        "created": state.created,
        "entry_fee": state.entry_fee,
        "allow_bots": state.allow_bots,
        "prize": prize_view(state),  # None for a free tournament (fees.py)
    }


def rounds_view(state: TournamentState) -> list[dict[str, Any]]:
    """Every round's matches; `vp` is null for a knockout length with no VP column
    (its results carry 0 VP then, which would read as a score)."""
    sides = state.sides()
    with_vp = state.with_vp
    out = []
    for number, matches in enumerate(state.rounds, start=1):
        shown = []
        for m in matches:
            r = m.result
            shown.append(
                {
                    "sides": [sides[m.a], [] if m.b is None else sides[m.b]],
                    "bye": m.b is None,
                    "table": m.tables[-1] if m.tables else None,
                    "tables": list(m.tables),
                    "winner": None if r is None else r.winner,
                    "vp": None if r is None or m.b is None or not with_vp else list(r.vp),
                    "mp": None if r is None or m.b is None else list(r.mp),
                    "partite": None if r is None or m.b is None else list(r.partite),
                    "status": m.status,
                }
            )
        out.append({"round": number, "matches": shown})
    return out


def standings_view(state: TournamentState) -> list[dict[str, Any]]:
    if state.t is None:
        return []
    sides = state.sides()
    return [
        {
            "rank": s.rank,
            "side": sides[s.side],
            "vp": s.vp,
            "mp": s.mp,
            "played": s.played,
            "won": s.won,
            "partite_won": s.partite_won,
            "byes": s.byes,
            "buchholz": s.buchholz if state.format == "swiss" else None,
            "head_to_head": s.head_to_head if state.format == "round-robin" else None,
        }
        for s in state.t.standings()
    ]
