"""Solvability during synthesis: an agent attempts each accepted child K times. Its solve rate is
recorded on the task and labels its difficulty; `max_rate` rejects a child solved too often
(`too_easy`, with the solver's evidence for the repair: evaluation/evidence.py) and `require` one
never solved (`unsolved`), so the corpus stays in the band where agents can learn. The attempts
become `agent_attempts` rows of the eval `solver-<model>`."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path

from rst_synth.agents import Agent, AttemptLimits, AttemptResult
from rst_synth.evaluation.evidence import solver_evidence
from rst_synth.evaluation.runner import eval_id
from rst_synth.executors import Executor
from rst_synth.seeds import stable_seed
from rst_synth.task import SolveRate, Task
from rst_synth.validator import Check, CheckResult, Reason, Verdict


@dataclass(frozen=True)
class SolverAttempt:
    """One finished attempt of the solver and the folder holding its trajectory.json and result.json."""

    result: AttemptResult
    path: Path


@dataclass(frozen=True)
class Judgement:
    """What the solver found on one child: the `solvable` check, its rate and its attempts."""

    check: CheckResult
    eval_id: str
    """`solver-<model>`: the key of the rate in [metadata.solve_rate] and of the attempts' rows."""
    rate: SolveRate
    attempts: list[SolverAttempt]


@dataclass
class Solver:
    agent: Agent
    executor: Executor
    """Where the attempts run, as `rst eval`'s do (`local`: the driver's sandbox; `ray`: a node, whose
    work spec then carries this agent)."""
    k: int
    """Attempts per accepted child (run at the same time)."""
    out_dir: Path
    """Where the attempts' trajectories go: <out_dir>/<task>/attempt-<i>/."""
    require: bool = False
    """Reject a child that no attempt solved (`unsolved`)."""
    max_rate: float | None = None
    """Reject a child solved in more than this share of the attempts (`too_easy`); None: no bound."""
    limits: AttemptLimits = field(default_factory=AttemptLimits)
    """No step limit by default: the task's [agent].timeout_sec bounds an attempt, as in `rst eval`."""

    @property
    def eval_id(self) -> str:
        return eval_id("solver", self.agent.model)

    async def judge(self, task: Task) -> Judgement:
        """Run the K attempts on `task` (with its own time limits) and judge them."""
        folder = self.out_dir / re.sub(r"[^A-Za-z0-9._-]+", "_", task.short_name)

        async def one(attempt: int) -> SolverAttempt:
            path = folder / f"attempt-{attempt}"
            result = await self.executor.attempt(
                task,
                self.agent,
                attempt=attempt,
                seed=stable_seed(0, f"solver:{task.name}:{attempt}"),
                out_dir=path,
                limits=self.limits,
                key=f"{self.eval_id}:{task.name}:{attempt}",
            )
            return SolverAttempt(result=result, path=path)

        async with asyncio.TaskGroup() as group:  # one failing attempt cancels the others
            running = [group.create_task(one(attempt)) for attempt in range(self.k)]
        attempts = [done.result() for done in running]
        solved = sum(1 for a in attempts if a.result.reward >= 1.0)
        rate = solved / self.k
        detail = f"{self.agent.name} ({self.agent.model}) solved {solved} of {self.k} attempts"
        reason = Reason.OK
        if self.require and solved == 0:
            reason = Reason.UNSOLVED
        elif self.max_rate is not None and rate > self.max_rate:
            reason, detail = Reason.TOO_EASY, f"{detail}: more than the {self.max_rate:g} allowed"
        # a too-easy child's repair is shown what the solver did, to make the step harder
        evidence = solver_evidence([(a.result.reward, a.path) for a in attempts]) if reason is Reason.TOO_EASY else None
        check = CheckResult(
            check=Check.SOLVABLE,
            verdict=Verdict.PASS if reason is Reason.OK else Verdict.FAIL,
            reason=reason,
            detail=detail,
            evidence=evidence,
        )
        solve_rate = SolveRate(rate=rate, agent=self.agent.name, model=self.agent.model or None, k=self.k)
        return Judgement(check=check, eval_id=self.eval_id, rate=solve_rate, attempts=attempts)
