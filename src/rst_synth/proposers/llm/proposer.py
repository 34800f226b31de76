"""The llm proposer: extend, realign the tests, realign the instruction (three chat calls), repair.

Every call passes the proposal's seed to the model (and so to the response cache): the same
parent and seed give the same prompts, so a repeated proposal is answered from the cache.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, Field

from rst_synth.llm import LLM, LLMConfig, LLMError, make_llm
from rst_synth.proposers.base import Proposal, ProposalError, Usage, register_proposer
from rst_synth.proposers.llm.child import NAME, Parts, build_child, parts_of
from rst_synth.proposers.llm.parse import Expect, parse_reply
from rst_synth.proposers.llm.prompts import (
    ADDENDUM_PATH,
    DOCKERFILE_APPEND_PATH,
    STEPS_PATH,
    THEMES,
    PromptBudgets,
    candidate_context,
    environment,
    messages,
    parent_context,
    rejection_context,
)
from rst_synth.proposers.procedural.assemble import _TRAILING_EXIT
from rst_synth.proposers.procedural.discovery import Discovery, DiscoveryCache
from rst_synth.sandbox import Sandbox
from rst_synth.task import Task
from rst_synth.validator import ValidationReport

REPAIR_HINTS: dict[str, str] = {
    "parent_solution_passes": "the parent's solution alone already passes the new tests, so they check nothing the "
                              "new steps add: test the files or contents that only the new steps create",
    "tests_pass_without_work": "the tests pass on the untouched image: every test must read outputs the work creates",
    "tests_failed": "after the parent's solution and the new steps, some test failed: read the output, then fix the "
                    "steps if they crash or compute something else, or the tests if they expect something the "
                    "instruction does not state or compute it wrongly; the parent's tests must still pass",
    "no_reward_file": "the verifier wrote no reward: the steps may have broken /logs or the test run itself",
    "solution_timeout": "the solution did not finish in time: no waiting for input, no servers in the foreground, "
                        "no long loops",
    "nondeterministic": "two oracle runs disagreed: remove dates, random values, unstable ordering from the outputs",
    "bash_syntax": "solve.sh is not valid bash",
    "tests_do_not_compile": "the test module is not valid Python",
    "solution_in_instruction": "the instruction repeats a line of the solution verbatim: describe the result in "
                               "prose instead of quoting the script",
    "build_failed": "the image no longer builds: fix or drop the appended Dockerfile lines (packages that exist, "
                    "installed non-interactively)",
    "build_timeout": "the image build took too long: install fewer packages",
    "dockerfile_copies_solution": "the Dockerfile must never COPY solution/ into the image",
    "dockerfile_copies_tests": "the Dockerfile must never COPY tests/ into the image",
}


class LLMProposalError(ProposalError):
    """A ProposalError that carries what the calls made before it cost."""

    def __init__(self, reason: str, detail: str, usage: Usage) -> None:
        super().__init__(reason, detail, usage)  # the base class carries the usage


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
    """Run the parent's solution once to list what it produced (needs the sandbox)."""


