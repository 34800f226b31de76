"""What a repair prompt quotes of a validator rejection: the exact error, not only its reason code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rst_synth.proposers.llm.errors import exact_error, pytest_failure
from rst_synth.task import Task
from rst_synth.validator import Check, CheckResult, Reason, Verdict
from tests.support.tasks import write_task


def failure(reason: Reason, check: Check = Check.STATIC, output_tail: str = "") -> CheckResult:
    return CheckResult(check=check, verdict=Verdict.FAIL, reason=reason, detail="one line", output_tail=output_tail)


def test_tests_that_do_not_compile_are_quoted_with_line_and_caret(tmp_path: Path) -> None:
    task = Task.load(write_task(tmp_path, tests={"test_a.py": "def test_a():\n    assert (1,\n"}))
    quote = exact_error(failure(Reason.TESTS_DO_NOT_COMPILE), task)
    assert quote.splitlines()[0] == '  File "tests/test_a.py", line 2'
    assert quote.splitlines()[-2].strip() == "^" and quote.endswith("SyntaxError: '(' was never closed")


def test_bash_syntax_is_quoted_with_the_line_it_names(tmp_path: Path) -> None:
    task = Task.load(write_task(tmp_path, solve="if true; then\n  echo x\nfi fi\n"))
    quote = exact_error(failure(Reason.BASH_SYNTAX), task)
    assert quote.startswith("bash -n solution/solve.sh: line 5: syntax error")
    assert quote.splitlines()[-1] == ">    5 | fi fi"


def test_a_pytest_failure_is_quoted_from_the_output(tmp_path: Path) -> None:
    module = tmp_path / "test_report.py"
    module.write_text("import re\n\n\ndef test_upper():\n    assert re.sub('a', 'b', 'aa') == 'ba'\n")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(module)], capture_output=True, text=True
    )
    assert run.returncode == 1
    output = "--- solve.sh ---\nmkdir: created\n--- test.sh ---\n" + run.stdout
    quote = exact_error(failure(Reason.TESTS_FAILED, Check.ORACLE, output), Task.load(write_task(tmp_path / "t")))
    assert "E       AssertionError: assert 'bb' == 'ba'" in quote
    assert any(line.startswith("FAILED ") and "test_upper" in line for line in quote.splitlines())
    assert "mkdir: created" not in quote and "--- test.sh ---" not in quote


def test_no_quote_when_there_is_nothing_exact_to_say(tmp_path: Path) -> None:
    task = Task.load(write_task(tmp_path))
    assert exact_error(None, task) == ""
    assert exact_error(failure(Reason.PARENT_PASSES, Check.PARENT, "1 passed in 0.01s"), task) == ""
    assert pytest_failure("\n".join(f"E   line {k}" for k in range(100)), limit=10).count("\n") == 10
