"""The second-solution check: does the child's instruction say enough to pass its tests? One more
model call, shown the child's instruction and the parent's final state (never the child's steps or
tests), writes new steps; the parent's solution plus these steps, then the child's tests, must pass
in a fresh container. A failure goes to the repair like any rejection, which shows both the steps and
the test output and decides: the instruction is unclear, the tests too strict, or the second
solution wrong (the child then stays as it is: `CandidatePipeline` takes an unchanged repair after
this check's failure as that verdict)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from rst_synth.engine.checks import Finding
from rst_synth.proposers import ProposalError, Proposer
from rst_synth.proposers.llm import LLMProposer
from rst_synth.proposers.llm.second import SecondSolution, SecondSolutionWriter
from rst_synth.task import Task
from rst_synth.validator import Check, CheckResult, ValidationReport, Validator, Verdict
from rst_synth.validator.second import SecondTrial, sandbox_trial, second_result, second_solution
from rst_synth.validator.verdicts import timed

STAGE = "second"
"""The stage its model call's usage is recorded under (`CandidateEvents.spent`)."""


class Writer(Protocol):
    async def write(self, parent: Task, child: Task) -> SecondSolution:
        """The second solution's new steps; ProposalError when none could be had."""
        ...


@dataclass
class SecondSolutionCheck:
    """The child's tests pass on a solution written from its instruction alone."""

    writer: Writer
    trial: SecondTrial
    """Runs the child's tests after a given solution (validator/second.py; tests give their own)."""
    check: Check = Check.SECOND_SOLUTION

    async def judge(self, task: Task, parent: Task, report: ValidationReport) -> Finding:
        try:
            written = await self.writer.write(parent, task)
        except ProposalError as exc:  # no steps to judge by: the check cannot say, so it does not stop the child
            result = CheckResult(
                check=Check.SECOND_SOLUTION,
                verdict=Verdict.SKIP,
                reason=exc.reason,
                detail=f"no second solution: {exc.detail or exc.reason.value}"[:300],
            )
            return Finding(result, usage=exc.usage, stage=STAGE)

        async def run() -> CheckResult:
            outcome = await self.trial(task, second_solution(parent, written.steps))
            return second_result(outcome, written.steps)

        result = await timed(Check.SECOND_SOLUTION, run)
        result.steps = written.steps
        return Finding(result, usage=written.usage, stage=STAGE)


def second_solution_check(proposer: Proposer, validator: Validator) -> SecondSolutionCheck:
    """The check for `proposer`'s children, its trials in `validator`'s sandbox; ValueError unless
    the proposer is the llm proposer, whose client writes the second solution."""
    if not isinstance(proposer, LLMProposer):
        raise ValueError(f"the second-solution check needs the llm proposer, not {proposer.name}")
    return SecondSolutionCheck(SecondSolutionWriter(proposer), sandbox_trial(validator.sandbox, validator.config))
