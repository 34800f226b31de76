"""The child's instruction: rewritten whole for the new workflow (the default) or an addendum appended,
and the validator's rules stated before the first try."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from jinja2 import UndefinedError

from rst_synth.proposers import Proposal
from rst_synth.proposers.child import split_child
from rst_synth.proposers.llm import THEMES, LLMProposer, LLMProposerConfig, Parts, build_child, parts_of
from rst_synth.proposers.llm.errors import REPAIR_HINTS
from rst_synth.proposers.llm.prompts import RULE_CHECKS, PromptBudgets, environment, messages, stage_contexts
from rst_synth.task import Task
from rst_synth.validator import QUALITY_CHECKS, Check, CheckResult, Reason, ValidationReport, Validator, Verdict
from rst_synth.validator.quality import lost_literals
from tests.proposers.llm.shapes import ADDENDUM, GOOD
from tests.proposers.llm.test_llm_reply_shapes import run_candidate
from tests.support import quality
from tests.support.fakes import FakeSandbox
from tests.support.llm_proposer import (
    GOOD_ADDENDUM,
    GOOD_TESTS,
    FakeOpenAI,
    fence,
    good_replies,
    make_llm_for,
    stage_of,
    stage_responder,
)
from tests.support.tasks import write_task

REPO = Path(__file__).resolve().parents[3]
WHOLE = """\
# Greeting report

