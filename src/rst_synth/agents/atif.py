"""Harbor's Agent Trajectory Interchange Format (ATIF v1.4) as pydantic models, and a recorder.

Field names, required fields and the rules the validators enforce follow Harbor's RFC 0001
(trajectory format, v1.4): steps numbered from 1, `source` one of system/user/agent, agent-only
fields only on agent steps, every observation result pointing at a tool call of its own step.
Unknown keys are refused, so a file that loads here carries nothing the format does not define.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

SCHEMA_VERSION = "ATIF-v1.4"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AgentInfo(_Strict):
    name: str
    version: str
    model_name: str | None = None
    extra: dict[str, Any] | None = None


class ToolCallRecord(_Strict):
    tool_call_id: str
    function_name: str
    arguments: dict[str, Any]


class ObservationResult(_Strict):
    source_call_id: str | None = None
    content: str | None = None
    subagent_trajectory_ref: list[dict[str, Any]] | None = None


class Observation(_Strict):
    results: list[ObservationResult]


class StepMetrics(_Strict):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None
    prompt_token_ids: list[int] | None = None
    completion_token_ids: list[int] | None = None
    logprobs: list[float] | None = None
    extra: dict[str, Any] | None = None


class Step(_Strict):
    step_id: int = Field(ge=1)
    timestamp: str | None = None
    source: Literal["system", "user", "agent"]
    model_name: str | None = None
    reasoning_effort: str | float | None = None
    message: str
    reasoning_content: str | None = None
    tool_calls: list[ToolCallRecord] | None = None
    observation: Observation | None = None
    metrics: StepMetrics | None = None
    extra: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _agent_only_fields(self) -> Step:
        if self.source != "agent":
            for name in ("model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"):
                if getattr(self, name) is not None:
                    raise ValueError(f"step {self.step_id}: {name} is only for agent steps")
        if self.timestamp is not None:
            datetime.fromisoformat(self.timestamp.replace("Z", "+00:00"))
        return self


class FinalMetrics(_Strict):
    total_prompt_tokens: int | None = None
    total_completion_tokens: int | None = None
    total_cached_tokens: int | None = None
    total_cost_usd: float | None = None
    total_steps: int | None = None
    extra: dict[str, Any] | None = None


class Trajectory(_Strict):
    schema_version: str = SCHEMA_VERSION
    session_id: str
    agent: AgentInfo
    steps: list[Step]
    notes: str | None = None
    final_metrics: FinalMetrics | None = None
    extra: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _steps_in_order_and_calls_resolved(self) -> Trajectory:
        for index, step in enumerate(self.steps, start=1):
            if step.step_id != index:
                raise ValueError(f"step_id {step.step_id} at position {index}: steps are numbered 1, 2, ...")
            calls = {call.tool_call_id for call in step.tool_calls or []}
            for result in step.observation.results if step.observation else []:
                if result.source_call_id is not None and result.source_call_id not in calls:
                    raise ValueError(f"step {step.step_id}: result for unknown tool call {result.source_call_id!r}")
        return self

    def dump(self, path: Path) -> None:
        path.write_text(json.dumps(self.model_dump(mode="json", exclude_none=True), indent=2) + "\n", encoding="utf-8")


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class TrajectoryRecorder:
    """Builds a Trajectory step by step while an agent works. On a multi-step task the trajectory's
    `extra.task_steps` lists each task step: its name, the first ATIF step of it, its reward and why
    the agent ended it."""

    def __init__(self, agent: AgentInfo, session_id: str | None = None) -> None:
        self.trajectory = Trajectory(session_id=session_id or str(uuid.uuid4()), agent=agent, steps=[])
        self.task_steps: list[dict[str, Any]] = []

    def begin_task_step(self, name: str) -> None:
        """A task step starts: the ATIF steps recorded from here on are its work."""
        self.task_steps.append({"name": name, "first_step_id": self._next()})

    def end_task_step(self, reward: float | None, ended: str) -> None:
        """The task step begun last was verified: its reward (None: no reward file) and why it ended."""
        self.task_steps[-1].update(reward=reward, ended=ended)

    def system(self, message: str) -> None:
        self._add(Step(step_id=self._next(), timestamp=now(), source="system", message=message))

    def user(self, message: str) -> None:
        self._add(Step(step_id=self._next(), timestamp=now(), source="user", message=message))

    def agent(
        self,
        message: str,
        *,
        calls: list[ToolCallRecord] | None = None,
        results: list[ObservationResult] | None = None,
        metrics: StepMetrics | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Step:
        step = Step(
            step_id=self._next(),
            timestamp=now(),
            source="agent",
            message=message,
            model_name=self.trajectory.agent.model_name,
            tool_calls=calls or None,
            observation=Observation(results=results) if results else None,
            metrics=metrics,
            extra=extra,
        )
        self._add(step)
        return step

    def finish(self, *, notes: str | None = None) -> Trajectory:
        steps = [s for s in self.trajectory.steps if s.metrics is not None]
        self.trajectory.final_metrics = FinalMetrics(
            total_prompt_tokens=sum(s.metrics.prompt_tokens or 0 for s in steps if s.metrics),
            total_completion_tokens=sum(s.metrics.completion_tokens or 0 for s in steps if s.metrics),
            total_cached_tokens=sum(s.metrics.cached_tokens or 0 for s in steps if s.metrics),
            total_cost_usd=sum(s.metrics.cost_usd or 0.0 for s in steps if s.metrics),
            total_steps=len(self.trajectory.steps),
        )
        self.trajectory.notes = notes
        if self.task_steps:
            self.trajectory.extra = {**(self.trajectory.extra or {}), "task_steps": self.task_steps}
        return Trajectory.model_validate(self.trajectory.model_dump())  # the validators run on the whole

    def _next(self) -> int:
        return len(self.trajectory.steps) + 1

    def _add(self, step: Step) -> None:
        self.trajectory.steps.append(step)
