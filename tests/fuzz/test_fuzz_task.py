"""task.toml and instruction.md from anyone: a Task, or one TaskFormatError line; the static check
on whatever loads gives a verdict, never an exception."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import example, given

from rst_synth.task import Task, TaskConfig, TaskFormatError
from rst_synth.validator.static import static_check
from tests.fuzz.strategies import FUZZ, bytes_or_mutated, one_line, text_or_mutated
from tests.support.tasks import SEEDS, write_task

SEED = SEEDS / "sales-csv-rollup"
TOML = (SEED / "task.toml").read_text()
INSTRUCTION = (SEED / "instruction.md").read_text()


@FUZZ
@given(text_or_mutated(TOML))
@example("a = " + "[" * 5000 + "]" * 5000)  # nested past the recursion limit
@example("[agent]\ntimeout_sec = nan\n[verifier]\ntimeout_sec = inf\n")
def test_task_toml_text(text: str) -> None:
    try:
        config = TaskConfig.from_toml(text)
    except TaskFormatError as exc:
        assert one_line(str(exc)), repr(str(exc))
        return
    again = TaskConfig.from_toml(config.to_toml())  # what loads also saves, and loads again
    assert again.task == config.task


@FUZZ
@given(bytes_or_mutated(TOML), bytes_or_mutated(INSTRUCTION))
def test_task_directory_with_any_task_toml_and_instruction(toml: bytes, instruction: bytes) -> None:
    root = Path(tempfile.mkdtemp(prefix="rst-fuzz-"))
    try:
        task_dir = write_task(root, name="fuzzed")
        (task_dir / "task.toml").write_bytes(toml)
        (task_dir / "instruction.md").write_bytes(instruction)
        try:
            task = Task.load(task_dir)
        except TaskFormatError as exc:
            assert one_line(str(exc)), repr(str(exc))
            return
        result = static_check(task)
        assert result.detail == "" or one_line(result.detail), repr(result.detail)
        task.save(root / "saved")
        assert Task.load(root / "saved").instruction == task.instruction
    finally:
        shutil.rmtree(root)
