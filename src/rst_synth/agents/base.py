"""The Agent protocol, the shell an agent works through, and what one attempt ends with."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from rst_synth.agents.atif import TrajectoryRecorder
from rst_synth.sandbox import Container
from rst_synth.task import Task

Ended = Literal[
    "submitted",
    "done",
    "max_steps",
    "timeout",
    "format_errors",
    "token_limit",
    "cost_limit",
    "llm_error",
    "sandbox_error",
]
"""Why an attempt stopped: the agent submitted (or, for oracle/nop, finished), or a limit or failure."""


class AttemptLimits(BaseModel):
    """What one attempt may spend; the wall time comes from task.toml [agent] timeout_sec.

    No count of commands bounds an attempt unless one is given (Harbor's convention): the task's
    [agent] timeout_sec, computed from its measured work (task/limits.py), is what bounds it, so an
    agent that works in many small commands is not cut off before one that writes large scripts.
    `rst eval`, the solver and the RL session all follow this rule."""

    max_steps: int | None = Field(default=None, ge=1)
    """Commands the agent may run; None: no count limit within the task's time (`--max-steps` caps it)."""
    command_timeout_sec: float = Field(default=120.0, gt=0)
    """Wall time of one command; past it the command is killed and the attempt goes on."""
    default_wall_sec: float = Field(default=1800.0, gt=0)
    """Wall time of the whole attempt when task.toml sets no [agent] timeout_sec."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Prompt plus completion tokens per attempt."""
    max_usd: float | None = Field(default=None, gt=0)
    """Dollars per attempt."""
    output_chars: int = Field(default=10_000, ge=200)
    """Longest command output shown to the model: longer output keeps its head and tail."""

    def allows(self, steps: int) -> bool:
        """Whether an attempt that ran `steps` commands may run another."""
        return self.max_steps is None or steps < self.max_steps


@dataclass(frozen=True)
class CommandResult:
    output: str
    """What the model sees: stdout and stderr, truncated to head and tail with a note."""
    exit_code: int | None
    timed_out: bool
    seconds: float


class Shell:
    """Commands run in the task's container through `bash -lc`, from the directory the last one
    ended in (the image's WORKDIR at first): files and cwd persist between turns, never on the host."""

    _CWD = "/tmp/.rst-agent-cwd"

    def __init__(self, box: Container, limits: AttemptLimits) -> None:
        self.box, self.limits = box, limits

    async def run(self, command: str, timeout: float | None = None, *, login: bool = True) -> CommandResult:
        """Run `command`; `login=False` skips the login profile (the oracle runs solve.sh exactly as
        validation does, with the image's own PATH)."""
        limit = timeout or self.limits.command_timeout_sec
        # `timeout` inside the container kills only the command; the exec's own timeout, a little
        # longer, is the backstop that would take the container down.
        script = (
            f'cd "$(cat {self._CWD} 2>/dev/null || pwd)" 2>/dev/null; '
            f"{command}\n__rst_rc=$?; pwd > {self._CWD}; exit $__rst_rc"
        )
        wrapped = f"timeout -k 5 {limit:g} bash {'-lc' if login else '-c'} {shlex.quote(script)}"
        result = await self.box.exec(wrapped, timeout=limit + 30)
        timed_out = result.timed_out or result.exit_code in (124, 137)
        output = truncate(result.output, self.limits.output_chars)
        if timed_out:
            output += f"\n[the command ran past {limit:g} s and was killed]"
        return CommandResult(
            output=output, exit_code=result.exit_code, timed_out=timed_out, seconds=result.duration_sec
        )

    async def put(self, files: dict[str, bytes], dest: PurePosixPath) -> None:
        await self.box.put_files(files, dest)


def truncate(text: str, limit: int) -> str:
    """`text` when it fits, else its head and tail with a note of how much was cut."""
    if len(text) <= limit:
        return text
    half = limit // 2
    cut = len(text) - 2 * half
    return f"{text[:half]}\n[... {cut} characters cut: {len(text)} in all ...]\n{text[-half:]}"


@runtime_checkable
class Agent(Protocol):
    """Works a task in a fresh container of its image; the tests run afterwards, not here."""

    name: str
    model: str
    """The model behind it ("" for agents without one)."""

    async def work(self, task: Task, shell: Shell, record: TrajectoryRecorder, *, seed: int) -> Ended:
        """Do the task through `shell`, recording every step; returns why it stopped."""
        ...

    async def close(self) -> None:
        """Release what the agent holds (an HTTP client, ...)."""
        ...


class AttemptResult(BaseModel):
    """result.json of one attempt."""

    task: str
    attempt: int
    reward: float
    """The verifier's reward exactly as validation reads it (no reward file: 0)."""
    ended: Ended
    steps: int
    """Commands the agent ran."""
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0
    verifier_output: str = ""
    """End of test.sh's output (a multi-step task's: the last step's that ran)."""
    reason: str | None = None
    """Why the reward is below 1, in the validator's reason codes: `verifier_tampered` (the work
    touched the verifier's toolchain or its reward, so the reward is 0), `tests_failed`,
    `no_reward_file`, `verifier_timeout` or a container limit; None at reward 1."""
    reason_detail: str = ""
    """For `verifier_tampered`: the path or channel, in one line."""
    step_rewards: dict[str, float | None] | None = None
    """Per step, where the task has steps: a multi-step task's step rewards in order (None: the gate
    stopped the attempt before the step), or the share of each step's tests a flat task's verifier
    reports in reward.json ([metadata].step_credit); None for other tasks."""
