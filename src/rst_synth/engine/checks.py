"""The candidate pipeline's own checks, after the validator's: the second solution where set
(engine/second.py), novelty, and solvable where a solver is set. Each is declared once, runs only
for a child the validator accepted and every check before it passed, and gives its own result; the
validator's report is never changed. `Acceptance` puts the two together where one view is wanted:
the store's record of an attempt, the repair prompt, a rejection."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from rst_synth.engine.novelty import NoveltyIndex
from rst_synth.evaluation.solver import Judgement, Solver
from rst_synth.proposers import Usage
from rst_synth.task import Task
from rst_synth.task.limits import realign_limits
from rst_synth.validator import Check, CheckResult, Reason, ValidationReport, Verdict


@dataclass(frozen=True)
class Finding:
    """What one candidate check found: its result, the solver's judgement where it ran one, and what
    its model calls cost (`usage`, recorded as `stage`) where it made some."""

    result: CheckResult
    judgement: Judgement | None = None
    usage: Usage | None = None
    stage: str = ""


class CandidateCheck(Protocol):
    check: Check

    async def judge(self, task: Task, parent: Task, report: ValidationReport) -> Finding:
        """Judge a child the validator accepted (`report`) against its parent."""
        ...


@dataclass
class NoveltyCheck:
    """Not a near-duplicate of an accepted task, and not a short name taken already."""

    index: NoveltyIndex
    known: Callable[[str], bool] = lambda name: False
    """Whether a task of this short name was accepted already (an exact duplicate)."""
    check: Check = Check.NOVELTY

    async def judge(self, task: Task, parent: Task, report: ValidationReport) -> Finding:
        whole, added = self.index.fingerprints(task, parent)
        twin = self.index.duplicate_of(whole, added) or (task.short_name if self.known(task.short_name) else None)
        return Finding(
            CheckResult(
                check=Check.NOVELTY,
                verdict=Verdict.FAIL if twin else Verdict.PASS,
                reason=Reason.NEAR_DUPLICATE if twin else Reason.OK,
                detail=f"near-duplicate of {twin}" if twin else "",
            )
        )


@dataclass
class SolvableCheck:
    """The solver's attempts on the child: its solve rate, `unsolved` and `too_easy` (evaluation/solver.py)."""

    solver: Solver
    check: Check = Check.SOLVABLE

    async def judge(self, task: Task, parent: Task, report: ValidationReport) -> Finding:
        # The solver works within the limits the child will carry, not the ones it copied from its parent.
        attempted = task.model_copy(update={"config": task.config.model_copy(deep=True)})
        realign_limits(attempted, report.figures, parent)
        judgement = await self.solver.judge(attempted)
        return Finding(judgement.check, judgement)


@dataclass
class Acceptance:
    """A candidate's validation: the validator's report and the findings of the pipeline's checks."""

    report: ValidationReport
    findings: list[Finding]

    @property
    def judgement(self) -> Judgement | None:
        return next((f.judgement for f in self.findings if f.judgement is not None), None)

    @property
    def accepted(self) -> bool:
        return self.verdict.accepted

    @property
    def verdict(self) -> ValidationReport:
        """Every check in order, the validator's then the pipeline's, with the solve rate among the
        figures: what the store records, the repair prompt quotes and a rejection names."""
        judgement = self.judgement
        figures = self.report.figures
        if judgement is not None:
            figures = figures.model_copy(update={"solve_rate": judgement.rate.rate})
        return self.report.model_copy(
            update={"checks": [*self.report.checks, *(f.result for f in self.findings)], "figures": figures}
        )
