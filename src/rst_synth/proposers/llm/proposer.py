"""The llm proposer: extend, realign the tests, realign the instruction (three chat calls), repair.

Every call passes the proposal's seed to the model (and so to the response cache): the same
parent and seed give the same prompts, so a repeated proposal is answered from the cache.

A reply that cannot be parsed ends the call with an `LLMProposalError` that offers a retry: one
re-ask (the same chat, the broken reply, then the exact parse error and a request for the broken
block only), after which the stages go on from where they stopped. The candidate pipeline spends
one repair attempt on each such retry.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from rst_synth.llm import LLM, LLMConfig, LLMError, make_llm
from rst_synth.proposers.base import Proposal, ProposalError, Usage
from rst_synth.proposers.discovery import Discover, Discovery, DiscoveryCache
from rst_synth.proposers.llm.child import NAME, Parts, build_child, parts_of
from rst_synth.proposers.llm.contracts import CONTRACTS_PATH, contracts_text, stated_contracts
from rst_synth.proposers.llm.errors import REPAIR_HINTS, exact_error
from rst_synth.proposers.llm.expects import expected_files, without_prefix
from rst_synth.proposers.llm.parse import Expect, ReplyError, parse_reply
from rst_synth.proposers.llm.prompts import (
    ADDENDUM_PATH,
    DOCKERFILE_APPEND_PATH,
    INSTRUCTION_PATH,
    STEPS_PATH,
    THEMES,
    InstructionMode,
    PromptBudgets,
    candidate_context,
    environment,
    messages,
    parent_context,
    rejection_context,
)
from rst_synth.proposers.llm.reask import UnusableReply, reask_request
from rst_synth.task import OutputContract, Task
from rst_synth.validator import Check, Reason, ValidationReport, Verdict


class LLMProposalError(ProposalError):
    """A ProposalError that carries what the calls made before it cost (and, for a malformed reply,
    the re-ask to retry with)."""

    def __init__(
        self,
        reason: Reason,
        detail: str,
        usage: Usage,
        retry: Callable[[int], Awaitable[Proposal]] | None = None,
    ) -> None:
        super().__init__(reason, detail, usage, retry)  # the base class carries the usage


class LLMProposerConfig(BaseModel):
    """Options of the llm proposer."""

    themes: list[str] = Field(default_factory=lambda: list(THEMES), min_length=1)
    """Workflow themes; one is drawn per proposal from its seed."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """Sampling temperature of every call; None: the LLM config's."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Completion token limit of every call; None: the LLM config's."""
    budgets: PromptBudgets = Field(default_factory=PromptBudgets)
    discover: bool = True
    """Run the parent's solution once to list what it produced (needs discovery)."""
    instruction: InstructionMode = "rewrite"
    """"rewrite": the realign_instruction stage rewrites the whole instruction for the new workflow (a
    parent's instruction past `budgets.rewrite_chars` gets an addendum instead); "addendum": it writes a
    paragraph appended to the parent's. A reply that sends an addendum where a rewrite was asked is taken
    as an addendum."""


@dataclass
class _Draft:
    """A candidate in the making: what the stages so far gave. The flows skip a stage whose part is
    there, so after a re-ask fills the stage that failed, the same flow goes on from it."""

    parent: Task
    found: Discovery | None
    base: dict[str, Any]
    seed: int
    usage: Usage
    steps: str | None = None
    docker: str = ""
    tests: str | None = None
    addendum: str | None = None
    instruction: str | None = None
    """The whole rewritten instruction, where the reply gave one instead of an addendum."""
    rejected: Parts | None = None
    """The parts a repair starts from (None for a proposal)."""
    repair_context: dict[str, Any] = field(default_factory=dict)
    repair_seed: int = 0
    fixed: Parts | None = None
    outputs: list[OutputContract] = field(default_factory=list)
    """The contracts the extend reply stated (contracts.py); empty: each output's type gives its own."""


