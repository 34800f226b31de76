"""The exact error a repair prompt quotes, not only its reason code: Python's SyntaxError with its
line and caret, `bash -n`'s message with the line it names, the lines of a pytest failure."""

from __future__ import annotations

import re
import traceback

from rst_synth.task import Task, TaskPaths
from rst_synth.validator import CheckResult, Reason
from rst_synth.validator.static import bash_syntax_error

_PYTEST_LINE = re.compile(
    r"^(E\s|\S+\.py:\d+:|FAILED |ERROR |_{3,} .* _{3,}$|=+ .*(FAILURES|ERRORS|short test summary))"
)


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
