"""The solver's evidence on a task, read from its attempts' ATIF trajectories: solved k of K, the
commands each solved attempt ran, and the commands of the one that ran fewest. The too_easy repair
prompt quotes it, and the extend prompt of a parent the solver attempted."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from rst_synth.agents import TRAJECTORY, Trajectory
from rst_synth.task import SolverEvidence

MAX_COMMANDS = 20
"""Most commands kept of the shortest solved attempt; a prompt shows fewer (PromptBudgets)."""
COMMAND_CHARS = 400
"""Each kept command is cut to this many characters."""


def commands_of(trajectory: Trajectory) -> list[str]:
    """The shell commands an agent ran, in order (its `bash` calls; the submit call is none)."""
    return [
        command
        for step in trajectory.steps
        if step.source == "agent"
        for call in step.tool_calls or []
        if call.function_name == "bash" and isinstance(command := call.arguments.get("command"), str)
    ]


def read_commands(folder: Path) -> list[str] | None:
    """The commands of the attempt in `folder`; None when its trajectory is missing or not ATIF."""
    try:
        return commands_of(Trajectory.model_validate_json((folder / TRAJECTORY).read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, ValidationError):
        return None


def solver_evidence(attempts: Sequence[tuple[float, Path]]) -> SolverEvidence:
    """The evidence of finished attempts given as (reward, folder); an attempt solved the task at reward 1."""
    solved = [folder for reward, folder in attempts if reward >= 1.0]
    runs = [commands for commands in map(read_commands, solved) if commands is not None]
    shortest = min((commands for commands in runs if commands), key=len, default=[])
    return SolverEvidence(
        solved=len(solved),
        k=max(len(attempts), 1),
        commands_per_solved=[len(commands) for commands in runs],
        commands=[command[:COMMAND_CHARS] for command in shortest[:MAX_COMMANDS]],
    )
