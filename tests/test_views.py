"""What a seat may know: RULES.md P9, B7, O1, O2, and hidden information in views and events."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import PRESET_PLAYERS, play_out, stack

import cirulla
from cirulla import Card, Deal, Rules

CARD_RE = re.compile(r"[A2-7JQK][DHCS]")
# A seed whose decimal digits cannot turn up in a view by chance.
SEED = 73_920_418_665_093
# Where a card the viewer does not hold may still be named, because it is public anyway:
# the matta's identity (rules and matta) and the face-up tables of earlier, voided deals.
ALWAYS_PUBLIC = {("rules", "wild_card"), ("matta", "card")}
VOIDED_TABLES = ("misdeal", "instant_win")


# ---- helpers ---------------------------------------------------------------------------------


def _strings(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    """Every string in a JSON-like object (keys too), with its path."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield path, str(key)
            yield from _strings(value, (*path, key))
    elif isinstance(obj, list | tuple):
        for i, value in enumerate(obj):
            yield from _strings(value, (*path, i))
    elif isinstance(obj, str):
        yield path, obj


def _known_seats(deal: Deal, viewer: int | None) -> set[int]:
    """Seats whose whole hand `viewer` may know (O2 partner, O1 last mano with 2 players)."""
    if viewer is None:
        return set()
    known = {viewer}
    rules = deal.rules
    if rules.carte_scoperte:
        known.add((viewer + 2) % 4)
    if (
        rules.carte_viste
        and deal.players == 2
        and not deal.is_over
        and deal.stage == len(deal.stages) - 1
        and all(len(deal.hand(s)) <= 1 for s in range(2))
    ):
        known |= {0, 1}
    return known


def _unknown_cards(deal: Deal, viewer: int | None) -> set[Card]:
    """Other seats' undeclared hand cards and the undealt deck: what `viewer` may not know."""
    known = _known_seats(deal, viewer)
    in_hands: set[Card] = set()
    unknown: set[Card] = set()
    for seat in range(deal.players):
        hand = set(deal.hand(seat))
        in_hands |= hand
        if seat not in known:
            unknown |= hand - set(deal.declared(seat))
    public = set(deal.table)
    for side in range(deal.sides):
        public |= set(deal.captured(side))
    undealt = set(cirulla.full_deck()) - in_hands - public
    return unknown | undealt


def _leaks(obj: Any, unknown: set[Card], history: tuple[Any, ...] | None) -> list[Any]:
    """Mentions of unknown cards outside the places where they are public anyway.

    `history` is the path prefix of the event list inside `obj`."""
    found = []
    for path, text in _strings(obj):
        for token in CARD_RE.findall(text):
            if Card.parse(token) not in unknown:
                continue
            if path[:2] in ALWAYS_PUBLIC and len(path) == 2:
                continue
            if history is not None and path[: len(history)] == history:
                rest = path[len(history) :]
                event = obj
                for key in (*history, rest[0]):
                    event = event[key]
                if len(rest) >= 2 and rest[1] == "table" and event["type"] in VOIDED_TABLES:
                    continue
            found.append((path, text))
    return found


def _check_hidden(deal: Deal, viewer: int | None) -> None:
    unknown = _unknown_cards(deal, viewer)
    view = deal.view(viewer)
    assert _leaks(view, unknown, ("history",)) == [], (viewer, deal.moves)
    assert _leaks(deal.events_for(viewer), unknown, ()) == [], (viewer, deal.moves)


def _random_deal(rules: Rules, players: int, seed: int) -> Iterator[Deal]:
    """A smazzata played at random, yielded before every move and once over."""
    deal = Deal(rules, players=players, dealer=seed % players, seed=seed)
    rng = random.Random(seed)
    while True:
        yield deal
        if deal.is_over:
            return
        deal.play(rng.choice(deal.legal_moves()))


def _only_plays(moves: list[Any]) -> Any:
    return next(m for m in moves if m.kind == "play")


# ---- hidden information ----------------------------------------------------------------------


@pytest.mark.parametrize(("name", "players"), PRESET_PLAYERS)
@pytest.mark.parametrize("seed", range(3))
def test_P9_views_and_events_never_show_another_seats_hidden_cards(
    name: str, players: int, seed: int
) -> None:
    for deal in _random_deal(Rules.preset(name), players, seed):
        for viewer in [None, *range(players)]:
            _check_hidden(deal, viewer)


