"""Evals made in a test without Docker: the real llm agent, driven by the scripted server, works in a
fake container, and each attempt is stored as `rst eval` stores it (files, then the store row)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from rst_synth.agents import AttemptLimits, AttemptResult, Shell, Trajectory, TrajectoryRecorder, make_agent
from rst_synth.agents.atif import AgentInfo, ObservationResult, ToolCallRecord
from rst_synth.evaluation.runner import EvalTask
from rst_synth.store import AgentAttemptRow, Store
from rst_synth.task import Task
from tests.agents.test_terminal_docker import by_turn
from tests.support.fake_server import FakeOpenAI, Reply
from tests.support.fakes import FakeContainer, FakeSandbox


def agent_trajectory(task_dir: Path, replies: list[Reply], mode: str = "tools") -> Trajectory:
    """What the llm agent records when the model answers `replies` in turn."""
    task = Task.load(task_dir)

    async def work(base_url: str) -> Trajectory:
        agent = make_agent("llm", model="fake-model", base_url=base_url, mode=mode)
        record = TrajectoryRecorder(AgentInfo(name="llm", version="1.0", model_name="fake-model"))
        try:
            await agent.work(task, Shell(FakeContainer(FakeSandbox()), AttemptLimits()), record, seed=1)
        finally:
            await agent.close()
        return record.finish()

    with FakeOpenAI() as server:
        server.responder = by_turn(replies)
        return asyncio.run(work(server.base_url))


def oracle_trajectory(task_dir: Path) -> Trajectory:
    """What the oracle agent records: the instruction, then `bash /solution/solve.sh`."""
    record = TrajectoryRecorder(AgentInfo(name="oracle", version="1.0"))
    record.user(Task.load(task_dir).instruction)
    call = ToolCallRecord(tool_call_id="call_1", function_name="bash", arguments={"command": "bash /solution/solve.sh"})
    record.agent("", calls=[call], results=[ObservationResult(source_call_id="call_1", content="")])
    return record.finish()


class EvalFolder:
    """An `rst eval --out` folder: OUT/eval.db and OUT/<eval id>/<task>/attempt-<i>/."""

    def __init__(self, out: Path) -> None:
        self.out = out
        out.mkdir(parents=True, exist_ok=True)
        self.store = Store(out / "eval.db")
        self.next_attempt: dict[tuple[str, str], int] = {}

    def add(self, task_dir: Path, trajectory: Trajectory, reward: float, eval_id: str = "llm-fake-model") -> None:
        item = EvalTask(key=str(task_dir.resolve()), round=0, path=task_dir)
        attempt = self.next_attempt.get((eval_id, item.key), 0)
        self.next_attempt[(eval_id, item.key)] = attempt + 1
        target = self.out / eval_id / item.folder / f"attempt-{attempt}"
        target.mkdir(parents=True)
        trajectory.dump(target / "trajectory.json")
        result = AttemptResult(
            task=Task.load(task_dir).name, attempt=attempt, reward=reward, ended="submitted", steps=1
        )
        (target / "result.json").write_text(json.dumps(result.model_dump(mode="json")))
        self.store.record_agent_attempt(
            AgentAttemptRow(
                eval_id=eval_id,
                task=item.key,
                round=item.round,
                attempt=attempt,
                reward=reward,
                ended="submitted",
                path=str(target.relative_to(self.out)),
            )
        )

    def close(self) -> None:
        self.store.close()
