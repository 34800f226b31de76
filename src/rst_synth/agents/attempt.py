"""One attempt: a fresh container of the task's image (the validator's limits), the agent works,
then the task's tests are copied in and run and the reward read exactly as validation does."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
import uuid
from pathlib import Path, PurePosixPath

from rst_synth.agents.atif import AgentInfo, TrajectoryRecorder
from rst_synth.agents.base import Agent, AttemptLimits, AttemptResult, Ended, Shell
from rst_synth.sandbox import Sandbox, SandboxError
from rst_synth.task import TaskPaths
from rst_synth.task.task import Task
from rst_synth.validator.trial import LOG_DIRS, task_limits, verify

TRAJECTORY = "trajectory.json"
RESULT = "result.json"
AGENT_VERSION = "1.0"


async def run_attempt(
    task: Task,
    agent: Agent,
    sandbox: Sandbox,
    *,
    attempt: int,
    seed: int,
    out_dir: Path,
    limits: AttemptLimits | None = None,
) -> AttemptResult:
    """Run one attempt and write `out_dir`/trajectory.json and result.json (all or nothing)."""
    limits = limits or AttemptLimits()
    started = time.monotonic()
    record = TrajectoryRecorder(AgentInfo(name=agent.name, version=AGENT_VERSION, model_name=agent.model or None))
    info = await sandbox.ensure_image(
        task.files_under(TaskPaths.ENVIRONMENT_DIR),
        task.environment_hash(),
        timeout=task.config.environment.build_timeout_sec,
    )
    wall = task.config.agent.timeout_sec or limits.default_wall_sec
    ended: Ended
    async with sandbox.container(info.tag, task_limits(task)) as box:
        await box.put_files({}, PurePosixPath("/"), open_dirs=LOG_DIRS)
        try:
            ended = await asyncio.wait_for(agent.work(task, Shell(box, limits), record, seed=seed), wall)
        except TimeoutError:
            ended = "timeout"
        except SandboxError:
            ended = "sandbox_error"
        verified, reward = await verify(box, task.files_under(TaskPaths.TESTS_DIR), task.config.verifier.timeout_sec)
    trajectory = record.finish(notes=f"ended: {ended}")
    final = trajectory.final_metrics
    result = AttemptResult(
        task=task.name,
        attempt=attempt,
        reward=reward or 0.0,
        ended=ended,
        steps=sum(1 for step in trajectory.steps if step.source == "agent" and step.observation is not None),
        tokens_in=final.total_prompt_tokens or 0 if final else 0,
        tokens_out=final.total_completion_tokens or 0 if final else 0,
        cost_usd=final.total_cost_usd or 0.0 if final else 0.0,
        seconds=round(time.monotonic() - started, 3),
        verifier_output=verified.tail(2000),
    )
    _write(
        out_dir,
        {TRAJECTORY: trajectory.model_dump(mode="json", exclude_none=True), RESULT: result.model_dump(mode="json")},
    )
    return result


def _write(out_dir: Path, files: dict[str, object]) -> None:
    """Stage then rename, so a killed run never leaves half an attempt behind."""
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = out_dir.parent / f".{out_dir.name}.tmp-{uuid.uuid4().hex[:8]}"
    staging.mkdir()
    for name, data in files.items():
        (staging / name).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    if out_dir.exists():
        shutil.rmtree(out_dir)
    staging.rename(out_dir)
