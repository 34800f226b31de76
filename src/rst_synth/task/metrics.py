"""Figures of a task that are computed from its files or its oracle run, never typed."""

from __future__ import annotations

import re

from rst_synth.task.paths import TaskPaths
from rst_synth.task.task import Task

_XTRACE_LINE = re.compile(r"^\++ ")


def code_lines(source: str) -> int:
    """Non-blank lines that are not comments (`#` comments; shebangs count as comments)."""
    return sum(1 for line in source.splitlines() if line.strip() and not line.lstrip().startswith("#"))


def solution_lines(task: Task) -> int:
    """Code lines of solve.sh plus any other script the solution directory ships.

    Scripts that solve.sh writes with heredocs are lines of solve.sh, so they count already.
    """
    total = 0
    for _rel, content in task.files_under(TaskPaths.SOLUTION_DIR).items():
        try:
            total += code_lines(content.decode("utf-8"))
        except UnicodeDecodeError:
            continue  # a binary helper is not a line of solution
    return total


def executed_commands(xtrace: str) -> int:
    """Simple commands in a bash xtrace log: each starts a line with PS4's `+` (one per level)."""
    return sum(1 for line in xtrace.splitlines() if _XTRACE_LINE.match(line))


def difficulty(executed: int | None, lines: int | None) -> str | None:
    """A label computed from measured size, so it never goes stale across rounds."""
    if executed is None and lines is None:
        return None
    size = max(executed or 0, lines or 0)
    if size < 60:
        return "easy"
    if size < 200:
        return "medium"
    return "hard"
