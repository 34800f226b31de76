"""The operator library, whole: importing this module imports every module of operators/, each of
which registers its operators (operator.py's `register`). Whoever needs the whole library asks here,
so operator.py never imports the package that imports it."""

from __future__ import annotations

import rst_synth.proposers.procedural.operators  # noqa: F401  (registers every operator)
from rst_synth.proposers.procedural.operator import OPERATORS

__all__ = ["OPERATORS", "bookkeeping_operators", "final_operators"]


def final_operators() -> frozenset[str]:
    """Names of the operators whose outputs no later step builds on: bookkeeping and summaries."""
    return frozenset(name for name, op in OPERATORS.items() if op.bookkeeping or op.final)


def bookkeeping_operators() -> frozenset[str]:
    """Names of the bookkeeping operators of the whole library (for statistics over stored steps)."""
    return frozenset(name for name, op in OPERATORS.items() if op.bookkeeping)
