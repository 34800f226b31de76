"""The acceptance contract (docs/validation.md, "The acceptance contract"), run check by check in fresh containers."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass

from rst_synth.harness import build_image, open_task
from rst_synth.sandbox import BuildError, Container, FileState, Sandbox, SandboxError
from rst_synth.task import Task, TaskPaths
from rst_synth.task.metrics import executed_commands, solution_lines
from rst_synth.validator.degenerate import degenerate_outputs
from rst_synth.validator.kept import Keeper, Start, keep_state
from rst_synth.validator.models import (
    PIPELINE_CHECKS,
    QUALITY_CHECKS,
    Check,
    CheckResult,
    Reason,
    ValidationReport,
    ValidatorConfig,
    Verdict,
)
from rst_synth.validator.mutation import new_modules, quick_command, weak_tests
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
from rst_synth.validator.services import Services, restart
from rst_synth.validator.static import static_check
from rst_synth.validator.tolerance import prepare, tolerance
from rst_synth.validator.trial import StatesWanted, TrialOutcome, trial_in
from rst_synth.validator.verdicts import expect, sandbox_error, skipped, timed


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
        self._keeper = Keeper(sandbox, self._slots, self.config.default_solve_timeout_sec)

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
            if self.config.keep_states and not report.accepted and report.result(Check.ORACLE) is not None:
                await asyncio.shield(self._keeper.drop(task))  # a rejected task has no children
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
            start = Start(why="kept states are off")
            # The new modules' command, proven on the oracle's outputs below, runs the quality checks'
            # tests; from a kept state it also stands for test.sh in the untouched and parent's runs.
            narrow = quick_command(task, task.config.verifier.timeout_sec) if quality else None
            quick = None
            if parent is not None and self.config.keep_states:
                start = await self._keeper.start(parent, task)
                quick = narrow
            # From a kept state, determinism needs nothing of the oracle but its files, which it
            # waits for: it starts beside it. A whole-solution run waits for the oracle to end: run at
            # the same moment, both would stamp the same times into their outputs, and a time-stamped
            # output (a wheel, an archive) would look the same run to run. With a quick command, nop
            # waits for the oracle: the command must pass there first.
            seen: asyncio.Future[FileState | None] = asyncio.get_running_loop().create_future()
            early = None
            if start.image is not None and self.config.determinism_runs:
                early = asyncio.ensure_future(self._determinism(task, report, states, start, seen))
                stack.callback(early.cancel)  # where a check raised before it was awaited
            oracle, *nop = await asyncio.gather(
                self._oracle(task, report, states, kept, seen), *([] if quick else [self._nop(task, report)])
            )
            report.checks += [oracle, *nop]
            if not oracle.passed:
                if early is not None:
                    early.cancel()
                    await asyncio.gather(early, return_exceptions=True)
                self._skip_rest(report, after=Check.NOP if nop else Check.ORACLE, parent=parent)
                return
            if narrow is not None and kept is not None and kept.box is not None:  # it must pass on the oracle's outputs
                control = await kept.box.exec(narrow, timeout=task.config.verifier.timeout_sec + 60)
                narrow = narrow if control.ok else None
                quick = quick if control.ok else None
            later: list[Awaitable[CheckResult]] = [] if nop else [self._nop(task, report, quick)]
            if self.config.determinism_runs:
                later.append(early or self._determinism(task, report, states, start))
            if parent is not None:
                later.append(self._parent(task, parent, report, states, start, quick))
            report.checks += await asyncio.gather(*later)
            if parent is None:
                report.checks.append(skipped(Check.PARENT, Reason.NO_PARENT, "no parent given"))
                report.checks += [skipped(c, Reason.NO_PARENT, "no parent given") for c in self._quality_checks()]
            elif states is not None and kept is not None and kept.box is not None:
                if report.first_failure is not None:
                    self._skip_rest(report, after=Check.PARENT, parent=parent)
                    return
                await self._quality(task, parent, report, states, kept.box, start, narrow)

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
            return sandbox_error(Check.BUILD, exc, started)
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
        after_solve: Callable[[Container, FileState | None], Awaitable[None]] | None = None,
        services: Services | None = None,
        quick: str | None = None,
        passed: Awaitable[FileState | None] | None = None,
    ) -> TrialOutcome:
        """One trial in a fresh container (`trial_in`); with `kept`, the container stays open after it;
        `services` are started again first (a kept state's)."""
        async with self._slots, AsyncExitStack() as own:
            stack = kept.stack if kept is not None else own
            box = await stack.enter_async_context(open_task(self.sandbox, task, image=image, staged=False))
            if kept is not None:
                kept.box = box
            if services and not await restart(box, services):
                raise SandboxError(f"the kept state's services did not listen again on ports {services.ports}")
            return await trial_in(
                box,
                solution=solution,
                tests=task.files_under(TaskPaths.TESTS_DIR),
                solve_timeout=task.config.agent.timeout_sec or self.config.default_solve_timeout_sec,
                verify_timeout=task.config.verifier.timeout_sec,
                trace=trace,
                states=states,
                after_solve=after_solve,
                quick=quick,
                passed=passed,
            )

    async def _oracle(
        self,
        task: Task,
        report: ValidationReport,
        states: States | None = None,
        kept: _Kept | None = None,
        seen: asyncio.Future[FileState | None] | None = None,
    ) -> CheckResult:
        """`seen` gets the files after the solution as soon as they are listed (None if never)."""

        async def after_solve(box: Container, after: FileState | None) -> None:
            if seen is not None and not seen.done():
                seen.set_result(after)
            if self.config.keep_states:
                await keep_state(box, task)

        async def run() -> CheckResult:
            solution = task.files_under(TaskPaths.SOLUTION_DIR)
            wanted: StatesWanted = "both" if states is not None else "none"
            try:
                outcome = await self._trial(
                    task, report.image or "", solution, trace=True, states=wanted, kept=kept, after_solve=after_solve
                )
            finally:
                if seen is not None and not seen.done():
                    seen.set_result(None)
            if states is not None:
                states.child_before, states.child_after = outcome.before or {}, outcome.after or {}
            if outcome.solve is not None:
                report.figures.oracle_sec = round(outcome.solve.duration_sec, 3)
            if outcome.verify is not None:  # the verifier's limit is set from it (task/limits.py)
                report.figures.test_sec = round(outcome.verify.duration_sec, 3)
            if outcome.xtrace is not None:
                report.figures.executed_commands = executed_commands(outcome.xtrace)
            return expect(Check.ORACLE, outcome, want_solved=True, fail_reason=Reason.TESTS_FAILED)

        return await timed(Check.ORACLE, run)

    async def _nop(self, task: Task, report: ValidationReport, quick: str | None = None) -> CheckResult:
        async def run() -> CheckResult:
            outcome = await self._trial(task, report.image or "", None, quick=quick)
            return expect(Check.NOP, outcome, want_solved=False, fail_reason=Reason.NOP_PASSES)

        return await timed(Check.NOP, run)

    async def _determinism(
        self,
        task: Task,
        report: ValidationReport,
        states: States | None = None,
        start: Start | None = None,
        seen: asyncio.Future[FileState | None] | None = None,
    ) -> CheckResult:
        async def replay(
            image: str, solution: dict[str, bytes], services: Services | None = None
        ) -> list[TrialOutcome]:
            wanted: StatesWanted = "after" if states is not None else "none"
            runs = range(self.config.determinism_runs)
            # From a kept state without services: files as the oracle left them need no tests.
            same = seen if services is not None and not services else None
            trials = (self._trial(task, image, solution, states=wanted, services=services, passed=same) for _ in runs)
            return list(await asyncio.gather(*trials))

        async def run() -> CheckResult:
            detail = ""
            outcomes: list[TrialOutcome] = []
            if start is not None and start.image is not None and start.steps is not None:
                try:
                    outcomes = await replay(start.image, start.steps.script(), start.services)
                    if all(o.verify is None for o in outcomes):
                        detail = "the new steps on the parent's kept state left every file as the oracle did"
                except SandboxError as exc:
                    start.why, outcomes = str(exc), []
                start.proven = bool(outcomes) and all(o.solved for o in outcomes)
                detail = detail or "the new steps on the parent's kept state"
                if outcomes and not start.proven:  # the kept state could not stand in: the whole solution decides
                    start.why = "the new steps alone did not pass on the parent's kept state"
            if not outcomes or not start or not start.proven:
                outcomes = await replay(report.image or "", task.files_under(TaskPaths.SOLUTION_DIR))
                detail = f"the whole solution ({start.why})" if start and start.why else ""
            if states is not None:
                states.replays = [o.after for o in outcomes if o.after is not None]
            worst = next((o for o in outcomes if not o.solved), outcomes[0])
            result = expect(Check.DETERMINISM, worst, want_solved=True, fail_reason=Reason.NONDETERMINISTIC)
            result.detail = "; ".join(d for d in (result.detail, detail) if d)
            return result

        return await timed(Check.DETERMINISM, run)

    async def _parent(
        self,
        task: Task,
        parent: Task,
        report: ValidationReport,
        states: States | None = None,
        start: Start | None = None,
        quick: str | None = None,
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
            wanted: StatesWanted = "both" if states is not None else "none"
            if start is not None and start.image is not None and not start.services:  # the tests on the kept state
                outcome = await self._trial(task, start.image, None, states="after" if states else "none", quick=quick)
                outcome.before = states.child_before if states else None  # the same image before any solution
                detail = "the child's tests on the parent's kept state"
            else:
                solution = parent.files_under(TaskPaths.SOLUTION_DIR)
                outcome = await self._trial(task, report.image or "", solution, states=wanted, quick=quick)
                why = start.why if start else ""
                if start is not None and start.services:
                    why = "the parent's final state runs a service, which may have kept data in memory"
                detail = f"the parent's solution run ({why})" if why else ""
            if states is not None:
                states.parent_before, states.parent_after = outcome.before or {}, outcome.after or {}
            result = expect(Check.PARENT, outcome, want_solved=False, fail_reason=Reason.PARENT_PASSES)
            result.detail = "; ".join(d for d in (result.detail, detail) if d)
            return result

        return await timed(Check.PARENT, run)

    async def _quality(
        self,
        task: Task,
        parent: Task,
        report: ValidationReport,
        states: States,
        box: Container,
        start: Start,
        quick: str | None = None,
    ) -> None:
        """The quality checks: three from the recorded states and the task files and the degenerate
        check, which reads the new outputs in the oracle's kept container `box`; then the steps and
        mutation checks concurrently, the mutations in `box` (`quick`: the new modules' command, which
        passed there)."""
        outputs = new_outputs(states)
        empty = await timed(Check.DEGENERATE, lambda: degenerate_outputs(box, outputs))
        judged = [instruction_paths(task, parent), redundancy(outputs, states), empty, parent_outputs(parent, states)]
        report.checks += judged
        if not all(c.passed for c in judged) and not self.config.every_failure:
            self._skip_rest(report, after=Check.PARENT_OUTPUTS, parent=parent)
            return
        timeout = task.config.verifier.timeout_sec

        # A parent's kept state whose restarted services did not prove loses data on a restart.
        restartable = start.proven if start.services else None
        accepted: bool | None = None

        async def mutation(then: str | None) -> CheckResult:
            nonlocal accepted
            most = self.config.max_mutated_outputs
            modules = new_modules(task)
            async with self._slots:
                found = await weak_tests(
                    box, outputs, verify_timeout=timeout, max_outputs=most, quick=quick, modules=modules, then=then
                )
            report.figures.kill_rate, accepted = found.kill_rate, found.accepted
            return found.result

        async def box_checks() -> list[CheckResult]:  # both use the oracle's container: one after the other
            if not self.config.tolerance:
                return [await timed(Check.MUTATION, lambda: mutation(None))]
            began = time.monotonic()
            try:
                prepared = await prepare(box, task, outputs)
            except SandboxError as exc:
                return [await timed(Check.MUTATION, lambda: mutation(None)), sandbox_error(Check.TOLERANCE, exc, began)]
            staged = time.monotonic() - began
            # The tolerance check's one test run rides at the end of the mutation check's batch where it can.
            edited = await timed(Check.MUTATION, lambda: mutation(prepared.batch_step(quick, restartable)))

            async def accepting() -> CheckResult:
                return await tolerance(
                    box, task, prepared, verify_timeout=timeout, quick=quick, restartable=restartable, accepted=accepted
                )

            async with self._slots:
                accepts = await timed(Check.TOLERANCE, accepting)
            accepts.duration_sec = round((accepts.duration_sec or 0.0) + staged, 3)
            return [edited, accepts]

        steps, box_results = await asyncio.gather(
            timed(Check.STEPS, lambda: self._steps(task, report, start, quick)), box_checks()
        )
        report.checks += [steps, *box_results]

    async def _steps(self, task: Task, report: ValidationReport, start: Start, quick: str | None) -> CheckResult:
        records = added_steps(task)
        if len(records) < 2:
            return step_result(records, [])
        if start.proven and start.image is not None and start.steps is not None:
            kept, steps = start.image, start.steps  # the other new steps on the parent's kept state
            scripts = [steps.script(without=r) for r in records]
            trials = [self._trial(task, kept, one, services=start.services, quick=quick) for one in scripts]
        else:
            trials = [self._trial(task, report.image or "", without_step(task, r), quick=quick) for r in records]
        outcomes = await asyncio.gather(*trials)
        return step_result(records, [r for r, o in zip(records, outcomes, strict=True) if o.solved])

    def _quality_checks(self) -> tuple[Check, ...]:
        if not self.config.quality:
            return ()
        return tuple(c for c in QUALITY_CHECKS if c is not Check.TOLERANCE or self.config.tolerance)

    def _skip_rest(self, report: ValidationReport, after: Check, parent: Task | None) -> None:
        order: list[Check] = [
            c
            for c in Check
            if c is not Check.PROPOSE
            and c not in PIPELINE_CHECKS  # the engine's
            and (c not in QUALITY_CHECKS or c in self._quality_checks())
        ]
        failed = ", ".join(c.check.value for c in report.checks if c.verdict in (Verdict.FAIL, Verdict.ERROR))
        for check in order[order.index(after) + 1 :]:
            if report.result(check) is None:
                report.checks.append(
                    skipped(check, Reason.EARLIER_CHECK_FAILED, f"{failed or after.value} did not pass")
                )
