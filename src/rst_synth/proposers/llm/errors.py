"""What a repair prompt says about a rejection: the hint for its reason (`REPAIR_HINTS`), and the
exact error, not only its reason code: Python's SyntaxError with its line and caret, `bash -n`'s
message with the line it names, the lines of a pytest failure."""

from __future__ import annotations

import re
import traceback

from rst_synth.task import Task, TaskPaths
from rst_synth.validator import CheckResult, Reason
from rst_synth.validator.static import bash_syntax_error

_PYTEST_LINE = re.compile(
    r"^(E\s|\S+\.py:\d+:|FAILED |ERROR |_{3,} .* _{3,}$|=+ .*(FAILURES|ERRORS|short test summary))"
)


REPAIR_HINTS: dict[Reason, str] = {
    Reason.PARENT_PASSES: "the parent's solution alone already passes the new tests, so they check nothing the "
    "new steps add: test the files or contents that only the new steps create",
    Reason.NOP_PASSES: "the tests pass on the untouched image: every test must read outputs the work creates",
    Reason.TESTS_FAILED: "after the parent's solution and the new steps, some test failed: read the output, "
    "then fix the steps if they crash or compute something else, or the tests if they expect something the "
    "instruction does not state or compute it wrongly; the parent's tests must still pass",
    Reason.NO_REWARD_FILE: "the verifier wrote no reward: the steps may have broken /logs or the test run itself",
    Reason.SOLUTION_TIMEOUT: "the solution did not finish in time: no waiting for input, no servers in the foreground, "
    "no long loops",
    Reason.NONDETERMINISTIC: "two oracle runs disagreed: remove dates, random values, unstable ordering from "
    "the outputs",
    Reason.BASH_SYNTAX: "solve.sh is not valid bash",
    Reason.TESTS_DO_NOT_COMPILE: "the test module is not valid Python",
    Reason.SOLUTION_IN_INSTRUCTION: "the instruction repeats a line of the solution verbatim: describe the result in "
    "prose instead of quoting the script",
    Reason.BUILD_FAILED: "the image no longer builds: fix or drop the appended Dockerfile lines (packages that exist, "
    "installed non-interactively)",
    Reason.BUILD_TIMEOUT: "the image build took too long: install fewer packages",
    Reason.COPIES_SOLUTION: "the Dockerfile must never COPY solution/ into the image",
    Reason.COPIES_TESTS: "the Dockerfile must never COPY tests/ into the image",
    # the quality checks (validator/quality.py): which check, and why
    Reason.INSTRUCTION_GAP: "instruction_paths check: a new test reads a path the instruction never names, or the "
    "instruction lost a backticked literal (a path, header, key or value) of the parent's instruction that a test "
    "still reads, so an agent cannot know what to write: name every file the tests read, with its full path, and "
    "state every literal the detail lists again, backticked, word for word",
    Reason.REDUNDANT_OUTPUT: "redundancy check: a new output is a byte-for-byte copy of a file the parent's "
    "solution left (or of another new output), so it adds no work: compute something new instead of copying "
    "a file or writing the same result under another name",
    Reason.DEGENERATE_OUTPUT: "degenerate check: a new output carries no information (a header and no rows, an "
    "empty JSON array or object, or rows whose every numeric column holds one value): compute something that "
    "varies from row to row, and choose rows, columns and filters the parent's data actually fills (a filter "
    "that keeps some rows, a measure that differs between groups) instead of counting or summing a constant",
    Reason.CHANGES_PARENT_OUTPUT: "parent_outputs check: the new steps change or delete a file the parent's tests "
    "read; leave the parent's outputs as they are (no appending, no overwriting) and write new files instead",
    Reason.STEP_UNNECESSARY: "steps check: with one of the new steps left out the tests still pass, so that step "
    "is not checked: test what it produces, or drop it",
    Reason.WEAK_TESTS: "mutation check: a new output was deleted, or changed by one value or one line, and the "
    "tests still passed: assert its exact content (values, line count), not only that it exists",
    Reason.TESTS_TOO_STRICT: "tolerance check: the tests failed on right work done another way the instruction "
    "allows (JSON with other indentation or key order, CSV quoted another valid way, a service started with "
    "`python3 -u`, an absolute path or from another folder): parse outputs instead of comparing bytes, find a "
    "process by its program anywhere in its command line or by its port, or state the exact form in the "
    "instruction",
    Reason.NO_NEW_COMMAND: "the new steps run no command (only comments, `set`, `:` or assignments): write commands "
    "that read the parent's outputs and write new files",
    Reason.NO_ASSERTION: "the new test module asserts nothing: every test must assert the exact contents the new "
    "steps produce",
    # the pipeline's solvable check (rst synth --solver-model)
    Reason.TOO_EASY: "solvable check: the solver agent solved the child in more of its attempts than allowed, "
    "so the new step teaches it nothing: make the step harder, not only different; e.g. a fault to diagnose "
    "from the outputs, a bound the result must meet, an edge case in the data that a direct command gets "
    "wrong, or a tool that must generalise to inputs the steps do not name; keep it exactly checkable",
    Reason.SECOND_SOLUTION_FAILED: "second_solution check: another model, given only the child's instruction and "
    "the parent's final state, wrote the steps below and the child's tests failed on them: decide why",
    Reason.REPAIR_UNCHANGED: "the last repair sent the rejected files back unchanged: change what the rejection names",
}


