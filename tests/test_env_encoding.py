"""The action encoding and the observation shared by every environment
(cirulla.env.encoding, docs/environments.md): every legal move reachable, only legal
moves reachable, and no hidden card in any observation."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from cirulla import Deal, Rules, determinize
from cirulla.env.encoding import (
    DONE,
    NUM_ACTIONS,
    OBSERVATION_HIGH,
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    PASS,
    MoveBuilder,
    action_name,
    move_actions,
    observation,
)
from cirulla.moves import Move

# (preset, players, options): every preset, and the options that change what is seen
# or what may be declared (O1 carte_viste, O2 carte_scoperte, B7 declare_at_deal).
CONFIGS: list[tuple[str, int, dict[str, Any] | None]] = [
    ("cirulla", 2, None),
    ("cirulla", 3, None),
    ("cirulla", 4, None),
    ("pagat", 3, None),
    ("luzzati", 2, None),
    ("luzzati", 4, None),
    ("dossena", 4, None),
    ("scopa", 2, None),
    ("scopa", 4, None),
    ("cirullone", 4, None),
    ("cirullone-6-3", 4, None),
    ("cirullone-3-6", 4, None),
    ("pagat", 4, {"declare_at_deal": True}),
    ("pagat", 2, {"declare_at_deal": True, "declare_all_at_once": True}),
    ("cirulla", 4, {"carte_scoperte": True}),
    ("cirulla", 2, {"carte_viste": True}),
]
IDS = [f"{p}-{n}" + ("-" + "-".join(o) if o else "") for p, n, o in CONFIGS]


def rules_of(preset: str, options: dict[str, Any] | None) -> Rules:
    return Rules.preset(preset).replace(**(options or {}))


def positions(
    preset: str, players: int, options: dict[str, Any] | None, deals: int, seed: int = 0
) -> Iterator[Deal]:
    """Every position of `deals` random smazzate (random legal moves)."""
    rules = rules_of(preset, options)
    rng = random.Random(seed)
    for i in range(deals):
        deal = Deal(rules, players, dealer=i % players, seed=seed * 1000 + i)
        while not deal.is_over:
            yield deal
            legal = deal.legal_moves()
            # favour declarations, so that positions after them are common too
            decl = [m for m in legal if m.kind == "declare"]
            deal.play(rng.choice(decl if decl and rng.random() < 0.5 else legal))


def walk(legal: list[Move], builder: MoveBuilder, path: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every action path from `builder`'s prefix to a completed move; checks each step."""
    found = []
    actions = builder.legal_actions(legal)
    assert actions, f"a prefix {path} with no legal continuation"
    assert builder.mask(legal).nonzero()[0].tolist() == actions
    for a in actions:
        b = builder.copy()
        move = b.step(legal, a)
        fitting = [m for m in legal if move_actions(m)[: len(path) + 1] == (*path, a)]
        assert len(fitting) == (1 if move is not None else len(fitting)) and fitting
        if move is None:  # auto-complete: more actions only while several moves fit
            assert len(fitting) >= 2
        if move is None:
            assert b.prefix == (*builder.prefix, a)
            found += walk(legal, b, (*path, a))
        else:
            assert b.prefix == ()
            found.append((*path, a))
            assert move in legal
            # the path is a prefix of the move's canonical sequence
            assert move_actions(move)[: len(path) + 1] == (*path, a)
    return found


# ---- the encoding -------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players", "options"), CONFIGS, ids=IDS)
def test_every_legal_move_is_reachable_and_only_legal_moves_are(
    preset: str, players: int, options: dict[str, Any] | None
) -> None:
    seen_kinds: set[str] = set()
    for deal in positions(preset, players, options, deals=40):
        legal = deal.legal_moves()
        paths = walk(legal, MoveBuilder(), ())
        moves = []
        for path in paths:
            b = MoveBuilder()
            for a in path[:-1]:
                assert b.step(legal, a) is None
            move = b.step(legal, path[-1])
            assert move is not None
            moves.append(move)
        assert len(moves) == len(set(moves)) == len(set(legal)), (deal, legal, paths)
        assert set(moves) == set(legal)
        seen_kinds.update(m.kind for m in legal)
    if options and options.get("declare_at_deal"):
        assert "pass" in seen_kinds and "declare" in seen_kinds
    if preset.startswith("cirullone"):
        assert "declare" in seen_kinds


def test_done_is_offered_only_when_a_shorter_and_a_longer_move_share_the_prefix() -> None:
    """P6 (may_decline_capture): a card may capture or be laid, so after PLAY c both the
    bare play and its captures fit, and DONE picks the bare play. Every move's canonical
    sequence enters it, and DONE is offered exactly where a longer move shares the prefix."""
    offered = 0
    for deal in positions("cirulla", 2, {"may_decline_capture": True}, deals=5):
        legal = deal.legal_moves()
        seqs = {m: move_actions(m) for m in legal}
        for move, seq in seqs.items():
            b = MoveBuilder()
            for k, a in enumerate(seq):
                longer = any(
                    len(o) > k + 1 and o[:k] == seq[:k] and o != seq for o in seqs.values()
                )
                assert (DONE in b.legal_actions(legal)) == (
                    any(o[:k] == seq[:k] and o[k] == DONE for o in seqs.values() if len(o) > k)
                )
                if a == DONE:
                    offered += 1
                    assert longer
                got = b.step(legal, a)
                if got is not None:
                    assert got == move
                    break
            else:
                raise AssertionError(f"{move} was not completed by its sequence {seq}")
    assert offered > 20


