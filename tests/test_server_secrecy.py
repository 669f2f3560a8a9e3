"""Secrecy audit: no frame the server sends tells anyone a card they may not know.

Every frame sent to every seat and to a spectator is kept through whole partite. Once
a partita is over, the true deal of every smazzata is known from its record (the
engine replays the record's `game`), so the audit can say, for each version of the
table, which cards each recipient may know: its own hand, the table, what was played
or captured in public, what was declared (B7), the partner's hand under
`carte_scoperte` (O2), both hands in the last mano of a 2-player smazzata under
`carte_viste` (O1), and everything of a smazzata once its seed is revealed. Then
every string of every frame is searched for cards (rank and suit, e.g. "7D", also
inside moves such as "7Dx3C4S"), and each card found must be one of those. Seeds
appear nowhere before their smazzata is over, and legal moves only in the frames of
the seat to move.

The knowledge is worked out here from the engine's unfiltered events, independently
of the server's filters (cirulla.views), which are what is being checked.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from serverutil import Player, Server
from test_server_play import (
    assert_finished_consistently,
    assert_versions_follow_on,
    catch_up,
    fetch_record,
    guests,
    last_view,
    open_table,
    play_until,
    reconnect,
    second_socket,
    set_auto_declare,
    start_server,
)

from cirulla import Deal, Rules, full_deck
from cirulla.record import replay_game
from cirulla.tables.state import commitment

CARD = re.compile(r"[A2-7JQK][DHCS]")
Viewer = int | None  # a seat, or None for a spectator
Where = tuple[Any, ...]
Knowledge = dict[Viewer, dict[int, set[str]]]  # viewer -> smazzata -> cards it may know


@dataclass
class Moment:
    """What is true at one version of the table, and who may know which cards."""

    status: str
    deal: int | None  # the smazzata being played (or last played)
    to_move: int | None
    legal: set[str]
    hands: list[list[str]]  # every seat's true hand
    known: dict[Viewer, dict[int, frozenset[str]]]
    revealed: set[int]  # smazzate whose seed is public
    open_hands: set[int] = field(default_factory=set)  # O1: hands face up for the seats


class Truth:
    """The finished table's whole story, version by version, from its record."""

    def __init__(self, record: dict[str, Any]) -> None:
        self.record = record
        self.table: str = record["table"]
        self.log: list[dict[str, Any]] = record["log"]
        game = replay_game(record["game"])
        self.rules: Rules = game.rules
        self.players: int = game.players
        self.viewers: list[Viewer] = [*range(self.players), None]
        self.seeds: dict[int, int] = {}
        self.revealed_at: dict[int, int] = {}
        self.moments: dict[int, Moment] = {}
        known: Knowledge = {w: {} for w in self.viewers}
        deals: dict[int, Deal] = {}
        seen_events: dict[int, int] = {}
        commitments: dict[int, str] = {}
        status, current = "open", None
        for rec in self.log:
            version, kind, data = rec["version"], rec["type"], rec["data"]
            assert version == len(self.moments) + 1
            if kind == "started":
                status = "playing"
            elif kind == "ended":
                status = "finished"
            elif kind == "committed":
                k = data["deal"]
                played = game.deals[k]
                deck = list(played.initial_deck) if played.stacked else None
                deals[k] = Deal(
                    self.rules, self.players, played.dealer, deck=deck, seed=played.seed
                )
                seen_events[k] = 0
                commitments[k] = data["commitment"]
                current = k
                for w in self.viewers:
                    known[w][k] = set()
            elif kind == "move":
                assert data["deal"] == current
                deals[current].play(data["move"])
            elif kind == "revealed":
                k = data["deal"]
                assert deals[k].is_over, f"deal {k} revealed before it was over"
                assert data["seed"] == str(game.deals[k].seed)
                assert commitment(int(data["seed"])) == commitments[k]
                self.seeds[k] = int(data["seed"])
                self.revealed_at[k] = version
            open_hands: set[int] = set()
            if current is not None:
                deal = deals[current]
                for event in deal.events_from(seen_events[current]):
                    self._learn(event, known, current)
                seen_events[current] = deal.event_count
                if self._face_up(deal):
                    open_hands = set(range(self.players))
                    for w in range(self.players):
                        for s in open_hands:
                            known[w][current] |= {str(c) for c in deal.hand(s)}
            live = status == "playing" and current is not None and not deals[current].is_over
            deal = deals[current] if current is not None else None
            self.moments[version] = Moment(
                status=status,
                deal=current,
                to_move=deal.to_move if live and deal is not None else None,
                legal={str(m) for m in deal.legal_moves()} if live and deal is not None else set(),
                hands=[[str(c) for c in deal.hand(s)] for s in range(self.players)]
                if deal is not None
                else [[] for _ in range(self.players)],
                known={w: {k: frozenset(c) for k, c in known[w].items()} for w in self.viewers},
                revealed={k for k, at in self.revealed_at.items() if at <= version},
                open_hands=open_hands,
            )

    def partners(self, seat: int) -> set[int]:
        """The seats whose dealt cards `seat` is shown: its own, and its partner's (O2)."""
        if self.rules.carte_scoperte and self.players == 4:
            return {seat, (seat + 2) % 4}
        return {seat}

    def _face_up(self, deal: Deal) -> bool:
        """O1 with 2 players: the last mano is played face up (the deck is out and each
        hand holds its last card at most)."""
        return (
            self.rules.carte_viste
            and self.players == 2
            and not deal.is_over
            and deal.deck_left == 0
            and all(len(deal.hand(s)) <= 1 for s in range(2))
        )

    def _learn(
        self, event: dict[str, Any], known: dict[Viewer, dict[int, set[str]]], k: int
    ) -> None:
        """What an engine event shows, and to whom."""
        kind = event["type"]
        public: list[str] = []
        if kind == "deal":
            for w in self.viewers:
                if w is not None:
                    for s in self.partners(w):
                        known[w][k] |= set(event["hands"][s])
            public = event.get("table", [])
        elif kind == "play":
            public = [event["card"], *event["captured"]]
        elif kind in ("declare", "dealer_bonus", "last_cards"):
            public = event["cards"]
        elif kind in ("misdeal", "instant_win"):
            public = event["table"]
        elif kind in ("end", "pass"):
            public = []
        else:  # pragma: no cover - a new kind of event: say what it shows here
            raise AssertionError(f"the audit does not know the event {kind!r}: {event}")
        for w in self.viewers:
            known[w][k] |= set(public)


