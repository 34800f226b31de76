"""The static check: everything that can be judged without a container."""

from __future__ import annotations

import re
import shlex
import subprocess
import time

from rst_synth.task import Task, TaskFormatError, TaskPaths
from rst_synth.validator.models import Check, CheckResult, Reason, Verdict
from rst_synth.validator.prechecks import new_step_problem

LEAK_MIN_CHARS = 32
"""A solution line at least this long appearing verbatim in the instruction is a leak."""

_COPY = re.compile(r"^\s*(COPY|ADD)\s+(.*)$", re.IGNORECASE)


def static_check(task: Task) -> CheckResult:
    started = time.monotonic()
    try:
        problem = _first_problem(task)
    except TaskFormatError as exc:  # a script or Dockerfile that is not UTF-8: a verdict, not a crash
        problem = Reason.BAD_TASK, str(exc)
    duration = time.monotonic() - started
    if problem is None:
        return CheckResult(check=Check.STATIC, verdict=Verdict.PASS, reason=Reason.OK, duration_sec=duration)
    reason, detail = problem
    return CheckResult(check=Check.STATIC, verdict=Verdict.FAIL, reason=reason, detail=detail, duration_sec=duration)


def _first_problem(task: Task) -> tuple[Reason, str] | None:
    for required in TaskPaths.REQUIRED:
        if required not in (TaskPaths.CONFIG, TaskPaths.INSTRUCTION) and required not in task.files:
            return Reason.MISSING_FILE, f"{required}: missing required file"
    if not task.instruction.strip():
        return Reason.EMPTY_INSTRUCTION, f"{TaskPaths.INSTRUCTION}: empty"
    for script in (TaskPaths.SOLVE, TaskPaths.TEST_SH):
        error = bash_syntax_error(task.files[script])
        if error:
            return Reason.BASH_SYNTAX, f"{script}: {error}"
    tests = {rel: body for rel, body in task.files.items() if _is_test_module(rel)}
    if not tests:
        return Reason.NO_TESTS, f"{TaskPaths.TESTS_DIR}/: no test_*.py module"
    for rel, body in sorted(tests.items()):
        try:
            compile(body, rel, "exec")
        except (SyntaxError, ValueError) as exc:
            return Reason.TESTS_DO_NOT_COMPILE, f"{rel}: {exc}"
    copied = dockerfile_copies(task.dockerfile)
    if copied:
        reason = Reason.COPIES_SOLUTION if copied == TaskPaths.SOLUTION_DIR else Reason.COPIES_TESTS
        return reason, f"{TaskPaths.DOCKERFILE}: COPY/ADD of {copied}/ puts it in the agent's image"
    leaked = leaked_solution_line(task.instruction, task.solve_sh)
    if leaked:
        return Reason.SOLUTION_IN_INSTRUCTION, f"{TaskPaths.INSTRUCTION}: contains solution line {leaked[:60]!r}"
    return new_step_problem(task)


def _is_test_module(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return rel.startswith(f"{TaskPaths.TESTS_DIR}/") and name.startswith("test_") and name.endswith(".py")


def bash_syntax_error(script: bytes) -> str | None:
    """`bash -n` on the script; the first error line, or None."""
    proc = subprocess.run(["bash", "-n", "/dev/stdin"], input=script, capture_output=True, timeout=30)
    if proc.returncode == 0:
        return None
    lines = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
    return lines[0].replace("/dev/stdin: ", "") if lines else f"bash -n exited {proc.returncode}"


def dockerfile_copies(dockerfile: str) -> str | None:
    """'solution' or 'tests' when the Dockerfile copies either into the image."""
    for line in dockerfile.splitlines():
        match = _COPY.match(line)
        if not match:
            continue
        try:
            words = [w for w in shlex.split(match.group(2)) if not w.startswith("--")]
        except ValueError:
            words = match.group(2).split()
        for source in words[:-1]:
            top = source.strip("./").split("/", 1)[0]
            if top in (TaskPaths.SOLUTION_DIR, TaskPaths.TESTS_DIR):
                return top
    return None


def leaked_solution_line(instruction: str, solve_sh: str) -> str | None:
    """A long code line of the solution that the instruction repeats verbatim."""
    for line in solve_sh.splitlines():
        code = line.strip()
        if len(code) >= LEAK_MIN_CHARS and not code.startswith("#") and code in instruction:
            return code
    return None
