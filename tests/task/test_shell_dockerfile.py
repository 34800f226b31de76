"""The readers the importers and the child assembly share: verifier scripts and Dockerfiles."""

from __future__ import annotations

import pytest

from rst_synth.importers.offline import make_offline
from rst_synth.task.dockerfile import (
    apt_base,
    as_root,
    base_images,
    final_user,
    python_version_of,
    with_base,
    without_root_wrap,
)
from rst_synth.task.shell import commands, logical_lines

SCRIPT = """#!/bin/bash
# pytest /tests/commented.py
uvx \\
  -w pytest==8.4.1 \\
  pytest /tests/test_outputs.py
python3 - <<'PY'
print("pytest /tests/inside_heredoc.py")
PY
echo done
"""


def test_logical_lines_join_continuations_and_tell_code_from_comments_and_heredocs() -> None:
    lines = logical_lines(SCRIPT)
    assert [(line.number, line.code) for line in lines] == [
        (1, False),
        (2, False),
        (3, True),
        (6, True),
        (7, False),
        (8, False),
        (9, True),
    ]
    assert lines[2].joined == "uvx -w pytest==8.4.1 pytest /tests/test_outputs.py"
    assert SCRIPT[lines[2].start : lines[2].end] == lines[2].text


def test_commands_split_outside_quotes_and_keep_pipes() -> None:
    line = "apt-get update && curl -s x | sh; echo 'a && b' || true # trailing"
    assert commands(line) == [
        ("apt-get update", "&&"),
        ("curl -s x | sh", ";"),
        ("echo 'a && b'", "||"),
        ("true", ""),
    ]


def test_offline_rewrite_leaves_heredocs_and_control_flow_intact() -> None:
    script = (
        "#!/bin/bash\nif ! command -v uv; then\n  curl -LsSf https://astral.sh/uv/install.sh | sh\nfi\n"
        "python3 - <<'PY'\nimport subprocess  # uvx pytest inside a heredoc is data\nPY\n"
        "uvx --with pytest-json-ctrf pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py\n"
    )
    result = make_offline(script, {})
    assert result is not None
    assert result.requirements == ["pytest", "pytest-json-ctrf"]
    lines = result.script.splitlines()
    assert "  true" in lines and "fi" in lines  # the if block keeps a command
    assert "import subprocess  # uvx pytest inside a heredoc is data" in lines
    assert lines[-1] == "python3 -m pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py"
    assert make_offline("#!/bin/bash\npython3 -m pytest /tests\n", {}) is None  # nothing fetched


def test_base_images_final_user_and_the_root_wrap() -> None:
    dockerfile = "FROM golang:1.22 AS build\nFROM --platform=linux/amd64 ubuntu:24.04\nUSER app\n"
    assert base_images(dockerfile) == ["golang:1.22", "ubuntu:24.04"]
    assert with_base(dockerfile, "debian:bookworm-slim").splitlines()[:2] == [
        "FROM debian:bookworm-slim AS build",
        "FROM --platform=linux/amd64 debian:bookworm-slim",
    ]
    assert final_user(dockerfile) == "app" and final_user(dockerfile + "USER 0\n") is None
    wrapped = as_root(dockerfile, "RUN true\n")
    assert wrapped == "USER root\nRUN true\nUSER app\n"
    assert without_root_wrap(dockerfile, wrapped) == "RUN true\n"
    assert as_root("FROM debian\n", "RUN true\n") == "RUN true\n"


@pytest.mark.parametrize(
    "image, apt, python",
    [
        ("debian:bookworm-slim", True, "3.11"),
        ("python:3.13-slim-bookworm", False, "3.13"),
        ("ubuntu:22.04", True, "3.10"),
        ("alpine:3.20", False, "3.11"),
    ],
)
def test_what_the_base_image_name_tells(image: str, apt: bool, python: str) -> None:
    assert apt_base(f"FROM {image}\n") is apt
    assert python_version_of(f"FROM {image}\n") == python
