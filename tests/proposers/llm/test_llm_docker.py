"""The llm proposer end to end: fake model, real Docker, real Validator (the parent check included)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rst_synth.engine.candidate import CandidateOutcome, CandidatePipeline
from rst_synth.proposers import Proposal
from rst_synth.proposers.llm import parts_of
from rst_synth.sandbox import Sandbox
from rst_synth.task import Task
from rst_synth.validator import ValidationReport, Validator
from tests.proposers.llm.shapes import GOOD, SHAPES, STEPS, WRONG_TESTS, Shape
from tests.support.docker import run_async
from tests.support.llm_proposer import (
    WEAK_TESTS,
    FakeOpenAI,
    fence,
    good_replies,
    make_proposer_for,
    stage_of,
    stage_responder,
)
from tests.support.tasks import write_task

pytestmark = pytest.mark.docker


def test_good_extension_is_accepted_by_the_validator(tmp_path: Path) -> None:
    parent = Task.load(write_task(tmp_path / "tasks"))
    with FakeOpenAI() as server:
        server.responder = stage_responder(good_replies())

        async def work(sandbox: Sandbox) -> tuple[Proposal, ValidationReport]:
            proposer = make_proposer_for(server, tmp_path / "cache", sandbox)
            try:
                proposal = await proposer.propose(parent, seed=0)
            finally:
                await proposer.llm().close()
            return proposal, await Validator(sandbox).validate(proposal.task, parent)

        proposal, report = run_async(work)
    # Discovery ran the parent's solution: the extend prompt lists what it made.
    assert "/app/out.txt (text, new" in server.requests[0]["messages"][-1]["content"]
    assert "building on /app/out.txt" in proposal.task.solve_sh
    failure = report.first_failure
    assert report.accepted, (failure, failure and failure.output_tail)
    assert report.result_of("parent").passed and report.result_of("nop").passed


def test_repair_round_trip_fixes_a_rejected_candidate(tmp_path: Path) -> None:
    parent = Task.load(write_task(tmp_path / "tasks"))
    with FakeOpenAI() as server:
        # The first tests only check what the parent already made; the repair reply tests the new files.
        server.responder = stage_responder(good_replies(tests=WEAK_TESTS))

        async def work(sandbox: Sandbox) -> tuple[ValidationReport, Proposal, ValidationReport]:
            proposer = make_proposer_for(server, tmp_path / "cache", sandbox)
            validator = Validator(sandbox)
            try:
                first = await proposer.propose(parent, seed=1)
                rejected = await validator.validate(first.task, parent)
                fixed = await proposer.repair(parent, first, rejected, attempt=1)
            finally:
                await proposer.llm().close()
            return rejected, fixed, await validator.validate(fixed.task, parent)

        rejected, fixed, accepted = run_async(work)
    failure = rejected.first_failure
    assert failure is not None and failure.reason.value == "parent_solution_passes"
    assert stage_of(server.requests[-1]) == "repair"
    assert "reason: parent_solution_passes" in server.requests[-1]["messages"][-1]["content"]
    assert fixed.usage.calls == 4
    last = accepted.first_failure
    assert accepted.accepted, (last, last and last.output_tail)


def pipeline_run(tmp_path: Path, replies: dict[str, Any], repairs: int = 1) -> tuple[Task, CandidateOutcome, list[Any]]:
    """One candidate through the pipeline: scripted model, real Docker validator."""
    parent = Task.load(write_task(tmp_path / "tasks"))
    with FakeOpenAI() as server:
        server.responder = stage_responder(replies)

        async def work(sandbox: Sandbox) -> CandidateOutcome:
            proposer = make_proposer_for(server, tmp_path / "cache")
            try:
                return await CandidatePipeline(proposer, Validator(sandbox), repairs=repairs).run(parent, seed=3)
            finally:
                await proposer.llm().close()

        outcome = run_async(work)
    return parent, outcome, server.requests


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_each_reply_shape_ends_in_a_child_the_validator_accepts(tmp_path: Path, shape: Shape) -> None:
    parent, outcome, requests = pipeline_run(tmp_path, shape.replies())
    failure = outcome.report.first_failure if outcome.report else None
    assert outcome.accepted, (outcome.rejection, failure and failure.output_tail)
    assert outcome.proposal is not None and outcome.attempts == 1
    parts = parts_of(parent, outcome.proposal.task)
    for name, content in shape.recovered.items():
        assert getattr(parts, name) == content, name
    assert [stage_of(r) for r in requests].count("reask") == (1 if shape.reask else 0)


def test_a_repair_is_shown_the_pytest_failure_and_an_unchanged_one_is_not_validated(tmp_path: Path) -> None:
    wrong = fence("python", "tests/test_step_r1.py", WRONG_TESTS)
    verbatim = fence("bash", "solution/steps.sh", STEPS) + wrong
    _, outcome, requests = pipeline_run(tmp_path, {**GOOD, "realign_tests": wrong, "repair": verbatim})
    assert outcome.rejection is not None and outcome.rejection.reason == "repair_unchanged"
    assert outcome.attempts == 1 and stage_of(requests[-1]) == "repair"
    prompt = requests[-1]["messages"][-1]["content"]
    quote = prompt.split("The exact error:\n~~~~text\n", 1)[1].split("~~~~", 1)[0]
    assert "FAILED" in quote and "test_lower_case_copy" in quote and "E       AssertionError" in quote
