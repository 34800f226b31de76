"""The RL session on a multi-step task (the fake sandbox, no Docker): a step's reward when the agent
ends the step, the next step's instruction as the observation, the gate ending the episode."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from rst_synth.agents.steps import load_task_dir, step_path
from rst_synth.agents.terminal import SUBMIT_COMMAND
from rst_synth.export import export_dirs
from rst_synth.export.collect import CollectOptions, collect
from rst_synth.rl import TaskSession
from rst_synth.sandbox import ExecResult, Limits
from tests.export.lineage import three_round_run
from tests.support.fakes import FakeContainer, FakeSandbox

MADE: list[FakeSandbox] = []
BACKEND = f"{__name__}:fake_sandbox"
SUBMIT = f"```bash\n{SUBMIT_COMMAND}\n```"


class _Touching(FakeContainer):
    """The fake container, with the agent's own `touch PATH` commands making the file."""

    async def exec(
        self, command: str, *, timeout: float, env: dict[str, str] | None = None, user: str | None = None
    ) -> ExecResult:
        for path in re.findall(r"touch (/\S+?)\n", command):
            self.files[path] = b""
        return await super().exec(command, timeout=timeout, env=env, user=user)


class _Sandbox(FakeSandbox):
    @asynccontextmanager
    async def container(self, image: str, limits: Limits) -> AsyncIterator[FakeContainer]:
        async with super().container(image, limits):
            yield _Touching(self)


def fake_sandbox(**options: Any) -> FakeSandbox:
    MADE.append(_Sandbox())
    return MADE[-1]


def exported(tmp_path: Path) -> Path:
    """The round-3 task of a three-round lineage as a multi-step task directory."""
    run, rows = three_round_run(tmp_path)
    export_dirs([run.root / row.path for row in rows], tmp_path / "out", multi_step=True)
    return tmp_path / "out" / rows[-1].id


def made_by(task_dir: Path, step: str) -> str:
    """The command the step's solution runs (`touch PATH`)."""
    solve = load_task_dir(task_dir).text(step_path(step, "solution/solve.sh"))
    return next(line for line in solve.splitlines() if line.startswith("touch "))


def test_each_step_gives_its_reward_when_the_agent_submits_it(tmp_path: Path) -> None:
    task_dir = exported(tmp_path)
    env = TaskSession(task_dir, backend=BACKEND)
    prompt = env.reset()
    assert prompt[-1]["content"] == "Create /app/seed0.\n"
    names = [step.name for step in env.task_steps]
    for index, name in enumerate(names):
        env.act(f"```bash\n{made_by(task_dir, name)}\n```")
        result = env.act(SUBMIT)
        assert result.reward == 1.0 and result.task_step == name
        if index + 1 < len(names):
            assert not result.done and result.observation.startswith("Create the file /app/r")
            assert MADE[-1].live == 1  # the same container goes on
    assert result.done and result.ended == "submitted" and MADE[-1].live == 0
    assert env.step_rewards == dict.fromkeys(names, 1.0) and MADE[-1].containers == 1


def test_a_step_below_its_gate_ends_the_episode(tmp_path: Path) -> None:
    env = TaskSession(exported(tmp_path), backend=BACKEND)
    env.reset()
    result = env.act(SUBMIT)  # step 1 submitted without its work
    assert result.done and result.reward == 0.0 and result.task_step == "r0-seed0"
    assert env.step_rewards == {"r0-seed0": 0.0} and MADE[-1].live == 0


def test_skyrl_rows_carry_the_steps(tmp_path: Path) -> None:
    task_dir = exported(tmp_path)
    report = collect([task_dir.parent], tmp_path / "rows", CollectOptions(formats=["skyrl"]))
    rows = {t.task_dir.name: t for t in report.tasks}
    assert task_dir.name in rows
    line = next(
        row for row in (tmp_path / "rows" / "skyrl" / "train.jsonl").read_text().splitlines() if task_dir.name in row
    )
    assert '"task_steps": ["r0-seed0", "r1-touch", "r2-touch", "r3-touch"]' in line
    assert '"per_step_reward": true' in line and "Create /app/seed0." in line
    assert '"max_turns"' not in line  # no count of commands: the task's [agent] timeout_sec bounds an episode
    collect([task_dir.parent], tmp_path / "capped", CollectOptions(formats=["skyrl"], max_turns=30))
    assert '"max_turns": 30' in (tmp_path / "capped" / "skyrl" / "train.jsonl").read_text()


def test_the_skyrl_environment_passes_each_steps_reward_on(tmp_path: Path) -> None:
    from rst_synth.rl.skyrl_env import RstTerminalEnv

    task_dir = exported(tmp_path)
    env = RstTerminalEnv(env_config={"backend": BACKEND}, extras={"extra_info": {"task_dir": str(task_dir)}})
    env.init([{"role": "user", "content": "Create /app/seed0.\n"}])
    env.step(f"```bash\n{made_by(task_dir, 'r0-seed0')}\n```")
    first = env.step(SUBMIT)
    assert (first["reward"], first["done"]) == (1.0, False)
    assert first["observations"][0]["content"].startswith("Create the file /app/r1-")
    last = env.step(SUBMIT)  # step 2 submitted without its work: 0, and the gate ends the episode
    assert (last["reward"], last["done"], last["observations"]) == (0.0, True, [])
    env.close()
