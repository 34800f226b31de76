"""The Proposer protocol: a parent task in, a candidate child out; and a registry by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from rst_synth.task import Task
from rst_synth.validator import ValidationReport


class ProposalError(RuntimeError):
    """No candidate could be made (nothing applies, malformed model reply, ...)."""

    def __init__(self, reason: str, detail: str = "", usage: Usage | None = None) -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail
        self.usage = usage
        """What the failed attempt cost (model calls already paid for)."""


class Usage(BaseModel):
    """What making a proposal cost; zero for offline proposers."""

    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    cached_calls: int = 0


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


PROPOSERS: dict[str, Callable[..., Proposer]] = {}
"""Proposer factories by short name; each takes keyword options (e.g. `sandbox=`)."""


def register_proposer(name: str) -> Callable[[Callable[..., Proposer]], Callable[..., Proposer]]:
    def add(factory: Callable[..., Proposer]) -> Callable[..., Proposer]:
        PROPOSERS[name] = factory
        return factory

    return add


def make_proposer(name: str, **options: Any) -> Proposer:
    _load_builtin()
    try:
        factory = PROPOSERS[name]
    except KeyError:
        raise ValueError(f"unknown proposer {name!r}; known: {', '.join(sorted(PROPOSERS))}") from None
    return factory(**options)


def _load_builtin() -> None:
    # Importing registers them; kept lazy so `task` and `validator` users pay nothing.
    import rst_synth.proposers.llm  # noqa: F401
    import rst_synth.proposers.procedural  # noqa: F401
