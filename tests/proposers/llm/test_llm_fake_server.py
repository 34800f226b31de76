"""The llm proposer against the fake OpenAI-compatible server (real HTTP on 127.0.0.1, no Docker)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from rst_synth.llm import LLMConfig
from rst_synth.proposers import Proposal, ProposalError, make_proposer
from rst_synth.proposers.llm import LLMProposalError, LLMProposer, LLMProposerConfig, parts_of
from rst_synth.proposers.llm.proposer import REPAIR_HINTS
from rst_synth.sandbox import FileDigest
from rst_synth.task import Task
from rst_synth.validator import ValidationReport
from rst_synth.validator.degenerate import degenerate_outputs
from rst_synth.validator.models import Check, CheckResult, Reason, Verdict
from tests.support.fakes import FakeContainer, FakeSandbox
from tests.support.llm_proposer import (
    GOOD_ADDENDUM,
    GOOD_STEPS,
    GOOD_TESTS,
    WEAK_TESTS,
    FakeOpenAI,
    Reply,
    fence,
    good_replies,
    make_llm_for,
    make_proposer_for,
    stage_of,
    stage_responder,
)
from tests.support.tasks import write_task


def small_parent(tmp_path: Path) -> Task:
    return Task.load(write_task(tmp_path / "tasks"))


def propose(server: FakeOpenAI, cache: Path, parent: Task, seed: int = 3, **config: Any) -> Proposal:
    async def work() -> Proposal:
        proposer = make_proposer_for(server, cache, **config)
        try:
            return await proposer.propose(parent, seed=seed)
        finally:
            await proposer.llm().close()

    return asyncio.run(work())


def test_three_stages_in_order_make_the_child(tmp_path: Path) -> None:
    parent = small_parent(tmp_path)
    with FakeOpenAI() as server:
        server.responder = stage_responder(good_replies())
        proposal = propose(server, tmp_path / "cache", parent, seed=3)
    assert [stage_of(r) for r in server.requests] == ["extend", "realign_tests", "realign_instruction"]
    assert all(r["seed"] == 3 for r in server.requests)
    # Later stages see what earlier ones wrote.
    assert "tr 'a-z' 'A-Z'" in server.requests[1]["messages"][-1]["content"]
    assert "def test_upper_case_copy" in server.requests[2]["messages"][-1]["content"]
    child = proposal.task
    assert child.solve_sh.rstrip().endswith(GOOD_STEPS.rstrip())
    assert child.text("tests/test_step_r1.py") == GOOD_TESTS
    assert child.instruction.endswith(GOOD_ADDENDUM) and child.instruction.startswith(parent.instruction.rstrip())
    assert child.dockerfile == parent.dockerfile  # no Dockerfile block: the image is unchanged
    lineage = child.config.metadata.lineage
    assert lineage.proposer == "llm" and lineage.parent == parent.name and lineage.round == 1
    assert proposal.steps == lineage.steps and proposal.steps[0] in LLMProposerConfig().themes
    assert proposal.usage.calls == 3 and proposal.usage.cached_calls == 0
    assert proposal.usage.tokens_in == 3000 and proposal.usage.tokens_out == 600


def test_dockerfile_lines_are_appended(tmp_path: Path) -> None:
    parent = small_parent(tmp_path)
    replies = good_replies()
    replies["extend"] += fence(
        "dockerfile",
        "environment/Dockerfile.append",
        "RUN apt-get update && apt-get install -y --no-install-recommends jq",
    )
    with FakeOpenAI() as server:
        server.responder = stage_responder(replies)
        child = propose(server, tmp_path / "cache", parent).task
    assert child.dockerfile.startswith(parent.dockerfile)
    assert child.dockerfile.endswith("install -y --no-install-recommends jq\n")


def test_a_reply_repeating_the_parents_script_or_instruction_adds_only_the_new_part(tmp_path: Path) -> None:
    parent = small_parent(tmp_path)
    replies = good_replies()
    replies["extend"] = fence("bash", "solution/solve.sh", parent.solve_sh + "\n" + GOOD_STEPS)
    replies["realign_instruction"] = fence("markdown", "instruction.md", parent.instruction + "\n" + GOOD_ADDENDUM)
    with FakeOpenAI() as server:
        server.responder = stage_responder(replies)
        child = propose(server, tmp_path / "cache", parent).task
    assert child.solve_sh.count("echo hello > /app/out.txt") == 1
    assert child.solve_sh.rstrip().endswith(GOOD_STEPS.rstrip())
    assert child.instruction.count(parent.instruction.strip()) == 1 and child.instruction.endswith(GOOD_ADDENDUM)


def test_theme_is_drawn_from_the_seed(tmp_path: Path) -> None:
    parent = small_parent(tmp_path)
    proposer = LLMProposer(None, llm=None)
    themes = {proposer.theme(parent, seed) for seed in range(40)}
    assert len(themes) > 3 and proposer.theme(parent, 7) == proposer.theme(parent, 7)


BROKEN_PYTHON = fence("python", "tests/test_step_r1.py", "def test_x(:\n    pass")
LENGTH_BODY = json.dumps(
    {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "fake-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": "length",
                "message": {"role": "assistant", "content": "```bash path=solution/steps.sh\necho cut"},
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
)


@pytest.mark.parametrize(
    "stage, reply, reason",
    [
        ("extend", "I cannot help with that.", "no_code_block"),
        ("extend", fence("python", "solution/steps.sh", "print('hi')"), "wrong_language"),
        ("extend", "```bash path=solution/steps.sh\necho cut off here", "truncated"),
        ("extend", Reply(raw_body=LENGTH_BODY), "truncated"),
        ("realign_tests", BROKEN_PYTHON, "invalid_python"),
        ("realign_tests", "```python path=tests/test_step_r1.py\n\n```", "empty_block"),
        ("realign_instruction", fence("bash", "solution/steps.sh", "true"), "wrong_language"),
        ("realign_tests", fence("python", "lib/helpers.py", "X = 1"), "missing_block"),
        ("extend", Reply(status=401), "llm_error"),
        ("realign_tests", Reply(status=400), "llm_error"),
        ("extend", Reply(content=None), "llm_error"),
    ],
)
def test_malformed_replies_become_proposal_errors(tmp_path: Path, stage: str, reply: str | Reply, reason: str) -> None:
    parent = small_parent(tmp_path)
    replies: dict[str, str | Reply] = {**good_replies(), stage: reply}
    with FakeOpenAI() as server:
        server.responder = stage_responder(replies)
        with pytest.raises(ProposalError) as caught:
            propose(server, tmp_path / "cache", parent)
    assert caught.value.reason == reason, caught.value
    assert stage in caught.value.detail
    # What the calls before the failure cost is kept on the error.
    assert isinstance(caught.value, LLMProposalError)
    assert caught.value.usage.calls == [r for r in ("extend", "realign_tests", "realign_instruction")].index(stage) + (
        0 if reason == "llm_error" else 1
    )


def test_same_seed_again_is_served_from_the_cache(tmp_path: Path) -> None:
    parent = small_parent(tmp_path)
    with FakeOpenAI() as server:
        server.responder = stage_responder(good_replies())
        first = propose(server, tmp_path / "cache", parent, seed=5)
        sent = len(server.requests)
        again = propose(server, tmp_path / "cache", parent, seed=5)  # a fresh client, the same cache
        assert len(server.requests) == sent == 3
        other = propose(server, tmp_path / "cache", parent, seed=6)
        assert len(server.requests) == 6  # another seed is another request
    assert again.task.files == first.task.files and again.task.instruction == first.task.instruction
    assert again.task.config == first.task.config
    assert again.usage.calls == 3 and again.usage.cached_calls == 3
    assert again.usage.tokens_in == 0 and again.usage.cost_usd == 0.0
    assert other.usage.cached_calls == 0


def rejection(reason: Reason, check: Check, tail: str) -> ValidationReport:
    return ValidationReport(
        task="x",
        checks=[
            CheckResult(check=Check.STATIC, verdict=Verdict.PASS, reason=Reason.OK),
            CheckResult(
                check=check,
                verdict=Verdict.FAIL,
                reason=reason,
                detail="the parent's solution reached reward 1",
                output_tail=tail,
            ),
        ],
    )


def test_repair_shows_the_rejection_and_keeps_what_it_does_not_replace(tmp_path: Path) -> None:
    parent = small_parent(tmp_path)
    with FakeOpenAI() as server:
        server.responder = stage_responder(good_replies(tests=WEAK_TESTS))

        async def work() -> tuple[Proposal, Proposal]:
            proposer = make_proposer_for(server, tmp_path / "cache")
            try:
                weak = await proposer.propose(parent, seed=9)
                report = rejection(Reason.PARENT_PASSES, Check.PARENT, "tests/test_step_r1.py . 1 passed MARKER-TAIL")
                return weak, await proposer.repair(parent, weak, report, attempt=1)
            finally:
                await proposer.llm().close()

        weak, fixed = asyncio.run(work())
    prompt = server.requests[-1]["messages"][-1]["content"]
    assert stage_of(server.requests[-1]) == "repair" and server.requests[-1]["seed"] == 9001
    assert "- check: parent" in prompt and "- reason: parent_solution_passes" in prompt
    assert "MARKER-TAIL" in prompt and "def test_source_exists" in prompt and "only the new steps create" in prompt
    assert fixed.task.text("tests/test_step_r1.py") == GOOD_TESTS
    assert parts_of(parent, fixed.task).steps == parts_of(parent, weak.task).steps  # untouched parts stay
    assert fixed.task.instruction == weak.task.instruction and fixed.seed == weak.seed
    assert fixed.usage.calls == 4 and fixed.usage.tokens_in == weak.usage.tokens_in + 1000


def _repair_prompt(parent: Task, report: ValidationReport, cache: Path) -> str:
    """The repair prompt the proposer sends for `report` about its own proposal (seed 4)."""
    with FakeOpenAI() as server:
        server.responder = stage_responder(good_replies())

        async def work() -> None:
            proposer = make_proposer_for(server, cache)
            try:
                await proposer.repair(parent, await proposer.propose(parent, seed=4), report, attempt=1)
            finally:
                await proposer.llm().close()

        asyncio.run(work())
    assert stage_of(server.requests[-1]) == "repair"
    return str(server.requests[-1]["messages"][-1]["content"])


def test_a_repair_after_a_degenerate_output_names_the_path_and_what_to_change(tmp_path: Path) -> None:
    parent = small_parent(tmp_path)
    box = FakeContainer(FakeSandbox())
    box.files = {"/app/report/upper.csv": b"word,count\n", "/app/report/size.txt": b"5\n"}
    state = {path: FileDigest(len(body), "") for path, body in box.files.items()}
    degenerate = asyncio.run(degenerate_outputs(box, state))
    assert degenerate.reason is Reason.DEGENERATE_OUTPUT
    report = ValidationReport(
        task="x", checks=[CheckResult(check=Check.ORACLE, verdict=Verdict.PASS, reason=Reason.OK), degenerate]
    )
    prompt = _repair_prompt(parent, report, tmp_path / "cache")
    assert "- check: degenerate" in prompt and "- reason: degenerate_output" in prompt
    assert "- detail: /app/report/upper.csv: a header and no rows" in prompt
    assert f"- what it means: {REPAIR_HINTS[Reason.DEGENERATE_OUTPUT]}" in prompt
    assert "/app/report/upper.csv:\nword,count\n" in prompt  # the output as the validator read it


def test_a_rejection_lists_every_failing_check_in_one_repair_prompt(tmp_path: Path) -> None:
    """The validator ran on past the first failure (every_failure): the repair is told of both problems."""
    parent = small_parent(tmp_path)
    gap = CheckResult(
        check=Check.INSTRUCTION_PATHS,
        verdict=Verdict.FAIL,
        reason=Reason.INSTRUCTION_GAP,
        detail="/app/report/extra.txt is read by tests/test_step_r1s1.py but the instruction never names it",
    )
    weak = CheckResult(
        check=Check.MUTATION,
        verdict=Verdict.FAIL,
        reason=Reason.WEAK_TESTS,
        detail="the tests still pass with /app/report/size.txt deleted",
    )
    skipped = CheckResult(check=Check.NOVELTY, verdict=Verdict.SKIP, reason=Reason.EARLIER_CHECK_FAILED)
    report = ValidationReport(
        task="x", checks=[CheckResult(check=Check.ORACLE, verdict=Verdict.PASS, reason=Reason.OK), gap, weak, skipped]
    )
    prompt = _repair_prompt(parent, report, tmp_path / "cache")
    assert "- check: instruction_paths" in prompt and "/app/report/extra.txt is read by" in prompt
    assert "Other checks failed on the same candidate" in prompt
    assert "- check mutation, reason weak_tests: the tests still pass with /app/report/size.txt deleted" in prompt
    assert REPAIR_HINTS[Reason.WEAK_TESTS] in prompt and "check novelty" not in prompt


def test_repair_with_nothing_usable_is_a_proposal_error(tmp_path: Path) -> None:
    parent = small_parent(tmp_path)
    replies = {**good_replies(), "repair": "I am not sure what went wrong."}
    with FakeOpenAI() as server:
        server.responder = stage_responder(replies)

        async def work() -> None:
            proposer = make_proposer_for(server, tmp_path / "cache")
            try:
                weak = await proposer.propose(parent, seed=1)
                await proposer.repair(parent, weak, rejection(Reason.TESTS_FAILED, Check.ORACLE, "E assert"), attempt=1)
            finally:
                await proposer.llm().close()

        with pytest.raises(ProposalError, match="no_code_block"):
            asyncio.run(work())


def test_api_key_is_written_nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = "sk-rst-secret-marker-5b1f0c7e9a"
    monkeypatch.setenv("RST_TEST_LLM_KEY", marker)
    parent = small_parent(tmp_path)
    with FakeOpenAI() as server:
        server.responder = stage_responder(good_replies())
        proposal = propose(server, tmp_path / "cache", parent, api_key_env="RST_TEST_LLM_KEY")
    assert any(marker in h.get("authorization", "") for h in server.headers)  # the key was really used
    proposal.task.save(tmp_path / "child")
    written = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    written += [p for p in (tmp_path / "child").rglob("*") if p.is_file()]
    assert len(written) >= 4
    leaks = [p for p in written if marker.encode() in p.read_bytes()]
    assert not leaks, leaks


def test_registered_as_llm_and_options_reach_the_config(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        llm = make_llm_for(server, tmp_path / "cache")
        proposer = make_proposer("llm", discovery=None, llm=llm, themes=["backup-and-restore"], max_tokens=2000)
        assert isinstance(proposer, LLMProposer) and proposer.name == "llm"
        assert proposer.config.themes == ["backup-and-restore"] and proposer.config.max_tokens == 2000
        asyncio.run(llm.close())


def test_a_missing_key_is_an_llm_error_at_first_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RST_TEST_NO_KEY", raising=False)
    proposer = LLMProposer(
        None, llm_config=LLMConfig(model="m", base_url="https://api.example.invalid/v1", api_key_env="RST_TEST_NO_KEY")
    )
    with pytest.raises(ProposalError) as caught:
        asyncio.run(proposer.propose(small_parent(tmp_path), seed=0))
    assert caught.value.reason == "llm_error" and "RST_TEST_NO_KEY" in str(caught.value)
