"""Cirulla as an OpenSpiel game: importing this module registers "python_cirulla".

    import pyspiel
    import cirulla.env.openspiel  # noqa: F401  (registers the game)
    game = pyspiel.load_game("python_cirulla", {"players": 2, "preset": "cirulla"})

OpenSpiel's own tools (ISMCTS, random simulation tests, evaluation) then run on it.
Parameters: `players` (2, 3 or 4), `preset` (a name of `Rules.presets()`), `options`
(a JSON object for `Rules.replace`, e.g. '{"ace_choice": true}': OpenSpiel's
parameters are scalars), `dealer` (the dealing seat) and `scope` ("smazzata": one
deal, the only scope so far).

Chance deals the deck one card per chance node, uniform among the cards left, in
the order `Deal(deck=...)` deals them. A misdeal starts a fresh uniform deck (its
table is public and kept in the information state), as at a real table, so the
accepted deck is uniform among the decks that deal; with Luzzati's rules the third
misdeal wins for the side after the dealer's (D7c). Actions are the 104 of
`cirulla.env.encoding`: a move may take several actions by the same player.

Returns, at the end of the smazzata, for each player: its side's points minus the
mean points of the other sides, so the game is zero-sum for 2, 3 and 4 players. An
instant win (cappotto, a Luzzati deal) wins the partita, so the winner side's points
count as at least the partita's target (`rules.target`, 51 with a fixed number of hands).

Observations and information states, tensors and strings alike, are built from
`deal.view(player)` and the pending prefix only (see `CirullaObserver`), and
`resample_from_infostate` is `cirulla.determinize` of that view.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyspiel

from ..cards import Card
from ..deal import Deal
from ..determinize import determinize
from ..rules import Rules
from .aec import side_rewards
from .encoding import (
    NUM_ACTIONS,
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    MoveBuilder,
    action_name,
    observation,
)

__all__ = [
    "GAME_NAME",
    "HISTORY_LAYOUT",
    "INFO_STATE_SIZE",
    "CirullaGame",
    "CirullaObserver",
    "CirullaState",
]

GAME_NAME: Final = "python_cirulla"
_CARDS: Final = 40
# Bounds for OpenSpiel's GameInfo, generous: 36 plays of at most 2 actions plus one
# TAKE per captured card (< 40), at most one 5-action declaration per card dealt,
# and one pass per seat and stage.
_MAX_GAME_LENGTH: Final = 36 * 2 + _CARDS + 36 * 5 + 36
_MAX_POINTS: Final = 300  # a side's points in one smazzata, but an instant win's target

#: The information state tensor: the observation (encoding.OBSERVATION_LAYOUT), then
#: these slices, which make the order of play recoverable (perfect recall).
HISTORY_LAYOUT: Final = (
    ("played_at", OBSERVATION_SIZE, _CARDS, "per card: number of the play (1..36) that played it"),
    (
        "captured_at",
        OBSERVATION_SIZE + _CARDS,
        _CARDS,
        "per card: number of the play that captured it (0: not captured by a play)",
    ),
    (
        "declared_at",
        OBSERVATION_SIZE + 2 * _CARDS,
        _CARDS,
        "per card: 1 + number of plays before it was declared (0: never declared)",
    ),
)
INFO_STATE_SIZE: Final = OBSERVATION_SIZE + 3 * _CARDS

_GAME_TYPE: Final = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Cirulla (cirulla rules engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={
        "players": 2,
        "preset": "cirulla",
        "options": "{}",
        "dealer": 0,
        "scope": "smazzata",
    },
)


def _rules(preset: str, options: str) -> Rules:
    if preset not in Rules.presets():
        raise ValueError(f"unknown preset {preset!r} (presets: {', '.join(Rules.presets())})")
    try:
        opts = json.loads(options)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"options must be a JSON object, e.g. '{{\"ace_choice\": true}}': {exc}"
        ) from None
    if not isinstance(opts, dict):
        raise ValueError(f"options must be a JSON object, not {options!r}")
    return Rules.preset(preset).replace(**opts) if opts else Rules.preset(preset)


class CirullaGame(pyspiel.Game):  # type: ignore[misc]
    """One smazzata of Cirulla (or any preset) for OpenSpiel; see the module docstring."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_GAME_TYPE.parameter_specification, **(params or {})}
        unknown = set(p) - set(_GAME_TYPE.parameter_specification)
        if unknown:
            raise ValueError(f"unknown parameters {sorted(unknown)}")
        if p["scope"] != "smazzata":
            raise ValueError(f"scope must be 'smazzata' (one deal), not {p['scope']!r}")
        rules = _rules(str(p["preset"]), str(p["options"]))
        players = rules.check_players(p["players"])
        dealer = p["dealer"]
        if not isinstance(dealer, int) or not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat from 0 to {players - 1}, not {dealer!r}")
        self.rules: Final = rules
        self.players: Final = players
        self.dealer: Final = dealer
        self.target: Final = rules.target or 51
        bound = float(_MAX_POINTS + self.target)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=_CARDS,
            num_players=players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=_MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, p)

    def new_initial_state(self) -> CirullaState:
        return CirullaState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> CirullaObserver:
        return CirullaObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class _Core:
    """The state's Python side in one object, so that OpenSpiel's clone (a deepcopy of
    every attribute) copies the Deal with `Deal.copy` and keeps cards interned."""

    __slots__ = ("builder", "deal", "drawn", "game", "instant", "misdeals")

    def __init__(self, game: CirullaGame) -> None:
        self.game = game  # shared, never copied
        self.drawn: list[int] = []  # card ids dealt by chance so far (the deck's front)
        self.misdeals: list[list[str]] = []  # tables of the misdeals, public
        self.deal: Deal | None = None
        self.builder = MoveBuilder()
        self.instant: int | None = None  # the winner side of a third Luzzati misdeal

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        new = _Core(self.game)
        new.drawn = list(self.drawn)
        new.misdeals = [list(t) for t in self.misdeals]
        new.deal = None if self.deal is None else self.deal.copy()
        new.builder = copy.copy(self.builder)  # its prefix is an immutable tuple
        new.instant = self.instant
        return new


