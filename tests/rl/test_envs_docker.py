"""The SkyRL-gym and gymnasium environments on the real engine: a bundled seed, the oracle's
commands played as the policy's replies, the reward from the task's tests, no container left."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest
import skyrl_gym

from rst_synth.agents.terminal import SUBMIT_COMMAND
from rst_synth.rl import ENV_CLASS, register_skyrl_envs
from rst_synth.rl.gym_env import ENV_ID
from tests.support.cli import rst
from tests.support.docker import our_containers
from tests.support.tasks import REPO, SEEDS

pytestmark = pytest.mark.docker
SEED = SEEDS / "access-log-report"
SOLUTION = (SEED / "solution" / "solve.sh").read_text()


def bash_block(command: str) -> str:
    return f"I will run this.\n```bash\n{command}\n```\n"


@pytest.fixture(scope="module")
def row(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The seed's row as `rst collect --format skyrl` writes it."""
    out = tmp_path_factory.mktemp("skyrl")
    result = rst("collect", str(SEED), "--format", "skyrl", "--out", str(out))
    assert result.returncode == 0, result.stderr
    (line,) = (out / "skyrl" / "train.jsonl").read_text().splitlines()
    row: dict[str, object] = json.loads(line)
    return row


def test_a_skyrl_episode_with_the_oracles_commands_earns_reward_one(row: dict[str, object]) -> None:
    register_skyrl_envs()
    assert ENV_CLASS in skyrl_gym.registry and row["env_class"] == ENV_CLASS
    extras = {key: value for key, value in row.items() if key not in ("prompt", "env_class")}
    env = skyrl_gym.make(ENV_CLASS, env_config={}, extras=extras)
    prompt, info = env.init(row["prompt"])
    assert prompt == row["prompt"] and info["task"] == "rst-seeds/access-log-report"

    listing = env.step(bash_block("ls logs"))
    assert (listing["done"], listing["reward"]) == (False, 0.0)
    assert listing["observations"][0]["role"] == "user" and "access.log" in listing["observations"][0]["content"]
    solved = env.step(bash_block(SOLUTION))
    assert (solved["done"], solved["reward"]) == (False, 0.0)
    last = env.step(bash_block(SUBMIT_COMMAND))
    assert (last["done"], last["reward"], last["observations"]) == (True, 1.0, [])
    assert last["metadata"]["ended"] == "submitted" and env.get_metrics() == {"steps": 2, "reward": 1.0}
    env.close()
    assert not our_containers()


def test_a_skyrl_episode_that_submits_at_once_earns_nothing(row: dict[str, object]) -> None:
    register_skyrl_envs()
    env = skyrl_gym.make(ENV_CLASS, env_config={}, extras={"extra_info": row["extra_info"]})
    env.init(row["prompt"])
    last = env.step('<tool_call>{"name": "submit", "arguments": {}}</tool_call>')
    assert (last["done"], last["reward"]) == (True, 0.0)
    assert not our_containers()


def test_the_gymnasium_env_with_the_oracles_commands(tmp_path: Path) -> None:
    env = gymnasium.make(f"rst_synth.rl.gym_env:{ENV_ID}", task_dir=SEED, max_steps=5)
    try:
        observation, info = env.reset(seed=0)
        assert "access log" in observation.lower() and [m["role"] for m in info["messages"]] == ["system", "user"]
        output, reward, terminated, truncated, _ = env.step(SOLUTION)
        assert (reward, terminated, truncated) == (0.0, False, False) and output.startswith("exit code: 0")
        _, reward, terminated, truncated, info = env.step(SUBMIT_COMMAND)
        assert (reward, terminated, truncated, info["ended"]) == (1.0, True, False, "submitted")
    finally:
        env.close()
    assert not our_containers()


def test_a_process_that_exits_mid_episode_leaves_no_container() -> None:
    script = (
        "from rst_synth.rl import TaskSession\n"
        f"session = TaskSession({str(SEED)!r})\n"
        "session.reset()\n"
        "print(session.run('touch /app/started').observation.splitlines()[0])\n"
    )  # no close(): the interpreter's exit must remove the container
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert result.returncode == 0 and result.stdout.strip() == "exit code: 0", result.stderr
    assert not our_containers()
