from __future__ import annotations

import pytest

from rst_synth.task import Task
from rst_synth.validator import Reason, Verdict, static_check


def _static(task_factory, **kwargs) -> tuple[Verdict, Reason, str]:
    result = static_check(Task.load(task_factory(**kwargs)))
    return result.verdict, result.reason, result.detail


def test_good_task_passes(task_factory) -> None:
    assert _static(task_factory)[:2] == (Verdict.PASS, Reason.OK)


@pytest.mark.parametrize(
    ("kwargs", "reason", "names"),
    [
        ({"solve": "if then fi\n"}, Reason.BASH_SYNTAX, "solution/solve.sh"),
        ({"test_sh": "for x in; do\n"}, Reason.BASH_SYNTAX, "tests/test.sh"),
        ({"tests": {"test_a.py": "def test(:\n"}}, Reason.TESTS_DO_NOT_COMPILE, "tests/test_a.py"),
        ({"tests": {"helper.py": "x = 1\n"}}, Reason.NO_TESTS, "tests/"),
        ({"instruction": "  \n"}, Reason.EMPTY_INSTRUCTION, "instruction.md"),
        (
            {"dockerfile": "FROM debian:bookworm-slim\nCOPY solution/solve.sh /s.sh\n"},
            Reason.COPIES_SOLUTION,
            "Dockerfile",
        ),
        ({"dockerfile": "FROM debian:bookworm-slim\nADD --chown=1 ./tests /t\n"}, Reason.COPIES_TESTS, "Dockerfile"),
        (
            {
                "solve": "grep -c ERROR /app/logs/app.log > /app/errors.txt\n",
                "instruction": "Run `grep -c ERROR /app/logs/app.log > /app/errors.txt`.\n",
            },
            Reason.SOLUTION_IN_INSTRUCTION,
            "instruction.md",
        ),
    ],
)
def test_static_rejections(task_factory, kwargs, reason: Reason, names: str) -> None:
    verdict, got, detail = _static(task_factory, **kwargs)
    assert (verdict, got) == (Verdict.FAIL, reason)
    assert names in detail


def test_copy_of_other_files_is_fine(task_factory) -> None:
    dockerfile = "FROM debian:bookworm-slim\nCOPY data/tests.csv /app/\nCOPY solutions.txt /app/\n"
    assert _static(task_factory, dockerfile=dockerfile)[0] is Verdict.PASS