class CirullaState(pyspiel.State):  # type: ignore[misc]
    """A smazzata being dealt (chance) or played, plus the pending prefix of a move."""

    def __init__(self, game: CirullaGame) -> None:
        super().__init__(game)
        self._core = _Core(game)

    # ---- reading --------------------------------------------------------------------
    @property
    def deal(self) -> Deal | None:
        """The engine's Deal once the cards are dealt (do not play on it directly)."""
        return self._core.deal

    @property
    def prefix(self) -> tuple[int, ...]:
        """The actions given so far of the move being entered."""
        return self._core.builder.prefix

    @property
    def misdeals(self) -> list[list[str]]:
        return [list(t) for t in self._core.misdeals]

    def current_player(self) -> int:
        core = self._core
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if core.deal is None:
            return int(pyspiel.PlayerId.CHANCE)
        assert core.deal.to_move is not None
        return core.deal.to_move

    def is_terminal(self) -> bool:
        core = self._core
        return core.instant is not None or (core.deal is not None and core.deal.is_over)

    def _legal_actions(self, player: int) -> list[int]:
        deal = self._core.deal
        if deal is None or deal.is_over or player != deal.to_move:
            return []
        return self._core.builder.legal_actions(deal.legal_moves())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        drawn = set(self._core.drawn)
        left = [c for c in range(_CARDS) if c not in drawn]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    # ---- playing --------------------------------------------------------------------
    def _apply_action(self, action: int) -> None:
        core = self._core
        if core.deal is None:
            self._draw(int(action))
            return
        move = core.builder.step(core.deal.legal_moves(), action)
        if move is not None:
            core.deal.play(move)

    def _draw(self, card: int) -> None:
        core = self._core
        if card in core.drawn or not 0 <= card < _CARDS:
            raise ValueError(f"card {card} cannot be dealt now")
        core.drawn.append(card)
        if len(core.drawn) < _CARDS:
            return
        game = self._core.game
        deck = [Card.from_id(c) for c in core.drawn]
        deal = Deal(game.rules, game.players, game.dealer, deck=deck)
        if deal.misdeals == 0:
            core.deal = deal
            return
        table = next(e["table"] for e in deal.events if e["type"] == "misdeal")
        core.misdeals.append(list(table))
        core.drawn = []
        if game.rules.luzzati and len(core.misdeals) == 3:  # D7(c)
            core.instant = 1 - deal.side_of(game.dealer)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {Card.from_id(int(action))}"
        return action_name(action)

    def returns(self) -> list[float]:
        """Per player: its side's points minus the mean of the other sides' (module doc)."""
        game = self._core.game
        n = game.players
        if not self.is_terminal():
            return [0.0] * n
        core = self._core
        nsides = 2 if n == 4 else n
        points = [0] * nsides
        winner = core.instant
        if core.deal is not None:
            points = core.deal.score().totals
            winner = core.deal.instant_winner
        if winner is not None:
            points[winner] = max(points[winner], game.target)
        side_return = side_rewards(points)
        return [side_return[s % nsides] for s in range(n)]

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float]
    ) -> CirullaState:
        """A state `player_id` cannot tell from this one: `determinize` of its view.

        The moves played are kept, and the pending prefix when `player_id` is the
        one entering it (another seat's prefix is not in `player_id`'s information:
        the copy has none). The hands the player cannot see and the undealt cards
        are drawn again (seeded from `probability_sampler`). OpenSpiel's history()
        of the copy still lists this state's chance outcomes and actions.
        """
        new: CirullaState = self.clone()
        rng = random.Random(int(probability_sampler() * 2**53))
        core = new._core
        if core.deal is None:  # still dealing: no card is known to anyone yet
            core.drawn = rng.sample(range(_CARDS), len(core.drawn))
        elif not core.deal.is_over:
            mover = core.deal.to_move
            core.deal = determinize(core.deal.view(player_id), rng)
            core.drawn = [c.id for c in core.deal.initial_deck]
            if mover != player_id:  # another seat's half-entered move is its secret
                core.builder.reset()
        return new

    # ---- what a player sees -----------------------------------------------------------
    def view(self, player: int) -> dict[str, Any] | None:
        """`deal.view(player)`, or None while dealing (or after a third Luzzati misdeal)."""
        deal = self._core.deal
        return None if deal is None else deal.view(player)

    def observation_vector(self, player: int) -> npt.NDArray[np.float32]:
        """encoding.observation of the player's view and its own pending prefix."""
        view = self.view(player)
        if view is None:
            return np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        prefix = self.prefix if self.current_player() == player else ()
        return observation(view, prefix)

    def __str__(self) -> str:
        core = self._core
        lines = [f"misdeals: {json.dumps(core.misdeals)}"] if core.misdeals else []
        if core.deal is None:
            lines.append("dealt: " + " ".join(str(Card.from_id(c)) for c in core.drawn))
            if core.instant is not None:
                lines.append(f"side {core.instant} wins: third misdeal (D7c)")
            return "\n".join(lines)
        deal = core.deal
        lines.append(repr(deal))
        for seat in range(deal.players):
            lines.append(f"seat {seat}: " + " ".join(map(str, deal.hand(seat))))
        lines.append("moves: " + " ".join(map(str, deal.moves)))
        if core.builder.prefix:
            lines.append("prefix: " + ", ".join(map(action_name, core.builder.prefix)))
        return "\n".join(lines)