def test_a_masked_out_action_raises_and_changes_nothing() -> None:
    deal = Deal(Rules.preset("cirulla"), 4, 0, seed=1)
    legal = deal.legal_moves()
    b = MoveBuilder()
    bad = next(a for a in range(NUM_ACTIONS) if a not in b.legal_actions(legal))
    with pytest.raises(ValueError, match="not legal here"):
        b.step(legal, bad)
    assert b.prefix == ()
    with pytest.raises(ValueError, match="integer"):
        b.step(legal, "five")  # type: ignore[arg-type]


def test_action_names_cover_the_vocabulary() -> None:
    names = [action_name(a) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS
    assert names[0] == "play AD" and names[40] == "take AD" and names[DONE] == "done"
    assert names[81] == "declare cirulla" and names[81 + 11 + 1] == "declare decino=A"
    assert names[PASS] == "pass"
    with pytest.raises(ValueError):
        action_name(NUM_ACTIONS)


def test_observation_layout_tiles_the_vector() -> None:
    offset = 0
    for s in OBSERVATION_LAYOUT:
        assert s.offset == offset and s.length > 0
        offset += s.length
    assert offset == OBSERVATION_SIZE == len(OBSERVATION_HIGH)


# ---- no leak of hidden cards ----------------------------------------------------------


@pytest.mark.parametrize(("preset", "players", "options"), CONFIGS, ids=IDS)
def test_no_observation_changes_when_only_hidden_cards_change(
    preset: str, players: int, options: dict[str, Any] | None
) -> None:
    """P9, O1, O2: two deals that agree on a seat's view but not on the other hands give
    that seat the same observation tensor and the same action mask."""
    rng = random.Random(7)
    changed = 0
    for k, deal in enumerate(positions(preset, players, options, deals=4, seed=3)):
        if k % 3:
            continue
        for seat in range(players):
            view = deal.view(seat)
            others = [determinize(view, rng)]
            other = deal.copy()
            other.redeal_unseen(seat, rng)
            others.append(other)
            prefix = ()
            builder = MoveBuilder()
            if seat == deal.to_move:  # also with a pending prefix
                legal = deal.legal_moves()
                first = builder.legal_actions(legal)[0]
                if builder.copy().step(legal, first) is None:
                    builder.step(legal, first)
                    prefix = builder.prefix
            obs = observation(view, prefix)
            mask = builder.mask(deal.legal_moves()) if seat == deal.to_move else None
            for alt in others:
                hidden = [s for s in range(players) if "cards" not in view["hands"][s]]
                if any(alt.hand(s) != deal.hand(s) for s in hidden):
                    changed += 1
                assert np.array_equal(observation(alt.view(seat), prefix), obs)
                if mask is not None:
                    assert np.array_equal(builder.mask(alt.legal_moves()), mask)
    assert changed > 10  # the test did compare deals that differ in hidden cards


def test_docs_observation_table_matches_the_layout() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "environments.md").read_text()
    rows = {}
    for line in text.splitlines():
        parts = [p.strip() for p in line.strip("|").split("|")]
        if len(parts) == 5 and parts[0].startswith("`") and parts[1].isdigit():
            rows[parts[0].strip("`")] = (int(parts[1]), int(parts[2]), float(parts[3]))
    assert rows == {s.name: (s.offset, s.length, s.high) for s in OBSERVATION_LAYOUT}
    assert f"vector of {OBSERVATION_SIZE}" in text


def _part(obs: np.ndarray, name: str) -> np.ndarray:
    s = next(s for s in OBSERVATION_LAYOUT if s.name == name)
    return obs[s.offset : s.offset + s.length]


def _cards(ids: np.ndarray) -> set[int]:
    return {int(i) for i in np.flatnonzero(ids)}


@pytest.mark.parametrize(("preset", "players", "options"), CONFIGS, ids=IDS)
def test_observation_slices_say_what_the_layout_says(
    preset: str, players: int, options: dict[str, Any] | None
) -> None:
    from cirulla import unseen_cards

    for k, deal in enumerate(positions(preset, players, options, deals=3, seed=5)):
        if k % 4:
            continue
        for seat in range(players):
            view = deal.view(seat)
            obs = observation(view)
            n, sides = players, deal.sides
            me = deal.side_of(seat)
            assert _cards(_part(obs, "hand")) == {c.id for c in deal.hand(seat)}
            assert _cards(_part(obs, "table")) == {c.id for c in deal.table}
            captured = _part(obs, "captured").reshape(3, 40)
            for side in range(sides):
                rel = (side - me) % sides
                assert _cards(captured[rel]) == {c.id for c in deal.captured(side)}
                assert _part(obs, "scope")[rel] == deal.scope()[side]
                assert _part(obs, "bonus")[rel] == deal.bonus()[side]
            declared = _part(obs, "declared").reshape(4, 40)
            for s in range(n):
                rel = (s - seat) % n
                assert _part(obs, "hand_counts")[rel] == len(deal.hand(s))
                assert _cards(declared[rel]) == {c.id for c in deal.declared(s)}
            assert _cards(_part(obs, "unseen")) == {c.id for c in unseen_cards(view)}
            assert _part(obs, "deck")[0] == deal.deck_left
            assert _part(obs, "dealer")[(deal.dealer - seat) % n] == 1
            assert _part(obs, "players")[n - 2] == 1
            if deal.to_move is not None:
                assert _part(obs, "to_move")[(deal.to_move - seat) % n] == 1
            assert not _part(obs, "prefix_play").any() and not _part(obs, "prefix_take").any()
