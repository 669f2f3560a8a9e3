"""Rule options and presets: RULES.md section 14, and player counts (D1, SC1, CR1, O2, D7, E3)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from conftest import PRESET_PLAYER_COUNTS

import cirulla
from cirulla import Deal, Rules

# RULES.md section 14, first table: option -> (default, rule).
OPTION_TABLE: dict[str, tuple[Any, str]] = {
    "game": ("cirulla", "SC"),
    "target": (51, "E1"),
    "hands": (None, "E2"),
    "knockout": (False, "E3"),
    "wild_card": ("7H", "C4"),
    "clockwise": (False, "D2"),
    "luzzati": (False, "D7"),
    "ace_choice": (False, "P4"),
    "may_decline_capture": (False, "P6"),
    "bonuses_stack": (False, "B4"),
    "no_decino": (False, "B4"),
    "matta_choice": (False, "B5"),
    "matta_keeps_value": (False, "B6"),
    "declare_at_deal": (False, "B7"),
    "dealer_nine": (False, "B9"),
    "dossena": (False, "B10, S7"),
    "piccola_to_seven": (False, "S7"),
    "cappotto_scores_only": (False, "S8"),
    "stages": (None, "D5, CR2"),
    "declared_first": (False, "CR3"),
    "declare_all_at_once": (False, "CR3"),
    "carte_viste": (False, "O1"),
    "carte_scoperte": (False, "O2"),
}
DEFAULTS: dict[str, Any] = {name: default for name, (default, _) in OPTION_TABLE.items()}
BOOL_OPTIONS = [name for name, default in DEFAULTS.items() if default is False]

_PAGAT = {"ace_choice": True, "matta_choice": True, "matta_keeps_value": True}
# RULES.md section 14, second table: preset -> the options that differ from the defaults.
PRESET_TABLE: dict[str, dict[str, Any]] = {
    "cirulla": {},
    "pagat": dict(_PAGAT),
    "luzzati": {**_PAGAT, "luzzati": True},
    "dossena": {**_PAGAT, "dossena": True},
    "scopa": {"game": "scopa", "target": 11},
    "cirullone": {
        "stages": (9,),
        "matta_choice": True,
        "matta_keeps_value": True,
        "declared_first": True,
        "target": 101,
    },
    "cirullone-6-3": {**_PAGAT, "stages": (6, 3), "declared_first": True, "target": 101},
    "cirullone-3-6": {**_PAGAT, "stages": (3, 6), "declared_first": True, "target": 101},
}
CIRULLONE = ("cirullone", "cirullone-6-3", "cirullone-3-6")

# Options whose rules Scopa (section 11) does not have, with a non-default value.
CIRULLA_ONLY: dict[str, Any] = {
    "luzzati": True,
    "ace_choice": True,
    "bonuses_stack": True,
    "no_decino": True,
    "matta_choice": True,
    "matta_keeps_value": True,
    "declare_at_deal": True,
    "dealer_nine": True,
    "dossena": True,
    "piccola_to_seven": True,
    "cappotto_scores_only": True,
    "stages": (3, 3, 3),
    "declared_first": True,
    "declare_all_at_once": True,
}


def _options(rules: Rules) -> dict[str, Any]:
    """Every option of the table, read from the rules' attributes."""
    return {name: getattr(rules, name) for name in OPTION_TABLE}


def _differences(rules: Rules) -> dict[str, Any]:
    return {name: value for name, value in _options(rules).items() if value != DEFAULTS[name]}


# ---- option names and defaults -------------------------------------------------------------


def test_14_default_rules_have_every_option_of_the_table_with_its_default() -> None:
    assert _options(Rules()) == DEFAULTS


def test_14_to_dict_lists_exactly_the_options_of_the_table_with_defaults() -> None:
    assert Rules().to_dict() == DEFAULTS


def test_14_option_list_names_each_option_with_its_rule() -> None:
    assert [(o.name, o.rule) for o in cirulla.OPTIONS] == [
        (name, rule) for name, (_, rule) in OPTION_TABLE.items()
    ]


def test_14_cirulla_preset_is_the_default_rules() -> None:
    assert Rules.preset("cirulla") == Rules()


@pytest.mark.parametrize("name", list(OPTION_TABLE))
def test_14_replace_accepts_every_option_name(name: str) -> None:
    value: Any = {
        "game": "scopa",
        "target": 26,
        "hands": 3,
        "wild_card": "QH",
        "stages": (3, 3, 3),
    }.get(name, True)
    changed = Rules().replace(**{name: "scopa" if name == "game" else value})
    assert getattr(changed, name) == value
    assert getattr(Rules(), name) == DEFAULTS[name]