# ---- observations ------------------------------------------------------------------------


def _cards(items: list[str] | None) -> str:
    return "?" if items is None else " ".join(items) or "-"


def _view_text(view: dict[str, Any], prefix: tuple[int, ...], recall: bool) -> str:
    """A readable rendering of a seat's view: everything it holds when `recall`,
    the present position only otherwise (no history)."""
    matta = view["matta"]
    lines = [
        f"seat {view['seat']} (side {view['side']}) of {view['players']}, dealer"
        f" {view['dealer']}, to move {view['to_move']}, stage {view['stage']}"
        f"/{len(view['stages'])} mano {view['mano']}, deck {view['deck']}",
        f"hand: {_cards(view['hand'])}",
        "table: " + _cards([t["card"] for t in view["table"]]),
        "hands: "
        + " | ".join(
            f"{h['seat']}: {h['count']}"
            + (f" [{_cards(h['cards'])}]" if "cards" in h else "")
            + (f" declared {_cards(h['declared'])}" if h["declared"] else "")
            for h in view["hands"]
        ),
        "piles: "
        + " | ".join(
            f"{p['side']}: {p['count']} cards, scope {p['scope']}, bonus {p['bonus']}"
            for p in view["piles"]
        ),
        f"last capture: {view['last_capture']}; matta: "
        + ("-" if matta is None else f"{matta['card']}={matta['value']}"),
    ]
    if "carte_viste" in view:
        lines.append(f"seen: {_cards(view['carte_viste'])}")
    if prefix:
        lines.append("prefix: " + ", ".join(map(action_name, prefix)))
    if recall:
        lines.append("history:")
        lines += [json.dumps(e, sort_keys=True, separators=(",", ":")) for e in view["history"]]
    if view["is_over"]:
        lines.append("score: " + json.dumps(view["score"], sort_keys=True, separators=(",", ":")))
        lines.append(f"instant winner: {view['instant_winner']}")
    return "\n".join(lines)