OPTION_VARIANTS: list[dict[str, Any]] = [
    {"carte_viste": True},
    {"carte_scoperte": True},
    {"declare_at_deal": True, "may_decline_capture": True},
    {"stages": (9,), "declare_all_at_once": True, "matta_choice": True},
    {"stages": (6, 3), "declared_first": True, "carte_scoperte": True},
    {"luzzati": True, "carte_viste": True},
    {"game": "scopa", "carte_viste": True},
]


def _possible(options: dict[str, Any], players: int) -> bool:
    try:
        Rules().replace(**options).check_players(players)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize(
    ("options", "players"),
    [(o, n) for o in OPTION_VARIANTS for n in (2, 3, 4) if _possible(o, n)],
    ids=str,
)
def test_O1_O2_B7_views_with_display_and_declaration_options_hide_what_they_must(
    options: dict[str, Any], players: int
) -> None:
    rules = Rules().replace(**options)
    for seed in range(3):
        for deal in _random_deal(rules, players, 40 + seed):
            for viewer in [None, *range(players)]:
                _check_hidden(deal, viewer)


def test_P9_hidden_card_check_finds_a_planted_card() -> None:
    """The check above is not vacuous: another seat's card planted in a view is caught."""
    deal = Deal(Rules(), players=4, dealer=0, seed=4)
    unknown = _unknown_cards(deal, 0)
    assert len(unknown) == 40 - 4 - 3  # all but the table and seat 0's hand
    assert unknown == set(cirulla.full_deck()) - set(deal.table) - set(deal.hand(0))
    secret = str(deal.hand(1)[0])
    view = deal.view(0)
    assert _leaks(view, unknown, ("history",)) == []
    view["hands"][1]["cards"] = [secret]
    assert _leaks(view, unknown, ("history",)) != []
    view = deal.view(0)
    view["history"].append({"type": "play", "move": f"{secret}x2H"})
    assert _leaks(view, unknown, ("history",)) != []
    view = deal.view(0)
    view["history"].append({"type": "misdeal", "table": [secret]})
    assert _leaks(view, unknown, ("history",)) == []


def test_D6_views_after_a_misdeal_hide_the_new_hands() -> None:
    deck = stack(players=4, dealer=0, table=["AD", "AH", "5C", "6C"])
    deal = Deal(Rules(), players=4, dealer=0, deck=deck, seed=SEED)
    assert deal.misdeals >= 1
    while True:
        for viewer in [None, 0, 1, 2, 3]:
            _check_hidden(deal, viewer)
            assert str(SEED) not in json.dumps(deal.view(viewer))
        if deal.is_over:
            break
        deal.play(deal.legal_moves()[-1])


def test_D7_views_after_a_luzzati_instant_win_hide_the_dealt_hands() -> None:
    deck = stack(players=4, dealer=0, table=["5D", "5H", "5C", "5S"])
    deal = Deal(Rules.preset("luzzati"), players=4, dealer=0, deck=deck)
    assert deal.is_over and deal.instant_reason == "luzzati_table"
    assert all(len(deal.hand(s)) == 3 for s in range(4))
    for viewer in [None, 0, 1, 2, 3]:
        _check_hidden(deal, viewer)
        hands = deal.view(viewer)["hands"]
        assert [("cards" in h) for h in hands] == [s == viewer for s in range(4)]


def test_P9_own_hand_is_in_the_view_and_other_hands_are_counts_only() -> None:
    for deal in _random_deal(Rules(), 4, 5):
        for viewer in range(4):
            view = deal.view(viewer)
            assert view["seat"] == viewer
            assert view["side"] == deal.side_of(viewer)
            assert view["hand"] == [str(c) for c in deal.hand(viewer)]
            for entry in view["hands"]:
                s = entry["seat"]
                assert entry["count"] == len(deal.hand(s))
                assert entry["side"] == deal.side_of(s)
                if s == viewer:
                    assert entry["cards"] == view["hand"]
                else:
                    assert "cards" not in entry


