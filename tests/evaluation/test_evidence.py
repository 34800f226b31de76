"""The solver's evidence read from its attempts' ATIF trajectories (evaluation/evidence.py)."""

from __future__ import annotations

from pathlib import Path

from rst_synth.agents import TRAJECTORY, TrajectoryRecorder
from rst_synth.agents.atif import AgentInfo, ObservationResult, ToolCallRecord
from rst_synth.evaluation.evidence import COMMAND_CHARS, MAX_COMMANDS, solver_evidence


def _attempt(folder: Path, commands: list[str], *, submit: bool = True) -> Path:
    record = TrajectoryRecorder(AgentInfo(name="llm", version="1", model_name="m"))
    record.user("do it")
    for n, command in enumerate(commands, start=1):
        call = ToolCallRecord(tool_call_id=f"c{n}", function_name="bash", arguments={"command": command})
        record.agent("", calls=[call], results=[ObservationResult(source_call_id=f"c{n}", content="")])
    if submit:
        record.agent("done", calls=[ToolCallRecord(tool_call_id="s", function_name="submit", arguments={})])
    folder.mkdir(parents=True)
    record.finish().dump(folder / TRAJECTORY)
    return folder


def test_solved_k_of_k_the_commands_of_each_solved_attempt_and_of_the_shortest(tmp_path: Path) -> None:
    attempts = [
        (1.0, _attempt(tmp_path / "a0", ["ls", "cat a", "sort a > b", "wc -l b"])),
        (0.0, _attempt(tmp_path / "a1", ["ls"])),  # failed: not counted, however short
        (1.0, _attempt(tmp_path / "a2", ["cat a", "sort a > b"])),
        (1.0, tmp_path / "a3"),  # solved, but its trajectory is missing
    ]
    evidence = solver_evidence(attempts)
    assert (evidence.solved, evidence.k) == (3, 4)
    assert evidence.commands_per_solved == [4, 2]  # the submit call is no command
    assert evidence.commands == ["cat a", "sort a > b"]


def test_long_attempts_are_cut_where_gathered(tmp_path: Path) -> None:
    many = [f"echo {n} " + "q" * 1000 for n in range(MAX_COMMANDS + 5)]
    evidence = solver_evidence([(1.0, _attempt(tmp_path / "a", many))])
    assert evidence.commands_per_solved == [MAX_COMMANDS + 5]
    assert len(evidence.commands) == MAX_COMMANDS and all(len(c) == COMMAND_CHARS for c in evidence.commands)


def test_no_solved_attempt_gives_no_commands(tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / TRAJECTORY).write_text("{not json")
    evidence = solver_evidence([(0.0, _attempt(tmp_path / "a", ["ls"])), (1.0, tmp_path / "bad")])
    assert (evidence.solved, evidence.k, evidence.commands_per_solved, evidence.commands) == (1, 2, [], [])
