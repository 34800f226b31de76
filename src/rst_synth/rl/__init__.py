"""RL environments on the corpus: one adapter (a task and a fresh container of its image, reward
from its tests), a SkyRL-gym environment and a gymnasium environment over it, and SkyRL's dataset rows.

The environments need the `[rl]` extra (skyrl-gym, gymnasium): import them from
`rst_synth.rl.skyrl_env` and `rst_synth.rl.gym_env`; this package imports nothing optional.
"""

from rst_synth.rl.actions import Action, parse_action
from rst_synth.rl.dataset import ENV_CLASS, rl_prompt, skyrl_row
from rst_synth.rl.session import EpisodeOver, EpisodeStep, TaskSession


def register_skyrl_envs() -> list[str]:
    """`rst_terminal` (and any other env declared under the `skyrl_gym.envs` entry points) in
    skyrl_gym's registry; needs the `[rl]` extra."""
    from rst_synth.rl.skyrl_env import register_skyrl_envs as register

    return register()


__all__ = [
    "ENV_CLASS",
    "Action",
    "EpisodeOver",
    "EpisodeStep",
    "TaskSession",
    "parse_action",
    "register_skyrl_envs",
    "rl_prompt",
    "skyrl_row",
]
