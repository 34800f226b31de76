from __future__ import annotations

import pytest

from rst_synth.task import TaskConfig, TaskFormatError

FULL = """\
schema_version = "1.4"
source = "somewhere"

[task]
name = "org/demo"
description = "demo"
keywords = ["a"]
future_field = 3

[metadata]
difficulty = "hard"
category = "x"
tags = ["t"]
author_email = "someone@example.org"

[metadata.lineage]
parent = "org/p"
round = 2
steps = ["s1"]

[metadata.metrics]
solution_lines = 12

[verifier]
timeout_sec = 30.0

[verifier.env]
FOO = "bar"

[agent]
timeout_sec = 90.0

[environment]
build_timeout_sec = 100.0
cpus = 2.0
memory_mb = 512
network_mode = "no-network"
gpus = 0
"""


def test_round_trip_keeps_unknown_fields() -> None:
    config = TaskConfig.from_toml(FULL)
    again = TaskConfig.from_toml(config.to_toml())
    assert again == config
    data = again.model_dump()
    assert data["source"] == "somewhere"
    assert data["task"]["future_field"] == 3
    assert data["metadata"]["author_email"] == "someone@example.org"
    assert data["verifier"]["env"] == {"FOO": "bar"}
    assert data["environment"]["gpus"] == 0
    assert again.metadata.lineage is not None and again.metadata.lineage.round == 2


def test_defaults_and_legacy_version_key() -> None:
    config = TaskConfig.from_toml('version = "1.0"\n')
    assert config.schema_version == "1.0"
    assert config.verifier.timeout_sec == 600.0
    assert config.environment.network_enabled is False


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[environment]\nnetwork_mode = "public"\n', True),
        ("[environment]\nallow_internet = true\n", True),
        ('[environment]\nnetwork_mode = "no-network"\nallow_internet = true\n', False),
        ("", False),
    ],
)
def test_network_policy(text: str, expected: bool) -> None:
    assert TaskConfig.from_toml(text).environment.network_enabled is expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[verifier]\ntimeout_sec = 'soon'\n", "[verifier].timeout_sec"),
        ("[verifier]\ntimeout_sec = -1\n", "[verifier].timeout_sec"),
        ("[environment]\nmemory_mb = 'lots'\n", "[environment].memory_mb"),
        ("[environment]\nnetwork_mode = 'sometimes'\n", "[environment].network_mode"),
        ("[task]\ndescription = 'no name'\n", "[task].name"),
        ("[metadata.lineage]\nround = 'two'\n", "[metadata.lineage].round"),
        ("[verifier\ntimeout_sec = 1\n", "invalid TOML"),
    ],
)
def test_malformed_config_is_one_line_naming_file_and_field(text: str, fragment: str) -> None:
    with pytest.raises(TaskFormatError) as info:
        TaskConfig.from_toml(text, "some/task.toml")
    message = str(info.value)
    assert message.startswith("some/task.toml: ")
    assert fragment in message
    assert "\n" not in message
