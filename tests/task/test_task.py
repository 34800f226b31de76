from __future__ import annotations

import os
from pathlib import Path

import pytest

from rst_synth.task import Task, TaskFormatError, TaskPaths
from rst_synth.task.metrics import code_lines, executed_commands, solution_lines


def test_load_save_round_trip(task_factory) -> None:
    root = task_factory()
    (root / "environment" / "data.bin").write_bytes(bytes(range(256)))
    (root / "task.toml").write_text((root / "task.toml").read_text() + "[metadata.custom]\nkeep = true\n")
    task = Task.load(root)
    out = task.save(root.parent / "copy")
    again = Task.load(out)
    assert again.files == task.files
    assert again.instruction == task.instruction
    assert again.config == task.config
    assert again.config.metadata.model_dump()["custom"] == {"keep": True}
    assert os.access(out / TaskPaths.SOLVE, os.X_OK)
    assert again.environment_hash() == task.environment_hash()


def test_save_refuses_to_clobber_and_leaves_no_staging(task_factory) -> None:
    root = task_factory()
    task = Task.load(root)
    with pytest.raises(FileExistsError):
        task.save(root)
    task.save(root, overwrite=True)
    assert not [p for p in root.parent.iterdir() if p.name.startswith(".")]


def test_environment_hash_follows_build_context(task_factory) -> None:
    task = Task.load(task_factory())
    before = task.environment_hash()
    task.set_text("solution/solve.sh", "echo other\n")
    assert task.environment_hash() == before  # the solution is not in the build context
    task.set_text("environment/extra.txt", "x")
    assert task.environment_hash() != before


@pytest.mark.parametrize("missing", list(TaskPaths.REQUIRED))
def test_missing_required_file_names_it(task_factory, missing: str) -> None:
    root = task_factory()
    (root / missing).unlink()
    with pytest.raises(TaskFormatError) as info:
        Task.load(root)
    assert str(info.value) == f"{root / missing}: missing required file"


def test_bad_toml_names_file(task_factory) -> None:
    root = task_factory()
    (root / "task.toml").write_text("[task\n")
    with pytest.raises(TaskFormatError, match=r"task\.toml: invalid TOML"):
        Task.load(root)


def test_wrong_type_names_field(task_factory) -> None:
    root = task_factory(toml_extra="[environment]\ncpus = 'many'\n")
    with pytest.raises(TaskFormatError, match=r"task\.toml: \[environment\]\.cpus"):
        Task.load(root)


def test_non_utf8_instruction(task_factory) -> None:
    root = task_factory()
    (root / "instruction.md").write_bytes(b"\xff\xfe bad")
    with pytest.raises(TaskFormatError, match="instruction.md: not UTF-8 text"):
        Task.load(root)


def test_not_a_directory(tmp_path: Path) -> None:
    with pytest.raises(TaskFormatError, match="not a task directory"):
        Task.load(tmp_path / "nope")


def test_code_lines_and_solution_lines(task_factory) -> None:
    source = "#!/bin/bash\n# comment\n\necho a\n  # indented comment\ncat <<EOF\nbody\nEOF\n"
    assert code_lines(source) == 4
    root = task_factory(solve="echo hello > /app/out.txt\n")
    (root / "solution" / "helper.py").write_text("# doc\nprint(1)\n")
    assert solution_lines(Task.load(root)) == 3  # set -e, echo, print


def test_executed_commands_counts_trace_lines_of_every_depth() -> None:
    trace = "+ echo a\n++ date\n+ x=1\nmultiline string\n+++ nested\n"
    assert executed_commands(trace) == 4