# ---- presets -------------------------------------------------------------------------------


def test_14_presets_are_exactly_the_eight_of_the_table() -> None:
    assert sorted(Rules.presets()) == sorted(PRESET_TABLE)


@pytest.mark.parametrize("name", list(PRESET_TABLE))
def test_14_preset_is_defaults_plus_exactly_the_listed_options(name: str) -> None:
    assert _differences(Rules.preset(name)) == PRESET_TABLE[name]


@pytest.mark.parametrize("name", list(PRESET_TABLE))
def test_14_preset_equals_default_rules_replaced_with_the_listed_options(name: str) -> None:
    """'Each is the defaults plus the options listed': built by hand, the same rules."""
    by_hand = Rules().replace(**PRESET_TABLE[name])
    assert by_hand == Rules.preset(name)
    assert hash(by_hand) == hash(Rules.preset(name))


@pytest.mark.parametrize("name", ["", "Cirulla ", "scopone", "cirullone-9"])
def test_14_unknown_preset_is_an_error(name: str) -> None:
    with pytest.raises(ValueError, match="preset"):
        Rules.preset(name)


# ---- replace(): errors name the option ------------------------------------------------------


@pytest.mark.parametrize("name", ["acechoice", "ace", "seed", "players", "matta", "Target"])
def test_14_replace_unknown_option_is_an_error_naming_it(name: str) -> None:
    with pytest.raises(ValueError, match=name):
        Rules().replace(**{name: True})


@pytest.mark.parametrize("name", BOOL_OPTIONS)
@pytest.mark.parametrize("bad", [1, 0, "yes", None, "True"])
def test_14_replace_boolean_option_with_non_bool_is_an_error_naming_it(
    name: str, bad: object
) -> None:
    with pytest.raises(ValueError, match=name):
        Rules().replace(**{name: bad})


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("game", "briscola"),
        ("game", "Scopa"),
        ("game", None),
        ("target", 0),
        ("target", -5),
        ("target", "51"),
        ("target", 51.0),
        ("target", True),
        ("hands", 0),
        ("hands", -1),
        ("hands", "3"),
        ("hands", 2.5),
        ("hands", True),
        ("wild_card", "ZZ"),
        ("wild_card", "10H"),
        ("wild_card", "8H"),
        ("wild_card", 7),
    ],
)
def test_14_replace_bad_value_is_an_error_naming_the_option(name: str, bad: object) -> None:
    with pytest.raises(ValueError, match=name):
        Rules().replace(**{name: bad})


def test_14_replace_returns_a_changed_copy_and_leaves_the_original_alone() -> None:
    base = Rules.preset("pagat")
    changed = base.replace(dealer_nine=True, target=26)
    assert base == Rules.preset("pagat")
    assert not base.dealer_nine and base.target == 51
    assert changed.dealer_nine and changed.target == 26
    assert _differences(changed) == {**_PAGAT, "dealer_nine": True, "target": 26}


def test_14_wild_card_is_normalised_and_accepts_lower_case() -> None:
    assert Rules().replace(wild_card="qh").wild_card == "QH"
    assert Rules().replace(wild_card="qh") == Rules().replace(wild_card="QH")


# ---- target and hands (E1, E2) --------------------------------------------------------------


def test_E2_setting_target_and_hands_both_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"target.*hands|hands.*target"):
        Rules().replace(target=51, hands=3)
    with pytest.raises(ValueError, match=r"target.*hands|hands.*target"):
        Rules(target=21, hands=2)


def test_E2_hands_alone_switches_off_the_target() -> None:
    rules = Rules().replace(hands=3)
    assert rules.hands == 3
    assert rules.target is None


def test_E1_target_alone_switches_off_the_hands() -> None:
    rules = Rules().replace(hands=3).replace(target=21)
    assert rules.target == 21
    assert rules.hands is None


def test_E1_E2_the_partita_needs_a_target_or_a_number_of_hands() -> None:
    with pytest.raises(ValueError, match=r"target|hands"):
        Rules().replace(target=None)


# ---- stages (D5, CR2) -----------------------------------------------------------------------


@pytest.mark.parametrize("stages", [(9,), (6, 3), (3, 6), (3, 3, 3), [6, 3]])
def test_CR2_stages_accept_tuples_of_positive_hand_sizes(stages: Any) -> None:
    rules = Rules().replace(stages=stages)
    assert rules.stages == tuple(stages)
    assert isinstance(rules.stages, tuple)
    hash(rules)


@pytest.mark.parametrize("bad", [(), (0,), (9, 0), (-3, 12), (3.0, 6), ("9",), (True,), 9, "63"])
def test_CR2_bad_stages_are_an_error_naming_the_option(bad: object) -> None:
    with pytest.raises(ValueError, match="stages"):
        Rules().replace(stages=bad)


