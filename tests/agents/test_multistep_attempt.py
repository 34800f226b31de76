"""An attempt on a multi-step task (the fake sandbox, no Docker): each step's instruction in turn in
one container, each step's tests after it, the gate and the reward strategies; and a flat task's
per-step credit read from reward.json."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from rst_synth.agents import AttemptResult, make_agent, run_attempt
from rst_synth.agents.attempt import _credit
from rst_synth.agents.steps import RewardStrategy, step_path
from rst_synth.export import task_form
from rst_synth.task import Task
from tests.export.lineage import three_round_run
from tests.support.fakes import FakeContainer, FakeSandbox

NAMES = ["r0-seed0", "r1-touch", "r2-touch", "r3-touch"]


def lineage_task(tmp_path: Path, strategy: RewardStrategy = "mean") -> Task:
    run, rows = three_round_run(tmp_path)
    return task_form(run.root / rows[-1].path, multi_step=True, strategy=strategy)


def attempt(task: Task, agent: str, out: Path) -> tuple[AttemptResult, dict[str, object]]:
    sandbox = FakeSandbox()
    result = asyncio.run(run_attempt(task, make_agent(agent), sandbox, attempt=0, seed=7, out_dir=out))
    assert sandbox.containers == 1 and sandbox.live == 0  # every step in one container
    stored = json.loads((out / "result.json").read_text())
    assert stored["step_rewards"] == result.step_rewards
    return result, json.loads((out / "trajectory.json").read_text())


def test_the_oracle_earns_every_step(tmp_path: Path) -> None:
    result, trajectory = attempt(lineage_task(tmp_path), "oracle", tmp_path / "a")
    assert result.step_rewards == dict.fromkeys(NAMES, 1.0) and result.reward == 1.0
    marks = trajectory["extra"]["task_steps"]
    assert [(m["name"], m["reward"], m["ended"]) for m in marks] == [(n, 1.0, "done") for n in NAMES]
    users = [s for s in trajectory["steps"] if s["source"] == "user"]
    assert [u["step_id"] for u in users] == [m["first_step_id"] for m in marks]  # each step opens with its instruction
    assert users[1]["message"].startswith("Create the file /app/r1-")


def test_nop_fails_the_first_step_and_the_gate_stops_the_rest(tmp_path: Path) -> None:
    result, trajectory = attempt(lineage_task(tmp_path), "nop", tmp_path / "a")
    assert result.step_rewards == {"r0-seed0": 0.0, "r1-touch": None, "r2-touch": None, "r3-touch": None}
    assert result.reward == 0.0 and len(trajectory["extra"]["task_steps"]) == 1


@pytest.mark.parametrize("strategy, reward", [("mean", 0.5), ("final", 0.0)])
def test_wrong_work_in_step_two_is_gated_and_scored_by_the_strategy(
    tmp_path: Path, strategy: RewardStrategy, reward: float
) -> None:
    task = lineage_task(tmp_path, strategy)
    solve = step_path("r1-touch", "solution/solve.sh")
    task.set_text(solve, task.text(solve).replace("touch /app/r1-", "touch /app/elsewhere-"))
    result, _ = attempt(task, "oracle", tmp_path / "a")
    assert result.step_rewards == {"r0-seed0": 1.0, "r1-touch": 0.0, "r2-touch": None, "r3-touch": None}
    assert result.reward == reward  # Harbor's mean counts the steps that ran; final is the last of them


def test_a_flat_tasks_credit_comes_from_reward_json(tmp_path: Path) -> None:
    run, rows = three_round_run(tmp_path)
    task = task_form(run.root / rows[-1].path, multi_step=False)
    box = FakeContainer(FakeSandbox())
    box.files["/logs/verifier/reward.json"] = json.dumps({"reward": 0.0, "r0-seed0": 1.0, "r2-touch": 0.5}).encode()
    credit = asyncio.run(_credit(box, task))
    assert credit == {"r0-seed0": 1.0, "r1-touch": 0.0, "r2-touch": 0.5, "r3-touch": 0.0}  # a missing key earned 0
    assert asyncio.run(_credit(box, Task.load(run.root / rows[-1].path))) is None  # no plugin, no credit