def _history_vector(view: dict[str, Any], out: npt.NDArray[np.float32]) -> None:
    """Fill the HISTORY_LAYOUT part (`out` is that slice, zeroed)."""
    plays = 0
    for event in view["history"]:
        kind = event["type"]
        if kind == "play":
            plays += 1
            out[Card.parse(event["card"]).id] = plays
            for c in event["captured"]:
                out[_CARDS + Card.parse(c).id] = plays
        elif kind == "declare":
            for c in event["cards"]:
                out[2 * _CARDS + Card.parse(c).id] = plays + 1


class CirullaObserver:
    """OpenSpiel's Python observer protocol (open_spiel/python/observation.py).

    `perfect_recall=False` gives the observation: `encoding.observation` of the
    player's view (OBSERVATION_LAYOUT) and, as a string, the present position.
    `perfect_recall=True` gives the information state: the same tensor followed by
    HISTORY_LAYOUT, and a string with the view's whole (filtered) history. Only
    the observing player's private information is supported (private_info
    SINGLE_PLAYER, public_info True): the two kinds OpenSpiel's state methods use.
    """

    def __init__(self, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        if (
            iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
            or not iig_obs_type.public_info
        ):
            raise ValueError(
                "only the observing player's observation (private_info=SINGLE_PLAYER,"
                " public_info=True) is supported"
            )
        self.recall: bool = iig_obs_type.perfect_recall
        size = INFO_STATE_SIZE if self.recall else OBSERVATION_SIZE
        self.tensor: npt.NDArray[np.float32] = np.zeros(size, np.float32)
        pieces = [(s.name, s.offset, s.length) for s in OBSERVATION_LAYOUT]
        if self.recall:
            pieces += [(name, offset, length) for name, offset, length, _ in HISTORY_LAYOUT]
        self.dict: dict[str, npt.NDArray[np.float32]] = {
            name: self.tensor[offset : offset + length] for name, offset, length in pieces
        }

    def set_from(self, state: CirullaState, player: int) -> None:
        self.tensor.fill(0)
        view = state.view(player)
        if view is None:
            return
        self.tensor[:OBSERVATION_SIZE] = state.observation_vector(player)
        if self.recall:
            _history_vector(view, self.tensor[OBSERVATION_SIZE:])

    def string_from(self, state: CirullaState, player: int) -> str:
        core = state._core
        head = f"misdeals: {json.dumps(core.misdeals)}\n" if self.recall and core.misdeals else ""
        view = state.view(player)
        if view is None:
            if core.instant is not None:
                return head + f"side {core.instant} wins: third misdeal (D7c)"
            return head + f"seat {player}: dealing"
        prefix = state.prefix if state.current_player() == player else ()
        return head + _view_text(view, prefix, self.recall)


if GAME_NAME not in pyspiel.registered_names():
    pyspiel.register_game(_GAME_TYPE, CirullaGame)