def test_P9_events_for_a_seat_replace_other_dealt_hands_by_counts() -> None:
    deal = play_out(Deal(Rules(), players=4, seed=8))
    raw = deal.events
    for viewer in range(4):
        mine = deal.events_for(viewer)
        assert len(mine) == len(raw)
        for event, original in zip(mine, raw, strict=True):
            if event["type"] != "deal":
                assert event == original
                continue
            assert event["counts"] == [len(h) for h in original["hands"]]
            assert event["hands"] == [
                h if s == viewer else None for s, h in enumerate(original["hands"])
            ]
            assert event.get("table") == original.get("table")


def test_P9_spectator_view_holds_no_hand() -> None:
    for deal in _random_deal(Rules.preset("cirullone"), 4, 2):
        view = deal.view(None)
        assert view["seat"] is None and view["side"] is None
        assert view["hand"] is None
        assert all("cards" not in h for h in view["hands"])
        assert "legal_moves" not in view
        for event in view["history"]:
            if event["type"] == "deal":
                assert event["hands"] == [None] * 4
        for event in deal.events_for(None):
            if event["type"] == "deal":
                assert event["hands"] == [None] * 4


@pytest.mark.parametrize(("name", "players"), [("cirulla", 3), ("pagat", 2), ("cirullone", 4)])
def test_P9_legal_moves_only_in_the_view_of_the_seat_to_move(name: str, players: int) -> None:
    for deal in _random_deal(Rules.preset(name), players, 11):
        for viewer in range(players):
            view = deal.view(viewer)
            if viewer == deal.to_move:
                assert sorted(view["legal_moves"]) == sorted(str(m) for m in deal.legal_moves())
            else:
                assert "legal_moves" not in view
        assert view["to_move"] == deal.to_move
    assert deal.is_over
    assert all("legal_moves" not in deal.view(s) for s in range(players))


def test_P9_captures_and_the_capturing_side_are_public_and_piles_are_counts() -> None:
    for deal in _random_deal(Rules(), 4, 21):
        plays = [e for e in deal.events if e["type"] == "play"]
        for viewer in [None, 0, 1, 2, 3]:
            view = deal.view(viewer)
            assert [e for e in view["history"] if e["type"] == "play"] == plays
            assert [e for e in deal.events_for(viewer) if e["type"] == "play"] == plays
            assert view["piles"] == [
                {
                    "side": s,
                    "count": len(deal.captured(s)),
                    "scope": deal.scope()[s],
                    "bonus": deal.bonus()[s],
                }
                for s in range(2)
            ]
            assert view["last_capture"] == deal.last_capture
            assert view["table"] == [
                {"card": str(c), "value": deal.value_of(c)} for c in deal.table
            ]
    for event in plays:
        assert {"seat", "card", "captured", "move", "scopa"} <= set(event)


# ---- B7: declared cards ----------------------------------------------------------------------


def test_B7_declared_cards_are_shown_to_everyone_until_played() -> None:
    deck = stack(players=4, dealer=0, hands=[[], ["2S", "3S", "4S"], [], []])
    deal = Deal(Rules(), players=4, dealer=0, deck=deck)
    assert deal.to_move == 1
    before = {v: deal.view(v)["hands"][1] for v in [None, 0, 2, 3]}
    assert all(entry["declared"] == [] and "cards" not in entry for entry in before.values())
    deal.play("!cirulla:2S3S4S")
    for viewer in [None, 0, 1, 2, 3]:
        view = deal.view(viewer)
        assert sorted(view["hands"][1]["declared"]) == ["2S", "3S", "4S"]
        assert view["declarations"][-1]["seat"] == 1
        assert sorted(view["declarations"][-1]["cards"]) == ["2S", "3S", "4S"]
    played = []
    while deal.hand(1):
        if deal.to_move == 1:
            move = _only_plays(deal.legal_moves())
            played.append(str(move.card))
        else:
            move = _only_plays(deal.legal_moves())
        deal.play(move)
        left = sorted({"2S", "3S", "4S"} - set(played))
        for viewer in [None, 0, 2, 3]:
            assert sorted(deal.view(viewer)["hands"][1]["declared"]) == left
    assert all(deal.view(v)["hands"][1]["declared"] == [] for v in [None, 0, 2, 3])


