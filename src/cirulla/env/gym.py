"""A Gymnasium single-agent environment: one seat against our bots ("Cirulla-v0").

The agent plays one seat of the PettingZoo environment (`aec.CirullaEnv`) with its
observation, action mask and rewards; every other seat, the partner in 4 players
included, is played by a bot of the chosen level (`cirulla.bots.level_bot`), which
sees only its own seat's view. `reset(seed=s)` reproduces the deal and the bots.
"""

from __future__ import annotations

from typing import Any, Final, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt

from ..bots import LEVELS, Bot, SeatView, level_bot
from ..game import derived_seed
from .aec import CirullaEnv, _observation_space
from .encoding import NUM_ACTIONS

__all__ = ["ENV_ID", "ILLEGAL_ACTIONS", "SingleAgentEnv"]

ENV_ID: Final = "Cirulla-v0"
ILLEGAL_ACTIONS: Final = ("terminate", "raise")

Obs = dict[str, npt.NDArray[Any]]


class SingleAgentEnv(gymnasium.Env[Obs, np.int64]):
    """Seat `seat` of `players` is the agent; the others are `level` bots.

    Rewards are the PettingZoo environment's for the agent's side (`reward`:
    "smazzata" or "partita", see `CirullaEnv`). A masked-out action either ends the
    episode with `illegal_reward` (illegal_action="terminate", the default, so that
    unmasked learners and `check_env` work; `info["illegal_action"]` says why) or
    raises ValueError and changes nothing (illegal_action="raise"). `illegal_reward`
    defaults to -100 for "smazzata" and -2 for "partita": worse than any result.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        players: int = 2,
        preset: str = "cirulla",
        options: dict[str, Any] | None = None,
        level: str = "normale",
        seat: int = 0,
        reward: str = "smazzata",
        illegal_action: str = "terminate",
        illegal_reward: float | None = None,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        # the inner env renders to text; this one prints it once the bots have moved
        self.aec = CirullaEnv(players, preset, options, reward, render_mode and "ansi")
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r} (levels: {', '.join(LEVELS)})")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
            raise ValueError(f"seat must be 0 to {players - 1}, not {seat!r}")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(
                f"illegal_action must be 'terminate' or 'raise', not {illegal_action!r}"
            )
        self.level = level
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        self.illegal_action = illegal_action
        if illegal_reward is None:
            illegal_reward = -100.0 if reward == "smazzata" else -2.0
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.observation_space: gymnasium.spaces.Dict = _observation_space()  # type: ignore[assignment]
        self.action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self._bots: list[Bot | None] = []
        self._over = True

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        episode = seed if seed is not None else int(self.np_random.integers(2**63))
        self.aec.reset(seed=episode)
        self._bots = [
            None if s == self.seat else level_bot(self.level, seed=derived_seed(episode, "bot", s))
            for s in range(self.aec.players)
        ]
        self._over = False
        self._bots_play()
        if self.render_mode == "human":
            self.render()
        return self.aec.observe(self.agent), self._info()

    def step(self, action: np.int64 | int) -> tuple[Obs, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._over:
            raise ValueError("the episode is over: call reset()")
        aec = self.aec
        try:
            aec.step(int(action))
        except ValueError as exc:
            if self.illegal_action == "raise":
                raise
            self._over = True
            info = {"illegal_action": str(exc)}
            return aec.observe(self.agent), self.illegal_reward, True, False, info
        reward = float(aec.rewards.get(self.agent, 0.0))
        reward += self._bots_play()
        if self.render_mode == "human":
            self.render()
        return aec.observe(self.agent), reward, self._over, False, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now (the name sb3-contrib's MaskablePPO looks for)."""
        return self.aec.observe(self.agent)["action_mask"].astype(np.bool_)

    def render(self) -> str | None:
        """The table from the view of the seat to act (the agent's, between its moves)."""
        text = self.aec.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.aec.close()

    def _bots_play(self) -> float:
        """Let the bots move until the agent is to act or the episode ends; the agent's
        rewards meanwhile."""
        aec = self.aec
        reward = 0.0
        while not all(aec.terminations.values()) and aec.agent_selection != self.agent:
            seat = aec.seat_of(aec.agent_selection)
            bot = self._bots[seat]
            assert bot is not None
            aec.play_move(bot.choose(SeatView(aec.view(aec.agent_selection))))
            reward += float(aec.rewards.get(self.agent, 0.0))
        self._over = all(aec.terminations.values())
        return reward

    def view(self) -> dict[str, Any]:
        """The agent's view, `deal.view(seat)` (read it, do not change it)."""
        return self.aec.view(self.agent)

    def _info(self) -> dict[str, Any]:
        """Small and flat, so that vector envs can stack it: the legal moves while the
        agent plays; the points per side (and the winner in "partita") at the end."""
        aec = self.aec
        if not self._over:
            return {
                "legal_moves": [m.text for m in aec.deal.legal_moves()],
                "prefix": list(aec.prefix),
            }
        if not all(aec.terminations.values()):  # ended by an illegal action
            return {}
        info: dict[str, Any] = {"points": aec.deal.score().totals}
        if aec.reward_mode == "partita":
            assert aec.game is not None
            info["totals"] = aec.game.totals
            info["winner"] = aec.game.winner if aec.game.winner is not None else -1
        return info


def register() -> None:
    """Register "Cirulla-v0" with Gymnasium (done on importing `cirulla.env`)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="cirulla.env.gym:SingleAgentEnv")
