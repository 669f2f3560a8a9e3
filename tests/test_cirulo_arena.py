"""The arena with Cirulo: every deck played once per assignment (A alone in each
seat, then B alone in each seat), the margin, the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cirulla.bots.arena import (
    ArenaConfig,
    BotSpec,
    deck_seed,
    main,
    play_pair,
    run_arena,
    seatings,
)
from cirulla.cirulo import CiruloRules
from cirulla.cirulo.bots import Budget, CiruloView, RandomBot

RECORDS: list[dict[str, Any]] = []


class RecordingBot(RandomBot):
    """Plays at random; records its label, seat and the hand it was dealt."""

    def __init__(self, seed: int = 0, budget: Budget | None = None, label: str = "?") -> None:
        super().__init__(seed, budget)
        self.record: dict[str, Any] = {"label": label, "seed": seed, "seat": None}
        RECORDS.append(self.record)

    def choose(self, view: CiruloView) -> Any:
        assert isinstance(view, CiruloView)  # a view, never a Deal
        if self.record["seat"] is None:
            deal = view.history[0]
            self.record.update(seat=view.seat, dealer=view.dealer, hand=deal["hands"][view.seat])
        return super().choose(view)


def recording(label: str) -> BotSpec:
    return BotSpec(label, options={"label": label}, factory=RecordingBot)


@pytest.mark.parametrize("players", [4, 5, 6])
def test_seatings_put_each_bot_alone_in_every_seat(players: int) -> None:
    plays = seatings(players, "cirulo")
    assert len(plays) == 2 * players
    alone_a = [p[0] for p in plays if len(p) == 1]
    alone_b = [next(s for s in range(players) if s not in p) for p in plays if len(p) > 1]
    assert sorted(alone_a) == sorted(alone_b) == list(range(players))
    for i in range(players):  # play i and play players + i are mirror images
        assert set(plays[i]) | set(plays[players + i]) == set(range(players))
        assert not set(plays[i]) & set(plays[players + i])
    with pytest.raises(ValueError):
        seatings(3, "cirulo")


@pytest.mark.parametrize(("deck", "players"), [("spanish48", 5), ("poker52", 6)])
def test_every_deck_is_played_with_every_assignment(deck: str, players: int) -> None:
    RECORDS.clear()
    pairs = 3
    config = ArenaConfig(
        recording("A"),
        recording("B"),
        players=players,
        pairs=pairs,
        seed=5,
        game="cirulo",
        cirulo=CiruloRules(deck=deck),
    )
    result = run_arena(config)
    records = RECORDS[2:]  # the two bots config.check() makes
    plays = seatings(players, "cirulo")
    assert len(records) == pairs * len(plays) * players  # fresh bots per play
    for index, pair in enumerate(result.pairs):
        assert pair.seed == deck_seed(5, index) and pair.dealer == index % players
        assert [p.a_seats for p in pair.plays] == list(plays)
        chunk = records[index * len(plays) * players : (index + 1) * len(plays) * players]
        for play, a_seats in enumerate(plays):
            bots = chunk[play * players : (play + 1) * players]
            assert [b["seat"] for b in bots] == list(range(players))
            assert [b["label"] for b in bots] == [
                "A" if s in a_seats else "B" for s in range(players)
            ]
        # The same deck in every play: each seat was dealt the same hand each time.
        for seat in range(players):
            hands = {tuple(chunk[p * players + seat]["hand"]) for p in range(len(plays))}
            assert len(hands) == 1
        for play in pair.plays:
            assert sum(play.points) <= 0  # balances: the pot kept back, never created


def test_margin_is_a_minus_b_balance_per_hand() -> None:
    config = ArenaConfig("heuristic", "random", players=4, pairs=4, game="cirulo")
    pair = play_pair(config, 0)
    for play in pair.plays:
        a_mean = sum(play.points[s] for s in play.a_seats) / len(play.a_seats)
        others = [play.points[s] for s in range(4) if s not in play.a_seats]
        assert play.margin == pytest.approx(a_mean - sum(others) / len(others))
    result = run_arena(config)
    assert result.margin().mean is not None and result.margin().mean > 0
    data = result.to_dict()
    assert data["config"]["game"] == "cirulo"
    assert data["config"]["rules"] == CiruloRules().to_dict()
    assert data["config"]["seatings"] == [list(s) for s in seatings(4, "cirulo")]
    json.dumps(data)


def test_same_results_with_one_or_two_processes() -> None:
    config = ArenaConfig("heuristic", "random", players=5, pairs=4, game="cirulo", seed=3)
    one = run_arena(config)
    two = run_arena(ArenaConfig(**{**config.__dict__, "processes": 2}))
    assert one.pairs == two.pairs


def test_bad_cirulo_configs_are_refused() -> None:
    with pytest.raises(ValueError, match="4, 5 or 6 players"):
        ArenaConfig("random", "random", players=3, game="cirulo").check()
    with pytest.raises(ValueError, match="partite are not offered"):
        ArenaConfig("random", "random", players=4, partite=2, game="cirulo").check()
    with pytest.raises(ValueError, match="unknown Cirulo bot 'greedy'"):
        ArenaConfig("greedy", "random", players=4, game="cirulo").check()
    with pytest.raises(ValueError, match="players must be 2, 3 or 4"):
        ArenaConfig("random", "random", players=5).check()
    with pytest.raises(ValueError, match="game must be"):
        ArenaConfig("random", "random", game="scopone").check()


def test_cli_runs_cirulo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "arena.json"
    code = main(
        [
            "heuristic",
            "random",
            "--game",
            "cirulo",
            "--players",
            "6",
            "--deck",
            "poker52",
            "--pairs",
            "2",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "A - B points per hand" in text and "cirulo, poker52" in text
    data = json.loads(out.read_text())
    assert data["config"]["rules"]["deck"] == "poker52"
    assert data["smazzate"]["plays"] == 2 * 12
    assert main(["random", "random", "--game", "cirulo", "--pairs", "1", "--quiet"]) == 0
    assert "A-B per hand" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["random", "random", "--game", "cirulo", "--players", "3", "--quiet"])
    assert exc.value.code == 2
    assert "cirulo is for 4, 5, 6 players" in capsys.readouterr().err
