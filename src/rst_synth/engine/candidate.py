"""One candidate, start to end: propose -> validate (the validator through the executor, then the
pipeline's own checks: second solution, novelty, solvable) -> repair, with its usage, figures and lineage. The engine
(`rst synth`) and `rst extend` both run candidates through here."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Literal, Protocol

from pydantic import BaseModel

from rst_synth.engine.accept import record_figures
from rst_synth.engine.checks import Acceptance, CandidateCheck, Finding
from rst_synth.evaluation.solver import Judgement
from rst_synth.executors import Executor, LocalExecutor
from rst_synth.progress import Quiet
from rst_synth.proposers import Proposal, ProposalError, Proposer, Usage
from rst_synth.sandbox import SandboxError
from rst_synth.task import Task
from rst_synth.validator import Check, CheckResult, Reason, ValidationReport, Validator, Verdict

log = logging.getLogger(__name__)


class CandidateEvents(Protocol):
    """Where a candidate's progress goes as it happens (the engine writes it to the store)."""

    def spent(self, stage: str, usage: Usage) -> None:
        """Model calls made by one stage ("propose", "repair", "failed", and a pipeline check's own:
        "second"), counted once each."""

    def proposed(self) -> None:
        """The first proposal exists."""

    def validated(self, attempt: int, report: ValidationReport) -> None:
        """Validation attempt `attempt` (0: the proposal, 1..: repairs) has its report: every check,
        the validator's and the pipeline's (`Acceptance.verdict`)."""


class Rejection(BaseModel):
    """Why a candidate was not accepted: a (check, reason) pair of the one enum, and a line for people."""

    check: Check
    reason: Reason
    detail: str = ""
    status: Literal["rejected", "error"] = "rejected"
    """"error" when the sandbox failed rather than the task."""


class CandidateOutcome(BaseModel):
    """The end of one candidate."""

    model_config = {"arbitrary_types_allowed": True}

    proposal: Proposal | None = None
    """The last proposal (accepted or not); None when none could be made."""
    report: ValidationReport | None = None
    """The validator's last report."""
    checks: list[CheckResult] = []
    """The last results of the pipeline's own checks (second solution, novelty, solvable), where they ran."""
    attempts: int = 0
    """Validations run (the proposal and each repair; a disputed second solution's counts, though it
    reuses the validator's report)."""
    rejection: Rejection | None = None
    judgement: Judgement | None = None
    """The solver's attempts on the accepted child, where a solver ran."""

    @property
    def accepted(self) -> bool:
        return self.rejection is None and self.proposal is not None

    @property
    def verdict(self) -> ValidationReport | None:
        """The validator's last report with the pipeline's checks after its own (what a repair is given)."""
        if self.report is None:
            return None
        return self.report.model_copy(update={"checks": [*self.report.checks, *self.checks]})


