"""benchmarks/strength_aims.py: issue 16's aims, judged from the stored arena runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from strength_aims import (
    AIMS,
    CAMPIONE,
    CHEATER,
    MAESTRO,
    NORMALE,
    OLD_CAMPIONE,
    Side,
    as_played,
    scorecard,
)


def bot(side: Side) -> dict[str, Any]:
    budget = None if side.iterations is None else {"iterations": side.iterations, "seconds": None}
    return {"name": side.name, "options": dict(side.options), "budget": budget}


def store(
    folder: Path,
    name: str,
    a: dict[str, Any],
    b: dict[str, Any],
    players: int,
    seed: int,
    margins: list[float],
) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    run = {
        "format": "cirulla.arena/1",
        "config": {
            "a": a,
            "b": b,
            "game": "cirulla",
            "players": players,
            "preset": "cirulla",
            "pairs": len(margins),
            "seed": seed,
        },
        "smazzate": {"pair_margins": margins},
    }
    (folder / f"{name}.json").write_text(json.dumps(run))


def row(rows: list[dict[str, Any]], title: str) -> dict[str, Any]:
    return next(r for r in rows if r["aim"] == title)


def test_every_aim_of_the_issue_is_judged_at_both_player_counts(tmp_path: Path) -> None:
    rows = scorecard(tmp_path)
    assert len(rows) == len(AIMS) == 12
    assert {r["players"] for r in rows} == {2, 4}
    assert all(r["status"] == "not run" and r["decks"] == 0 for r in rows)
    assert (
        row(rows, "campione +0.5 on the campione of 2026-11-21, 2 players")["decks_short"] == 2000
    )


def test_the_share_is_read_deck_by_deck_over_the_seeds_both_ran(tmp_path: Path) -> None:
    cheat = [8.0, 6.0, 7.0, 9.0, 7.0, 7.5]
    mine = [4.0, 2.0, 3.0, 4.0, 3.5, 3.0]
    # the runs are found by what they played, in any folder, under any name
    store(tmp_path / "d1" / "long", "x1", bot(CAMPIONE), bot(NORMALE), 4, 1, mine[:3])
    store(tmp_path / "d2", "y", bot(CAMPIONE), bot(NORMALE), 4, 2, mine[3:])
    store(tmp_path / "d1", "c1", bot(CHEATER), bot(NORMALE), 4, 1, cheat[:3])
    store(tmp_path / "d3", "c2", bot(CHEATER), bot(NORMALE), 4, 2, cheat[3:])
    store(tmp_path / "d3", "c3", bot(CHEATER), bot(NORMALE), 4, 3, [1.0, 2.0])  # no campione
    # a campione with other options, or capped by seconds, is not today's campione
    other = {**bot(CAMPIONE), "options": {**CAMPIONE.options, "mixture": True}}
    store(tmp_path / "d4", "m", other, bot(NORMALE), 4, 3, [9.0, 9.0])
    capped = {**bot(CAMPIONE), "budget": {"iterations": CAMPIONE.iterations, "seconds": 1.0}}
    store(tmp_path / "d4", "cap", capped, bot(NORMALE), 4, 3, [9.0, 9.0])
    r = row(scorecard(tmp_path), "campione closes half of greedy-to-cheater, 4 players")
    assert r["decks"] == 6 and r["seeds"] == [1, 2] and r["decks_short"] == 1994
    assert r["share_of_cheater"] == pytest.approx(sum(mine) / sum(cheat))
    assert r["tested"]["mean"] == pytest.approx((sum(mine) - sum(cheat) / 2) / 6)
    assert r["status"] == "not met"  # every deck below half, the interval too


def test_a_seed_stored_twice_counts_once_by_its_longer_run(tmp_path: Path) -> None:
    a, b = bot(CAMPIONE), bot(OLD_CAMPIONE)
    store(tmp_path, "first50", a, b, 2, 7, [1.0, 1.2])
    store(tmp_path, "full", a, b, 2, 7, [1.0, 1.2, 0.8, 1.1])
    store(tmp_path, "more", a, b, 2, 8, [0.9, 1.0, 1.3])
    r = row(scorecard(tmp_path), "campione +0.5 on the campione of 2026-11-21, 2 players")
    assert r["decks"] == 7 and r["seeds"] == [7, 8]
    assert r["status"] == "met"  # about +1.04, its interval above the +0.5 line
    assert r["decks_short"] == 1993


def test_a_margin_straddling_its_line_is_undecided_and_one_below_zero_not_met(
    tmp_path: Path,
) -> None:
    store(tmp_path, "u", bot(CAMPIONE), bot(OLD_CAMPIONE), 4, 1, [3.0, -2.0, 1.5, -1.0])
    store(
        tmp_path,
        "n",
        bot(NORMALE),
        {"name": "greedy", "options": {"epsilon": 0.35}},
        2,
        1,
        [-1.0, -2.0, -1.5],
    )
    rows = scorecard(tmp_path)
    assert row(rows, "campione +0.5 on the campione of 2026-11-21, 4 players")["status"] == (
        "undecided"
    )
    facile = row(rows, "normale beats facile, 2 players")
    assert facile["status"] == "not met" and facile["decks_short"] == 0


def test_files_that_are_not_arena_runs_are_passed_over(tmp_path: Path) -> None:
    (tmp_path / "pooled.json").write_text(json.dumps({"margin": {"mean": 1.0}}))
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "list.json").write_text("[1, 2]")
    assert all(r["status"] == "not run" for r in scorecard(tmp_path))


def test_maestro_is_judged_against_campione_with_its_workers_and_budget(tmp_path: Path) -> None:
    assert MAESTRO.options["workers"] > 1 and MAESTRO.iterations == 10_000
    store(tmp_path, "m", bot(MAESTRO), bot(CAMPIONE), 2, 1, [1.0, 0.5, 1.5, 1.0])
    # campione's options with maestro's budget is not maestro: its workers are missing
    store(
        tmp_path,
        "x",
        {**bot(MAESTRO), "options": dict(CAMPIONE.options)},
        bot(CAMPIONE),
        4,
        1,
        [2.0, 2.0],
    )
    rows = scorecard(tmp_path)
    two = row(rows, "maestro beats campione, 2 players")
    assert two["decks"] == 4 and two["status"] == "met"
    assert row(rows, "maestro beats campione, 4 players")["status"] == "not run"


def test_a_search_that_cuts_elsewhere_is_judged_as_the_one_without_the_cut(
    tmp_path: Path,
) -> None:
    whole = {"infer": True, "epsilon": 0.1}
    everywhere = {**whole, "leaf": "cut"}
    four = Side("ismcts", {**everywhere, "cut_players": [4]}, 3000)

    def ran(options: dict[str, Any]) -> dict[str, Any]:
        return {"name": "ismcts", "options": options, "budget": {"iterations": 3000}}

    assert four.matches(ran(whole), 2) and not four.matches(ran(whole), 4)
    assert four.matches(ran(everywhere), 4) and not four.matches(ran(everywhere), 2)
    assert four.matches(ran({**everywhere, "cut_players": [2, 4]}), 4)
    assert not four.matches(ran({**everywhere, "cut_players": [2, 4]}), 2)
    # where it does not cut, how long the cut would wait says nothing either
    waits = {**everywhere, "cut_within": 2, "cut_players": [4]}
    assert as_played("ismcts", waits, 2) == whole
    # three stages at 4 players: a value left two of them (or more) is the plain cut
    assert as_played("ismcts", waits, 4) == everywhere
    assert as_played("ismcts", {**everywhere, "cut_within": 1}, 4) == {
        **everywhere,
        "cut_within": 1,
    }
    two = {**everywhere, "cut_within": 2}
    assert as_played("ismcts", two, 2) == two  # six stages at 2: it waits for the last two
    assert Side("ismcts", two, 3000).matches(ran(everywhere), 4)
    assert not Side("ismcts", two, 3000).matches(ran(everywhere), 2)
    # only ismcts reads the cut
    assert as_played("pimc", {"leaf": "cut", "cut_players": [4]}, 2) == {
        "leaf": "cut",
        "cut_players": [4],
    }


def test_a_search_that_reads_the_sets_live_elsewhere_is_judged_as_the_one_without() -> None:
    base = {"infer": True, "leaf": "cut_mean", "cut_within": 2}
    four = Side("ismcts", {**base, "live": True, "live_players": [4]}, 3000)

    def ran(options: dict[str, Any]) -> dict[str, Any]:
        return {"name": "ismcts", "options": options, "budget": {"iterations": 3000}}

    assert four.matches(ran(base), 2) and not four.matches(ran(base), 4)
    assert four.matches(ran({**base, "live": True}), 4)
    assert not four.matches(ran({**base, "live": True}), 2)
    assert four.matches(ran({**base, "live": False}), 2)  # off is the search without it
    assert as_played("ismcts", {**base, "live": True, "live_players": [2, 4]}, 2) == {
        **base,
        "live": True,
    }
    assert as_played("pimc", {"live": True, "live_players": [4]}, 2) == {
        "live": True,
        "live_players": [4],
    }


def test_a_search_that_solves_the_last_stage_is_itself_at_2_players_only() -> None:
    base = {"infer": True, "leaf": "cut_mean", "cut_within": 2}
    solving = Side("ismcts", {**base, "endgame": "searchers"}, 3000)

    def ran(options: dict[str, Any]) -> dict[str, Any]:
        return {"name": "ismcts", "options": options, "budget": {"iterations": 3000}}

    # at 4 players nothing is solved: its runs are the search's without the option
    assert solving.matches(ran(base), 4) and solving.matches(ran({**base, "endgame": "off"}), 4)
    assert not solving.matches(ran(base), 2)
    assert not solving.matches(ran({**base, "endgame": "always"}), 2)
    assert solving.matches(ran({**base, "endgame": "searchers"}), 2)
    assert as_played("ismcts", {**base, "endgame": "off"}, 2) == base
    # the stage before the last: its own search at 2 players, the one stage's at 4
    further = Side("ismcts", {**base, "endgame": "searchers", "endgame_before": "sampled"}, 3000)
    assert not further.matches(ran({**base, "endgame": "searchers"}), 2)
    assert further.matches(ran({**base, "endgame": "searchers", "endgame_before": "sampled"}), 2)
    assert not further.matches(
        ran({**base, "endgame": "searchers", "endgame_before": "searched"}), 2
    )
    assert further.matches(ran(base), 4)
    assert solving.matches(ran({**base, "endgame": "searchers", "endgame_before": "off"}), 2)
    # the last stage at 4 players: its own search there, nothing at 2
    hidden = Side("ismcts", {**base, "endgame": "searchers", "endgame_hidden": "sampled"}, 3000)
    assert hidden.matches(ran({**base, "endgame": "searchers", "endgame_hidden": "sampled"}), 4)
    assert not hidden.matches(ran(base), 4)
    assert not hidden.matches(ran({**base, "endgame": "always", "endgame_hidden": "sampled"}), 4)
    assert hidden.matches(ran({**base, "endgame": "searchers"}), 2)
    assert not solving.matches(
        ran({**base, "endgame": "searchers", "endgame_hidden": "sampled"}), 4
    )
    assert solving.matches(ran({**base, "endgame": "searchers", "endgame_hidden": "off"}), 4)
