"""The operator library; importing a module registers its operators."""

from rst_synth.proposers.procedural.operators import csv_ops  # noqa: F401
