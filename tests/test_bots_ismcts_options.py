"""The `ismcts` options checked in one place (bots/ismcts_options.py): every bad value a
ValueError that names the option, whatever its type, and a bot's options round-trip."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from cirulla import bots
from cirulla.bots.ismcts_options import IsmctsOptions
from cirulla.bots.search import IsmctsBot


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("epsilon", "x"),
        ("epsilon", 1.5),
        ("epsilon", True),
        ("exploration", None),
        ("exploration", float("nan")),
        ("prior", "greedy"),
        ("prior_weight", -1.0),
        ("prior_weight", "x"),
        ("threats", ["unseen"]),
        ("threats", {"unseen": 1}),
        ("expand", ["policy"]),
        ("sampler", ["chain"]),
        ("playout", ["expert"]),
        ("leaf", ["cut"]),
        ("leaf", "value"),
        ("cut_players", []),
        ("cut_players", [1]),
        ("cut_players", [9]),
        ("cut_players", "4"),
        ("cut_players", 4),
        ("cut_players", [4.0]),
        ("cut_players", [True]),
        ("cut_players", [4]),  # with no leaf="cut" to restrict
        ("cut_within", 2),  # the same
        ("cut_within", 0),
        ("others", ["policy"]),
        ("trees", 2.0),
        ("infer_partner", 1),
        ("missed_scopa", float("nan")),
        ("others_epsilon", "0"),
        ("softmax", [3.0, 0.3, 1.0]),
        ("softmax", "3,0.3"),
        ("live", 1),
        ("live", "true"),
        ("endgame", True),
        ("endgame", "on"),
        ("endgame_before", "on"),
        ("endgame_before", 2),
        ("endgame_before", None),
        ("endgame_before", "sampled"),  # with no endgame to reach further
        ("endgame_hidden", "searched"),
        ("endgame_hidden", None),
        ("endgame_hidden", "sampled"),  # with no endgame to say where it plays
    ],
)
def test_a_bad_option_is_a_value_error_that_names_it(name: str, bad: object) -> None:
    with pytest.raises(ValueError, match=name):
        IsmctsBot(**{name: bad})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=name):
        bots.get("ismcts", **{name: bad})


def test_the_bot_and_its_options_have_the_same_parameters_and_defaults() -> None:
    """A new option added to one and not the other would be lost in a worker's copy."""
    params = inspect.signature(IsmctsBot.__init__).parameters
    fields = {f.name: f.default for f in dataclasses.fields(IsmctsOptions)}
    assert set(params) - set(fields) == {"self", "seed", "budget", "workers"}
    for name, default in fields.items():
        assert params[name].default == default, name
    assert IsmctsBot().options() == IsmctsOptions().as_dict()


def test_options_are_normalised_and_round_trip() -> None:
    chosen = {"others": "policy", "others_beta": 3, "softmax": (1, 0), "others_threats": "next"}
    bot = IsmctsBot(**chosen)  # type: ignore[arg-type]
    assert bot.softmax == (1.0, 0.0) and isinstance(bot.softmax[0], float)
    assert bot.others_beta == 3.0 and isinstance(bot.others_beta, float)
    again = bots.get("ismcts", **bot.options())
    assert isinstance(again, IsmctsBot)
    assert again.options() == bot.options()
    assert again.options()["softmax"] == [1.0, 0.0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        bot.checked.threats = "unseen"  # type: ignore[misc]


def test_cut_players_is_normalised_round_trips_and_says_where_the_cut_applies() -> None:
    bot = IsmctsBot(leaf="cut", cut_players=[4, 2, 4])
    assert bot.cut_players == (2, 4)
    assert bot.options()["cut_players"] == [2, 4]
    again = bots.get("ismcts", **bot.options())
    assert isinstance(again, IsmctsBot) and again.options() == bot.options()
    four = IsmctsOptions(leaf="cut", cut_players=(4,))
    assert [four.cuts(n) for n in (2, 3, 4)] == [False, False, True]
    assert [IsmctsOptions(leaf="cut").cuts(n) for n in (2, 3, 4)] == [True, True, True]
    assert not IsmctsOptions().cuts(4)
