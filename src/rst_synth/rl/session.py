"""The adapter every RL environment here stands on: one task and one fresh container of its image.

`reset()` starts the container (the task's image, the validator's limits, network as task.toml
says) and gives the prompt; `act(reply)` runs the reply's one command through the agents' `Shell`
(`bash -lc`, cwd and files kept between turns) and gives its output; the episode ends on submit,
three malformed replies in a row, the step limit or task.toml's [agent] timeout_sec. Then the task's
tests are copied in and run, and the reward read exactly as an `rst eval` attempt and the validator
read it (`harness.verify`). The container is removed when the episode ends, on `close()`,
on an error and at interpreter exit.

A multi-step task (agents/steps.py) gives a step's reward when the agent ends the step: the prompt is
the first step's instruction; a submit runs that step's tests and, where more steps follow and the
reward reaches the step's gate, the episode goes on in the same container with the next step's
instruction as the observation, the reward that step's (not done), its own [agent] timeout_sec
starting. The last step, a step below its gate, or a step ended otherwise than by submit ends the
episode with that step's reward. The rewards an episode gives add up to the sum of its steps'.

Training engines call environments synchronously, so the async sandbox runs on one event loop in a
background thread that every session of the process shares.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import time
from collections.abc import Coroutine
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from rst_synth.agents import AttemptLimits, Ended, Shell
from rst_synth.agents.steps import (
    load_task_dir,
    step_tests,
    step_verifier_timeout,
    step_view,
    task_steps,
)
from rst_synth.agents.terminal import MAX_FORMAT_ERRORS
from rst_synth.harness import RESET_VERIFIER, open_task, verify
from rst_synth.rl.actions import parse_action
from rst_synth.rl.dataset import rl_prompt
from rst_synth.sandbox import Sandbox, SandboxError, make_sandbox
from rst_synth.task import Task, TaskPaths

T = TypeVar("T")


class EpisodeStep(BaseModel):
    """What one action gave: the observation, and once the episode is over, the tests' reward."""

    observation: str
    done: bool = False
    reward: float = 0.0
    """0 until the episode ends; then the verifier's reward (no reward file: 0)."""
    ended: Ended | None = None
    verifier_output: str = ""
    task_step: str | None = None
    """On a multi-step task, the step this action ended (its reward is `reward`); else None."""


class EpisodeOver(RuntimeError):
    """An action after the episode ended (reset() starts the next one)."""


class _Loop:
    """One event loop in a daemon thread, for every session of the process."""

    _instance: _Loop | None = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="rst-rl-loop", daemon=True).start()

    @classmethod
    def get(cls) -> _Loop:
        with cls._lock:
            if cls._instance is None:
                cls._instance = _Loop()
            return cls._instance

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result()


_open_sessions: set[TaskSession] = set()
"""Sessions with a container, held until closed (a dropped session is still cleaned up at exit)."""


@atexit.register
def _close_all() -> None:
    """A trainer that exits mid-episode leaves no container behind."""
    for session in list(_open_sessions):
        session.close()


