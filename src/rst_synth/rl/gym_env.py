"""A gymnasium environment over `TaskSession`, for engines that speak gymnasium.

An action is one bash command (the submit command `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`
ends the episode), or with `replies=True` a policy's whole reply, parsed as the SkyRL environment
parses it (one fenced bash block or one tool call). An observation is the prompt's text at reset,
then each command's output. The reward is 0 until the episode ends, then the task's tests' reward;
`terminated` on submit or three malformed replies, `truncated` at the step limit or the wall time.

Registered as `rst_synth/Terminal-v0`: `gymnasium.make("rst_synth.rl.gym_env:rst_synth/Terminal-v0",
task_dir=...)` imports this module and makes it.
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

import gymnasium

from rst_synth.agents import AttemptLimits
from rst_synth.agents.terminal import SUBMIT_COMMAND
from rst_synth.rl.session import EpisodeStep, TaskSession

ENV_ID = "rst_synth/Terminal-v0"
MAX_TEXT = 1_000_000
# Nominal: command output may hold any character; gymnasium's Text space needs a finite charset.
CHARSET = string.printable


class RstTerminalGymEnv(gymnasium.Env[str, str]):
    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        task_dir: Path | str,
        *,
        max_steps: int | None = AttemptLimits().max_steps,
        command_timeout_sec: float = AttemptLimits().command_timeout_sec,
        replies: bool = False,
        backend: str = "docker",
        sandbox_options: dict[str, Any] | None = None,
    ) -> None:
        limits = AttemptLimits(max_steps=max_steps, command_timeout_sec=command_timeout_sec)
        self.session = TaskSession(task_dir, limits=limits, backend=backend, sandbox_options=sandbox_options)
        self.replies = replies
        self.observation_space = gymnasium.spaces.Text(max_length=MAX_TEXT, min_length=0, charset=CHARSET)
        self.action_space = gymnasium.spaces.Text(max_length=MAX_TEXT, min_length=1, charset=CHARSET)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        prompt = self.session.reset()
        text = "\n\n".join(message["content"] for message in prompt)
        return text, {"messages": prompt, "task": self.session.task.name}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self.replies:
            result = self.session.act(action)
        elif action.strip() == SUBMIT_COMMAND:
            result = self.session.submit()
        else:
            result = self.session.run(action)
        terminated = result.done and result.ended in ("submitted", "format_errors")
        truncated = result.done and not terminated
        return result.observation, result.reward, terminated, truncated, _info(result, self.session)

    def close(self) -> None:
        self.session.close()


def _info(result: EpisodeStep, session: TaskSession) -> dict[str, Any]:
    info: dict[str, Any] = {"steps": session.steps}
    if result.done:
        info |= {"ended": result.ended, "verifier_output": result.verifier_output}
    return info


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point=f"{__name__}:{RstTerminalGymEnv.__name__}")
