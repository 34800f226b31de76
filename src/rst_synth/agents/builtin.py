"""The plumbing agents: `oracle` runs the reference solution, `nop` does nothing. Over a verified
task they give pass@k 1 and 0, which checks the attempt machinery end to end."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from rst_synth.agents.atif import ObservationResult, ToolCallRecord, TrajectoryRecorder
from rst_synth.agents.base import Ended, Shell
from rst_synth.task import Task, TaskPaths


class OracleAgent:
    """Copies solution/ to /solution and runs solve.sh, as Harbor's oracle does."""

    name = "oracle"
    model = ""

    async def work(self, task: Task, shell: Shell, record: TrajectoryRecorder, *, seed: int) -> Ended:
        record.user(task.instruction)
        await shell.put(task.files_under(TaskPaths.SOLUTION_DIR), TaskPaths.CONTAINER_SOLUTION_DIR)
        command = f"bash {PurePosixPath(TaskPaths.CONTAINER_SOLUTION_DIR) / 'solve.sh'}"
        wall = task.config.agent.timeout_sec or shell.limits.default_wall_sec
        result = await shell.run(command, timeout=wall, login=False)
        record.agent(
            "",
            calls=[ToolCallRecord(tool_call_id="call_1", function_name="bash", arguments={"command": command})],
            results=[ObservationResult(source_call_id="call_1", content=result.output)],
        )
        return "timeout" if result.timed_out else "done"

    async def close(self) -> None:
        return None


class NopAgent:
    """Reads the instruction and does nothing."""

    name = "nop"
    model = ""

    async def work(self, task: Task, shell: Shell, record: TrajectoryRecorder, *, seed: int) -> Ended:
        record.user(task.instruction)
        record.agent("")
        return "done"

    async def close(self) -> None:
        return None


def make_oracle(**options: Any) -> OracleAgent:
    return OracleAgent()


def make_nop(**options: Any) -> NopAgent:
    return NopAgent()