@pytest.mark.parametrize(("stages", "players"), [((9,), 2), ((9,), 3), ((6, 3), 3), ((3, 3), 4)])
def test_D5_stages_that_do_not_deal_the_36_hand_cards_are_refused_for_that_player_count(
    stages: tuple[int, ...], players: int
) -> None:
    rules = Rules().replace(stages=stages)
    with pytest.raises(ValueError, match="stages"):
        rules.check_players(players)


def test_D5_stages_that_deal_the_36_hand_cards_are_accepted() -> None:
    assert Rules().replace(stages=(9,)).check_players(4) == 4
    assert Rules().replace(stages=(6, 6, 6)).check_players(2) == 2
    assert Rules().replace(stages=(6, 6)).check_players(3) == 3


# ---- contradictory options ------------------------------------------------------------------


@pytest.mark.parametrize(("name", "value"), list(CIRULLA_ONLY.items()))
def test_SC_cirulla_only_option_with_game_scopa_is_an_error_naming_it(
    name: str, value: object
) -> None:
    with pytest.raises(ValueError, match=name):
        Rules.preset("scopa").replace(**{name: value})
    with pytest.raises(ValueError, match=name):
        Rules().replace(game="scopa", **{name: value})
    with pytest.raises(ValueError, match=name):
        Rules().replace(**{name: value}).replace(game="scopa")


def test_SC3_may_decline_capture_with_game_scopa_is_an_error() -> None:
    """S002: 'se il giocatore puo fare almeno un tipo di presa e costretto a prendere'."""
    with pytest.raises(ValueError, match="may_decline_capture"):
        Rules.preset("scopa").replace(may_decline_capture=True)


def test_SC5_a_wild_card_other_than_the_default_with_game_scopa_is_an_error() -> None:
    """Scopa has no matta (SC5: no bonuses); naming another wild card is a Cirulla rule (C4)."""
    with pytest.raises(ValueError, match="wild_card"):
        Rules.preset("scopa").replace(wild_card="QH")


@pytest.mark.parametrize(
    "options",
    [
        {"game": "scopa", "clockwise": True},
        {"game": "scopa", "hands": 3},
        {"game": "scopa", "carte_viste": True},
    ],
)
def test_SC_options_shared_by_both_games_are_accepted_with_scopa(options: dict[str, Any]) -> None:
    rules = Rules().replace(**options)
    assert rules.game == "scopa"


def test_CR3_declared_first_with_declare_all_at_once_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"declared_first.*declare_all_at_once|declare_all_at_"):
        Rules().replace(declared_first=True, declare_all_at_once=True)
    with pytest.raises(ValueError, match="declare_all_at_once"):
        Rules.preset("cirullone").replace(declare_all_at_once=True)


def test_CR3_declare_all_at_once_alone_is_accepted() -> None:
    rules = Rules.preset("cirullone").replace(declared_first=False, declare_all_at_once=True)
    assert rules.declare_all_at_once and not rules.declared_first


@pytest.mark.parametrize("other", ["bonuses_stack", "dealer_nine", "piccola_to_seven"])
def test_B10_dossena_with_its_own_scores_cannot_be_combined(other: str) -> None:
    with pytest.raises(ValueError, match=other):
        Rules.preset("dossena").replace(**{other: True})
    with pytest.raises(ValueError, match=other):
        Rules().replace(**{other: True}).replace(dossena=True)


@pytest.mark.parametrize("other", ["no_decino", "ace_choice", "cappotto_scores_only", "luzzati"])
def test_B10_dossena_combines_with_options_that_do_not_touch_its_scores(other: str) -> None:
    assert getattr(Rules.preset("dossena").replace(**{other: True}), other) is True


# ---- player counts (D1, SC1, CR1, O2, D7, E3) -----------------------------------------------

ALLOWED = PRESET_PLAYER_COUNTS
REASON = {
    "luzzati": "luzzati",
    "scopa": "scopa",
    "cirullone": "cirullone",
    "cirullone-6-3": "cirullone-6-3",
    "cirullone-3-6": "cirullone-3-6",
}


@pytest.mark.parametrize("name", list(ALLOWED))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_D1_check_players_for_each_preset_and_player_count(name: str, players: int) -> None:
    rules = Rules.preset(name)
    if players in ALLOWED[name]:
        assert rules.check_players(players) == players
        deal = Deal(rules, players=players, seed=1)
        assert deal.players == players
    else:
        with pytest.raises(ValueError, match=REASON[name]):
            rules.check_players(players)
        with pytest.raises(ValueError):
            Deal(rules, players=players, seed=1)


