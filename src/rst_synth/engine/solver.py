"""Solvability during synthesis: an agent attempts each accepted child K times; its solve rate is
recorded on the task, and `require` rejects a child that no attempt solved (`unsolved`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from rst_synth.agents import Agent, AttemptLimits, run_attempt
from rst_synth.engine.frontier import stable_seed
from rst_synth.sandbox import Sandbox
from rst_synth.task import Task
from rst_synth.validator import Check, CheckResult, Reason, Verdict


@dataclass
class Solver:
    agent: Agent
    sandbox: Sandbox
    k: int
    """Attempts per accepted child."""
    out_dir: Path
    """Where the attempts' trajectories go: <out_dir>/<task>/attempt-<i>/."""
    require: bool = False
    """Reject a child that no attempt solved."""
    limits: AttemptLimits = field(default_factory=AttemptLimits)

    async def judge(self, task: Task) -> tuple[CheckResult, float]:
        """The `solvable` check and the solve rate of `task`."""
        folder = re.sub(r"[^A-Za-z0-9._-]+", "_", task.short_name)
        solved = 0
        for attempt in range(self.k):
            result = await run_attempt(
                task,
                self.agent,
                self.sandbox,
                attempt=attempt,
                seed=stable_seed(0, f"solver:{task.name}:{attempt}"),
                out_dir=self.out_dir / folder / f"attempt-{attempt}",
                limits=self.limits,
            )
            solved += result.reward >= 1.0
        rate = solved / self.k
        failed = self.require and solved == 0
        return CheckResult(
            check=Check.SOLVABLE,
            verdict=Verdict.FAIL if failed else Verdict.PASS,
            reason=Reason.UNSOLVED if failed else Reason.OK,
            detail=f"{self.agent.name} ({self.agent.model}) solved {solved} of {self.k} attempts",
        ), rate
