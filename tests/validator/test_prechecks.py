"""Pre-container checks of a child's new steps: a command that does work, a test that asserts."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.proposers.child import Extension, NewStep, assemble_child
from rst_synth.task import Task
from rst_synth.validator import Reason, Verdict, static_check
from rst_synth.validator.prechecks import asserts_something, new_step_problem, runs_a_command
from tests.support.tasks import write_task

GOOD_TEST = 'from pathlib import Path\n\n\ndef test_made():\n    assert Path("/app/made").exists()\n'

# The shape a 1.5B model sent: the prompt's own rules echoed back as comments, plus `set`.
ECHOED_RULES = """\
set -euo pipefail
# 1. Build on what the parent's solution produced: read at least one of its outputs.
# 2. Write NEW files. Do not delete, move or change anything the parent's tests check.
# 3. Be deterministic: no dates, random values, host names, PIDs or network in any output.
:
"""


@pytest.mark.parametrize(
    "script",
    [
        ECHOED_RULES,
        "",
        "\n   \n",
        "path=solution/steps.sh\n",
        "export LC_ALL=C\nshopt -s nullglob\ntrue\nexit 0\n",
        "set -e  # strict\n",
    ],
)
def test_scripts_that_run_nothing(script: str) -> None:
    assert not runs_a_command(script)


@pytest.mark.parametrize(
    "script",
    [
        ECHOED_RULES + "touch /app/made\n",
        "count=$(wc -l < /app/out.txt)\n",
        ": > /app/empty.txt\n",
        "set -e; cp /app/a /app/b\n",
        "mkdir -p /app/report\n",
    ],
)
def test_scripts_that_do_work(script: str) -> None:
    assert runs_a_command(script)


@pytest.mark.parametrize(
    "source, asserts",
    [
        (GOOD_TEST, True),
        ("import pytest\n\ndef test_x():\n    with pytest.raises(ValueError):\n        int('x')\n", True),
        ("class T:\n    def test_x(self):\n        self.assertEqual(1, 1)\n", True),
        ("from pathlib import Path\n\ndef test_made():\n    Path('/app/made').read_text()\n", False),
        ("# tests/test_step_r1.py\nimport re\n", False),
        ("def test_x(:\n", True),  # the compile check reports it, not this one
    ],
)
def test_assertions(source: str, asserts: bool) -> None:
    assert asserts_something(source) is asserts


def child_of(tmp_path: Path, steps: str, test_module: str) -> tuple[Task, Task]:
    parent = Task.load(write_task(tmp_path / "tasks"))
    step = NewStep(name="reporting", tag="r1", solution=steps, test_module=test_module, instruction="Make it.")
    return parent, assemble_child(parent, Extension(steps=[step]), proposer="test")


def test_a_child_whose_steps_are_comments_fails_static_with_its_own_reason(tmp_path: Path) -> None:
    parent, child = child_of(tmp_path, ECHOED_RULES, GOOD_TEST)
    result = static_check(child)
    assert result.verdict is Verdict.FAIL and result.reason is Reason.NO_NEW_COMMAND
    assert "solution/solve.sh lines" in result.detail and "step r1" in result.detail
    assert static_check(parent).passed  # a seed records no added steps: nothing to judge


def test_a_child_whose_tests_assert_nothing_fails_static_with_its_own_reason(tmp_path: Path) -> None:
    _, child = child_of(tmp_path, "touch /app/made\n", "from pathlib import Path\n\ndef test_made():\n    Path('/x')\n")
    result = static_check(child)
    assert result.verdict is Verdict.FAIL and result.reason is Reason.NO_ASSERTION
    assert result.detail.startswith("tests/test_step_r1.py (step r1)")


def test_a_child_with_work_and_assertions_passes(tmp_path: Path) -> None:
    _, child = child_of(tmp_path, ECHOED_RULES + "touch /app/made\n", GOOD_TEST)
    assert new_step_problem(child) is None and static_check(child).passed
