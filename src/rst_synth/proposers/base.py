"""The Proposer protocol: a parent task in, a candidate child out; and the proposers by name."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from rst_synth.registry import resolve
from rst_synth.task import Task
from rst_synth.validator import Reason, ValidationReport


class ChatTokens(BaseModel):
    """The model calls of one chat stage and the tokens they spent (cache hits spend none)."""

    calls: int = 0
    tokens_in: int = 0
    """Prompt tokens."""
    tokens_out: int = 0
    """Completion tokens."""


class Usage(BaseModel):
    """What making a proposal cost; zero for offline proposers."""

    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    cached_calls: int = 0
    chat_stages: dict[str, ChatTokens] = Field(default_factory=dict)
    """The same calls by the chat stage that made them (the llm proposer's templates: extend,
    realign_tests, realign_instruction, repair, reask, second_solution)."""

    def count(self, stage: str, *, tokens_in: int, tokens_out: int, cost_usd: float, cache_hit: bool) -> None:
        """Add one model call of chat stage `stage`; a cache hit counts as a call that spent nothing."""
        spent = not cache_hit
        self.calls += 1
        self.cached_calls += cache_hit
        self.tokens_in += tokens_in * spent
        self.tokens_out += tokens_out * spent
        self.cost_usd += cost_usd * spent
        chat = self.chat_stages.get(stage, ChatTokens())
        added = ChatTokens(
            calls=chat.calls + 1,
            tokens_in=chat.tokens_in + tokens_in * spent,
            tokens_out=chat.tokens_out + tokens_out * spent,
        )
        # A new dict, never one changed in place: the copies taken along the way (model_copy is
        # shallow) must keep what they counted, as their int fields do.
        self.chat_stages = {**self.chat_stages, stage: added}

    def since(self, paid: Usage) -> Usage:
        """What this usage adds to `paid`, an earlier copy of the same running total."""
        stages = {}
        for stage, chat in self.chat_stages.items():
            before = paid.chat_stages.get(stage, ChatTokens())
            added = ChatTokens(
                calls=chat.calls - before.calls,
                tokens_in=chat.tokens_in - before.tokens_in,
                tokens_out=chat.tokens_out - before.tokens_out,
            )
            if added.calls:
                stages[stage] = added
        return Usage(
            tokens_in=self.tokens_in - paid.tokens_in,
            tokens_out=self.tokens_out - paid.tokens_out,
            cost_usd=self.cost_usd - paid.cost_usd,
            calls=self.calls - paid.calls,
            cached_calls=self.cached_calls - paid.cached_calls,
            chat_stages=stages,
        )


class ProposalError(RuntimeError):
    """No candidate could be made (nothing applies, malformed model reply, ...)."""

    def __init__(
        self,
        reason: Reason,
        detail: str = "",
        usage: Usage | None = None,
        retry: Callable[[int], Awaitable[Proposal]] | None = None,
    ) -> None:
        super().__init__(f"{reason.value}: {detail}" if detail else reason.value)
        self.reason = reason
        self.detail = detail
        self.usage = usage
        """What the failed attempt cost (model calls already paid for)."""
        self.retry = retry
        """Another try the proposer offers (the llm proposer: a re-ask quoting a malformed reply's
        error): `await retry(attempt)` makes the proposal; the pipeline spends a repair attempt on it."""


class Proposal(BaseModel):
    """A candidate child, not yet validated."""

    model_config = {"arbitrary_types_allowed": True}

    task: Task
    steps: list[str] = Field(default_factory=list)
    """Names of the steps added to the parent's workflow."""
    seed: int = 0
    """The seed it was drawn with (repairs derive theirs from it)."""
    usage: Usage = Field(default_factory=Usage)
    """What this candidate has cost so far, earlier attempts that a repair started from included."""


@runtime_checkable
class Proposer(Protocol):
    name: str

    async def propose(self, parent: Task, *, seed: int) -> Proposal:
        """Extend `parent` into a candidate child; the same seed gives the same child."""
        ...

    async def repair(self, parent: Task, rejected: Proposal, report: ValidationReport, *, attempt: int) -> Proposal:
        """A corrected candidate given the validator's rejection of `rejected`."""
        ...

    async def close(self) -> None:
        """Release what the proposer holds (an HTTP client, ...); safe to call twice."""
        ...


PROPOSERS: dict[str, str] = {
    "procedural": "rst_synth.proposers.procedural.proposer:make_procedural",
    "llm": "rst_synth.proposers.llm.proposer:make_llm_proposer",
}
"""Built-in proposers by short name; `make_proposer` also takes any dotted path `package.module:factory`.
A factory takes `discovery=` (a `proposers.discovery.Discover`: the executor's, so that the parent's
solution runs wherever container work runs; it may be None), `cache_dir=` (where it may cache paid
work) and its own options as keywords, resolves them itself, and raises ValueError (one line) on a bad
option."""


def make_proposer(name: str, *, discovery: Any = None, cache_dir: Any = None, **options: Any) -> Proposer:
    """A proposer by short name or dotted path, its options resolved by its own factory."""
    proposer: Proposer = resolve("proposer", name, PROPOSERS)(discovery=discovery, cache_dir=cache_dir, **options)
    return proposer