class LLMProposer:
    """The paper's method: an OpenAI-compatible model writes each step, the validator judges it."""

    name = NAME

    def __init__(self, sandbox: Sandbox | None, llm: LLM | None = None, config: LLMProposerConfig | None = None,
                 llm_config: LLMConfig | None = None) -> None:
        self.sandbox = sandbox
        self.config = config or LLMProposerConfig()
        self._llm = llm
        self._owns_llm = llm is None
        self._llm_config = llm_config
        self._env = environment()
        self._discoveries = DiscoveryCache()

    def llm(self) -> LLM:
        """The client, made on first use from `llm_config` (default: RST_LLM_* and the [llm] defaults)."""
        if self._llm is None:
            try:
                self._llm = make_llm(self._llm_config or LLMConfig.from_sources())
            except (LLMError, ValueError) as exc:
                raise ProposalError("llm_error", str(exc)) from None
        return self._llm

    async def close(self) -> None:
        """Close the client if this proposer made it."""
        if self._owns_llm and self._llm is not None:
            await self._llm.close()
            self._llm = None

    def theme(self, parent: Task, seed: int) -> str:
        return random.Random(f"{seed}:{parent.name}").choice(self.config.themes)

    async def discovery(self, parent: Task) -> Discovery | None:
        """The parent's artifacts, discovered once per distinct parent; None without a sandbox."""
        if self.sandbox is None or not self.config.discover:
            return None
        return await self._discoveries.get(self.sandbox, parent)

    async def propose(self, parent: Task, *, seed: int) -> Proposal:
        usage = Usage()
        found = await self.discovery(parent)
        base = parent_context(parent, found, self.config.budgets, self.theme(parent, seed))
        budgets = self.config.budgets

        first = await self._ask("extend", base, [Expect(STEPS_PATH, "bash", accept=("solution/*.sh",)),
                                                 Expect(DOCKERFILE_APPEND_PATH, "dockerfile", required=False)],
                                seed=seed, usage=usage)
        steps, docker = _without_prefix(first[STEPS_PATH], parent.solve_sh), first.get(DOCKERFILE_APPEND_PATH, "")

        context = {**base, **candidate_context(budgets, steps=steps, dockerfile_append=docker)}
        test_expect = Expect(base["test_path"], "python", accept=("tests/test_*.py", "test_*.py"))
        tests = (await self._ask("realign_tests", context, [test_expect], seed=seed, usage=usage))[base["test_path"]]

        context = {**base, **candidate_context(budgets, steps=steps, tests=tests, dockerfile_append=docker)}
        addendum = (await self._ask("realign_instruction", context,
                                    [Expect(ADDENDUM_PATH, "markdown", accept=("*.md",))],
                                    seed=seed, usage=usage))[ADDENDUM_PATH]
        addendum = _without_prefix(addendum, parent.instruction)

        parts = Parts(theme=base["theme"], tag=base["tag"], steps=steps, tests=tests, addendum=addendum,
                      dockerfile_append=docker)
        return self._proposal(parent, parts, found, seed, usage)

    async def repair(self, parent: Task, rejected: Proposal, report: ValidationReport, *, attempt: int) -> Proposal:
        """One call showing the rejected candidate and why; files the reply leaves out stay as they were."""
        usage = rejected.usage.model_copy()
        found = await self.discovery(parent)
        parts = parts_of(parent, rejected.task)
        budgets = self.config.budgets
        base = {**parent_context(parent, found, budgets, parts.theme), "tag": parts.tag, "test_path": parts.test_path}
        failure = report.first_failure
        reason = failure.reason.value if failure else "rejected"
        context = {
            **base,
            **candidate_context(budgets, steps=parts.steps, tests=parts.tests, addendum=parts.addendum,
                                dockerfile_append=parts.dockerfile_append),
            **rejection_context(budgets, check=failure.check.value if failure else "unknown", reason=reason,
                                detail=failure.detail if failure else "", attempt=attempt,
                                output_tail=failure.output_tail if failure else "",
                                hint=REPAIR_HINTS.get(reason, "")),
        }
        expected = [Expect(STEPS_PATH, "bash", required=False, accept=("solution/*.sh",)),
                    Expect(parts.test_path, "python", required=False, accept=("tests/test_*.py", "test_*.py")),
                    Expect(ADDENDUM_PATH, "markdown", required=False, accept=("*.md",)),
                    Expect(DOCKERFILE_APPEND_PATH, "dockerfile", required=False)]
        files = await self._ask("repair", context, expected, seed=rejected.seed * 1000 + attempt, usage=usage,
                                require_any=True)
        fixed = parts.model_copy(update={
            "steps": _without_prefix(files.get(STEPS_PATH, parts.steps), parent.solve_sh),
            "tests": files.get(parts.test_path, parts.tests),
            "addendum": _without_prefix(files.get(ADDENDUM_PATH, parts.addendum), parent.instruction),
            "dockerfile_append": files.get(DOCKERFILE_APPEND_PATH, parts.dockerfile_append),
        })
        return self._proposal(parent, fixed, found, rejected.seed, usage)

    def _proposal(self, parent: Task, parts: Parts, found: Discovery | None, seed: int, usage: Usage) -> Proposal:
        artifacts = [a.path for a in found.artifacts] if found else []
        child = build_child(parent, parts, artifacts)
        return Proposal(task=child, steps=[parts.theme], seed=seed, usage=usage)

    async def _ask(self, stage: str, context: dict[str, Any], expected: list[Expect], *, seed: int, usage: Usage,
                   require_any: bool = False) -> dict[str, str]:
        """One chat call of `stage`, its cost added to `usage`, its reply parsed into files."""
        chat = messages(self._env, stage, context)
        try:
            result = await self.llm().chat(chat, temperature=self.config.temperature,
                                           max_tokens=self.config.max_tokens, seed=seed)
        except LLMError as exc:
            raise LLMProposalError("llm_error", f"{stage}: {exc}", usage) from None
        usage.calls += 1
        if result.cache_hit:
            usage.cached_calls += 1  # nothing spent: the client bills cache hits at 0
        else:
            usage.tokens_in += result.tokens_in
            usage.tokens_out += result.tokens_out
            usage.cost_usd += result.cost_usd
        try:
            return parse_reply(result.text, expected, finish_reason=result.finish_reason, require_any=require_any)
        except ProposalError as exc:
            raise LLMProposalError(exc.reason, f"{stage}: {exc.detail}", usage) from None


def _without_prefix(text: str, parent_text: str) -> str:
    """`text` without the parent's own text in front: a model that repeats the whole solve.sh (or the
    whole instruction) instead of only the new part would otherwise run the parent's work twice."""
    body, prefix = text.strip(), _TRAILING_EXIT.sub("", parent_text.strip()).strip()
    if prefix and body.startswith(prefix):
        rest = body[len(prefix):].strip("\n")
        return rest + "\n" if rest.strip() else text
    return text


@register_proposer(NAME)
def _factory(sandbox: Sandbox | None = None, llm: LLM | None = None, config: LLMProposerConfig | None = None,
             llm_config: LLMConfig | None = None, **options: object) -> LLMProposer:
    """`make_proposer("llm", sandbox=..., llm=..., config=...)`; other keywords are LLMProposerConfig fields."""
    if config is None or options:
        config = LLMProposerConfig.model_validate({**(config.model_dump() if config else {}), **options})
    return LLMProposer(sandbox, llm, config, llm_config)
