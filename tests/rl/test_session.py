"""The RL adapter's episode rules on the fake sandbox (no Docker): prompt, steps, limits, cleanup."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rst_synth.agents import AttemptLimits
from rst_synth.agents.terminal import SUBMIT_COMMAND
from rst_synth.rl import EpisodeOver, TaskSession
from tests.support.fakes import FakeSandbox
from tests.support.tasks import write_task

MADE: list[FakeSandbox] = []
BACKEND = f"{__name__}:fake_sandbox"


def fake_sandbox(**options: Any) -> FakeSandbox:
    MADE.append(FakeSandbox())
    return MADE[-1]


def session(tmp_path: Path, **limits: Any) -> TaskSession:
    return TaskSession(write_task(tmp_path), limits=AttemptLimits(**limits), backend=BACKEND)


def test_an_episode_gives_the_prompt_runs_commands_and_ends_on_submit(tmp_path: Path) -> None:
    env = session(tmp_path)
    prompt = env.reset()
    assert [m["role"] for m in prompt] == ["system", "user"]
    assert prompt[1]["content"] == "Write the word hello to /app/out.txt.\n"
    assert "in /app" in prompt[0]["content"] and "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in prompt[0]["content"]
    box = MADE[-1]
    assert box.live == 1

    step = env.act("```bash\necho hi\n```")
    assert not step.done and step.reward == 0.0 and step.observation.startswith("exit code: 0")
    last = env.act(f"```bash\n{SUBMIT_COMMAND}\n```")
    assert last.done and last.ended == "submitted" and last.reward == 0.0  # nothing was written: the test fails
    assert box.live == 0 and env.steps == 1
    with pytest.raises(EpisodeOver):
        env.run("ls")


def test_three_malformed_replies_in_a_row_end_the_episode(tmp_path: Path) -> None:
    env = session(tmp_path)
    env.reset()
    assert "Format error" in env.act("thinking...").observation
    env.act("```bash\nls\n```")  # a good reply resets the count
    assert not env.act("still thinking").done and not env.act("hmm").done
    last = env.act("what now")
    assert last.done and last.ended == "format_errors" and MADE[-1].live == 0


def test_the_step_limit_ends_the_episode_and_reset_starts_a_fresh_container(tmp_path: Path) -> None:
    env = session(tmp_path, max_steps=2)
    env.reset()
    first = MADE[-1]
    assert not env.run("ls").done
    last = env.run("pwd")
    assert last.done and last.ended == "max_steps" and last.observation.startswith("exit code: 0")
    env.reset()
    assert MADE[-1] is not first and first.live == 0 and MADE[-1].live == 1
    env.close()
    env.close()  # twice is fine
    assert MADE[-1].live == 0


def test_a_context_manager_removes_the_container_on_an_error(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), session(tmp_path) as env:
        env.reset()
        raise RuntimeError("the trainer failed")
    assert MADE[-1].live == 0
