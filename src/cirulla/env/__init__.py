"""Environments for reinforcement learning and game research (the optional "rl" extra).

`from cirulla.env import env, raw_env` gives the PettingZoo AEC environment;
`cirulla.env.gym.SingleAgentEnv` (id "Cirulla-v0") plays one seat against our bots.
See docs/environments.md. Nothing outside this package imports numpy, gymnasium or
pettingzoo, so the engine keeps no dependencies.
"""

from .aec import REWARDS, CirullaEnv, env, raw_env
from .encoding import NUM_ACTIONS, OBSERVATION_LAYOUT, OBSERVATION_SIZE, MoveBuilder
from .gym import ENV_ID, SingleAgentEnv, register

register()

__all__ = [
    "ENV_ID",
    "NUM_ACTIONS",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "REWARDS",
    "CirullaEnv",
    "MoveBuilder",
    "SingleAgentEnv",
    "env",
    "raw_env",
]
