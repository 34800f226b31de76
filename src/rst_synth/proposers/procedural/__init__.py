"""The procedural proposer: artifact discovery, a library of step operators, child assembly."""

from rst_synth.proposers.procedural.proposer import ProceduralConfig, ProceduralProposer

__all__ = ["ProceduralConfig", "ProceduralProposer"]
