"""The one child assembly: a parent plus steps makes a child, and the steps come back out of it."""

from __future__ import annotations

import asyncio
import re
import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers import ProposalError
from rst_synth.proposers.child import Extension, NewStep, assemble_child, split_child, without_trailing_exit
from rst_synth.task import Task, TaskPaths
from rst_synth.validator import Reason
from tests.support.collect import collected_tests
from tests.support.fakes import touch_test
from tests.support.harbor_fixtures import OUTPUTS, SHAPES, fingerprint_replies, import_fixture
from tests.support.llm_proposer import FakeOpenAI, make_proposer_for
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


# --- The child's new checks run under the parent's test.sh, whatever its shape. ---


def marked_step(tag: str) -> NewStep:
    """A step whose one check has a name that says which step it belongs to."""
    return NewStep(
        name="mark",
        tag=tag,
        solution=f"touch /tmp/mark-{tag}",
        test_module=(
            f"from pathlib import Path\n\n\ndef test_mark_{tag}():\n    assert Path('/tmp/mark-{tag}').exists()\n"
        ),
        instruction=f"Create the empty file /tmp/mark-{tag}.",
    )


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_new_checks_are_collected_by_each_shape_of_test_sh(shape: str, tmp_path: Path) -> None:
    parent = import_fixture(shape)
    child = assemble_child(parent, Extension(steps=[marked_step("r1s1"), marked_step("r1s2")]), proposer="test")
    grandchild = assemble_child(child, Extension(steps=[marked_step("r2s1")]), proposer="test")
    collected = collected_tests(grandchild, tmp_path)
    # The parent's own checks still run, and after them each step's.
    assert collected[0].startswith("test_outputs.py::") and collected[-3:] == [
        "test_step_r1s1.py::test_mark_r1s1",
        "test_step_r1s2.py::test_mark_r1s2",
        "test_step_r2s1.py::test_mark_r2s1",
    ]
    # Only the command line changed: the reward logic is the parent's, and taking the child apart
    # gives the steps that assemble the same child again.
    changed = set(child.text(TaskPaths.TEST_SH).splitlines()) - set(parent.text(TaskPaths.TEST_SH).splitlines())
    assert all("pytest" in line and "test_step_r1s1.py" in line for line in changed)
    assert assemble_child(child, split_child(child, grandchild), proposer="test").files == grandchild.files


def test_the_collection_check_finds_a_verifier_that_was_not_realigned(tmp_path: Path) -> None:
    parent = import_fixture("named-file")
    child = assemble_child(parent, Extension(steps=[marked_step("r1s1")]), proposer="test")
    child.files[TaskPaths.TEST_SH] = parent.files[TaskPaths.TEST_SH]  # what the assembly did before
    assert "test_step_r1s1.py::test_mark_r1s1" not in collected_tests(child, tmp_path)


@pytest.mark.parametrize(
    "command, expected",
    [
        (
            'pytest -rA "$TEST_DIR/test_outputs.py"',
            'pytest -rA "$TEST_DIR/test_outputs.py" "$TEST_DIR/test_step_r1s1.py"',
        ),
        (
            "pytest /tests/test_outputs.py::test_greeting -x",
            "pytest /tests/test_outputs.py::test_greeting /tests/test_step_r1s1.py -x",
        ),
        ("cd /tests && py.test test_outputs.py", "cd /tests && py.test test_outputs.py test_step_r1s1.py"),
    ],
)
def test_the_new_module_is_spelled_like_the_one_the_command_names(command: str, expected: str, tmp_path: Path) -> None:
    parent = Task.load(write_task(tmp_path, test_sh=f"#!/bin/bash\n# pytest /tests/test_outputs.py\n{command}\n"))
    child = assemble_child(parent, Extension(steps=[marked_step("r1s1")]), proposer="test")
    assert child.text(TaskPaths.TEST_SH) == f"#!/bin/bash\n# pytest /tests/test_outputs.py\n{expected}\n"


def test_a_runner_script_that_test_sh_calls_is_realigned(tmp_path: Path) -> None:
    runner = "#!/bin/bash\npython3 -m pytest -rA $TEST_DIR/test_outputs.py\n"
    test_sh = (
        "#!/bin/bash\nexport TEST_DIR=/tests\n"
        "if bash $TEST_DIR/run-tests.sh; then echo 1 > /logs/verifier/reward.txt; fi\n"
    )
    parent = Task.load(write_task(tmp_path, test_sh=test_sh))
    parent.set_text("tests/run-tests.sh", runner, executable=True)
    child = assemble_child(parent, Extension(steps=[marked_step("r1s1")]), proposer="test")
    assert child.text(TaskPaths.TEST_SH) == test_sh
    assert child.text("tests/run-tests.sh").endswith("$TEST_DIR/test_outputs.py $TEST_DIR/test_step_r1s1.py\n")
    assert "test_step_r1s1.py::test_mark_r1s1" in collected_tests(child, tmp_path / "collect")


def test_a_verifier_that_runs_no_pytest_cannot_be_extended(tmp_path: Path) -> None:
    test_sh = "#!/bin/bash\n[ -f /app/out.txt ] && echo 1 > /logs/verifier/reward.txt\n"
    parent = Task.load(write_task(tmp_path, test_sh=test_sh))
    with pytest.raises(ProposalError) as caught:
        assemble_child(parent, Extension(steps=[marked_step("r1s1")]), proposer="test")
    assert caught.value.reason is Reason.VERIFIER_NOT_EXTENDABLE


def test_lines_appended_under_a_non_root_user_run_as_root_and_split_undoes_it(tmp_path: Path) -> None:
    parent = import_fixture("non-root-user")
    extension = Extension(steps=[marked_step("r1s1")], packages=["jq"], dockerfile_append="RUN jq --version")
    child = assemble_child(parent, extension, proposer="test")
    added = child.dockerfile.removeprefix(parent.dockerfile).splitlines()
    assert added[0] == "USER root" and added[-1] == "USER dev" and added[-2] == "RUN jq --version"
    back = split_child(parent, child)
    assert not back.dockerfile_append.startswith("USER")
    assert assemble_child(parent, back, proposer="test").files == child.files


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_llm_proposer_children_are_collected_by_each_shape(shape: str, tmp_path: Path) -> None:
    parent = import_fixture(shape)
    with FakeOpenAI() as server:
        server.responder = fingerprint_replies(OUTPUTS[shape])
        proposer = make_proposer_for(server, tmp_path / "cache")

        async def two_generations() -> tuple[Task, Task]:
            try:
                child = (await proposer.propose(parent, seed=1)).task
                return child, (await proposer.propose(child, seed=2)).task
            finally:
                await proposer.close()
                await proposer.llm().close()

        child, grandchild = asyncio.run(two_generations())
    assert child.files["tests/test_step_r1.py"] == grandchild.files["tests/test_step_r1.py"]
    assert collected_tests(grandchild, tmp_path / "grandchild")[-2:] == [
        "test_step_r1.py::test_fingerprint_of_output_r1",
        "test_step_r2.py::test_fingerprint_of_output_r2",
    ]
