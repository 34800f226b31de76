"""The operator library; importing a module registers its operators."""

from rst_synth.proposers.procedural.operators import (  # noqa: F401
    build_ops,
    config_tool_ops,
    csv_ops,
    data_file_ops,
    data_ops,
    defect_ops,
    feed_ops,
    fold_ops,
    git_history_ops,
    git_tool_ops,
    json_config_ops,
    policy_ops,
    repo_ops,
    schedule_ops,
    service_ops,
    source_ops,
    sql_ops,
    text_json_ops,
    text_tool_ops,
    tool_ops,
)
