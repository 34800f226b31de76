"""The one child assembly: a parent plus steps makes a child, and the steps come back out of it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers.child import Extension, NewStep, assemble_child, split_child, without_trailing_exit
from rst_synth.task import Task
from tests.support.fakes import touch_test
from tests.support.tasks import REPO, write_task


def two_steps() -> Extension:
    return Extension(
        steps=[
            NewStep(
                name="count",
                tag="r1s1",
                consumes=["/app/out.txt"],
                solution="wc -l /app/out.txt > /app/n\n",
                test_module=touch_test("/app/n"),
                instruction="Count the lines of /app/out.txt into /app/n.",
            ),
            NewStep(
                name="copy",
                tag="r1s2",
                consumes=["/app/n"],
                solution="cp /app/n /app/m\nchmod 600 /app/m",
                test_module=touch_test("/app/m"),
                instruction="Copy /app/n to /app/m.\n\nMode 600.",
            ),
        ],
        packages=["jq"],
        dockerfile_append="ENV X=1",
    )


def test_assembly_appends_steps_and_records_where_they_are(tmp_path: Path) -> None:
    parent = Task.load(write_task(tmp_path, solve="echo hello > /app/out.txt\nexit 0\n"))
    child = assemble_child(parent, two_steps(), proposer="test")
    solve = child.solve_sh
    assert "exit 0" not in solve  # the parent's exit would skip the new steps
    lineage = child.config.metadata.lineage
    assert lineage is not None and lineage.round == 1 and lineage.parent == parent.name
    assert lineage.steps == ["count", "copy"]
    first, second = lineage.added
    lines = solve.splitlines()
    assert lines[second.solution_lines[0] - 1 : second.solution_lines[1]] == ["cp /app/n /app/m", "chmod 600 /app/m"]
    assert (
        child.instruction.splitlines()[first.instruction_lines[0] - 1] == "Count the lines of /app/out.txt into /app/n."
    )
    assert child.text("tests/test_step_r1s2.py") == touch_test("/app/m")
    assert child.dockerfile.endswith("jq && rm -rf /var/lib/apt/lists/*\nENV X=1\n")
    assert child.config.metadata.difficulty is None and child.config.metadata.metrics is None


def test_split_is_the_inverse_of_assembly(tmp_path: Path) -> None:
    parent = Task.load(write_task(tmp_path))
    extension = two_steps()
    child = assemble_child(parent, extension, proposer="test")
    back = split_child(parent, child)
    assert [s.model_dump() for s in back.steps] == [
        s.model_copy(
            update={"solution": s.solution.strip("\n") + "\n", "instruction": s.instruction.strip("\n") + "\n"}
        ).model_dump()
        for s in extension.steps
    ]
    assert assemble_child(parent, back, proposer="test").files == child.files


def test_split_reads_the_records_not_the_comments(tmp_path: Path) -> None:
    """Rewording the step headers in solve.sh changes nothing: boundaries are data in task.toml."""
    parent = Task.load(write_task(tmp_path))
    child = assemble_child(parent, two_steps(), proposer="test")
    child.set_text("solution/solve.sh", re.sub(r"# --- step .*", "# (reworded)", child.solve_sh))
    saved = Task.load(child.save(tmp_path / "child"))
    assert [s.solution for s in split_child(parent, saved).steps] == [
        "wc -l /app/out.txt > /app/n\n",
        "cp /app/n /app/m\nchmod 600 /app/m\n",
    ]


def test_split_of_a_task_without_records_says_so(tmp_path: Path) -> None:
    parent = Task.load(write_task(tmp_path))
    with pytest.raises(ValueError, match="records no added steps"):
        split_child(parent, parent)


@pytest.mark.parametrize(
    "script, expected", [("a\nexit 0\n", "a\n"), ("a\nexit\n\n", "a\n"), ("a\nexit 1\n", "a\nexit 1\n"), ("a\n", "a\n")]
)
def test_without_trailing_exit(script: str, expected: str) -> None:
    assert without_trailing_exit(script) == expected


def test_no_proposer_backend_imports_another() -> None:
    """The llm and procedural proposers share only what lives beside them (child, discovery, artifacts)."""
    src = REPO / "src" / "rst_synth" / "proposers"
    found = subprocess.run(
        ["grep", "-rnE", r"rst_synth\.proposers\.(procedural|llm)", str(src / "llm"), str(src / "procedural")],
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    crossing = [
        line
        for line in found
        if ("/llm/" in line and "proposers.procedural" in line) or ("/procedural/" in line and "proposers.llm" in line)
    ]
    assert not crossing
