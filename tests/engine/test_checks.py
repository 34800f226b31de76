"""The candidate pipeline's own checks (engine/checks.py) on the fakes: declared, run in order after
the validator, each with its own result; the validator's report is never changed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rst_synth.engine import CandidatePipeline, NoveltyCheck, NoveltyIndex
from rst_synth.engine.checks import Finding
from rst_synth.task import Task
from rst_synth.validator import Check, CheckResult, Reason, ValidationReport, Validator, Verdict
from tests.support.fakes import FakeProposer, FakeSandbox, touch_test
from tests.support.tasks import write_task


class Recording:
    """A check that passes or fails as told and notes every child it judged."""

    def __init__(self, check: Check, passes: bool) -> None:
        self.check, self.passes, self.judged = check, passes, 0

    async def judge(self, task: Task, parent: Task, report: ValidationReport) -> Finding:
        self.judged += 1
        assert report.accepted and all(c.check is not self.check for c in report.checks)  # the validator's alone
        verdict, reason = (Verdict.PASS, Reason.OK) if self.passes else (Verdict.FAIL, Reason.UNSOLVED)
        return Finding(CheckResult(check=self.check, verdict=verdict, reason=reason))


def _parent(tmp_path: Path) -> Task:
    return Task.load(write_task(tmp_path, solve="touch /app/p\n", tests={"test_p.py": touch_test("/app/p")}))


def _run(pipeline: CandidatePipeline, parent: Task, seed: int = 1):  # type: ignore[no-untyped-def]
    return asyncio.run(pipeline.run(parent, seed=seed))


def test_checks_run_in_order_after_the_validator_each_only_where_the_one_before_passed(tmp_path: Path) -> None:
    parent, sandbox = _parent(tmp_path), FakeSandbox()
    first, second = Recording(Check.NOVELTY, passes=False), Recording(Check.SOLVABLE, passes=True)
    pipeline = CandidatePipeline(FakeProposer(), Validator(sandbox), repairs=0, checks=[first, second])
    outcome = _run(pipeline, parent)
    assert (first.judged, second.judged) == (1, 0)
    assert outcome.rejection is not None and (outcome.rejection.check, outcome.rejection.reason) == (
        Check.NOVELTY,
        Reason.UNSOLVED,
    )
    assert outcome.report is not None and outcome.report.accepted  # the validator's own report is untouched
    assert [c.check for c in outcome.checks] == [Check.NOVELTY]
    verdict = outcome.verdict
    assert verdict is not None and verdict.checks[-1].check is Check.NOVELTY and not verdict.accepted


def test_a_child_every_check_passed_is_accepted_with_all_results(tmp_path: Path) -> None:
    parent = _parent(tmp_path)
    checks = [Recording(Check.NOVELTY, passes=True), Recording(Check.SOLVABLE, passes=True)]
    outcome = _run(CandidatePipeline(FakeProposer(), Validator(FakeSandbox()), checks=checks), parent)
    assert outcome.accepted and [c.check for c in outcome.checks] == [Check.NOVELTY, Check.SOLVABLE]
    assert outcome.report is not None and Check.NOVELTY not in {c.check for c in outcome.report.checks}


def test_novelty_check_finds_a_twin_and_a_taken_name(tmp_path: Path) -> None:
    parent = _parent(tmp_path)
    child = asyncio.run(FakeProposer().propose(parent, seed=3)).task
    report = asyncio.run(Validator(FakeSandbox()).validate(child, parent))
    index = NoveltyIndex()
    assert asyncio.run(NoveltyCheck(index).judge(child, parent, report)).result.passed
    index.add("earlier", *index.fingerprints(child, parent))
    twin = asyncio.run(NoveltyCheck(index).judge(child, parent, report)).result
    assert (twin.verdict, twin.reason, twin.detail) == (
        Verdict.FAIL,
        Reason.NEAR_DUPLICATE,
        "near-duplicate of earlier",
    )
    taken = asyncio.run(
        NoveltyCheck(NoveltyIndex(), known={child.short_name}.__contains__).judge(child, parent, report)
    )
    assert taken.result.reason is Reason.NEAR_DUPLICATE


def test_a_seed_gets_no_pipeline_check(tmp_path: Path) -> None:
    check = Recording(Check.NOVELTY, passes=False)
    pipeline = CandidatePipeline(FakeProposer(), Validator(FakeSandbox()), checks=[check])
    report = asyncio.run(pipeline.validate(_parent(tmp_path), None))
    assert report.accepted and check.judged == 0