def test_B7_cirullone_declared_set_visible_rest_of_hand_hidden() -> None:
    hands = [[], ["2S", "3S", "4S", "KH", "KC", "QC", "JC", "6S", "5H"], [], []]
    deck = stack(players=4, dealer=0, hands=hands, sizes=[9])
    deal = Deal(Rules.preset("cirullone"), players=4, dealer=0, deck=deck)
    deal.play("!cirulla:2S3S4S")
    for viewer in [None, 0, 2, 3]:
        view = deal.view(viewer)
        entry = view["hands"][1]
        assert sorted(entry["declared"]) == ["2S", "3S", "4S"]
        assert entry["count"] == 9 and "cards" not in entry
        text = json.dumps(view)
        for hidden in ("KH", "KC", "QC", "JC", "6S", "5H"):
            assert hidden not in CARD_RE.findall(text)


@pytest.mark.parametrize(("name", "players"), [("pagat", 4), ("cirulla", 2), ("cirullone", 4)])
def test_B7_every_view_shows_every_seats_declared_cards(name: str, players: int) -> None:
    for deal in _random_deal(Rules.preset(name), players, 3):
        for viewer in [None, *range(players)]:
            view = deal.view(viewer)
            assert [sorted(h["declared"]) for h in view["hands"]] == [
                sorted(str(c) for c in deal.declared(s)) for s in range(players)
            ]


# ---- O1: carte viste -------------------------------------------------------------------------


def _seen(deal: Deal) -> list[str]:
    out: list[str] = []
    for event in deal.events:
        if event["type"] == "deal" and event["stage"] == 0:
            out += event["table"]
        elif event["type"] == "play":
            out.append(event["card"])
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_O1_carte_viste_shows_the_table_at_the_deal_and_every_played_card(players: int) -> None:
    rules = Rules().replace(carte_viste=True)
    for seed in range(3):
        for deal in _random_deal(rules, players, seed):
            expected = sorted(_seen(deal))
            for viewer in [None, *range(players)]:
                assert sorted(deal.view(viewer)["carte_viste"]) == expected


def test_O1_carte_viste_includes_the_table_the_dealer_took_with_a_bonus() -> None:
    deck = stack(players=4, dealer=0, table=["2C", "3C", "4C", "6C"])
    deal = Deal(Rules().replace(carte_viste=True), players=4, dealer=0, deck=deck)
    assert deal.bonus() == [1, 0] and deal.table == []
    assert sorted(deal.view(1)["carte_viste"]) == ["2C", "3C", "4C", "6C"]
    move = _only_plays(deal.legal_moves())
    deal.play(move)
    assert sorted(deal.view(2)["carte_viste"]) == sorted(["2C", "3C", "4C", "6C", str(move.card)])


@pytest.mark.parametrize(("name", "players"), [("cirulla", 2), ("cirulla", 4), ("scopa", 2)])
def test_O1_without_carte_viste_no_cards_seen_list(name: str, players: int) -> None:
    for deal in _random_deal(Rules.preset(name), players, 1):
        for viewer in [None, *range(players)]:
            assert "carte_viste" not in deal.view(viewer)


@pytest.mark.parametrize("seed", range(4))
def test_O1_two_players_last_mano_is_played_face_up(seed: int) -> None:
    rules = Rules().replace(carte_viste=True)
    last_stage = len(rules.stage_sizes(2)) - 1
    shown_in_last_mano = 0
    for deal in _random_deal(rules, 2, seed):
        if deal.is_over:
            break
        last_mano = deal.stage == last_stage and max(len(deal.hand(s)) for s in (0, 1)) <= 1
        for viewer in (0, 1):
            other = deal.view(viewer)["hands"][1 - viewer]
            if last_mano:
                assert other["cards"] == [str(c) for c in deal.hand(1 - viewer)]
                shown_in_last_mano += 1
            else:
                assert "cards" not in other
        assert all("cards" not in h for h in deal.view(None)["hands"])
    assert shown_in_last_mano >= 2


@pytest.mark.parametrize("players", [3, 4])
def test_O1_last_mano_face_up_only_with_two_players(players: int) -> None:
    rules = Rules().replace(carte_viste=True)
    for deal in _random_deal(rules, players, 6):
        for viewer in range(players):
            hands = deal.view(viewer)["hands"]
            assert [("cards" in h) for h in hands] == [s == viewer for s in range(players)]


