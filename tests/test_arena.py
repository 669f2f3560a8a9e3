"""The arena: paired seatings, reproducibility across processes, its statistics on
known answers, and its command line."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import pytest

from cirulla import Deal, Rules
from cirulla.bots import Budget, OmniscientBot, SeatView
from cirulla.bots.arena import (
    ArenaConfig,
    ArenaProgress,
    ArenaResult,
    BotSpec,
    PairResult,
    PlayResult,
    add_cli,
    deck_seed,
    main,
    parse_budget,
    partita_seed,
    run_arena,
    seatings,
)
from cirulla.bots.simple import RandomBot
from cirulla.bots.stats import RunningMean, Tally, mean_estimate, wilson_interval, z_value
from cirulla.game import derived_seed
from cirulla.moves import Move, parse_move

# ---- a bot that records what it was shown ------------------------------------------
RECORDS: list[dict[str, Any]] = []


class RecordingBot(RandomBot):
    """Plays at random; records its seed, label, seat and the first deal it sees."""

    def __init__(self, seed: int = 0, budget: Budget | None = None, label: str = "?") -> None:
        super().__init__(seed, budget)
        self.record: dict[str, Any] = {"label": label, "seed": seed, "seat": None}
        RECORDS.append(self.record)

    def choose(self, view: SeatView) -> Move:
        assert isinstance(view, SeatView)  # a view, never a Deal
        if self.record["seat"] is None:
            deals = [e for e in view.history if e["type"] == "deal" and e["stage"] == 0]
            first = deals[-1]  # after any misdeal
            self.record.update(
                seat=view.seat,
                dealer=view.dealer,
                hand=first["hands"][view.seat],
                table=first["table"],
            )
        return super().choose(view)


def recording(label: str) -> BotSpec:
    return BotSpec(label, options={"label": label}, factory=RecordingBot)


@pytest.fixture
def records() -> list[dict[str, Any]]:
    RECORDS.clear()
    return RECORDS


# ---- pairing ------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_deck_is_played_by_every_seating(players: int, records: list[dict[str, Any]]) -> None:
    pairs = 3
    config = ArenaConfig(recording("A"), recording("B"), players=players, pairs=pairs, seed=7)
    result = run_arena(config)
    records[:] = records[2:]  # the two bots config.check() makes
    plays = seatings(players)
    assert len(records) == pairs * len(plays) * players  # fresh bots per play
    expected_a = {2: [(0,), (1,)], 4: [(0, 2), (1, 3)]}.get(players)
    if expected_a is not None:
        assert list(plays) == expected_a
    else:  # A alone in every seat, then B alone in every seat
        assert list(plays) == [(0,), (1,), (2,), (1, 2), (0, 2), (0, 1)]
    for k, pair in enumerate(result.pairs):
        assert pair.index == k
        assert pair.seed == deck_seed(7, k) == derived_seed(7, "arena:deck", k)
        assert pair.dealer == k % players
        deals = []
        for p, play in enumerate(pair.plays):
            assert play.a_seats == plays[p]
            bots = records[(k * len(plays) + p) * players :][:players]
            assert [b["seat"] for b in bots] == list(range(players))
            assert [b["label"] for b in bots] == [
                "A" if s in plays[p] else "B" for s in range(players)
            ]
            assert {b["dealer"] for b in bots} == {k % players}
            deals.append(([b["hand"] for b in bots], bots[0]["table"]))
            seeds = [b["seed"] for b in bots]
            assert len(set(seeds)) == players
        assert all(d == deals[0] for d in deals)  # the same cards in every play
    # Different decks for different pairs, and fresh bot seeds everywhere.
    assert len({pair.seed for pair in result.pairs}) == pairs
    assert len({r["seed"] for r in records}) == len(records)
    # Every seat is played by A and by B on each deck.
    for seat in range(players):
        assert {seat in s for s in plays} == {True, False}


def test_seatings_mirror_each_other() -> None:
    """Swapping A and B in one play gives another play of the same deck."""
    for players in (2, 3, 4):
        plays = seatings(players)
        mirrored = {tuple(s for s in range(players) if s not in a) for a in plays}
        assert mirrored == set(plays)
    with pytest.raises(ValueError):
        seatings(5)


def test_paired_partite_see_the_same_decks() -> None:
    config = ArenaConfig("greedy", "random", players=2, pairs=0, partite=3, seed=11)
    result = run_arena(config)
    assert len(result.partite) == 3
    for j, pair in enumerate(result.partite):
        assert pair.seed == partita_seed(11, j)
        first, second = pair.plays
        assert (first.a_seats, second.a_seats) == ((0,), (1,))
        common = min(first.smazzate, second.smazzate)
        assert first.deal_seeds[:common] == second.deal_seeds[:common]
        assert first.dealers[:common] == second.dealers[:common]
        for play in pair.plays:
            assert play.dealers[0] == j % 2
            assert play.deal_seeds == tuple(
                derived_seed(pair.seed, "deal", i) for i in range(play.smazzate)
            )
            if play.end_reason == "target":
                assert play.a_won == (play.margin > 0)
    # greedy wins nearly all of them
    assert result.partite_tally().won >= 5


def test_same_results_with_one_or_two_processes() -> None:
    base = ArenaConfig("greedy", "random", players=3, pairs=12, partite=1, seed=3)
    one = run_arena(base)
    two = run_arena(ArenaConfig(**{**base.__dict__, "processes": 2}))
    assert one.pairs == two.pairs
    assert one.partite == two.partite
    strip = {"config", "speed"}
    d1 = {k: v for k, v in one.to_dict().items() if k not in strip}
    d2 = {k: v for k, v in two.to_dict().items() if k not in strip}
    assert d1 == d2


def test_random_against_random_is_even() -> None:
    result = run_arena(ArenaConfig("random", "random", players=2, pairs=150, seed=1))
    margin = result.margin()
    assert margin.n == 150
    assert margin.low is not None and margin.high is not None and margin.se is not None
    assert margin.low < 0 < margin.high
    assert abs(margin.mean or 0) < 2.5 * margin.se
    assert math.isclose(margin.mean or 0, sum(p.margin for p in result.pairs) / 150)
    # Reproducible for the seed: the same run gives the same pairs.
    again = run_arena(ArenaConfig("random", "random", players=2, pairs=5, seed=1))
    assert again.pairs == result.pairs[:5]


def test_greedy_beats_random() -> None:
    result = run_arena(ArenaConfig("greedy", "random", players=4, pairs=60, seed=5))
    margin = result.margin()
    assert margin.low is not None and margin.low > 0
    tally = result.smazzate()
    assert tally.played == 120 and tally.won > 2 * tally.lost
    for a_dealt in (True, False):
        split = result.margin_dealing(a_dealt)
        assert split.n == 60 and split.low is not None and split.low > 0
    speed = result.speed()
    assert speed["moves"] == speed["a"]["moves"] + speed["b"]["moves"] > 0
    assert speed["a"]["moves_per_second"] > 0


def test_bad_configs_are_refused_before_playing() -> None:
    for bad in (
        ArenaConfig("nobody", "random"),
        ArenaConfig("random", "random", players=5),
        ArenaConfig("random", "random", preset="scopa", players=3),
        ArenaConfig("random", "random", preset="no-such-preset"),
        ArenaConfig("random", "random", pairs=0, partite=0),
        ArenaConfig("random", "random", pairs=-1),
        ArenaConfig("random", "random", processes=0),
        ArenaConfig(BotSpec("random", options={"no_such_option": 1}), "random"),
    ):
        with pytest.raises(ValueError):
            run_arena(bad)


def test_rules_object_and_budget_in_config() -> None:
    rules = Rules.preset("cirulla").replace(ace_choice=True)
    config = ArenaConfig(
        BotSpec("greedy", Budget(iterations=5)), "random", players=2, preset=rules, pairs=2
    )
    data = run_arena(config).to_dict()["config"]
    assert data["rules"]["ace_choice"] is True
    assert data["preset"] is None
    assert data["a"]["budget"] == {"iterations": 5, "seconds": None}


# ---- statistics on known answers ----------------------------------------------------
def test_mean_estimate_known_answer() -> None:
    # Margins 2, -1, 3, 0, 6: mean 2; squared deviations 0 + 9 + 1 + 4 + 16 = 30;
    # variance 30 / 4 = 7.5; se = sqrt(7.5 / 5) = sqrt(1.5); 95%: 2 -+ 1.959964 * se.
    e = mean_estimate([2, -1, 3, 0, 6])
    assert e.n == 5 and e.mean == pytest.approx(2.0)
    assert e.sd == pytest.approx(math.sqrt(7.5))
    assert e.se == pytest.approx(1.2247449, abs=1e-7)
    assert z_value() == pytest.approx(1.959964, abs=1e-6)
    assert e.low == pytest.approx(-0.4004558, abs=1e-6)
    assert e.high == pytest.approx(4.4004558, abs=1e-6)
    assert e.to_dict()["ci95"] == [e.low, e.high]
    # Welford gives the same on values far from 0 (no cancellation).
    shifted = mean_estimate([1e9 + x for x in (2, -1, 3, 0, 6)])
    assert shifted.se == pytest.approx(e.se, rel=1e-9)
    # Too few values: no standard error, no interval, and JSON-safe None.
    assert mean_estimate([]).mean is None
    one = mean_estimate([4.0])
    assert (one.mean, one.se, one.low) == (4.0, None, None)
    running = RunningMean()
    for x in (2, -1, 3):
        running.add(x)
    assert running.estimate().mean == pytest.approx(4 / 3)


def _rounded(successes: int, n: int) -> tuple[float, float]:
    interval = wilson_interval(successes, n)
    assert interval is not None
    return round(interval[0], 4), round(interval[1], 4)


def test_wilson_known_answers() -> None:
    # Newcombe (1998), Statistics in Medicine 17, 857-872, table I: 81/263 and 15/148.
    assert _rounded(81, 263) == (0.2553, 0.3662)
    assert _rounded(15, 148) == (0.0624, 0.1605)
    assert _rounded(8, 10) == (0.4902, 0.9433)
    # 0 of n: the upper end is z^2 / (n + z^2).
    z2 = z_value() ** 2
    assert wilson_interval(0, 10) == (0.0, pytest.approx(z2 / (10 + z2)))
    assert wilson_interval(10, 10) == (pytest.approx(1 - z2 / (10 + z2)), 1.0)
    assert wilson_interval(0, 0) is None
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_result_figures_known_answer() -> None:
    """Hand-made plays: 4 players, two decks dealt by seats 0 and 1."""
    pairs = (
        PairResult(
            0,
            1,
            0,
            (
                PlayResult((0, 2), (10, 3, 10, 3), 20, 20),  # A dealt: +7
                PlayResult((1, 3), (5, 6, 5, 6), 20, 20),  # B dealt: +1
            ),
        ),
        PairResult(
            1,
            2,
            1,
            (
                PlayResult((0, 2), (4, 4, 4, 4), 20, 20),  # B dealt: 0
                PlayResult((1, 3), (9, 1, 9, 1), 20, 20),  # A dealt: -8
            ),
        ),
    )
    result = ArenaResult(ArenaConfig("random", "random", pairs=2), pairs, ())
    assert [p.margin for p in pairs] == [4.0, -4.0]
    margin = result.margin()
    assert (margin.mean, margin.sd) == (0.0, pytest.approx(math.sqrt(32)))
    assert margin.se == pytest.approx(4.0)
    assert result.margin_dealing(True).mean == pytest.approx((7 - 8) / 2)
    assert result.margin_dealing(False).mean == pytest.approx((1 + 0) / 2)
    assert result.smazzate() == Tally(won=2, lost=1, tied=1)
    data = result.to_dict()
    assert data["smazzate"]["pair_margins"] == [4.0, -4.0]
    assert data["smazzate"]["a_points_per_seat"] == pytest.approx((10 + 6 + 4 + 1) / 4)
    json.dumps(data, allow_nan=False)
    # 3 players: the smazzata goes to whoever holds the top score alone.
    assert PlayResult((0,), (5, 5, 2), 1, 1).outcome == 0
    assert PlayResult((0, 1), (5, 5, 2), 1, 1).outcome == 1
    assert PlayResult((2,), (5, 5, 2), 1, 1).outcome == -1
    assert PlayResult((2,), (5, 5, 2), 1, 1).margin == pytest.approx(2 - 5)


# ---- output and command line ---------------------------------------------------------
def test_json_and_plot_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json, out_png = tmp_path / "arena.json", tmp_path / "arena.png"
    code = main(
        [
            "greedy",
            "random",
            "--players",
            "2",
            "--pairs",
            "20",
            "--partite",
            "1",
            "--seed",
            "4",
            "--json",
            str(out_json),
            "--plot",
            str(out_png),
        ]
    )
    assert code == 0
    shown = capsys.readouterr().out
    assert "A - B points per smazzata" in shown and "partite won by A" in shown
    data = json.loads(out_json.read_text())
    assert data["config"]["a"]["name"] == "greedy" and data["config"]["pairs"] == 20
    assert data["config"]["seatings"] == [[0], [1]]
    s = data["smazzate"]
    assert s["pairs"] == 20 and s["plays"] == 40 and len(s["pair_margins"]) == 20
    for key in ("margin", "margin_a_dealing", "margin_a_not_dealing"):
        assert set(s[key]) >= {"mean", "se", "ci95"} and len(s[key]["ci95"]) == 2
    assert s["won_lost_tied"]["played"] == 40
    p = data["partite"]
    assert p["plays"] == 2 and len(p["wilson95"]) == 2
    assert data["speed"]["moves_per_second"] > 0
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _cli(argv: list[str]) -> int:
    """As the lead wires it: `cirulla arena ...` through add_cli."""
    parser = argparse.ArgumentParser(prog="cirulla")
    add_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


def test_cli_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(["arena", "random", "greedy", "--pairs", "2", "--quiet"]) == 0
    assert "A-B per smazzata" in capsys.readouterr().out
    assert _cli(["arena", "nobody", "greedy", "--pairs", "2"]) == 2
    assert "unknown bot" in capsys.readouterr().err
    assert _cli(["arena", "random", "greedy", "--preset", "scopa", "--players", "3"]) == 2
    assert "3" in capsys.readouterr().err
    assert _cli(["arena", "random", "greedy", "--pairs", "0"]) == 2
    assert _cli(["arena", "random", "random", "--json", "/no/such/dir/x.json"]) == 2
    for bad in (
        ["--budget-a", "fast"],
        ["--budget-b", "0s"],
        ["--players", "5"],
        ["--preset", "nope"],
        ["--pairs", "-3"],
        ["--processes", "0"],
    ):
        with pytest.raises(SystemExit) as exc:
            _cli(["arena", "random", "greedy", *bad])
        assert exc.value.code == 2
        assert "error" in capsys.readouterr().err


def test_parse_budget() -> None:
    assert parse_budget("200") == Budget(iterations=200)
    assert parse_budget("0.2s") == Budget(seconds=0.2)
    for bad in ("", "s", "-1", "1.5", "0"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_budget(bad)


class PeekingBot(OmniscientBot):
    """Sees the whole deal: the arena must hand it one (through choose_move)."""

    name = "peeking"

    def choose_omniscient(self, deal: Deal) -> Move:
        assert isinstance(deal, Deal)
        return deal.legal_moves()[0]


class CheatingBot(RandomBot):
    """Returns a move that is not legal."""

    def choose(self, view: SeatView) -> Move:
        return parse_move("!pass")


def test_omniscient_bot_and_illegal_moves() -> None:
    result = run_arena(ArenaConfig(BotSpec("peeking", factory=PeekingBot), "random", pairs=2))
    assert len(result.pairs) == 2
    with pytest.raises(RuntimeError, match="illegal move"):
        run_arena(ArenaConfig(BotSpec("cheat", factory=CheatingBot), "random", pairs=1))


def test_progress_is_reported_in_pair_order() -> None:
    seen: list[ArenaProgress] = []
    config = ArenaConfig("greedy", "random", players=2, pairs=4, partite=1)
    result = run_arena(config, seen.append)
    assert [(u.phase, u.done, u.total) for u in seen] == [
        ("smazzate", 1, 4),
        ("smazzate", 2, 4),
        ("smazzate", 3, 4),
        ("smazzate", 4, 4),
        ("partite", 1, 1),
    ]
    assert seen[3].margin == result.margin()
    assert seen[4].wins == (result.partite_tally().won, 2)