def walk(value: Any, path: Where = ()) -> Iterator[tuple[Where, Any]]:
    """Every leaf of a JSON value with its path; dict keys count as leaves too."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key), key
            yield from walk(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from walk(item, (*path, i))
    else:
        yield path, value


def _at(value: Any, path: Where) -> Any:
    """The value at `path` (walk yields a dict's keys as leaves, at their value's path)."""
    for step in path:
        value = value[step]
    return value


def _as_view_path(path: Where) -> Where:
    """Where a value of a view's `changes` sits in the view they make (docs/protocol.md),
    so that it is judged as the view's own: ("changes", "set", k, ...) and ("changes",
    "deal", "set", k, ...) are ("view", k, ...) and ("view", "deal", k, ...)."""
    if path[:1] != ("changes",):
        return path
    if path[1:3] == ("deal", "set"):
        return ("view", "deal", *path[3:])
    if path[1:2] == ("set",):
        return ("view", *path[2:])
    return path  # "unset": key names, no values


class Audit:
    """Checks the frames one recipient received against the truth."""

    def __init__(self, truth: Truth) -> None:
        self.truth = truth
        self.problems: list[str] = []
        self.partner_cards_seen = 0
        self.face_up_seen = 0
        self.legal_moves_seen = 0
        self.frames_checked = 0
        self.cards_checked = 0

    def fail(self, who: Viewer, frame: dict[str, Any], text: str) -> None:
        kind = frame.get("type")
        at = frame.get("version")
        self.problems.append(f"to {_who(who)}, {kind} frame at version {at}: {text}")

    def frame(self, who: Viewer, frame: dict[str, Any]) -> None:
        truth = self.truth
        self.frames_checked += 1
        if frame.get("type") in ("event", "sync") and frame.get("table") == truth.table:
            self._table_frame(who, frame)
            return
        for path, value in walk(frame):  # welcome, ack, error, lobby: no card, no seed
            if isinstance(value, str) and value != truth.table and CARD.search(value):
                self.fail(who, frame, f"a card in {path}: {value!r}")
            if _is_int(value) and value in truth.seeds.values():
                self.fail(who, frame, f"a seed in {path}")

    def _table_frame(self, who: Viewer, frame: dict[str, Any]) -> None:
        truth = self.truth
        version = frame["version"]
        now = truth.moments[version]
        record = truth.log[version - 1]
        event_deal = record["data"].get("deal")
        for raw_path, value in walk(frame):
            path = _as_view_path(raw_path)
            if _is_int(value):
                for k, seed in truth.seeds.items():
                    if value == seed and k not in now.revealed:
                        self.fail(who, frame, f"the seed of deal {k} in {path} before its reveal")
            if path and path[-1] == "legal_moves":
                self._legal_moves(who, frame, path, now, _at(frame, raw_path))
            if not isinstance(value, str) or value == truth.table:
                continue
            cards = CARD.findall(value)
            if not cards:
                continue
            if self._names_the_wild_card(path, value):
                continue
            if path[0] == "event":
                k = event_deal
            elif path[:2] == ("view", "deal"):
                k = now.deal
            elif path[:2] == ("view", "scores"):
                k = path[2]
            else:
                k = None
            for card in cards:
                self.cards_checked += 1
                if k is None:
                    self.fail(who, frame, f"card {card} in {path}, outside any smazzata")
                elif k not in now.revealed and card not in now.known[who].get(k, frozenset()):
                    self.fail(who, frame, f"card {card} of deal {k} in {path}: {value!r}")
        if "view" in frame:
            self._view(who, frame, frame["view"], now)

    def _names_the_wild_card(self, path: Where, value: str) -> bool:
        """The rules name the matta (a card, but no secret: which card it is, not where)."""
        wild = self.truth.rules.wild_card
        named = path[-1] == "wild_card" or path[-2:] == ("matta", "card")
        return named and value == wild

    def _legal_moves(
        self, who: Viewer, frame: dict[str, Any], path: Where, now: Moment, moves: Any
    ) -> None:
        if path != ("view", "deal", "legal_moves"):
            self.fail(who, frame, f"legal moves at {path}")
        elif who is None or who != now.to_move:
            self.fail(who, frame, f"legal moves for a viewer who is not to move ({now.to_move})")
        elif set(moves) != now.legal:
            self.fail(who, frame, "legal moves that are not the engine's")
        else:
            self.legal_moves_seen += 1

    def _view(self, who: Viewer, frame: dict[str, Any], view: dict[str, Any], now: Moment) -> None:
        truth = self.truth
        if view["version"] != frame["version"]:
            self.fail(who, frame, f"a view of version {view['version']}")
        for k in view["revealed"]:
            if int(k) not in now.revealed:
                self.fail(who, frame, f"the seed of deal {k} revealed too early")
        deal = view["deal"]
        if deal is None:
            if now.deal is not None:
                self.fail(who, frame, "no deal in the view of a partita in play")
            return
        if view["deal_index"] != now.deal:
            self.fail(who, frame, f"deal {view['deal_index']} shown, deal {now.deal} is played")
        if who is not None and who == now.to_move and "legal_moves" not in deal:
            self.fail(who, frame, "the seat to move was not told its legal moves")
        if who is None:
            if deal["hand"] is not None:
                self.fail(who, frame, "a spectator was given a hand")
        elif sorted(deal["hand"]) != sorted(now.hands[who]):
            self.fail(who, frame, f"hand {deal['hand']}, but the seat holds {now.hands[who]}")
        for entry in deal["hands"]:
            seat = entry["seat"]
            if entry["count"] != len(now.hands[seat]):
                self.fail(who, frame, f"seat {seat} holds {len(now.hands[seat])} cards")
            if "cards" not in entry:
                continue
            allowed = now.deal in now.revealed or (
                who is not None and (seat in truth.partners(who) or seat in now.open_hands)
            )
            if not allowed:
                self.fail(who, frame, f"the hand of seat {seat} is shown")
            elif sorted(entry["cards"]) != sorted(now.hands[seat]):
                self.fail(who, frame, f"seat {seat}'s hand shown wrong")
            elif who is not None and seat != who:
                if seat in now.open_hands:
                    self.face_up_seen += 1
                else:
                    self.partner_cards_seen += 1


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _who(who: Viewer) -> str:
    return "the spectator" if who is None else f"seat {who}"


# ---- the partite ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with start_server(tmp_path_factory.mktemp("secrecy")) as srv:
        yield srv


CONFIGS = {
    "cirulla-4-two-hands": {"players": 4, "options": {"hands": 2}},
    "carte-scoperte-4": {"players": 4, "options": {"hands": 1, "carte_scoperte": True}},
    "carte-viste-2": {"players": 2, "options": {"hands": 2, "carte_viste": True}},
    "carte-viste-4": {"players": 4, "options": {"hands": 1, "carte_viste": True}},
    "pagat-3-declare-at-deal": {
        "preset": "pagat",
        "players": 3,
        "options": {"hands": 1, "declare_at_deal": True},
    },
    "cirullone-4": {"preset": "cirullone", "players": 4, "options": {"hands": 1}},
    "luzzati-2": {"preset": "luzzati", "players": 2, "options": {"hands": 3}},
    "scopa-4": {"preset": "scopa", "players": 4, "options": {"hands": 1}},
}


Frames = dict[Viewer, list[dict[str, Any]]]


def audited_partita(
    server: Server, config: dict[str, Any], seed: int, hop: bool = False
) -> tuple[Truth, Audit, Frames, bool]:
    """Play a partita with a person at every seat and a spectator; audit every frame.

    With `hop`, seat 0 leaves for a while in the middle (another tab of the same user
    plays for it), then comes back with `join` and `since`: the events it missed are
    sent again, and audited as well. Returns whether that hop was made: a partita over
    before it (a D7 instant win) has none."""
    n = config["players"]
    people = guests(server, n)
    for p in people[1::2]:  # these declare by hand (or choose not to)
        set_auto_declare(p, False)
    spectator = Player(server).guest().connect()
    table, seats = open_table(people[0], people[1:], config, [spectator])
    rng = random.Random(seed)
    extra: list[Player] = []
    hopped = False
    if hop:
        start = seats[0].version[table]
        view = play_until(
            table, seats, [spectator], rng=rng, stop=lambda v: v["version"] >= start + 8
        )
    if hop and view["status"] == "playing":  # not over already (a D7 instant win can end it)
        hopped = True
        left_at = seats[0].version[table]
        seats[0].close()
        tab = second_socket(seats[0])
        assert tab.join(table)["type"] == "ack"
        extra.append(tab)
        away = play_until(
            table,
            {**seats, 0: tab},
            [spectator],
            rng=rng,
            stop=lambda v: v["version"] >= left_at + 12,
        )
        tab.close()
        reconnect(seats[0])
        assert seats[0].join(table, since=left_at)["type"] == "ack"
        assert away["version"] > left_at, "the table moved on while seat 0 was away"
        catch_up(seats[0], table, away["version"])
    play_until(table, seats, [spectator], rng=rng)
    record = fetch_record(people[0], table)
    assert_finished_consistently(table, people, record)
    truth = Truth(record)
    audit = Audit(truth)
    frames: Frames = {}
    for who, p in [*seats.items(), (None, spectator)]:
        assert_versions_follow_on(p, table)
        frames[who] = [*p.frames, *(f for t in extra if who == 0 for f in t.frames)]
        for frame in frames[who]:
            audit.frame(who, frame)
    return truth, audit, frames, hopped


@pytest.mark.parametrize("round_", [1, 2])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_no_frame_shows_a_card_its_recipient_may_not_know(
    server: Server, name: str, round_: int
) -> None:
    """Each partita is dealt from fresh seeds the server draws; two rounds of each, in the
    second of which seat 0 leaves and comes back (see `audited_partita`). A partita cut
    short (a D7 instant win) is audited too, and another is played after it."""
    hop = round_ == 2
    for attempt in range(6):
        truth, audit, _, hopped = audited_partita(
            server, CONFIGS[name], seed=round_ + 10 * attempt, hop=hop
        )
        assert not audit.problems, "\n".join(audit.problems[:30])
        if audit.cards_checked > 1000 and audit.legal_moves_seen > 0 and hopped == hop:
            break
    else:
        raise AssertionError("six partite in a row too short to audit")
    if truth.rules.carte_scoperte:
        assert audit.partner_cards_seen > 0, "O2 shows the partner's hand"
    else:
        assert audit.partner_cards_seen == 0
    if truth.rules.carte_viste and truth.players == 2:
        assert audit.face_up_seen > 0, "O1 shows the last mano face up"


def test_the_audit_reports_leaks(server: Server) -> None:
    """The audit can fail: the frames of a real partita, each changed to leak one thing
    (an opponent's card, a seed before its reveal, legal moves to a seat not to move),
    are reported."""
    truth, audit, frames, _ = audited_partita(server, CONFIGS["cirulla-4-two-hands"], seed=3)
    assert not audit.problems

    def problems(who: Viewer, frame: dict[str, Any]) -> list[str]:
        check = Audit(truth)
        check.frame(who, frame)
        return check.problems

    # a view that seat 0 got in the first smazzata while seat 1 still held cards
    def first_view(ok: Any) -> dict[str, Any]:
        for f in frames[0]:
            if f.get("type") == "event" and "view" in f and ok(truth.moments[f["version"]], f):
                return copy.deepcopy(f)
        raise AssertionError("no such frame")

    frame = first_view(lambda m, f: m.deal == 0 and m.hands[1] and m.to_move != 0)
    now = truth.moments[frame["version"]]
    hidden = now.hands[1][0]
    assert problems(0, frame) == []
    frame["view"]["deal"]["hands"][1]["cards"] = list(now.hands[1])
    found = problems(0, frame)
    assert any(f"card {hidden} of deal 0" in p for p in found), found
    assert any("the hand of seat 1 is shown" in p for p in found), found
    # the same card in the view's changes, where most event frames carry the view
    patched = next(
        copy.deepcopy(f)
        for f in frames[0]
        if f.get("type") == "event"
        and "deal" in f.get("changes", {})
        and truth.moments[f["version"]].deal == 0
        and truth.moments[f["version"]].hands[1]
    )
    secret = truth.moments[patched["version"]].hands[1][0]
    patched.pop("view")  # the audit must judge the changes themselves
    patched["changes"]["deal"]["set"]["hand"] = [secret]
    found = problems(0, patched)
    assert any(f"card {secret} of deal 0" in p for p in found), found
    # the same card inside a move string of an event
    frame = first_view(lambda m, f: m.deal == 0 and m.hands[1] and m.to_move != 0)
    frame["event"]["note"] = f"7Dx{hidden}"
    assert any(f"card {hidden}" in p for p in problems(0, frame))
    # the first smazzata's seed before it was revealed
    frame = first_view(lambda m, f: m.deal == 0 and 0 not in m.revealed)
    frame["view"]["revealed"]["0"] = truth.seeds[0]
    found = problems(0, frame)
    assert any("seed of deal 0" in p for p in found), found
    # legal moves in the frame of a seat that is not to move
    frame = first_view(lambda m, f: m.to_move not in (0, None))
    frame["view"]["deal"]["legal_moves"] = sorted(truth.moments[frame["version"]].legal)
    found = problems(0, frame)
    assert any("legal moves for a viewer who is not to move" in p for p in found), found
    # and the spectator given seat 0's hand
    spectated = next(
        copy.deepcopy(f)
        for f in frames[None]
        if f.get("type") == "event" and "view" in f and truth.moments[f["version"]].deal == 0
    )
    spectated["view"]["deal"]["hand"] = truth.moments[spectated["version"]].hands[0]
    found = problems(None, spectated)
    assert any("a spectator was given a hand" in p for p in found), found


def test_a_partita_in_play_has_no_record_or_replay_to_read(server: Server) -> None:
    """Over HTTP too: the record and the replay (every hand open) exist only once the
    partita is over, and a table's summary names no card."""
    anna, bruno = guests(server, 2)
    table, seats = open_table(anna, [bruno], {"players": 2, "options": {"hands": 1}})
    play_until(table, seats, rng=random.Random(5), stop=lambda v: len(v["deal"]["history"]) > 4)
    outsider = Player(server).guest()
    for p in (anna, outsider):
        assert p.http.get(f"/api/records/{table}").status_code == 404
        assert p.http.get(f"/api/replay/{table}").status_code == 404
        r = p.http.get(f"/api/tables/{table}")
        assert r.status_code == 200
        assert not [
            v for _, v in walk(r.json()) if isinstance(v, str) and v != table and CARD.search(v)
        ]
        lobby = p.http.get("/api/tables").json()
        assert not [v for _, v in walk(lobby) if isinstance(v, str) and CARD.fullmatch(v)]


def test_error_messages_tell_nothing_of_hidden_cards(server: Server) -> None:
    """A player who names cards it cannot see (in other hands or still in the deck) is
    refused in the same words whichever they are: the answer names no card but those
    of its move and those it may see, and does not tell a hand from the deck."""
    anna, bruno = guests(server, 2)
    config = {"players": 4, "options": {"hands": 1}, "bots": {"1": "facile", "3": "facile"}}
    table, seats = open_table(anna, [bruno], config)
    view = play_until(
        table,
        seats,
        rng=random.Random(8),
        stop=lambda v: v["deal"]["to_move"] in (0, 2) and v["deal"]["deck"] > 0,
    )
    mover = seats[view["deal"]["to_move"]]
    mine = last_view(mover, table)["deal"]
    hand = mine["hand"]
    on_table = [t["card"] for t in mine["table"]]
    public = set(CARD.findall(" ".join(str(e) for e in mine["history"])))
    visible = set(hand) | set(on_table) | public
    hidden = sorted(str(c) for c in full_deck() if str(c) not in visible)
    assert len(hidden) > 20  # other hands and the deck
    answers: dict[str, set[str]] = {}
    for card in hidden:
        tries = [card, f"{hand[0]}x{card}"] + ([f"{card}x{on_table[0]}"] if on_table else [])
        for move in tries:
            before = mover.version[table]
            answer = mover.command(
                {"type": "play", "table": table, "version": before, "move": move}
            )
            assert answer["type"] == "error", answer
            named = set(CARD.findall(answer["message"]))
            assert named <= set(CARD.findall(move)) | visible, (move, answer["message"])
            shape = answer["code"] + ": " + answer["message"].replace(card, "<card>")
            answers.setdefault(move.replace(card, "<card>"), set()).add(shape)
    assert {k: len(v) for k, v in answers.items()} == {k: 1 for k in answers}, answers
    assert mover.version[table] == view["version"]  # and nothing changed
