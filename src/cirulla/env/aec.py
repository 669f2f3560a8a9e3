"""The PettingZoo AEC environment: one agent per seat, any preset and options.

Each agent sees only its seat's view (`deal.view(seat)`), as the tensor of
`encoding.observation` and, for the agent to act, as the view dict in its info.
A move is a short sequence of the 104 actions of `encoding`; the same agent acts
again until its move is complete. See docs/environments.md.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..deal import Deal
from ..game import Game, derived_seed
from ..moves import IllegalMove, Move, parse_move
from ..rules import Rules
from .encoding import NUM_ACTIONS, OBSERVATION_HIGH, MoveBuilder, action_name, observation
from .render import table_text

__all__ = ["REWARDS", "CirullaEnv", "env", "make_rules", "raw_env", "side_rewards"]

REWARDS: Final = ("smazzata", "partita")
_MAX_RETRIES: Final = 1000


def make_rules(preset: str, options: dict[str, Any] | None) -> Rules:
    """The preset with `options` applied (`Rules.replace`); ValueError naming a bad one."""
    rules = Rules.preset(preset)
    if options is not None:
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict of rules options, not {type(options)}")
        rules = rules.replace(**options)
    return rules


def side_rewards(points: list[int]) -> list[float]:
    """Each side's points less the mean of the other sides' (zero-sum; p0 - p1 for two)."""
    total = sum(points)
    k = len(points)
    return [p - (total - p) / (k - 1) for p in points]


def _observation_space() -> spaces.Dict:
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, OBSERVATION_HIGH, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }
    )


class CirullaEnv(AECEnv[str, dict[str, npt.NDArray[Any]], int]):  # type: ignore[misc]
    """Cirulla (or Scopa) for 2, 3 or 4 agents "player_0".."player_{n-1}", seat = index.

    reward="smazzata": an episode is one smazzata; at its end each agent gets its
    side's points (`Score.totals`) less the mean of the other sides' points.
    reward="partita": an episode is a whole partita (`cirulla.Game`); at its end the
    winning side's agents get +1 and the others -1/(sides-1); every other reward is 0.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo's convention)
        "name": "cirulla_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 4,
        preset: str = "cirulla",
        options: dict[str, Any] | None = None,
        reward: str = "smazzata",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules = make_rules(preset, options)
        self.players = self.rules.check_players(players)
        if reward not in REWARDS:
            raise ValueError(f"reward must be 'smazzata' or 'partita', not {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        self.reward_mode = reward
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self._obs_space = _observation_space()
        self._act_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._act_space)
        self._rng, _ = seeding.np_random(None)
        self._builder = MoveBuilder()
        self._views: dict[int | None, dict[str, Any]] = {}
        self.game: Game | None = None
        #: The seed the current episode was dealt from: Game(rules, players, seed=it).
        self.episode_seed: int | None = None

    # ---- spaces -------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_space

    # ---- state --------------------------------------------------------------------
    @property
    def deal(self) -> Deal:
        """The smazzata being played."""
        if self.game is None:
            raise ValueError("call reset() first")
        return self.game.deal

    @property
    def prefix(self) -> tuple[int, ...]:
        """The actions already given for the move being entered."""
        return self._builder.prefix

    def seat_of(self, agent: str) -> int:
        try:
            return self.possible_agents.index(agent)
        except ValueError:
            raise ValueError(f"no agent {agent!r} (agents: {self.possible_agents})") from None

    def view(self, agent: str | None) -> dict[str, Any]:
        """`deal.view(seat)` of the agent (None: the spectator's), made once per state."""
        seat = None if agent is None else self.seat_of(agent)
        v = self._views.get(seat)
        if v is None:
            v = self._views[seat] = self.deal.view(seat)
        return v

    def legal_actions(self) -> list[int]:
        """The actions the agent to act may take now."""
        return self._builder.legal_actions(self.deal.legal_moves())

    # ---- the AEC API --------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new episode; `seed` makes it `cirulla.Game(rules, players, seed=seed)`.

        A smazzata over at the deal, with no move (D7's Luzzati instant wins), is
        skipped: its partita goes on, or a partita over at once is dealt again from
        `derived_seed(seed, "env-retry", k)`.
        """
        if seed is not None:
            if not isinstance(seed, int | np.integer) or isinstance(seed, bool) or seed < 0:
                raise ValueError(f"seed must be a non-negative integer, not {seed!r}")
            self._rng, _ = seeding.np_random(int(seed))
            first = int(seed)
        else:
            first = int(self._rng.integers(2**63))
        for k in range(_MAX_RETRIES):
            s = first if k == 0 else derived_seed(first, "env-retry", k)
            game = Game(self.rules, self.players, seed=s)
            self._skip_instant(game)
            if not game.is_over:
                break
        else:  # pragma: no cover - would need a thousand instant wins in a row
            raise RuntimeError("no playable deal found")
        self.game = game
        self.episode_seed = s
        self._builder.reset()
        self._views.clear()
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.agent_selection = self._agent_to_move()
        self._set_infos()

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        """The agent's observation: the tensor of its view and its action mask (zeros
        when it is not to act). The view dict itself: `env.unwrapped.view(agent)`."""
        seat = self.seat_of(agent)
        deal = self.deal
        acting = seat == deal.to_move and not self.terminations.get(agent, True)
        prefix = self._builder.prefix if acting else ()
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if acting:
            mask[self._builder.legal_actions(deal.legal_moves())] = 1
        return {"observation": observation(self.view(agent), prefix), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """One action of the agent to act. A masked-out action raises ValueError and
        changes nothing (PettingZoo leaves illegal actions to the environment)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: None is only for agents that are done")
        move = self._builder.step(self.deal.legal_moves(), action)  # ValueError: unchanged
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._views.clear()
        if move is not None:
            self._apply(move)
        self._accumulate_rewards()
        self._set_infos()
        if self.render_mode == "human":
            self.render()

    def play_move(self, move: Move | str) -> None:
        """Play a whole move of the agent to act at once (for bots and scripts): it must be
        legal and no action of it given yet; IllegalMove otherwise, and nothing changes."""
        agent = self.agent_selection
        if self.terminations.get(agent, True):
            raise IllegalMove("the episode is over: call reset()")
        if self._builder.prefix:
            raise IllegalMove("a move is being entered action by action: finish it with step()")
        deal = self.deal
        legal = deal.legal_moves()
        chosen = parse_move(move) if isinstance(move, str) else move
        if chosen not in legal:
            raise IllegalMove(f"{chosen} is not a legal move here")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._views.clear()
        self._apply(chosen)
        self._accumulate_rewards()
        self._set_infos()

    def render(self) -> str | None:
        """The table from the view of the agent to act (the spectator's once over)."""
        if self.render_mode is None:
            return None
        deal = self.deal
        seat = deal.to_move
        agent = None if seat is None else self.possible_agents[seat]
        legal = [action_name(a) for a in self.legal_actions()] if agent is not None else []
        text = table_text(self.view(agent), [action_name(a) for a in self._builder.prefix], legal)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the engine holds no resources."""

    # ---- internals ----------------------------------------------------------------
    def _agent_to_move(self) -> str:
        seat = self.deal.to_move
        assert seat is not None
        return self.possible_agents[seat]

    def _skip_instant(self, game: Game) -> None:
        while game.deal.is_over and not game.is_over:
            game.next_deal()

    def _apply(self, move: Move) -> None:
        game = self.game
        assert game is not None
        deal = game.deal
        deal.play(move)
        self._builder.reset()
        if not deal.is_over:
            self.agent_selection = self._agent_to_move()
            return
        if self.reward_mode == "smazzata":
            rewards = side_rewards(deal.score().totals)
            self._end({a: rewards[deal.side_of(i)] for i, a in enumerate(self.agents)})
            return
        if not game.is_over:
            game.next_deal()
            self._skip_instant(game)
        if not game.is_over:
            self.agent_selection = self._agent_to_move()
            return
        winner = game.winner
        sides = game.sides
        self._end(
            {
                a: 0.0
                if winner is None
                else (1.0 if deal.side_of(i) == winner else -1 / (sides - 1))
                for i, a in enumerate(self.agents)
            }
        )

    def _end(self, rewards: dict[str, float]) -> None:
        self.rewards = rewards
        self.terminations = dict.fromkeys(self.agents, True)

    def _set_infos(self) -> None:
        """The agent to act gets its view, its legal moves and the pending prefix; once
        the episode is over, every agent gets its final view and the score."""
        if self.terminations and all(self.terminations.values()):
            game = self.game
            assert game is not None
            final: dict[str, Any] = {"score": self.deal.score().to_dict(), "totals": game.totals}
            if self.reward_mode == "partita":
                final["winner"] = game.winner
                final["end_reason"] = game.end_reason
            self.infos = {a: {**final, "view": self.view(a)} for a in self.agents}
            return
        agent = self.agent_selection
        self.infos = {a: {} for a in self.agents}
        self.infos[agent] = {
            "view": self.view(agent),
            "legal_moves": [m.text for m in self.deal.legal_moves()],
            "prefix": list(self._builder.prefix),
        }


def raw_env(
    players: int = 4,
    preset: str = "cirulla",
    options: dict[str, Any] | None = None,
    reward: str = "smazzata",
    render_mode: str | None = None,
) -> CirullaEnv:
    """The environment without PettingZoo's checking wrappers."""
    return CirullaEnv(players, preset, options, reward, render_mode)


def env(
    players: int = 4,
    preset: str = "cirulla",
    options: dict[str, Any] | None = None,
    reward: str = "smazzata",
    render_mode: str | None = None,
) -> AECEnv[str, dict[str, npt.NDArray[Any]], int]:
    """The environment in PettingZoo's usual wrappers (action bounds, call order)."""
    e: Any = raw_env(players, preset, options, reward, render_mode)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e
