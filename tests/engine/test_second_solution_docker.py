"""The second solution's trial on the real engine (validator/second.py): the parent's solve.sh, then
the second steps, then the child's tests, in a fresh container of the child's image. The model's
call is a writer in the test: what is shown here is the trial."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.engine import SecondSolutionCheck
from rst_synth.engine.checks import Finding
from rst_synth.proposers import Usage
from rst_synth.proposers.llm import Parts, build_child
from rst_synth.proposers.llm.second import SecondSolution
from rst_synth.sandbox import Sandbox
from rst_synth.task import Task
from rst_synth.validator import Check, Reason, ValidationReport, Verdict
from rst_synth.validator.second import sandbox_trial
from tests.support.docker import run_async
from tests.support.tasks import write_task

pytestmark = pytest.mark.docker

STEPS = "tr 'a-z' 'A-Z' < /app/out.txt > /app/shout.txt\n"
TESTS = (
    "from pathlib import Path\n\n\n"
    "def test_shout():\n"
    '    assert Path("/app/shout.txt").read_text() == Path("/app/out.txt").read_text().upper()\n'
)
ADDENDUM = "Then write `/app/shout.txt`: the content of `/app/out.txt` in upper case.\n"


class Written:
    """A writer that answers with fixed steps."""

    def __init__(self, steps: str) -> None:
        self.steps = steps

    async def write(self, parent: Task, child: Task) -> SecondSolution:
        return SecondSolution(steps=self.steps, usage=Usage(calls=1))


@pytest.mark.parametrize(
    "steps, verdict",
    [
        ("sed 's/.*/\\U&/' /app/out.txt > /app/shout.txt\n", Verdict.PASS),  # another way, the same result
        ("cp /app/out.txt /app/shout.txt\n", Verdict.FAIL),  # not in upper case
    ],
)
def test_the_second_steps_run_after_the_parents_solution_then_the_childs_tests(
    tmp_path: Path, steps: str, verdict: Verdict
) -> None:
    parent = Task.load(write_task(tmp_path / "tasks"))
    child = build_child(parent, Parts(theme="reporting", tag="r1", steps=STEPS, tests=TESTS, addendum=ADDENDUM))

    async def work(sandbox: Sandbox) -> Finding:
        check = SecondSolutionCheck(Written(steps), sandbox_trial(sandbox))
        return await check.judge(child, parent, ValidationReport(task=child.name))

    result = run_async(work).result
    assert (result.check, result.verdict, result.steps) == (Check.SECOND_SOLUTION, verdict, steps)
    if verdict is Verdict.FAIL:
        assert result.reason is Reason.SECOND_SOLUTION_FAILED and "test_shout" in result.output_tail