class CandidatePipeline:
    """Runs candidates with one proposer and validator; concurrency is bounded by the slots given."""

    def __init__(
        self,
        proposer: Proposer,
        validator: Validator,
        *,
        repairs: int = 1,
        checks: Sequence[CandidateCheck] = (),
        propose_slots: int | None = None,
        validate_slots: int | None = None,
        executor: Executor | None = None,
    ) -> None:
        self.proposer, self.validator, self.repairs = proposer, validator, repairs
        self.executor = executor or LocalExecutor(validator.sandbox, validator)
        """Where validations run (`local`: this validator, in process; `ray`: a cluster's nodes)."""
        self.checks = list(checks)
        """The pipeline's own checks of a child the validator accepted, in order (engine/checks.py)."""
        self._propose_slots = _slots(propose_slots)
        self._validate_slots = _slots(validate_slots)

    async def run(
        self, parent: Task, *, seed: int, events: CandidateEvents | None = None, key: str | None = None
    ) -> CandidateOutcome:
        """Propose a child of `parent` with `seed`, validate it, and spend up to `repairs` more attempts:
        each one repairs the rejected child, or takes the retry a ProposalError offers (the llm
        proposer's re-ask about a malformed reply). A repair that returns the rejected child unchanged
        is not validated again (`repair_unchanged`); after a second-solution failure it disputes that
        solution (`_disputed`). `key`, the candidate's stable id, names each
        validation `<key>/<attempt>` for the executor."""
        events = events or Quiet()
        paid = Usage()  # proposers report usage cumulatively; each stage records only what it added
        outcome = CandidateOutcome()
        failed: ProposalError | None = None  # the last attempt's error, when it offered a retry
        try:
            for attempt in range(self.repairs + 1):
                try:
                    proposal = await self._make(parent, seed, attempt, outcome, failed)
                except ProposalError as exc:
                    if exc.usage is not None:
                        paid = _spend(events, "failed", exc.usage, paid)
                    if exc.retry is None or attempt == self.repairs:
                        outcome.rejection = Rejection(check=Check.PROPOSE, reason=exc.reason, detail=exc.detail)
                        return outcome
                    failed = exc
                    continue
                failed = None
                paid = _spend(events, "propose" if attempt == 0 else "repair", proposal.usage, paid)
                previous, outcome.proposal = outcome.proposal, proposal
                unchanged = previous is not None and _same_child(proposal.task, previous.task)
                if previous is None:
                    events.proposed()
                elif outcome.report is not None and unchanged:
                    was = rejection_of(outcome.verdict)
                    if was.check is not Check.SECOND_SOLUTION:  # that one the repair may dispute
                        outcome.rejection = Rejection(
                            check=Check.PROPOSE,
                            reason=Reason.REPAIR_UNCHANGED,
                            detail=f"repair {attempt} returned the child rejected by {was.check}:{was.reason} "
                            "unchanged",
                        )
                        continue
                outcome.rejection = None
                if outcome.report is not None and unchanged:
                    acceptance = await self._disputed(proposal.task, parent, outcome.report, outcome.checks, attempt)
                else:
                    acceptance = await self._validate(proposal.task, parent, key=f"{key}/{attempt}" if key else None)
                for finding in acceptance.findings:
                    if finding.usage is not None:
                        _spend(events, finding.stage, finding.usage, Usage())
                outcome.report, outcome.checks = acceptance.report, [f.result for f in acceptance.findings]
                outcome.attempts += 1
                verdict = acceptance.verdict
                events.validated(attempt, verdict)
                if verdict.accepted:
                    judgement = acceptance.judgement
                    solved = (judgement.eval_id, judgement.rate) if judgement else None
                    record_figures(proposal.task, verdict, attempt, proposal, parent=parent, solved=solved)
                    outcome.judgement = judgement
                    return outcome
        except SandboxError as exc:  # discovery's container failed: this candidate errs, the run goes on
            outcome.rejection = Rejection(
                check=Check.PROPOSE, reason=Reason.SANDBOX_FAILED, detail=str(exc)[:300], status="error"
            )
            return outcome
        outcome.rejection = outcome.rejection or rejection_of(outcome.verdict)
        return outcome

    async def _make(
        self, parent: Task, seed: int, attempt: int, outcome: CandidateOutcome, failed: ProposalError | None
    ) -> Proposal:
        """Attempt `attempt`'s candidate: the proposal, a retry the last error offered, or a repair."""
        async with self._propose_slots:
            if failed is not None and failed.retry is not None:
                return await failed.retry(attempt)
            verdict = outcome.verdict
            if outcome.proposal is None or verdict is None:
                return await self.proposer.propose(parent, seed=seed)
            return await self.proposer.repair(parent, outcome.proposal, verdict, attempt=attempt)

    async def validate(self, task: Task, parent: Task | None, *, key: str | None = None) -> ValidationReport:
        """Every check of `task`: the validator's (run by the executor), then the pipeline's own for a
        child the validator accepted (`Acceptance.verdict`)."""
        return (await self._validate(task, parent, key=key)).verdict

    async def _validate(self, task: Task, parent: Task | None, *, key: str | None = None) -> Acceptance:
        async with self._validate_slots:
            report = await self.executor.validate(task, parent, key=key)
        findings = await self._judge(task, parent, report, []) if parent is not None and report.accepted else []
        return Acceptance(report, findings)

    async def _judge(self, task: Task, parent: Task, report: ValidationReport, found: list[Finding]) -> list[Finding]:
        """`found`, the findings of the first pipeline checks, then the rest's, each only where no check
        before it failed (a skip does not stop the next)."""
        findings = list(found)
        for check in self.checks[len(findings) :]:
            if findings and findings[-1].result.verdict in (Verdict.FAIL, Verdict.ERROR):
                break
            findings.append(await check.judge(task, parent, report))
        return findings

    async def _disputed(
        self, task: Task, parent: Task, report: ValidationReport, checks: list[CheckResult], attempt: int
    ) -> Acceptance:
        """The repair returned the child the second solution failed unchanged: it judged the second
        solution wrong (repair.j2). Its failure becomes a skip and the pipeline's later checks run; the
        validator's report stands, the child being the same."""
        *before, failed = checks
        disputed = failed.model_copy(
            update={
                "verdict": Verdict.SKIP,
                "reason": Reason.SECOND_SOLUTION_DISPUTED,
                "detail": f"repair {attempt} kept the child: it judged the second solution wrong ({failed.detail})",
            }
        )
        found = [Finding(c) for c in [*before, disputed]]
        return Acceptance(report, await self._judge(task, parent, report, found))


def _same_child(a: Task, b: Task) -> bool:
    return a.files == b.files and a.instruction == b.instruction


def rejection_of(report: ValidationReport | None) -> Rejection:
    """The rejection a report that was not accepted stands for: its first failed check."""
    failure = report.first_failure if report else None
    if failure is None:  # neither accepted nor failed: no oracle ran
        return Rejection(check=Check.ORACLE, reason=Reason.EARLIER_CHECK_FAILED, detail="no oracle ran")
    return Rejection(
        check=failure.check,
        reason=failure.reason,
        detail=failure.detail,
        status="error" if failure.verdict is Verdict.ERROR else "rejected",
    )


def _slots(limit: int | None) -> AbstractAsyncContextManager[object]:
    return asyncio.Semaphore(limit) if limit else nullcontext()


def _spend(events: CandidateEvents, stage: str, total: Usage, paid: Usage) -> Usage:
    """Report what `total` adds to what was already reported as `paid`; returns the new total."""
    added = total.since(paid)
    if added.calls > 0 or added.cost_usd > 0:
        events.spent(stage, added)
    return total.model_copy()  # a copy: a proposer may go on adding to the object it returned