class LLMProposer:
    """The paper's method: an OpenAI-compatible model writes each step, the validator judges it."""

    name = NAME

    def __init__(
        self,
        discovery: Discover | None,
        llm: LLM | None = None,
        config: LLMProposerConfig | None = None,
        llm_config: LLMConfig | None = None,
    ) -> None:
        self.config = config or LLMProposerConfig()
        self._llm = llm
        self._owns_llm = llm is None
        self._llm_config = llm_config
        self._env = environment()
        self._discoveries = DiscoveryCache(discovery) if discovery is not None else None

    def llm(self) -> LLM:
        """The client, made on first use from `llm_config` (default: RST_LLM_* and the [llm] defaults)."""
        if self._llm is None:
            try:
                self._llm = make_llm(self._llm_config or LLMConfig.from_sources())
            except (LLMError, ValueError) as exc:
                raise ProposalError(Reason.LLM_ERROR, str(exc)) from None
        return self._llm

    async def close(self) -> None:
        """Close the client if this proposer made it."""
        if self._owns_llm and self._llm is not None:
            await self._llm.close()
            self._llm = None

    def theme(self, parent: Task, seed: int) -> str:
        return random.Random(f"{seed}:{parent.name}").choice(self.config.themes)

    async def discovery(self, parent: Task) -> Discovery | None:
        """The parent's artifacts, discovered once per distinct parent; None without discovery."""
        if self._discoveries is None or not self.config.discover:
            return None
        return await self._discoveries(parent)

    async def propose(self, parent: Task, *, seed: int) -> Proposal:
        found = await self.discovery(parent)
        base = parent_context(parent, found, self.config.budgets, self.theme(parent, seed), self.config.instruction)
        return await self._guarded(self._extend_flow, _Draft(parent, found, base, seed, Usage()))

    async def repair(self, parent: Task, rejected: Proposal, report: ValidationReport, *, attempt: int) -> Proposal:
        """One call showing the rejected candidate, why, and the exact error; files the reply leaves
        out stay as they were."""
        found = await self.discovery(parent)
        parts = parts_of(parent, rejected.task)
        budgets = self.config.budgets
        mode: InstructionMode = "rewrite" if parts.instruction else "addendum"
        base = {
            **parent_context(parent, found, budgets, parts.theme, mode),
            "instruction_mode": mode,  # the candidate's own form, whatever the budget would choose now
            "tag": parts.tag,
            "test_path": parts.test_path,
        }
        failure = report.first_failure
        reason = failure.reason if failure else None
        also = [
            {
                "check": c.check.value,
                "reason": c.reason.value,
                "detail": c.detail,
                "hint": REPAIR_HINTS.get(c.reason, ""),
            }
            for c in report.checks
            if c.verdict in (Verdict.FAIL, Verdict.ERROR) and c is not failure
        ]
        context = {
            **base,
            **candidate_context(
                budgets,
                steps=parts.steps,
                tests=parts.tests,
                addendum=parts.addendum,
                dockerfile_append=parts.dockerfile_append,
                instruction=parts.instruction,
                contracts=contracts_text(parts.outputs),
            ),
            **rejection_context(
                budgets,
                check=failure.check.value if failure else "unknown",
                reason=reason.value if reason else "rejected",
                detail=failure.detail if failure else "",
                attempt=attempt,
                output_tail=failure.output_tail if failure else "",
                hint=REPAIR_HINTS.get(reason, "") if reason else "",
                error=exact_error(failure, rejected.task),
                evidence=failure.evidence if failure else None,
                second_steps=failure.steps if failure and failure.check is Check.SECOND_SOLUTION else "",
                also=also,
            ),
        }
        draft = _Draft(parent, found, base, rejected.seed, rejected.usage.model_copy(), rejected=parts)
        draft.repair_context, draft.repair_seed = context, rejected.seed * 1000 + attempt
        return await self._guarded(self._repair_flow, draft)

    # -- the flows: re-entrant over a draft ----------------------------------------------------

    async def _extend_flow(self, d: _Draft) -> Proposal:
        budgets = self.config.budgets
        if d.steps is None:
            self._take(d, "extend", await self._ask("extend", d.base, self._expected("extend", d), d))
        stated = contracts_text(d.outputs)
        context = {
            **d.base,
            **candidate_context(budgets, steps=d.steps or "", dockerfile_append=d.docker, contracts=stated),
        }
        if d.tests is None:
            self._take(
                d, "realign_tests", await self._ask("realign_tests", context, self._expected("realign_tests", d), d)
            )
        context.update(
            candidate_context(
                budgets, steps=d.steps or "", tests=d.tests or "", dockerfile_append=d.docker, contracts=stated
            )
        )
        if d.addendum is None and d.instruction is None:
            stage = "realign_instruction"
            self._take(d, stage, await self._ask(stage, context, self._expected(stage, d), d))
        parts = Parts(
            theme=d.base["theme"],
            tag=d.base["tag"],
            steps=d.steps or "",
            tests=d.tests or "",
            addendum=d.addendum or "",
            instruction=d.instruction or "",
            dockerfile_append=d.docker,
            outputs=d.outputs,
        )
        return self._proposal(d.parent, parts, d.found, d.seed, d.usage)

    async def _repair_flow(self, d: _Draft) -> Proposal:
        if d.fixed is None:
            files = await self._ask("repair", d.repair_context, self._expected("repair", d), d, seed=d.repair_seed)
            self._take(d, "repair", files)
        assert d.fixed is not None
        return self._proposal(d.parent, d.fixed, d.found, d.seed, d.usage)

    @staticmethod
    def _expected(stage: str, d: _Draft) -> list[Expect]:
        return expected_files(stage, d.base["test_path"], rewrite=d.base["instruction_mode"] == "rewrite")

    @staticmethod
    def _take(d: _Draft, stage: str, files: dict[str, str]) -> None:
        """Put a stage's parsed files into the draft."""
        if stage == "extend":
            d.steps = without_prefix(files[STEPS_PATH], d.parent.solve_sh)
            d.docker = files.get(DOCKERFILE_APPEND_PATH, "")
            d.outputs = stated_contracts(files[CONTRACTS_PATH]) if CONTRACTS_PATH in files else []
        elif stage == "realign_tests":
            d.tests = files[d.base["test_path"]]
        elif stage == "realign_instruction":
            if INSTRUCTION_PATH in files:
                d.instruction = files[INSTRUCTION_PATH]
            else:
                d.addendum = without_prefix(files[ADDENDUM_PATH], d.parent.instruction)
        else:
            parts = d.rejected
            assert parts is not None
            text: dict[str, str] = {"addendum": parts.addendum, "instruction": parts.instruction}
            if INSTRUCTION_PATH in files:  # a whole instruction replaces whichever the candidate had
                text = {"addendum": "", "instruction": files[INSTRUCTION_PATH]}
            elif ADDENDUM_PATH in files:
                text = {"addendum": without_prefix(files[ADDENDUM_PATH], d.parent.instruction), "instruction": ""}
            d.fixed = parts.model_copy(
                update={
                    "steps": without_prefix(files.get(STEPS_PATH, parts.steps), d.parent.solve_sh),
                    "tests": files.get(parts.test_path, parts.tests),
                    **text,
                    "dockerfile_append": files.get(DOCKERFILE_APPEND_PATH, parts.dockerfile_append),
                    "outputs": stated_contracts(files[CONTRACTS_PATH]) if CONTRACTS_PATH in files else parts.outputs,
                }
            )

    # -- re-asks ------------------------------------------------------------------------------

    async def _guarded(
        self,
        flow: Callable[[_Draft], Awaitable[Proposal]],
        d: _Draft,
        first: Callable[[_Draft], Awaitable[None]] | None = None,
    ) -> Proposal:
        """`first(d)` (a re-ask), then `flow(d)`; an unusable reply becomes an LLMProposalError whose
        retry re-asks once about it and then goes on with `flow`."""
        try:
            if first is not None:
                await first(d)
            return await flow(d)
        except UnusableReply as caught:
            unusable = caught  # `caught` is unbound when the except block ends; the retry outlives it

            async def retry(attempt: int) -> Proposal:
                async def reask(draft: _Draft) -> None:
                    self._take(draft, unusable.stage, await self._reask(unusable, draft))

                return await self._guarded(flow, d, reask)

            error = unusable.error
            raise LLMProposalError(
                error.reason, f"{unusable.stage}: {error.detail}", d.usage.model_copy(), retry=retry
            ) from None

    async def _reask(self, unusable: UnusableReply, d: _Draft) -> dict[str, str]:
        """One call about an unusable reply (reask.py); the stage's files, intact blocks of earlier replies kept."""
        asked, kept, chat = reask_request(unusable, self._env, self.config.budgets, REPAIR_HINTS)
        require_any = not any(e.required for e in asked)
        try:
            files = await self._chat_files(
                unusable.stage, chat, asked, d, seed=unusable.seed, require_any=require_any, counted="reask"
            )
        except UnusableReply as again:  # the next re-ask is about this reply, for the same stage's files
            again.expected, again.kept = unusable.expected, kept
            raise
        return {**kept, **files}

    # -- one call ------------------------------------------------------------------------------

    async def _ask(
        self, stage: str, context: dict[str, Any], expected: list[Expect], d: _Draft, *, seed: int | None = None
    ) -> dict[str, str]:
        """One chat call of `stage`, its cost added to the draft's usage, its reply parsed into files."""
        chat = messages(self._env, stage, context)
        require_any = not any(e.required for e in expected)
        return await self._chat_files(
            stage, chat, expected, d, seed=d.seed if seed is None else seed, require_any=require_any
        )

    async def _chat_files(
        self,
        stage: str,
        chat: list[dict[str, str]],
        expected: list[Expect],
        d: _Draft,
        *,
        seed: int,
        require_any: bool,
        counted: str | None = None,
    ) -> dict[str, str]:
        """One call; its usage is counted under the chat stage `counted` (default: `stage`)."""
        usage = d.usage
        try:
            result = await self.llm().chat(
                chat, temperature=self.config.temperature, max_tokens=self.config.max_tokens, seed=seed
            )
        except LLMError as exc:
            raise LLMProposalError(Reason.LLM_ERROR, f"{stage}: {exc}", usage.model_copy()) from None
        usage.count(  # a cache hit spends nothing: the client bills it at 0
            counted or stage,
            tokens_in=result.tokens_in,
            tokens_out=result.tokens_out,
            cost_usd=result.cost_usd,
            cache_hit=result.cache_hit,
        )
        try:
            files = parse_reply(result.text, expected, finish_reason=result.finish_reason, require_any=require_any)
            if CONTRACTS_PATH in files:  # checked here, so that a wrong entry is re-asked like a parse error
                stated_contracts(files[CONTRACTS_PATH])
            return files
        except ReplyError as exc:
            raise UnusableReply(stage, chat, result.text, exc, expected, seed) from None

    def _proposal(self, parent: Task, parts: Parts, found: Discovery | None, seed: int, usage: Usage) -> Proposal:
        artifacts = [a.path for a in found.artifacts] if found else []
        child = build_child(parent, parts, artifacts)
        return Proposal(task=child, steps=[parts.theme], seed=seed, usage=usage.model_copy())


def make_llm_proposer(
    discovery: Discover | None = None,
    cache_dir: Path | str | None = None,
    *,
    llm: LLM | None = None,
    config: LLMProposerConfig | None = None,
    llm_config: LLMConfig | None = None,
    model: str | None = None,
    base_url: str | None = None,
    llm_config_file: Path | str | None = None,
    **options: object,
) -> LLMProposer:
    """The registry's factory. The endpoint comes from `llm_config`, else from `model`, `base_url`, an
    [llm] table in `llm_config_file` and RST_LLM_* variables (LLMConfig.from_sources), with responses
    cached under `cache_dir`; other keywords are LLMProposerConfig fields. ValueError on a bad option."""
    try:
        if config is None or options:
            config = LLMProposerConfig.model_validate({**(config.model_dump() if config else {}), **options})
    except ValidationError as exc:
        raise ValueError(f"llm proposer: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}") from None
    if llm is None and llm_config is None:
        llm_config = LLMConfig.of_endpoint(model, base_url, llm_config_file, cache_dir)
    return LLMProposer(discovery, llm, config, llm_config)
