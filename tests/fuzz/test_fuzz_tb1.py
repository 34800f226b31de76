"""The Terminal-Bench 1 importer on random and mutated task directories: a Task in the Harbor
layout, or one TaskFormatError line naming the file at fault."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from rst_synth.importers.tb1 import convert_tb1
from rst_synth.task import TaskFormatError
from rst_synth.validator.static import static_check
from tests.fuzz.strategies import FUZZ, bytes_or_mutated, one_line, text_or_mutated
from tests.importers.test_tb1 import COMPOSE, OFFLINE_RUN_TESTS, TB1_YAML, UV_RUN_TESTS, write_tb1


@FUZZ
@given(
    bytes_or_mutated(TB1_YAML),
    st.one_of(st.none(), text_or_mutated(COMPOSE)),
    st.one_of(st.none(), bytes_or_mutated("#!/bin/bash\necho hello > /app/out.txt\n")),
    st.one_of(text_or_mutated(OFFLINE_RUN_TESTS), text_or_mutated(UV_RUN_TESTS)),
)
@example(  # a "billion laughs": nine lines that stand for 10**9 values
    ("instruction: hi\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9))).encode(),
    None, None, OFFLINE_RUN_TESTS,
)  # fmt: skip
@example(TB1_YAML.encode(), COMPOSE, b"\x80\xff not UTF-8", OFFLINE_RUN_TESTS)
def test_convert_tb1(task_yaml: bytes, compose: str | None, solution: bytes | None, run_tests: str) -> None:
    root = Path(tempfile.mkdtemp(prefix="rst-fuzz-"))
    try:
        src = write_tb1(root, compose=compose, solution=None, run_tests=run_tests)
        (src / "task.yaml").write_bytes(task_yaml)
        if solution is not None:
            (src / "solution.sh").write_bytes(solution)
        try:
            task = convert_tb1(src)
        except TaskFormatError as exc:
            assert one_line(str(exc)), repr(str(exc))
            return
        assert task.name.startswith("tb1/")
        result = static_check(task)
        assert result.detail == "" or one_line(result.detail), repr(result.detail)
    finally:
        shutil.rmtree(root)
