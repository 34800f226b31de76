"""The terminal agent on the real engine, driven by a scripted OpenAI-compatible server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rst_synth.agents import AttemptLimits, AttemptResult, Trajectory, make_agent, run_attempt
from rst_synth.sandbox import Sandbox
from rst_synth.task import Task
from tests.support.docker import our_containers, run_async
from tests.support.fake_server import FakeOpenAI, Reply
from tests.support.harbor import harbor_validates_trajectory
from tests.support.tasks import SEEDS

pytestmark = pytest.mark.docker
SEED = SEEDS / "access-log-report"
SOLUTION = (SEED / "solution" / "solve.sh").read_text()


def by_turn(turns: list[Reply]) -> Callable[[dict[str, Any]], Reply]:
    """Answer by the number of assistant turns already in the conversation (the last reply repeats)."""

    def respond(body: dict[str, Any]) -> Reply:
        turn = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        return turns[min(turn, len(turns) - 1)]

    return respond


def bash(command: str) -> Reply:
    return Reply(content=None, tool_calls=[("bash", json.dumps({"command": command}))])


SUBMIT = Reply(content=None, tool_calls=[("submit", "{}")])


def block(command: str) -> Reply:
    return Reply(content=f"Next:\n```bash\n{command}\n```\n")


def attempt(server: FakeOpenAI, tmp_path: Path, mode: str = "auto", **limits: Any) -> tuple[AttemptResult, Trajectory]:
    task = Task.load(SEED)

    async def work(sandbox: Sandbox) -> AttemptResult:
        agent = make_agent("llm", model="fake-model", base_url=server.base_url, mode=mode)
        try:
            return await run_attempt(
                task, agent, sandbox, attempt=0, seed=7, out_dir=tmp_path / "attempt", limits=AttemptLimits(**limits)
            )
        finally:
            await agent.close()

    result = run_async(work)
    path = tmp_path / "attempt" / "trajectory.json"
    assert "Trajectory is valid" in harbor_validates_trajectory(path)  # Harbor's own ATIF check
    trajectory = Trajectory.model_validate_json(path.read_text())
    assert AttemptResult.model_validate_json((tmp_path / "attempt" / "result.json").read_text()) == result
    return result, trajectory


def test_solves_a_seed_by_tool_calls(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        server.responder = by_turn([bash("ls /app/logs"), bash(SOLUTION), SUBMIT])
        result, trajectory = attempt(server, tmp_path)
    assert (result.reward, result.ended, result.steps) == (1.0, "submitted", 2)
    assert all(body.get("tools") for body in server.requests)
    listing = trajectory.steps[2]
    assert listing.tool_calls and listing.tool_calls[0].arguments == {"command": "ls /app/logs"}
    assert listing.observation and "access.log" in (listing.observation.results[0].content or "")
    assert trajectory.final_metrics and trajectory.final_metrics.total_prompt_tokens
    assert not our_containers()


def test_solves_a_seed_in_text_mode(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        server.responder = by_turn(
            [block("cd /app && ls"), block(SOLUTION), block("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")]
        )
        result, trajectory = attempt(server, tmp_path, mode="text")
    assert (result.reward, result.ended) == (1.0, "submitted")
    assert not any(body.get("tools") for body in server.requests)
    # the first command's cd persists: the second turn starts in /app
    assert trajectory.steps[2].observation and "logs" in (trajectory.steps[2].observation.results[0].content or "")


def test_auto_mode_falls_back_to_text_when_the_endpoint_refuses_tools(tmp_path: Path) -> None:
    text_turns = by_turn([block(SOLUTION), block("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")])
    with FakeOpenAI() as server:
        server.responder = lambda body: Reply(status=400) if body.get("tools") else text_turns(body)
        result, trajectory = attempt(server, tmp_path)
    assert (result.reward, result.ended) == (1.0, "submitted")
    assert "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in trajectory.steps[0].message  # the text-mode prompt


def test_submitting_at_once_earns_zero(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        server.responder = by_turn([SUBMIT])
        result, trajectory = attempt(server, tmp_path)
    assert (result.reward, result.ended, result.steps) == (0.0, "submitted", 0)
    assert [s.source for s in trajectory.steps] == ["system", "user", "agent"]


def test_three_malformed_replies_end_the_attempt(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        server.responder = by_turn([Reply(content="I think I will look around first.")])
        result, trajectory = attempt(server, tmp_path, mode="text")
    assert (result.reward, result.ended) == (0.0, "format_errors")
    assert len(server.requests) == 3
    assert "Format error" in server.requests[-1]["messages"][-1]["content"]
    assert all(s.extra and "format_error" in s.extra for s in trajectory.steps[2:])


def test_ten_megabytes_of_output_are_cut_to_head_and_tail(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        server.responder = by_turn([bash("head -c 10000000 /dev/zero | tr '\\0' a; echo END"), SUBMIT])
        result, trajectory = attempt(server, tmp_path, output_chars=2000)
    content = trajectory.steps[2].observation.results[0].content or ""  # type: ignore[union-attr]
    assert "characters cut" in content and content.rstrip().endswith("END") and len(content) < 3000
    assert result.ended == "submitted"


def test_a_command_past_its_timeout_is_killed_and_the_attempt_goes_on(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        server.responder = by_turn([bash("sleep 1000"), bash(SOLUTION), SUBMIT])
        result, trajectory = attempt(server, tmp_path, command_timeout_sec=2)
    assert "killed" in (trajectory.steps[2].observation.results[0].content or "")  # type: ignore[union-attr]
    assert (result.reward, result.ended) == (1.0, "submitted")
    assert result.seconds < 60
