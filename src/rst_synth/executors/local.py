"""The default executor: everything in this process, on this machine's container engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rst_synth.agents import Agent, AttemptLimits, AttemptResult, run_attempt
from rst_synth.executors.base import WorkSpec
from rst_synth.proposers.discovery import Discovery, discover
from rst_synth.sandbox import Sandbox
from rst_synth.task import Task
from rst_synth.validator import ValidationReport, Validator


class LocalExecutor:
    """In-process asyncio work on one sandbox; concurrency is bounded by the callers' slots and the
    validator's container budget, exactly as before executors existed."""

    name = "local"

    def __init__(self, sandbox: Sandbox, validator: Validator | None = None) -> None:
        self.sandbox = sandbox
        self.validator = validator or Validator(sandbox)

    def capacity(self, kind: str) -> int | None:
        return None

    async def validate(self, task: Task, parent: Task | None, *, key: str | None = None) -> ValidationReport:
        return await self.validator.validate(task, parent)

    async def discover(self, parent: Task, *, key: str | None = None) -> Discovery:
        return await discover(self.sandbox, parent)

    async def attempt(
        self,
        task: Task,
        agent: Agent,
        *,
        attempt: int,
        seed: int,
        out_dir: Path,
        limits: AttemptLimits | None = None,
        key: str | None = None,
    ) -> AttemptResult:
        return await run_attempt(task, agent, self.sandbox, attempt=attempt, seed=seed, out_dir=out_dir, limits=limits)

    async def close(self) -> None:
        """The sandbox belongs to the caller."""


def make_local(
    sandbox: Sandbox, validator: Validator | None = None, spec: WorkSpec | None = None, **options: Any
) -> LocalExecutor:
    """The registry's factory: the live sandbox and validator are used as they are (`spec`, the same
    settings as values for remote nodes, is not needed here); it has no options of its own."""
    if options:
        raise ValueError(f"executor local: unknown option {sorted(options)[0]!r}")
    return LocalExecutor(sandbox, validator)
