"""A SkyRL-gym environment over `TaskSession`: `rst_terminal`.

SkyRL makes it with `skyrl_gym.make("rst_terminal", env_config=..., extras=row)` for each dataset
row `rst collect --format skyrl` wrote; `extras["extra_info"]["task_dir"]` names the task.
`init(prompt)` starts the episode's container and hands the prompt back; `step(reply)` runs the
reply's command and returns its output as a user turn, reward 0, until the episode ends: then the
reward is the task's tests' (`done`, no further observation) and the container is gone.

The environment is declared under the `skyrl_gym.envs` entry-point group of this package;
`register_skyrl_envs()` registers every environment so declared (SkyRL itself reads no entry points:
call it in the training entrypoint, where SkyRL's examples call `register`).
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

import skyrl_gym
from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput, ConversationType

from rst_synth.agents import AttemptLimits
from rst_synth.rl.dataset import ENV_CLASS
from rst_synth.rl.session import TaskSession

ENTRY_POINT_GROUP = "skyrl_gym.envs"


class RstTerminalEnv(BaseTextEnv):  # type: ignore[misc]  # skyrl_gym ships no type information
    def __init__(self, env_config: Any = None, extras: dict[str, Any] | None = None) -> None:
        super().__init__()
        extras = dict(extras or {})
        info = dict(extras.get("extra_info") or {})
        task_dir = info.get("task_dir") or extras.get("task_dir")
        if not task_dir:
            raise ValueError(f"{ENV_CLASS}: extras need extra_info.task_dir (rst collect --format skyrl writes it)")
        config = dict(env_config or {})
        turns = extras.get("max_turns") or info.get("max_turns")
        self.max_turns = int(turns) if turns else None  # None: the task's [agent] timeout_sec bounds an episode
        limits = AttemptLimits(
            max_steps=self.max_turns,
            command_timeout_sec=float(config.get("command_timeout_sec", AttemptLimits().command_timeout_sec)),
        )
        self.session = TaskSession(
            task_dir,
            limits=limits,
            backend=str(config.get("backend", "docker")),
            sandbox_options=dict(config.get("sandbox_options") or {}),
        )
        self.reward = 0.0

    def init(self, prompt: ConversationType) -> tuple[ConversationType, dict[str, Any]]:
        self.session.reset()
        self.turns, self.reward = 0, 0.0
        return prompt, {"task": self.session.task.name}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        self.turns += 1
        result = self.session.act(action)
        if result.done:
            self.reward = result.reward
        metadata = {"ended": result.ended, "steps": self.session.steps, "format_errors": self.session.format_errors}
        return BaseTextEnvStepOutput(
            observations=[] if result.done else [{"role": "user", "content": result.observation}],
            reward=result.reward,
            done=result.done,
            metadata=metadata,
        )

    def close(self) -> None:
        self.session.close()

    def get_metrics(self) -> dict[str, Any]:
        return {"steps": self.session.steps, "reward": self.reward}


def register_skyrl_envs() -> list[str]:
    """Register with skyrl_gym every environment declared under the `skyrl_gym.envs` entry-point
    group (ours: rst_terminal); returns the ids registered now. Calling it again does nothing."""
    declared = {point.name: point.value for point in entry_points(group=ENTRY_POINT_GROUP)}
    # An install made before the entry point existed lacks it: ours is registered all the same.
    declared.setdefault(ENV_CLASS, f"{__name__}:{RstTerminalEnv.__name__}")
    registered = []
    for name, target in declared.items():
        if name not in skyrl_gym.registry:
            skyrl_gym.register(id=name, entry_point=target)
            registered.append(name)
    return registered
