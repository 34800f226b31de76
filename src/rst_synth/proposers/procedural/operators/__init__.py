"""The operator library; importing a module registers its operators."""

from rst_synth.proposers.procedural.operators import (  # noqa: F401
    csv_ops,
    data_file_ops,
    data_ops,
    json_config_ops,
    repo_ops,
    source_ops,
    text_json_ops,
)