def test_O1_two_players_without_carte_viste_last_mano_stays_hidden() -> None:
    for deal in _random_deal(Rules(), 2, 2):
        for viewer in (0, 1):
            assert "cards" not in deal.view(viewer)["hands"][1 - viewer]


# ---- O2: carte scoperte ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_O2_carte_scoperte_shows_the_partners_hand_and_never_the_opponents(seed: int) -> None:
    rules = Rules().replace(carte_scoperte=True)
    for deal in _random_deal(rules, 4, seed):
        for viewer in range(4):
            partner = (viewer + 2) % 4
            view = deal.view(viewer)
            hands = view["hands"]
            assert hands[partner]["cards"] == [str(c) for c in deal.hand(partner)]
            for opponent in ((viewer + 1) % 4, (viewer + 3) % 4):
                assert "cards" not in hands[opponent]
            for event in deal.events_for(viewer):
                if event["type"] == "deal":
                    assert event["hands"][partner] is not None
                    assert event["hands"][(viewer + 1) % 4] is None
                    assert event["hands"][(viewer + 3) % 4] is None
        assert all("cards" not in h for h in deal.view(None)["hands"])


def test_O2_without_carte_scoperte_partner_hand_stays_hidden() -> None:
    for deal in _random_deal(Rules(), 4, 9):
        for viewer in range(4):
            assert "cards" not in deal.view(viewer)["hands"][(viewer + 2) % 4]


# ---- JSON and the seed -----------------------------------------------------------------------


@pytest.mark.parametrize(("name", "players"), PRESET_PLAYERS)
def test_P9_views_are_json_serialisable_and_never_hold_the_seed(name: str, players: int) -> None:
    rules = Rules.preset(name)
    deal = Deal(rules, players=players, dealer=0, seed=SEED)
    rng = random.Random(1)
    while True:
        for viewer in [None, *range(players)]:
            view = deal.view(viewer)
            text = json.dumps(view)
            assert json.loads(text) == view
            assert str(SEED) not in text
            assert all(key != "seed" for _, key in _strings(view))
            events = deal.events_for(viewer)
            assert json.loads(json.dumps(events)) == events
            assert str(SEED) not in json.dumps(events)
        if deal.is_over:
            break
        deal.play(rng.choice(deal.legal_moves()))


def test_P9_view_of_a_seat_that_does_not_exist_is_an_error() -> None:
    deal = Deal(Rules(), players=3, seed=1)
    for bad in (3, -1, "0", 1.0, True):
        with pytest.raises(ValueError):
            deal.view(bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            deal.events_for(bad)  # type: ignore[arg-type]


def test_S9_views_show_the_score_sheet_once_the_smazzata_is_over() -> None:
    for deal in _random_deal(Rules(), 3, 12):
        for viewer in [None, 0, 1, 2]:
            view = deal.view(viewer)
            assert view["is_over"] is deal.is_over
            if deal.is_over:
                assert view["score"] == deal.score().to_dict()
                assert view["to_move"] is None
            else:
                assert view["score"] is None


# ---- several views at once (a server's broadcast) -------------------------------------------


@pytest.mark.parametrize(
    "options",
    [{}, {"carte_viste": True}, {"carte_scoperte": True}],
    ids=["plain", "O1", "O2"],
)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_views_at_once_equal_each_seats_own_view(
    options: dict[str, Any], players: int
) -> None:
    """P9: `deal_views` (one call for every seat and a spectator, sharing what is common)
    gives each viewer exactly `deal.view(viewer)`, at every point of a smazzata."""
    from cirulla.views import deal_views

    if players != 2 and options.get("carte_viste"):
        options = {}
    if players != 4 and options.get("carte_scoperte"):
        options = {}
    rules = Rules.preset("cirulla").replace(**options)
    rng = random.Random(players)
    deal = Deal(rules, players=players, dealer=players - 1, seed=11 + players)
    viewers: list[int | None] = [None, *range(players)]
    while True:
        together = deal_views(deal, viewers)
        assert together == {v: deal.view(v) for v in viewers}
        lean = deal_views(deal, viewers, history=False)
        for v in viewers:
            alone = deal.view(v)
            del alone["history"]
            assert lean[v] == alone
        if deal.is_over:
            break
        deal.play(rng.choice(deal.legal_moves()))