Write the word hello to /app/out.txt. Then create the directory `/app/report` and write two files in it:
`upper.txt`, the word of `/app/out.txt` in upper case followed by a newline, and `size.txt`, the size of
`/app/out.txt` in bytes as a decimal number.
"""


def rendered(stage: str, theme: str = THEMES[0], **context: Any) -> str:
    parent = Task.load(REPO / "examples" / "children" / "access-log-report-errors")
    contexts = stage_contexts(parent, None, PromptBudgets(), theme)
    return messages(environment(), stage, {**contexts[stage], **context})[1]["content"]


def test_every_quality_check_is_stated_in_the_extend_prompt_before_the_first_try() -> None:
    assert set(RULE_CHECKS) == {Check.DETERMINISM.value, *(c.value for c in QUALITY_CHECKS)}
    extend = rendered("extend")
    for check in RULE_CHECKS:
        assert f"\n- {check}: " in extend, check
    assert "no staging folder, no backup, no restored clone" in extend  # redundancy, before any rejection
    # A check the rules template has no entry for cannot render: a new check is never left unstated.
    with pytest.raises(UndefinedError):
        rendered("extend", rule_checks=(*RULE_CHECKS, "a_new_check"))


def test_the_tests_and_instruction_stages_state_their_own_rules() -> None:
    tests = rendered("realign_tests")
    assert "\n- mutation: assert each new output's exact content" in tests and "\n- redundancy:" not in tests
    instruction = rendered("realign_instruction")
    assert "\n- instruction_paths: every path a new test reads" in instruction and "\n- mutation:" not in instruction
    assert "word for word" in instruction


def test_problem_themes_say_what_they_ask_and_a_good_step_is_described() -> None:
    for theme in ("fault-diagnosis", "broken-state-recovery", "measured-bound", "tool-generalisation"):
        assert theme in THEMES and "What this theme asks:" in rendered("extend", theme)
    assert "source-conflict-resolution" in THEMES and "reporting" in THEMES  # beside the procedures
    extend = rendered("extend", "reporting")
    assert "What this theme asks:" not in extend  # a procedure theme speaks for itself
    assert "A good step solves a problem" in extend and "For example:" in extend


def test_the_instruction_stage_asks_for_a_rewrite_unless_told_an_addendum() -> None:
    rewrite = rendered("realign_instruction")
    assert "```markdown path=instruction.md" in rewrite and "instruction_addendum.md" not in rewrite
    addendum = rendered("realign_instruction", instruction_mode="addendum")
    assert "```markdown path=instruction_addendum.md" in addendum and "rewritten" not in addendum


def propose(tmp_path: Path, replies: dict[str, str], **config: Any) -> tuple[Task, Proposal, FakeOpenAI]:
    parent = Task.load(write_task(tmp_path / "tasks"))
    with FakeOpenAI() as server:
        server.responder = stage_responder(replies)

        async def work() -> Proposal:
            proposer = LLMProposer(
                None, make_llm_for(server, tmp_path / "cache"), LLMProposerConfig(discover=False, **config)
            )
            try:
                return await proposer.propose(parent, seed=3)
            finally:
                await proposer.llm().close()

        return parent, asyncio.run(work()), server


def test_a_rewrite_reply_becomes_the_childs_whole_instruction(tmp_path: Path) -> None:
    replies = {**good_replies(), "realign_instruction": "Here it is.\n\n" + fence("markdown", "instruction.md", WHOLE)}
    parent, proposal, server = propose(tmp_path, replies)
    prompt = server.requests[2]["messages"][-1]["content"]
    assert stage_of(server.requests[2]) == "realign_instruction" and parent.instruction in prompt
    child = proposal.task
    assert child.instruction == WHOLE
    record = child.config.metadata.lineage.added[-1]
    assert record.instruction_lines == (1, WHOLE.count("\n"))  # the whole instruction is the step's part
    assert split_child(parent, child).steps[-1].instruction == WHOLE  # what `rst export --multi-step` shows
    parts = parts_of(parent, child)
    assert parts.instruction == WHOLE and parts.addendum == ""
    assert build_child(parent, parts).instruction == WHOLE


def test_an_addendum_reply_is_still_appended(tmp_path: Path) -> None:
    parent, proposal, _ = propose(tmp_path, good_replies())  # answers with instruction_addendum.md
    child = proposal.task
    assert child.instruction.startswith(parent.instruction.rstrip()) and child.instruction.endswith(GOOD_ADDENDUM)
    assert child.config.metadata.lineage.added[-1].instruction_lines[0] > 1
    assert parts_of(parent, child).addendum == GOOD_ADDENDUM and parts_of(parent, child).instruction == ""


def test_the_addendum_option_asks_for_an_addendum(tmp_path: Path) -> None:
    parent, proposal, server = propose(tmp_path, good_replies(), instruction="addendum")
    assert "```markdown path=instruction_addendum.md" in server.requests[2]["messages"][-1]["content"]
    assert proposal.task.instruction.endswith(GOOD_ADDENDUM)


def test_a_parent_instruction_past_the_rewrite_budget_gets_an_addendum(tmp_path: Path) -> None:
    parent = Task.load(write_task(tmp_path / "tasks", instruction="Write the word hello to /app/out.txt.\n" * 20))
    long = stage_contexts(parent, None, PromptBudgets(rewrite_chars=300), THEMES[0])["realign_instruction"]
    assert long["instruction_mode"] == "addendum" and long["instruction_whole"] == ""
    # Within the rewrite budget but cut in the parent's part, the instruction is shown again whole.
    cut = stage_contexts(parent, None, PromptBudgets(instruction_chars=300), THEMES[0])["realign_instruction"]
    assert cut["instruction_mode"] == "rewrite" and cut["instruction_whole"] == parent.instruction
    assert "lines elided" in cut["instruction"]
    shown = stage_contexts(parent, None, PromptBudgets(), THEMES[0])["realign_instruction"]
    assert shown["instruction_whole"] == "" and shown["instruction"] == parent.instruction  # once, above


def test_a_rewrite_that_drops_a_tested_literal_is_refused_and_the_repair_shows_why(tmp_path: Path) -> None:
    parent = quality.parent(tmp_path)
    step = quality.writes("r1s1", "/app/summary.txt", quality.SUMMARY)
    dropped = f"Write `{quality.SUMMARY}` to /app/summary.txt, after the report line of /app/report.txt.\n"
    parts = Parts(
        theme=THEMES[0], tag="r1", steps=step.solution, tests=step.test_module, addendum="", instruction=dropped
    )
    child = build_child(parent, parts)
    assert lost_literals(child, parent) == [quality.PARENT_TEXT]  # the parent's test still compares it
    report = asyncio.run(Validator(FakeSandbox()).validate(child, parent))
    failure = report.first_failure
    assert failure is not None and failure.check is Check.INSTRUCTION_PATHS
    assert failure.reason is Reason.INSTRUCTION_GAP and quality.PARENT_TEXT in failure.detail

    kept = dropped + f"The report line stays `{quality.PARENT_TEXT}`.\n"
    with FakeOpenAI() as server:
        server.responder = stage_responder({"repair": fence("markdown", "instruction.md", kept)})

        async def work() -> Proposal:
            proposer = LLMProposer(None, make_llm_for(server, tmp_path / "cache"), LLMProposerConfig(discover=False))
            rejected = Proposal(task=child, steps=[THEMES[0]], seed=2)
            try:
                return await proposer.repair(parent, rejected, report, attempt=1)
            finally:
                await proposer.llm().close()

        fixed = asyncio.run(work())
    prompt = server.requests[-1]["messages"][-1]["content"]
    assert "- check: instruction_paths" in prompt and "- reason: instruction_gap" in prompt
    assert f"- what it means: {REPAIR_HINTS[Reason.INSTRUCTION_GAP]}" in prompt and "lost" in prompt
    assert f"`{quality.PARENT_TEXT}` is stated by the parent's instruction" in prompt
    assert "The child's whole instruction, instruction.md:\n~~~~markdown\n" + dropped in prompt
    assert "```markdown path=instruction.md```" in prompt
    assert fixed.task.instruction == kept and lost_literals(fixed.task, parent) == []
    assert fixed.task.text(parts.test_path) == step.test_module.rstrip("\n") + "\n"


def test_a_repair_of_a_rewrite_may_answer_with_an_addendum(tmp_path: Path) -> None:
    parent = Task.load(write_task(tmp_path / "tasks"))
    replies = {
        **good_replies(),
        "realign_instruction": fence("markdown", "instruction.md", WHOLE),
        "repair": fence("markdown", "instruction_addendum.md", GOOD_ADDENDUM),
    }
    failed = CheckResult(check=Check.ORACLE, verdict=Verdict.FAIL, reason=Reason.TESTS_FAILED, detail="x")
    with FakeOpenAI() as server:
        server.responder = stage_responder(replies)

        async def work() -> tuple[Proposal, Proposal]:
            proposer = LLMProposer(None, make_llm_for(server, tmp_path / "cache"), LLMProposerConfig(discover=False))
            try:
                first = await proposer.propose(parent, seed=1)
                report = ValidationReport(task="x", checks=[failed])
                return first, await proposer.repair(parent, first, report, attempt=1)
            finally:
                await proposer.llm().close()

        first, fixed = asyncio.run(work())
    assert first.task.instruction == WHOLE
    assert fixed.task.instruction.startswith(parent.instruction.rstrip()) and fixed.task.instruction.endswith(
        GOOD_ADDENDUM
    )
    assert parts_of(parent, fixed.task).instruction == "" and fixed.task.text("tests/test_step_r1.py") == GOOD_TESTS


def test_a_reask_about_a_rewrite_asks_for_the_whole_instruction_only(tmp_path: Path) -> None:
    whole = "Write the word hello to /app/out.txt.\n\n" + ADDENDUM
    replies = {
        **GOOD,
        "realign_instruction": "I cannot help with that.",
        "reask": fence("markdown", "instruction.md", whole),
    }
    parent, outcome, requests, _ = run_candidate(tmp_path, replies)
    assert outcome.accepted, outcome.rejection
    reask = next(r for r in requests if stage_of(r) == "reask")["messages"][-1]["content"]
    assert "instruction.md (markdown)" in reask and "instruction_addendum.md" not in reask
    assert outcome.proposal is not None and parts_of(parent, outcome.proposal.task).instruction == whole


def test_every_stage_leads_with_the_same_bytes_so_a_prefix_cache_serves_the_parent(tmp_path: Path) -> None:
    parent, _, server = propose(tmp_path, good_replies())
    chats = [r["messages"] for r in server.requests]
    assert [stage_of(r) for r in server.requests] == ["extend", "realign_tests", "realign_instruction"]
    assert chats[0][0] == chats[1][0] == chats[2][0] and chats[0][0]["role"] == "system"
    lead = chats[0][1]["content"].split("## STAGE: ")[0]
    assert lead.startswith(f"### The parent task: {parent.name}\n") and parent.solve_sh.strip() in lead
    assert all(chat[1]["content"].startswith(lead + "## STAGE: ") for chat in chats)
