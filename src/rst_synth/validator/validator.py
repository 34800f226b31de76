"""The acceptance contract (docs/architecture.md, "The acceptance contract"), run check by check in fresh containers."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass

from pydantic import BaseModel, Field

from rst_synth.harness import build_image, open_task
from rst_synth.sandbox import BuildError, Container, Sandbox, SandboxError
from rst_synth.task import Task, TaskPaths
from rst_synth.task.metrics import executed_commands, solution_lines
from rst_synth.validator.degenerate import degenerate_outputs
from rst_synth.validator.models import (
    QUALITY_CHECKS,
    Check,
    CheckResult,
    Reason,
    ValidationReport,
    Verdict,
)
from rst_synth.validator.mutation import weak_tests
from rst_synth.validator.quality import (
    States,
    added_steps,
    instruction_paths,
    new_outputs,
    parent_outputs,
    redundancy,
    step_result,
    without_step,
)
from rst_synth.validator.static import static_check
from rst_synth.validator.trial import StatesWanted, TrialOutcome, trial_in


class ValidatorConfig(BaseModel):
    """How validation runs; the contract itself is fixed."""

    default_solve_timeout_sec: float = Field(default=600.0, gt=0)
    """Time for solve.sh when task.toml sets no [agent].timeout_sec."""
    max_containers: int = Field(default=4, ge=1)
    """Containers at work at once across all validations of this validator. A child's oracle
    container also waits, idle and outside this count, while the determinism and parent checks run,
    so that the quality checks can reuse it."""
    determinism_runs: int = Field(default=1, ge=0)
    """Extra oracle runs, each in another fresh container, that must all reach reward 1 (0: off)."""
    quality: bool = True
    """Run the quality checks (validator/quality.py, validator/mutation.py) on children."""
    max_mutated_outputs: int = Field(default=12, ge=1)
    """New outputs the mutation check edits at most (the first by path)."""


@dataclass
class _Kept:
    """A container kept open past its trial, closed with `stack`."""

    stack: AsyncExitStack
    box: Container | None = None


class Validator:
    """Validates tasks against the contract; one instance shares its container budget."""

    def __init__(self, sandbox: Sandbox, config: ValidatorConfig | None = None) -> None:
        self.sandbox = sandbox
        self.config = config or ValidatorConfig()
        self._slots = asyncio.Semaphore(self.config.max_containers)

    async def validate(self, task: Task, parent: Task | None = None) -> ValidationReport:
        started = time.monotonic()
        report = ValidationReport(
            task=task.name,
            path=str(task.source_dir) if task.source_dir else None,
            parent=parent.name if parent else None,
        )
        try:
            await self._run_checks(task, parent, report)
        finally:
            report.duration_sec = time.monotonic() - started
        return report

    async def _run_checks(self, task: Task, parent: Task | None, report: ValidationReport) -> None:
        static = static_check(task)
        report.checks.append(static)
        if not static.passed:
            self._skip_rest(report, after=Check.STATIC, parent=parent)
            return
        report.figures.solution_lines = solution_lines(task)

        build = await self._build(task, report)
        report.checks.append(build)
        if not build.passed:
            self._skip_rest(report, after=Check.BUILD, parent=parent)
            return

        quality = parent is not None and self.config.quality
        states = States() if quality else None
        async with AsyncExitStack() as stack:  # the oracle's container, kept for the quality checks
            kept = _Kept(stack) if quality else None
            oracle, nop = await asyncio.gather(self._oracle(task, report, states, kept), self._nop(task, report))
            report.checks += [oracle, nop]
            if not oracle.passed:
                self._skip_rest(report, after=Check.NOP, parent=parent)
                return
            later = [self._determinism(task, report, states)] if self.config.determinism_runs else []
            if parent is not None:
                later.append(self._parent(task, parent, report, states))
            report.checks += await asyncio.gather(*later)
            if parent is None:
                report.checks.append(_skipped(Check.PARENT, Reason.NO_PARENT, "no parent given"))
                report.checks += [_skipped(c, Reason.NO_PARENT, "no parent given") for c in self._quality_checks()]
            elif states is not None and kept is not None and kept.box is not None:
                if report.first_failure is not None:
                    self._skip_rest(report, after=Check.PARENT, parent=parent)
                    return
                await self._quality(task, parent, report, states, kept.box)

    async def _build(self, task: Task, report: ValidationReport) -> CheckResult:
        started = time.monotonic()
        try:
            info = await build_image(self.sandbox, task)
        except BuildError as exc:
            reason = Reason.BUILD_TIMEOUT if exc.timed_out else Reason.BUILD_FAILED
            return CheckResult(
                check=Check.BUILD,
                verdict=Verdict.FAIL,
                reason=reason,
                detail=str(exc)[:300],
                duration_sec=time.monotonic() - started,
                output_tail=exc.log_tail,
            )
        except SandboxError as exc:
            return _sandbox_error(Check.BUILD, exc, started)
        report.image = info.tag
        report.figures.build_sec = round(info.build_sec, 3)
        detail = "built" if info.built else "cached"
        return CheckResult(
            check=Check.BUILD,
            verdict=Verdict.PASS,
            reason=Reason.OK,
            detail=detail,
            duration_sec=time.monotonic() - started,
        )

    async def _trial(
        self,
        task: Task,
        image: str,
        solution: dict[str, bytes] | None,
        trace: bool = False,
        states: StatesWanted = "none",
        kept: _Kept | None = None,
    ) -> TrialOutcome:
        """One trial in a fresh container; with `kept`, the container stays open after it."""
        async with self._slots, AsyncExitStack() as own:
            stack = kept.stack if kept is not None else own
            box = await stack.enter_async_context(open_task(self.sandbox, task, image=image, staged=False))
            if kept is not None:
                kept.box = box
            return await trial_in(
                box,
                solution=solution,
                tests=task.files_under(TaskPaths.TESTS_DIR),
                solve_timeout=task.config.agent.timeout_sec or self.config.default_solve_timeout_sec,
                verify_timeout=task.config.verifier.timeout_sec,
                trace=trace,
                states=states,
            )

    async def _oracle(
        self, task: Task, report: ValidationReport, states: States | None = None, kept: _Kept | None = None
    ) -> CheckResult:
        async def run() -> CheckResult:
            solution = task.files_under(TaskPaths.SOLUTION_DIR)
            wanted: StatesWanted = "both" if states is not None else "none"
            outcome = await self._trial(task, report.image or "", solution, trace=True, states=wanted, kept=kept)
            if states is not None:
                states.child_before, states.child_after = outcome.before or {}, outcome.after or {}
            if outcome.solve is not None:
                report.figures.oracle_sec = round(outcome.solve.duration_sec, 3)
            if outcome.verify is not None:  # the verifier's limit is set from it (task/limits.py)
                report.figures.test_sec = round(outcome.verify.duration_sec, 3)
            if outcome.xtrace is not None:
                report.figures.executed_commands = executed_commands(outcome.xtrace)
            return _expect(Check.ORACLE, outcome, want_solved=True, fail_reason=Reason.TESTS_FAILED)

        return await _timed(Check.ORACLE, run)

    async def _nop(self, task: Task, report: ValidationReport) -> CheckResult:
        async def run() -> CheckResult:
            outcome = await self._trial(task, report.image or "", None)
            return _expect(Check.NOP, outcome, want_solved=False, fail_reason=Reason.NOP_PASSES)

        return await _timed(Check.NOP, run)

    async def _determinism(self, task: Task, report: ValidationReport, states: States | None = None) -> CheckResult:
        async def run() -> CheckResult:
            solution = task.files_under(TaskPaths.SOLUTION_DIR)
            wanted: StatesWanted = "after" if states is not None else "none"
            outcomes = await asyncio.gather(
                *(
                    self._trial(task, report.image or "", solution, states=wanted)
                    for _ in range(self.config.determinism_runs)
                )
            )
            if states is not None:
                states.replays = [o.after for o in outcomes if o.after is not None]
            worst = next((o for o in outcomes if not o.solved), outcomes[0])
            return _expect(Check.DETERMINISM, worst, want_solved=True, fail_reason=Reason.NONDETERMINISTIC)

        return await _timed(Check.DETERMINISM, run)

    async def _parent(
        self, task: Task, parent: Task, report: ValidationReport, states: States | None = None
    ) -> CheckResult:
        lineage = task.config.metadata.lineage
        if lineage is not None and lineage.parent and lineage.parent != parent.name:
            return CheckResult(
                check=Check.PARENT,
                verdict=Verdict.FAIL,
                reason=Reason.PARENT_MISMATCH,
                detail=f"task.toml names parent {lineage.parent!r}, given {parent.name!r}",
            )

        async def run() -> CheckResult:
            solution = parent.files_under(TaskPaths.SOLUTION_DIR)
            wanted: StatesWanted = "both" if states is not None else "none"
            outcome = await self._trial(task, report.image or "", solution, states=wanted)
            if states is not None:
                states.parent_before, states.parent_after = outcome.before or {}, outcome.after or {}
            return _expect(Check.PARENT, outcome, want_solved=False, fail_reason=Reason.PARENT_PASSES)

        return await _timed(Check.PARENT, run)

    async def _quality(
        self, task: Task, parent: Task, report: ValidationReport, states: States, box: Container
    ) -> None:
        """The quality checks: three from the recorded states and the task files and the degenerate
        check, which reads the new outputs in the oracle's kept container `box`; then the steps and
        mutation checks concurrently, the mutations in `box`."""
        outputs = new_outputs(states)
        empty = await _timed(Check.DEGENERATE, lambda: degenerate_outputs(box, outputs))
        judged = [instruction_paths(task, parent), redundancy(outputs, states), empty, parent_outputs(parent, states)]
        report.checks += judged
        if not all(c.passed for c in judged):
            self._skip_rest(report, after=Check.PARENT_OUTPUTS, parent=parent)
            return

        async def steps() -> CheckResult:
            records = added_steps(task)
            if len(records) < 2:
                return step_result(records, [])
            image = report.image or ""
            outcomes = await asyncio.gather(*(self._trial(task, image, without_step(task, r)) for r in records))
            return step_result(records, [r for r, o in zip(records, outcomes, strict=True) if o.solved])

        async def mutation() -> CheckResult:
            async with self._slots:
                found = await weak_tests(
                    box,
                    outputs,
                    verify_timeout=task.config.verifier.timeout_sec,
                    max_outputs=self.config.max_mutated_outputs,
                )
            report.figures.kill_rate = found.kill_rate
            return found.result

        report.checks += await asyncio.gather(_timed(Check.STEPS, steps), _timed(Check.MUTATION, mutation))

    def _quality_checks(self) -> tuple[Check, ...]:
        return QUALITY_CHECKS if self.config.quality else ()

    def _skip_rest(self, report: ValidationReport, after: Check, parent: Task | None) -> None:
        order: list[Check] = [
            c
            for c in Check
            if c not in (Check.PROPOSE, Check.NOVELTY, Check.SOLVABLE)  # the engine's
            and (c not in QUALITY_CHECKS or c in self._quality_checks())
        ]
        for check in order[order.index(after) + 1 :]:
            if report.result(check) is None:
                report.checks.append(_skipped(check, Reason.EARLIER_CHECK_FAILED, f"{after.value} did not pass"))


def _expect(check: Check, outcome: TrialOutcome, want_solved: bool, fail_reason: Reason) -> CheckResult:
    """Turn a trial into a verdict: the oracle must reach reward 1, nop and parent must not."""
    reward = outcome.reward if outcome.reward is not None else 0.0
    tail = outcome.output_tail()
    if outcome.breach is not None:  # a container limit stopped it: rejected, whichever check this is
        detail = outcome.breach_detail or outcome.breach.value
        reason = Reason(outcome.breach)
        return CheckResult(check=check, verdict=Verdict.FAIL, reason=reason, detail=detail, output_tail=tail)
    if outcome.solve is not None and outcome.solve.timed_out:
        if not want_solved:  # a parent's solution that hangs has not solved the child
            return CheckResult(
                check=check,
                verdict=Verdict.PASS,
                reason=Reason.OK,
                reward=0.0,
                detail="solution timed out",
                output_tail=tail,
            )
        return CheckResult(
            check=check,
            verdict=Verdict.FAIL,
            reason=Reason.SOLUTION_TIMEOUT,
            reward=None,
            detail=f"solve.sh ran past {outcome.solve.duration_sec:.0f}s and was killed",
            output_tail=tail,
        )
    if outcome.verify is not None and outcome.verify.timed_out:
        return CheckResult(
            check=check,
            verdict=Verdict.FAIL,
            reason=Reason.VERIFIER_TIMEOUT,
            detail="test.sh ran past its timeout and was killed",
            output_tail=tail,
        )
    if outcome.solved == want_solved:
        detail = "" if outcome.reward is not None else "no reward file (counted as 0)"
        return CheckResult(
            check=check, verdict=Verdict.PASS, reason=Reason.OK, reward=reward, detail=detail, output_tail=tail
        )
    if want_solved and outcome.reward is None:
        fail_reason = Reason.NO_REWARD_FILE
    detail = {
        Reason.TESTS_FAILED: f"reward {reward:g} after the reference solution",
        Reason.NO_REWARD_FILE: "test.sh wrote no /logs/verifier/reward.txt or reward.json",
        Reason.NOP_PASSES: "the tests pass on the untouched environment",
        Reason.NONDETERMINISTIC: f"reward {reward:g} on a second oracle run",
        Reason.PARENT_PASSES: "the parent's solution already passes the new tests",
    }.get(fail_reason, "")
    return CheckResult(
        check=check, verdict=Verdict.FAIL, reason=fail_reason, reward=reward, detail=detail, output_tail=tail
    )


async def _timed(check: Check, run: Callable[[], Awaitable[CheckResult]]) -> CheckResult:
    started = time.monotonic()
    try:
        result = await run()
    except SandboxError as exc:
        return _sandbox_error(check, exc, started)
    result.duration_sec = round(time.monotonic() - started, 3)
    return result


def _sandbox_error(check: Check, exc: Exception, started: float) -> CheckResult:
    return CheckResult(
        check=check,
        verdict=Verdict.ERROR,
        reason=Reason.SANDBOX_ERROR,
        detail=str(exc)[:300],
        duration_sec=time.monotonic() - started,
    )


def _skipped(check: Check, reason: Reason, detail: str) -> CheckResult:
    return CheckResult(check=check, verdict=Verdict.SKIP, reason=reason, detail=detail)
