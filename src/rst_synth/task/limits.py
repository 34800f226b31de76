"""A task's time limits from its measured work (docs/measures.md, "Limits that follow the work").

An agent attempt is bounded by `[agent].timeout_sec` and the tests by `[verifier].timeout_sec`.
Both are set when a task is accepted, from the figures its validation measured, so a round-5
child does not keep the 5 minutes its seed was written with; neither ever goes below what the
task had before (its parent's limits, which a child starts with, or a seed's own).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rst_synth.task.config import Figures
from rst_synth.task.task import Task

ORIENT_SEC = 60.0
"""Looking around the container before the first step: a handful of listing commands."""
READ_SEC_PER_WORD = 0.1
"""Reading the instruction and planning from it (600 words a minute, re-reading included)."""
TURN_SEC = 15.0
"""One model turn: a reply of a few hundred tokens from a hosted model (latency plus generation)
and a look at the command's output. An agent takes one turn per command the oracle executed, but
no more turns than the solution has lines: a loop is written once, however often it runs (one
seed's 23 lines execute 205 commands)."""
WRITE_SEC_PER_LINE = 1.0
"""Writing one line of the solution (about 15 tokens of code and the thought behind it)."""
AGENT_SLACK = 2.0
"""Room for a first try that fails, the reading of an error, and the fix."""
VERIFIER_MULTIPLE = 10.0
"""The tests on a loaded host or a slower machine: ten times their measured time..."""
VERIFIER_FLOOR_SEC = 120.0
"""...and never less than two minutes (interpreter and pytest start-up on a cold cache)."""


@dataclass(frozen=True)
class TimeLimits:
    """`[agent].timeout_sec` and `[verifier].timeout_sec`, in seconds."""

    agent_sec: float
    verifier_sec: float


def whole_minutes(seconds: float) -> float:
    """`seconds` rounded up to a whole number of minutes (at least one)."""
    return 60.0 * max(1, math.ceil(seconds / 60.0 - 1e-9))


def time_limits(figures: Figures, instruction_words: int, floor: TimeLimits | None = None) -> TimeLimits:
    """The rule: agent = 2 x (60 s + 0.1 s per instruction word + 15 s per turn + 1 s per solution
    line + the oracle's time), where turns = min(executed commands, solution lines); verifier =
    max(120 s, 10 x the tests' time); each rounded up to whole minutes and never below `floor` (the
    limits the task had)."""
    lines = figures.solution_lines or 0
    turns = figures.executed_commands or 0
    if figures.solution_lines is not None:
        turns = min(turns, lines)
    work = (
        ORIENT_SEC
        + READ_SEC_PER_WORD * instruction_words
        + TURN_SEC * turns
        + WRITE_SEC_PER_LINE * lines
        + (figures.oracle_sec or 0.0)
    )
    agent = whole_minutes(AGENT_SLACK * work)
    verifier = whole_minutes(max(VERIFIER_FLOOR_SEC, VERIFIER_MULTIPLE * (figures.test_sec or 0.0)))
    if floor is not None:
        agent, verifier = max(agent, floor.agent_sec), max(verifier, floor.verifier_sec)
    return TimeLimits(agent_sec=agent, verifier_sec=verifier)


def limits_of(task: Task) -> TimeLimits:
    """The limits `task` states; an unset `[agent].timeout_sec` bounds nothing (0)."""
    return TimeLimits(agent_sec=task.config.agent.timeout_sec or 0.0, verifier_sec=task.config.verifier.timeout_sec)


def instruction_words(task: Task) -> int:
    return len(task.instruction.split())


def realign_limits(task: Task, figures: Figures, parent: Task | None = None) -> TimeLimits:
    """Set `task`'s `[agent]` and `[verifier]` timeout_sec from `figures` (its validation's), never
    below its own limits nor its parent's; returns them."""
    own = limits_of(task)
    floor = own
    if parent is not None:
        theirs = limits_of(parent)
        floor = TimeLimits(max(own.agent_sec, theirs.agent_sec), max(own.verifier_sec, theirs.verifier_sec))
    limits = time_limits(figures, instruction_words(task), floor)
    task.config.agent.timeout_sec = limits.agent_sec
    task.config.verifier.timeout_sec = limits.verifier_sec
    return limits