class TaskSession:
    """One task as an RL environment: a fresh container per episode, reward from its tests."""

    def __init__(
        self,
        task_dir: Path | str,
        *,
        limits: AttemptLimits | None = None,
        backend: str = "docker",
        sandbox_options: dict[str, Any] | None = None,
    ) -> None:
        self.task = load_task_dir(task_dir)
        self.task_steps = task_steps(self.task)
        self.limits = limits or AttemptLimits()
        self._backend, self._sandbox_options = backend, dict(sandbox_options or {})
        self._sandbox: Sandbox | None = None
        self._stack: AsyncExitStack | None = None
        self._shell: Shell | None = None
        self._deadline = 0.0
        self.steps = 0
        """Commands run this episode."""
        self.format_errors = 0
        """Malformed replies in a row."""
        self.last: EpisodeStep | None = None
        """The episode's final step once it is over."""
        self.step_index = 0
        """On a multi-step task, the step the agent works on."""
        self.step_rewards: dict[str, float] = {}
        """On a multi-step task, the rewards of the steps ended this episode."""

    @property
    def prompt(self) -> list[dict[str, str]]:
        return rl_prompt(self._current(), self.limits)

    def _current(self) -> Task:
        """The task as the agent sees it now: the step it works on, or the whole task."""
        return step_view(self.task, self.task_steps[self.step_index]) if self.task_steps else self.task

    @property
    def running(self) -> bool:
        return self._shell is not None

    def reset(self) -> list[dict[str, str]]:
        """Start an episode in a fresh container (ending any running one) and give its prompt."""
        self.close()
        self.steps, self.format_errors, self.last = 0, 0, None
        self.step_index, self.step_rewards = 0, {}
        _Loop.get().run(self._start())
        _open_sessions.add(self)
        return self.prompt

    def act(self, reply: str) -> EpisodeStep:
        """A policy's reply: one fenced bash block or one tool call (rl/actions.py)."""
        action = parse_action(reply)
        if action.error is not None:
            self._require_running()
            self.format_errors += 1
            message = f"Format error: {action.error}"
            if self.format_errors >= MAX_FORMAT_ERRORS:
                return self._finish("format_errors", message)
            return EpisodeStep(observation=message)
        self.format_errors = 0
        if action.submit:
            return self.submit()
        assert action.command is not None
        return self.run(action.command)

    def run(self, command: str) -> EpisodeStep:
        """Run one command; the episode ends after the step limit or past the wall time."""
        shell = self._require_running()
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            return self._finish("timeout", "[the attempt's time ran out]")
        try:
            result = _Loop.get().run(shell.run(command, timeout=min(self.limits.command_timeout_sec, remaining)))
        except SandboxError as exc:
            return self._finish("sandbox_error", f"[the container failed: {exc}]")
        self.steps += 1
        observation = f"exit code: {result.exit_code if not result.timed_out else 'killed'}\n{result.output}"
        if not self.limits.allows(self.steps):
            return self._finish("max_steps", observation)
        return EpisodeStep(observation=observation)

    def submit(self) -> EpisodeStep:
        self._require_running()
        return self._finish("submitted", "")

    def close(self) -> None:
        """Remove the container (an episode cut short earns nothing); safe to call twice."""
        if self._sandbox is not None:
            sandbox, stack = self._sandbox, self._stack
            self._sandbox = self._stack = self._shell = None
            _open_sessions.discard(self)
            _Loop.get().run(_shut(sandbox, stack))

    def __enter__(self) -> TaskSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _require_running(self) -> Shell:
        if self._shell is None:
            raise EpisodeOver(f"{self.task.name}: no episode running; reset() starts one")
        return self._shell

    async def _start(self) -> None:
        sandbox = make_sandbox(self._backend, **self._sandbox_options)
        stack = AsyncExitStack()
        try:
            box = await stack.enter_async_context(open_task(sandbox, self.task))
        except BaseException:
            await _shut(sandbox, stack)
            raise
        self._sandbox, self._stack, self._shell = sandbox, stack, Shell(box, self.limits)
        self._start_clock()

    def _start_clock(self) -> None:
        self._deadline = time.monotonic() + (self._current().config.agent.timeout_sec or self.limits.default_wall_sec)

    def _finish(self, ended: Ended, observation: str) -> EpisodeStep:
        shell = self._require_running()
        step = self.task_steps[self.step_index] if self.task_steps else None
        if step is not None:
            tests, timeout = step_tests(self.task, step), step_verifier_timeout(self.task, step)
        else:
            tests, timeout = self.task.files_under(TaskPaths.TESTS_DIR), self.task.config.verifier.timeout_sec
        try:
            verified, reward = _Loop.get().run(verify(shell.box, tests, timeout))
            output = verified.tail(2000)
        except SandboxError as exc:  # the container died: nothing to verify, nothing earned
            self.close()
            reward, output = None, f"[verifier could not run: {exc}]"
        earned = reward or 0.0
        name = step.name if step is not None else None
        if step is not None:
            self.step_rewards[step.name] = earned
            gated = step.gate is not None and earned < step.gate
            if ended == "submitted" and not gated and self.running and self.step_index + 1 < len(self.task_steps):
                try:  # the next step's agent must not see these tests or this reward
                    _Loop.get().run(shell.box.exec(RESET_VERIFIER, timeout=60, user="root"))
                except SandboxError:
                    pass  # the next command finds the container gone and ends the episode
                self.step_index += 1
                self.format_errors = 0
                self._start_clock()
                return EpisodeStep(
                    observation=self._current().instruction, reward=earned, verifier_output=output, task_step=name
                )
        self.close()
        self.last = EpisodeStep(
            observation=observation, done=True, reward=earned, ended=ended, verifier_output=output, task_step=name
        )
        return self.last


async def _shut(sandbox: Sandbox, stack: AsyncExitStack | None) -> None:
    try:
        if stack is not None:
            await stack.aclose()
    finally:
        await sandbox.close()
