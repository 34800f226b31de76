"""Our ATIF models refuse what the format forbids (Harbor's own validator checks real files in the
Docker tests)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from rst_synth.agents.atif import (
    AgentInfo,
    ObservationResult,
    StepMetrics,
    ToolCallRecord,
    Trajectory,
    TrajectoryRecorder,
)


def recorded() -> Trajectory:
    record = TrajectoryRecorder(AgentInfo(name="llm", version="1.0", model_name="m"), session_id="s1")
    record.system("be good")
    record.user("do it")
    record.agent(
        "",
        calls=[ToolCallRecord(tool_call_id="c1", function_name="bash", arguments={"command": "ls"})],
        results=[ObservationResult(source_call_id="c1", content="a\n")],
        metrics=StepMetrics(prompt_tokens=10, completion_tokens=2, cost_usd=0.5),
    )
    record.agent("done", metrics=StepMetrics(prompt_tokens=12, completion_tokens=1, cost_usd=0.25))
    return record.finish(notes="ended: submitted")


def test_a_recorded_trajectory_is_numbered_and_summed() -> None:
    trajectory = recorded()
    assert trajectory.schema_version == "ATIF-v1.4"
    assert [s.step_id for s in trajectory.steps] == [1, 2, 3, 4]
    assert trajectory.final_metrics is not None
    assert (trajectory.final_metrics.total_prompt_tokens, trajectory.final_metrics.total_cost_usd) == (22, 0.75)
    assert trajectory.final_metrics.total_steps == 4


def mutated(change: dict[str, Any]) -> dict[str, Any]:
    data = recorded().model_dump(mode="json", exclude_none=True)
    for path, value in change.items():
        *parents, leaf = path.split(".")
        target: Any = data
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[leaf] = value
    return data


@pytest.mark.parametrize(
    "change, message",
    [
        ({"steps.1.step_id": 5}, "numbered 1, 2"),
        ({"steps.0.source": "tool"}, "source"),
        ({"steps.1.metrics": {"prompt_tokens": 1}}, "only for agent steps"),
        ({"steps.2.observation": {"results": [{"source_call_id": "nope", "content": ""}]}}, "unknown tool call"),
        ({"steps.2.surprise": 1}, "Extra inputs are not permitted"),
        ({"steps.0.timestamp": "yesterday"}, "Invalid isoformat"),
    ],
)
def test_what_the_format_forbids_is_refused(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Trajectory.model_validate(mutated(change))
