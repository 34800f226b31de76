"""One attempt: a fresh container of the task's image (the validator's limits), the agent works,
then the task's tests are copied in and run and the reward read exactly as validation does.

A multi-step task (agents/steps.py) is worked step by step in the one container: the agent gets each
step's instruction in turn, the step's tests run after it, and the next agent phase starts with
/tests and /logs/verifier emptied again, as Harbor does between steps."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from rst_synth.agents.atif import AgentInfo, TrajectoryRecorder
from rst_synth.agents.base import Agent, AttemptLimits, AttemptResult, Ended, Shell
from rst_synth.agents.steps import (
    StepTable,
    attempt_reward,
    credit_keys,
    reward_strategy,
    step_tests,
    step_verifier_timeout,
    step_view,
    task_steps,
)
from rst_synth.harness import RESET_VERIFIER, open_task, read_reward_keys, verdict, verify
from rst_synth.sandbox import Container, Sandbox, SandboxError
from rst_synth.sandbox.base import Breach
from rst_synth.task import TaskPaths
from rst_synth.task.task import Task

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
    steps = task_steps(task)
    async with open_task(sandbox, task) as box:
        shell = Shell(box, limits)
        if steps:
            worked = await _work_steps(task, steps, agent, shell, record, seed)
        else:
            ended = await _work(task, agent, shell, record, seed)
            tests = task.files_under(TaskPaths.TESTS_DIR)
            verified, reward = await verify(box, tests, task.config.verifier.timeout_sec)
            credit = await _credit(box, task) if verified.breach is not Breach.TAMPERED else None  # refused: no credit
            worked = _Worked(ended, reward or 0.0, verified.tail(2000), credit, *verdict(verified, reward))
    trajectory = record.finish(notes=f"ended: {worked.ended}{_steps_note(worked.step_rewards if steps else None)}")
    final = trajectory.final_metrics
    result = AttemptResult(
        task=task.name,
        attempt=attempt,
        reward=worked.reward,
        ended=worked.ended,
        steps=sum(1 for step in trajectory.steps if step.source == "agent" and step.observation is not None),
        tokens_in=final.total_prompt_tokens or 0 if final else 0,
        tokens_out=final.total_completion_tokens or 0 if final else 0,
        cost_usd=final.total_cost_usd or 0.0 if final else 0.0,
        seconds=round(time.monotonic() - started, 3),
        verifier_output=worked.verifier_output,
        reason=worked.reason if worked.reward < 1.0 else None,
        reason_detail=worked.reason_detail if worked.reward < 1.0 else "",
        step_rewards=worked.step_rewards,
    )
    write_attempt(
        out_dir,
        {TRAJECTORY: trajectory.model_dump(mode="json", exclude_none=True), RESULT: result.model_dump(mode="json")},
    )
    return result


@dataclass
class _Worked:
    ended: Ended
    reward: float
    verifier_output: str
    step_rewards: dict[str, float | None] | None
    reason: str | None = None
    reason_detail: str = ""


async def _work(task: Task, agent: Agent, shell: Shell, record: TrajectoryRecorder, seed: int) -> Ended:
    """The agent works `task` within its [agent] timeout_sec."""
    wall = task.config.agent.timeout_sec or shell.limits.default_wall_sec
    try:
        return await asyncio.wait_for(agent.work(task, shell, record, seed=seed), wall)
    except TimeoutError:
        return "timeout"
    except SandboxError:
        return "sandbox_error"


async def _work_steps(
    task: Task, steps: list[StepTable], agent: Agent, shell: Shell, record: TrajectoryRecorder, seed: int
) -> _Worked:
    """Each step in turn: the agent's work, then the step's verifier; a step below its gate (or a
    failed container) ends the attempt, and the steps after it stay unrun (None)."""
    rewards: dict[str, float | None] = {step.name: None for step in steps}
    ran: list[float] = []
    ended: Ended = "done"
    output = ""
    why: tuple[str | None, str] = (None, "")
    for index, step in enumerate(steps):
        record.begin_task_step(step.name)
        ended = await _work(step_view(task, step), agent, shell, record, seed + index)
        if ended == "sandbox_error":  # the container is gone: nothing to verify, nothing earned
            record.end_task_step(None, ended)
            rewards[step.name] = 0.0
            ran.append(0.0)
            break
        verified, reward = await verify(shell.box, step_tests(task, step), step_verifier_timeout(task, step))
        record.end_task_step(reward, ended)
        rewards[step.name] = reward or 0.0
        ran.append(reward or 0.0)
        output = verified.tail(2000)
        why = verdict(verified, reward)
        if step.gate is not None and (reward or 0.0) < step.gate:
            break
        if index + 1 < len(steps):  # the next step's agent must not see these tests or this reward
            await shell.box.exec(RESET_VERIFIER, timeout=60, user="root")
    return _Worked(ended, attempt_reward(ran, reward_strategy(task)), output, rewards, *why)


async def _credit(box: Container, task: Task) -> dict[str, float | None] | None:
    """The share of each step's tests that passed, from reward.json, where the flat task's verifier
    reports it ([metadata].step_credit); a step the file lacks earned nothing."""
    keys = credit_keys(task)
    return dict(await read_reward_keys(box, keys)) if keys else None


def _steps_note(rewards: dict[str, float | None] | None) -> str:
    if rewards is None:
        return ""
    return "; steps: " + ", ".join(f"{name} {'not run' if r is None else f'{r:g}'}" for name, r in rewards.items())


def write_attempt(out_dir: Path, files: dict[str, object]) -> None:
    """Stage then rename, so a killed run never leaves half an attempt behind."""
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = out_dir.parent / f".{out_dir.name}.tmp-{uuid.uuid4().hex[:8]}"
    staging.mkdir()
    for name, data in files.items():
        (staging / name).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    if out_dir.exists():
        shutil.rmtree(out_dir)
    staging.rename(out_dir)