@pytest.mark.parametrize("name", list(ALLOWED))
@pytest.mark.parametrize("players", [0, 1, 5, 6, -4, "4", 4.0, True, None])
def test_D1_impossible_player_counts_are_refused(name: str, players: object) -> None:
    with pytest.raises(ValueError, match="players"):
        Rules.preset(name).check_players(players)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_O2_carte_scoperte_needs_four_players(players: int) -> None:
    rules = Rules().replace(carte_scoperte=True)
    if players == 4:
        assert rules.check_players(4) == 4
    else:
        with pytest.raises(ValueError, match="carte_scoperte"):
            rules.check_players(players)


@pytest.mark.parametrize("option", ["luzzati", "knockout"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_D7_E3_luzzati_and_knockout_need_two_sides(option: str, players: int) -> None:
    rules = Rules().replace(**{option: True})
    if players == 3:
        with pytest.raises(ValueError, match=option):
            rules.check_players(3)
    else:
        assert rules.check_players(players) == players


def test_CR1_cirullone_presets_stay_four_players_after_replace() -> None:
    for name in CIRULLONE:
        rules = Rules.preset(name).replace(target=75)
        assert rules.check_players(4) == 4
        for players in (2, 3):
            with pytest.raises(ValueError):
                rules.check_players(players)


# ---- to_dict / from_dict --------------------------------------------------------------------

VARIANTS: list[Rules] = [
    *(Rules.preset(name) for name in PRESET_TABLE),
    Rules().replace(hands=3),
    Rules().replace(wild_card="QH", piccola_to_seven=True, target=26),
    Rules().replace(stages=(6, 6), carte_viste=True),
    Rules.preset("cirullone").replace(declared_first=False, declare_all_at_once=True),
    Rules().replace(carte_scoperte=True, knockout=True, dealer_nine=True, declare_at_deal=True),
]


@pytest.mark.parametrize("rules", VARIANTS, ids=str)
def test_14_to_dict_from_dict_round_trip(rules: Rules) -> None:
    data = rules.to_dict()
    assert Rules.from_dict(data) == rules
    again = Rules.from_dict(json.loads(json.dumps(data)))
    assert again == rules
    assert hash(again) == hash(rules)
    for name in OPTION_TABLE:
        value = getattr(rules, name)
        assert data[name] == (list(value) if isinstance(value, tuple) else value)


@pytest.mark.parametrize("name", CIRULLONE)
def test_CR1_from_dict_keeps_the_four_player_limit(name: str) -> None:
    rules = Rules.from_dict(json.loads(json.dumps(Rules.preset(name).to_dict())))
    with pytest.raises(ValueError):
        rules.check_players(2)
    assert rules.check_players(4) == 4


def test_14_from_dict_unknown_option_is_an_error_naming_it() -> None:
    data = Rules().to_dict()
    data["aceChoice"] = True
    with pytest.raises(ValueError, match="aceChoice"):
        Rules.from_dict(data)


def test_14_from_dict_bad_value_is_an_error_naming_the_option() -> None:
    data = Rules().to_dict()
    data["matta_choice"] = "yes"
    with pytest.raises(ValueError, match="matta_choice"):
        Rules.from_dict(data)


def test_14_from_dict_of_a_non_dict_is_an_error() -> None:
    with pytest.raises(ValueError):
        Rules.from_dict([("ace_choice", True)])  # type: ignore[arg-type]


# ---- hashable and immutable -----------------------------------------------------------------


def test_14_rules_are_hashable_and_equal_rules_hash_equal() -> None:
    a = Rules().replace(ace_choice=True, matta_choice=True, matta_keeps_value=True)
    b = Rules.preset("pagat")
    assert a == b and hash(a) == hash(b)
    table = {Rules.preset(name): name for name in PRESET_TABLE}
    assert len(table) == len(PRESET_TABLE)
    assert table[a] == "pagat"


@pytest.mark.parametrize("name", ["ace_choice", "target", "game", "stages", "wild_card"])
def test_14_rules_are_immutable(name: str) -> None:
    rules = Rules.preset("cirullone")
    before = rules.to_dict()
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(rules, name, None)
    assert rules.to_dict() == before
    assert Rules.preset("cirullone").to_dict() == before


def test_14_presets_cannot_be_changed_through_a_returned_object() -> None:
    preset = Rules.preset("pagat")
    preset.replace(ace_choice=False)
    assert Rules.preset("pagat").ace_choice is True
    data = preset.to_dict()
    data["ace_choice"] = False
    assert Rules.preset("pagat").ace_choice is True
