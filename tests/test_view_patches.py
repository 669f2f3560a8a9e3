"""Event frames carry a view's changes (tables/patches.py): applied to the view a
client holds, they must give exactly the view the server made, whatever changed."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from test_table_state import Log

from cirulla.eventlog import LogRecord
from cirulla.tables.config import TableConfig
from cirulla.tables.patches import apply_changes, view_changes


class _Recording(Log):
    """A log that keeps every viewer's view (as event frames carry them: no history)
    after each record, live as the server keeps them, and as JSON as a client has them."""

    def __init__(self, config: TableConfig, shuffles: random.Random | None = None) -> None:
        super().__init__(config, shuffles)
        self.live: list[dict[int | None, dict[str, Any]]] = []
        self.sent: list[dict[int | None, Any]] = []

    def add(self, kind: str, **data: object) -> LogRecord:
        rec = super().add(kind, **data)
        viewers = [*range(self.state.config.players), None]
        views = self.state.views(viewers, history=False)
        self.live.append(views)
        self.sent.append({k: json.loads(json.dumps(v)) for k, v in views.items()})  # a copy
        return rec


@pytest.mark.parametrize("players", [2, 3, 4])
def test_changes_from_the_last_broadcast_rebuild_each_view_exactly(players: int) -> None:
    """As the actor does: changes between the live views of two broadcasts, applied to
    the copy a client holds, give the later view; nothing a view shares with an earlier
    one (caches, the engine's own lists) may change under it unseen."""
    # fixed cards: a fresh shuffle ends the partita after one smazzata about once in 150
    log = _Recording(TableConfig(players=players, options={"hands": 2}), random.Random(players))
    log.seat_all()
    log.play_to_end(random.Random(players))
    assert len(log.live) > 60
    for i in range(1, len(log.live)):
        for viewer in log.live[i]:
            made = view_changes(log.live[i - 1][viewer], log.live[i][viewer])
            changes = json.loads(json.dumps(made))  # as it travels
            assert apply_changes(log.sent[i - 1][viewer], changes) == log.sent[i][viewer]
    # a spectator who sits down gets a whole view; changes across seats still rebuild it
    first, last = log.sent[0], log.sent[-1]
    assert apply_changes(first[None], view_changes(log.live[0][None], log.live[-1][1])) == last[1]


def test_changes_leave_out_what_did_not_change_and_name_what_went_away() -> None:
    base = {"a": 1, "rules": {"x": [1, 2]}, "deal": {"to_move": 0, "legal_moves": ["5C"]}}
    view = {"a": 2, "rules": {"x": [1, 2]}, "deal": {"to_move": 1}}
    changes = view_changes(base, view)
    assert changes == {"set": {"a": 2}, "deal": {"set": {"to_move": 1}, "unset": ["legal_moves"]}}
    assert apply_changes(base, changes) == view
    assert base["deal"] == {"to_move": 0, "legal_moves": ["5C"]}  # the base is left alone


def test_a_deal_that_comes_or_goes_is_sent_whole() -> None:
    base: dict[str, Any] = {"status": "open", "deal": None}
    view = {"status": "playing", "deal": {"to_move": 2, "hand": ["7D"]}}
    changes = view_changes(base, view)
    assert changes == {"set": {"status": "playing", "deal": view["deal"]}}
    assert apply_changes(base, changes) == view
    back = view_changes(view, base)
    assert back == {"set": {"status": "open", "deal": None}}
    assert apply_changes(view, back) == base