def numbered(content: str, line: int, around: int = 2) -> str:
    """Lines `line - around` to `line` of `content`, numbered, the one at fault marked with `>`."""
    lines = content.splitlines()
    line = min(max(line, 1), max(len(lines), 1))
    return "\n".join(
        f"{'>' if k == line else ' '} {k:4d} | {lines[k - 1] if lines else ''}"
        for k in range(max(1, line - around), line + 1)
    )


def python_syntax_error(source: str, path: str) -> str | None:
    """Python's own report of why `source` does not compile (file, line, the line, caret, message)."""
    try:
        compile(source, path, "exec")
    except (SyntaxError, ValueError) as exc:
        return "".join(traceback.format_exception_only(exc)).rstrip("\n")
    return None


def bash_error(script: str, path: str) -> str | None:
    """`bash -n`'s message and the lines of the script it names."""
    error = bash_syntax_error(script.encode("utf-8"))
    if error is None:
        return None
    found = re.match(r"line (\d+):", error)
    return f"bash -n {path}: {error}" + ("\n" + numbered(script, int(found.group(1))) if found else "")


def pytest_failure(output: str, limit: int = 40) -> str:
    """The lines of pytest's output that say what failed (E lines, file:line, FAILED/ERROR, section
    headers); "" when the output holds none."""
    lines = [line for line in output.splitlines() if _PYTEST_LINE.match(line)]
    if len(lines) > limit:
        lines = [*lines[: limit // 2], f"[... {len(lines) - limit} lines ...]", *lines[-limit // 2 :]]
    return "\n".join(lines)


def exact_error(failure: CheckResult | None, child: Task) -> str:
    """What the repair prompt quotes for a validator rejection of `child`; "" when the detail and the
    output tail already say all there is."""
    if failure is None:
        return ""
    if failure.reason is Reason.TESTS_DO_NOT_COMPILE:
        for rel in sorted(child.files):
            if rel.startswith(f"{TaskPaths.TESTS_DIR}/") and rel.endswith(".py"):
                quote = python_syntax_error(child.files[rel].decode("utf-8", errors="replace"), rel)
                if quote:
                    return quote
    if failure.reason is Reason.BASH_SYNTAX:
        for rel in (TaskPaths.SOLVE, TaskPaths.TEST_SH):
            if rel in child.files:
                quote = bash_error(child.files[rel].decode("utf-8", errors="replace"), rel)
                if quote:
                    return quote
    return pytest_failure(failure.output_tail)
