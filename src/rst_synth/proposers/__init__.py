"""Proposers: make a candidate child from a parent task (procedural offline, llm)."""

from rst_synth.proposers.base import (
    PROPOSERS,
    Proposal,
    ProposalError,
    Proposer,
    Usage,
    make_proposer,
    register_proposer,
)

__all__ = ["PROPOSERS", "Proposal", "ProposalError", "Proposer", "Usage", "make_proposer", "register_proposer"]
