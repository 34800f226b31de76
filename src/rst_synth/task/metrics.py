"""Figures of a task that are computed from its files or its oracle run, never typed."""

from __future__ import annotations

import re

from rst_synth.task.config import Metadata
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


EASY_SOLVE_RATE = 0.75
"""An agent that solves a task in at least three of four attempts finds it easy..."""
MEDIUM_SOLVE_RATE = 0.25
"""...in at least one of four, medium; below that, hard."""
EASY_SIZE = 60
"""Without an agent: under 60 executed commands and solution lines (the larger) is easy..."""
MEDIUM_SIZE = 200
"""...under 200 medium; anything larger hard."""
SIZE = "size"
"""`difficulty_source` of a label computed from the measured size."""


def size_difficulty(executed: int | None, lines: int | None) -> str | None:
    """The label from measured size alone: the larger of executed commands and solution lines."""
    if executed is None and lines is None:
        return None
    size = max(executed or 0, lines or 0)
    if size < EASY_SIZE:
        return "easy"
    if size < MEDIUM_SIZE:
        return "medium"
    return "hard"


def rate_difficulty(rate: float) -> str:
    """The label from an agent's solve rate."""
    if rate >= EASY_SOLVE_RATE:
        return "easy"
    if rate >= MEDIUM_SOLVE_RATE:
        return "medium"
    return "hard"


def label_difficulty(metadata: Metadata) -> None:
    """Set `difficulty` and `difficulty_source`: from the solve rate of the agent with the most
    attempts (ties: the first eval id in order) where any agent ran, else from the size in
    `metrics`; never inherited, so a label says what this task measured."""
    rates = metadata.solve_rate or {}
    if rates:
        source, chosen = max(sorted(rates.items()), key=lambda item: item[1].k or 0)
        metadata.difficulty, metadata.difficulty_source = rate_difficulty(chosen.rate), source
        return
    metrics = metadata.metrics
    label = size_difficulty(metrics.executed_commands, metrics.solution_lines) if metrics else None
    metadata.difficulty, metadata.difficulty_source = label, SIZE if label else None
