"""The second solution (engine/second.py): one more call, shown the child's instruction and the
parent's final state as the extend stage describes it, never the child's steps or tests, writes new
steps of its own; the child's tests must then pass on them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from rst_synth.llm import LLMError
from rst_synth.proposers.base import ProposalError, Usage
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.llm.bounded import elide
from rst_synth.proposers.llm.expects import without_prefix
from rst_synth.proposers.llm.parse import Expect, ReplyError, parse_reply
from rst_synth.proposers.llm.prompts import STEPS_PATH, PromptBudgets, environment, messages, parent_context
from rst_synth.proposers.llm.proposer import LLMProposer
from rst_synth.task import Task
from rst_synth.validator import Reason

STAGE = "second_solution"
SEED = 0
"""One seed for every call: the same instruction and parent ask the same prompt, so a repair that
changed only the tests is judged against the second solution the cache kept."""


class SecondSolution(BaseModel):
    steps: str
    usage: Usage


def second_context(
    parent: Task, child: Task, budgets: PromptBudgets, discovery: Discovery | None = None
) -> dict[str, Any]:
    """The parent as every stage shows it, the child's instruction (what it adds to the parent's, where
    it starts with it) and the lines its Dockerfile appends; nothing of the child's solution or tests."""
    base = parent_context(parent, discovery, budgets, theme="")  # no theme: the instruction says what to do
    before, instruction = parent.instruction.strip(), child.instruction.strip()
    added = bool(before) and instruction.startswith(before) and instruction != before
    shown = instruction[len(before) :].strip() if added else instruction
    appended = child.dockerfile[len(parent.dockerfile) :] if child.dockerfile.startswith(parent.dockerfile) else ""
    return {
        **base,
        "instruction_added": added,
        "child_instruction": elide(shown, budgets.instruction_chars).rstrip("\n") + "\n",
        "child_dockerfile_append": elide(appended.strip("\n"), budgets.dockerfile_chars).rstrip("\n") + "\n"
        if appended.strip()
        else "",
    }


class SecondSolutionWriter:
    """Writes a child's second solution with the llm proposer's client, budgets and discovery."""

    def __init__(self, proposer: LLMProposer) -> None:
        self.proposer = proposer
        self._env = environment()

    async def chat(self, parent: Task, child: Task) -> list[dict[str, str]]:
        found = await self.proposer.discovery(parent)
        return messages(self._env, STAGE, second_context(parent, child, self.proposer.config.budgets, found))

    async def write(self, parent: Task, child: Task) -> SecondSolution:
        """The new steps; a ProposalError (with what the call cost) when none could be had."""
        chat, usage = await self.chat(parent, child), Usage()
        config = self.proposer.config
        try:
            result = await self.proposer.llm().chat(
                chat, temperature=config.temperature, max_tokens=config.max_tokens, seed=SEED
            )
        except LLMError as exc:
            raise ProposalError(Reason.LLM_ERROR, f"{STAGE}: {exc}", usage) from None
        usage.count(
            STAGE,
            tokens_in=result.tokens_in,
            tokens_out=result.tokens_out,
            cost_usd=result.cost_usd,
            cache_hit=result.cache_hit,
        )
        expected = [Expect(STEPS_PATH, "bash", accept=("solution/*.sh",), new_work=True)]
        try:
            files = parse_reply(result.text, expected, finish_reason=result.finish_reason)
        except ReplyError as exc:
            raise ProposalError(exc.reason, f"{STAGE}: {exc.detail}", usage) from None
        return SecondSolution(steps=without_prefix(files[STEPS_PATH], parent.solve_sh), usage=usage)
