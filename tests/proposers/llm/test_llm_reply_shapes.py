"""The reply shapes a small local model sent, replayed by the scripted server through the real
parser, the llm proposer and the candidate pipeline (validator on the fake sandbox; the Docker run
of the same shapes is in test_llm_docker.py)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from rst_synth.engine.candidate import CandidateOutcome, CandidatePipeline
from rst_synth.proposers import Usage
from rst_synth.proposers.llm import parts_of
from rst_synth.sandbox import Sandbox
from rst_synth.task import Task
from rst_synth.validator import Reason, ValidationReport, Validator
from tests.proposers.llm.shapes import (
    ADDENDUM,
    GOOD,
    MISSING_IMPORT,
    SHAPES,
    STEPS,
    TESTS,
    UNCLOSED_BRACKET,
    WITH_IMPORT,
    WRONG_TESTS,
    Shape,
)
from tests.support.fakes import FakeSandbox
from tests.support.llm_proposer import (
    FakeOpenAI,
    Reply,
    asked_stage,
    fence,
    make_proposer_for,
    stage_of,
    stage_responder,
)
from tests.support.tasks import write_task


class Recorder:
    """CandidateEvents that keep what the engine would store."""

    def __init__(self) -> None:
        self.spent_by: list[tuple[str, Usage]] = []
        self.validations: list[int] = []

    def spent(self, stage: str, usage: Usage) -> None:
        self.spent_by.append((stage, usage))

    def proposed(self) -> None:
        pass

    def validated(self, attempt: int, report: ValidationReport) -> None:
        self.validations.append(attempt)

    @property
    def calls(self) -> int:
        return sum(usage.calls for _, usage in self.spent_by)


def run_candidate(
    tmp_path: Path, replies: dict[str, Any], *, repairs: int = 1, sandbox: Sandbox | None = None
) -> tuple[Task, CandidateOutcome, list[dict[str, Any]], Recorder]:
    """One candidate of a small parent through the pipeline, the model scripted by stage."""
    parent = Task.load(write_task(tmp_path / "tasks"))
    events = Recorder()
    with FakeOpenAI() as server:
        server.responder = stage_responder(replies)

        async def work() -> CandidateOutcome:
            proposer = make_proposer_for(server, tmp_path / "cache")
            pipeline = CandidatePipeline(proposer, Validator(sandbox or FakeSandbox()), repairs=repairs)
            try:
                return await pipeline.run(parent, seed=3, events=events)
            finally:
                await proposer.llm().close()

        outcome = asyncio.run(work())
    return parent, outcome, server.requests, events


def check_recovered(parent: Task, outcome: CandidateOutcome, shape: Shape) -> None:
    assert outcome.proposal is not None
    parts = parts_of(parent, outcome.proposal.task)
    for name, content in shape.recovered.items():
        assert getattr(parts, name) == content, name


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_each_shape_ends_in_an_accepted_child(tmp_path: Path, shape: Shape) -> None:
    parent, outcome, requests, events = run_candidate(tmp_path, shape.replies())
    assert outcome.accepted, outcome.rejection
    check_recovered(parent, outcome, shape)
    stages = [stage_of(r) for r in requests]
    assert stages.count("reask") == (1 if shape.reask else 0) and len(stages) == 3 + stages.count("reask")
    assert events.validations == [1 if shape.reask else 0]  # a re-ask takes the repair attempt
    # Every paid call is recorded once: the failed stage's calls, then the re-ask's.
    assert events.calls == len(requests) == outcome.proposal.usage.calls  # type: ignore[union-attr]
    assert [stage for stage, _ in events.spent_by] == (["failed", "repair"] if shape.reask else ["propose"])


@pytest.mark.parametrize("shape", [s for s in SHAPES if s.reask], ids=[s.name for s in SHAPES if s.reask])
def test_without_repairs_a_malformed_reply_ends_the_candidate_at_its_stage(tmp_path: Path, shape: Shape) -> None:
    _, outcome, requests, events = run_candidate(tmp_path, shape.replies(), repairs=0)
    rejection = outcome.rejection
    assert rejection is not None and rejection.check == "propose" and rejection.detail.startswith(shape.stage)
    # No later stage was paid for a reply that cannot be used.
    assert stage_of(requests[-1]) == shape.stage and events.calls == len(requests) and not events.validations


def test_steps_that_only_echo_the_rules_stop_before_the_next_paid_call(tmp_path: Path) -> None:
    (shape,) = [s for s in SHAPES if s.name == "steps only comments and set"]
    _, outcome, requests, _ = run_candidate(tmp_path, shape.replies(), repairs=0)
    assert outcome.rejection is not None and outcome.rejection.reason is Reason.NO_NEW_COMMAND
    assert len(requests) == 1


def test_a_reask_quotes_the_parse_error_and_asks_for_the_broken_block_only(tmp_path: Path) -> None:
    replies = {**GOOD, "realign_tests": UNCLOSED_BRACKET, "reask": fence("python", "tests/test_step_r1.py", TESTS)}
    _, outcome, requests, _ = run_candidate(tmp_path, replies)
    assert outcome.accepted
    reask = requests[2]
    assert stage_of(reask) == "reask" and asked_stage(reask) == "realign_tests"
    *chat, broken, question = reask["messages"]
    assert chat == requests[1]["messages"]  # the same conversation, followed by the reply and the error
    assert broken == {"role": "assistant", "content": UNCLOSED_BRACKET}
    text = question["content"]
    assert "(invalid_python)" in text and "SyntaxError: '(' was never closed" in text
    assert 'File "tests/test_step_r1.py", line 5' in text and re.search(r"\n +\^\n", text)  # line and caret
    assert "Reply with the corrected block for tests/test_step_r1.py only" in text


def test_a_second_malformed_reply_gets_a_second_reask_within_the_repairs(tmp_path: Path) -> None:
    replies: dict[str, Any] = {
        **GOOD,
        "realign_tests": UNCLOSED_BRACKET,
        "reask": [MISSING_IMPORT, fence("python", "tests/test_step_r1.py", WITH_IMPORT)],
    }
    parent, outcome, requests, events = run_candidate(tmp_path, replies, repairs=2)
    assert outcome.accepted and outcome.proposal is not None
    assert parts_of(parent, outcome.proposal.task).tests == WITH_IMPORT
    assert [stage_of(r) for r in requests] == ["extend", "realign_tests", "reask", "reask", "realign_instruction"]
    assert "the module 're' is used but never imported" in requests[3]["messages"][-1]["content"]
    assert events.validations == [2] and events.calls == 5
    _, outcome, _, _ = run_candidate(tmp_path / "one", replies, repairs=1)
    assert outcome.rejection is not None and outcome.rejection.reason is Reason.INVALID_PYTHON


def test_a_reask_keeps_the_blocks_of_the_first_reply_that_were_intact(tmp_path: Path) -> None:
    run_line = "RUN echo built > /etc/rst-step\n"
    extend = fence("bash", "solution/steps.sh", STEPS) + fence(
        "dockerfile", "environment/Dockerfile.append", "FROM debian:bookworm-slim\n" + run_line
    )
    replies = {**GOOD, "extend": extend, "reask": fence("dockerfile", "environment/Dockerfile.append", run_line)}
    parent, outcome, requests, _ = run_candidate(tmp_path, replies)
    assert outcome.accepted and outcome.proposal is not None
    assert "(invalid_dockerfile)" in requests[1]["messages"][-1]["content"]
    assert "block for environment/Dockerfile.append only" in requests[1]["messages"][-1]["content"]
    parts = parts_of(parent, outcome.proposal.task)
    assert parts.steps == STEPS and parts.dockerfile_append == run_line


def test_a_repair_that_sends_the_rejected_files_back_is_not_validated_again(tmp_path: Path) -> None:
    wrong = fence("python", "tests/test_step_r1.py", WRONG_TESTS)
    addendum = fence("markdown", "instruction_addendum.md", ADDENDUM)
    verbatim = fence("bash", "solution/steps.sh", STEPS) + wrong + addendum
    replies = {**GOOD, "realign_tests": wrong, "repair": verbatim}
    _, outcome, requests, events = run_candidate(tmp_path, replies)
    assert outcome.rejection is not None
    assert (outcome.rejection.check, outcome.rejection.reason) == ("propose", Reason.REPAIR_UNCHANGED)
    assert "rejected by oracle:tests_failed unchanged" in outcome.rejection.detail
    assert outcome.attempts == 1 and events.validations == [0]
    assert stage_of(requests[-1]) == "repair" and events.calls == len(requests) == 4
    # The repair prompt asks for changed files only.
    assert "a reply that changes nothing is rejected" in requests[-1]["messages"][-1]["content"]


def test_a_refused_request_is_an_llm_error_and_not_reasked(tmp_path: Path) -> None:
    replies = {**GOOD, "extend": Reply(status=400)}
    _, outcome, requests, events = run_candidate(tmp_path, replies, repairs=2)
    assert outcome.rejection is not None and outcome.rejection.reason is Reason.LLM_ERROR
    assert len(requests) == 1 and events.calls == 0
