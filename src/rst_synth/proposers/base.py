"""The Proposer protocol: a parent task in, a candidate child out; and the proposers by name."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from rst_synth.registry import resolve
from rst_synth.task import Task
from rst_synth.validator import Reason, ValidationReport


class Usage(BaseModel):
    """What making a proposal cost; zero for offline proposers."""

    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    cached_calls: int = 0


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
