"""The operator library; importing a module registers its operators."""

from rst_synth.proposers.procedural.operators import csv_ops  # noqa: F401
from rst_synth.proposers.procedural.operators import data_file_ops, data_ops  # noqa: F401
from rst_synth.proposers.procedural.operators import json_config_ops, text_json_ops  # noqa: F401
from rst_synth.proposers.procedural.operators import repo_ops, source_ops  # noqa: F401
