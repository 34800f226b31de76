"""Proposers: make a candidate child from a parent task (procedural offline, llm), and what they
share: artifact discovery and the one child assembly."""

from rst_synth.proposers.base import (
    PROPOSERS,
    Proposal,
    ProposalError,
    Proposer,
    Usage,
    make_proposer,
)

__all__ = ["PROPOSERS", "Proposal", "ProposalError", "Proposer", "Usage", "make_proposer"]
