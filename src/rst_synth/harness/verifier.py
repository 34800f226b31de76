"""What Harbor does once the work is done: the tests go to /tests, test.sh runs, and the reward is
read from /logs/verifier/reward.txt, else reward.json. Validation, agent attempts, RL episodes and
the mutation check read rewards through here."""

from __future__ import annotations

import json

from rst_synth.sandbox import Container, ExecResult
from rst_synth.task import TaskPaths

_VERIFY = f"bash {TaskPaths.CONTAINER_TESTS_DIR}/test.sh"
RESET_VERIFIER = (
    f"rm -rf {TaskPaths.CONTAINER_TESTS_DIR} {TaskPaths.CONTAINER_VERIFIER_LOGS}"
    f" && mkdir -p {TaskPaths.CONTAINER_VERIFIER_LOGS} && chmod 0777 {TaskPaths.CONTAINER_VERIFIER_LOGS}"
)
"""Run as root before tests go in where anything ran first (a planted conftest.py, a reward file the
work wrote itself must not reach the verifier), and between the steps of a multi-step task (the next
step's agent must not see these tests or this reward)."""


async def verify(
    box: Container, tests: dict[str, bytes], timeout: float, fresh: bool = False
) -> tuple[ExecResult, float | None]:
    """Copy the tests in, run test.sh, read the reward (None when test.sh wrote none or ran out of
    time). `fresh`: nothing ran in the container before, so there is nothing to clear first."""
    if not fresh:
        await box.exec(RESET_VERIFIER, timeout=60, user="root")
    await box.put_files(tests, TaskPaths.CONTAINER_TESTS_DIR)
    result = await box.exec(_VERIFY, timeout=timeout)
    reward = None if result.timed_out else await read_reward(box)
    return result, reward


async def read_reward(box: Container) -> float | None:
    txt = await box.read_file(TaskPaths.CONTAINER_REWARD_TXT)
    if txt is not None:
        return parse_reward_txt(txt)
    raw = await box.read_file(TaskPaths.CONTAINER_REWARD_JSON)
    return parse_reward_json(raw) if raw is not None else None


async def read_reward_keys(box: Container, keys: list[str]) -> dict[str, float]:
    """Each of `keys` from reward.json (a flat task's per-step credit); a key it lacks, or no file, is 0."""
    raw = await box.read_file(TaskPaths.CONTAINER_REWARD_JSON)
    try:
        data = json.loads(raw) if raw is not None else {}
    except ValueError:
        data = {}
    found = data if isinstance(data, dict) else {}
    return {key: float(found[key]) if isinstance(found.get(key), (int, float)) else 0.0 for key in keys}


def parse_reward_txt(raw: bytes) -> float:
    try:
        return float(raw.decode("utf-8", errors="replace").strip() or "0")
    except ValueError:
        return 0.0


def parse_reward_json(raw: bytes) -> float:
    """Harbor's flat dict: its `reward` key, else the lowest value (every part must pass)."""
    try:
        data = json.loads(raw)
    except ValueError:
        return 0.0
    if isinstance(data, (int, float)):
        return float(data)
    if not isinstance(data, dict):
        return 0.0
    if isinstance(data.get("reward"), (int, float)):
        return float(data["reward"])
    values = [float(v) for v in data.values() if isinstance(v, (int, float))]
    return min(values) if values else 0.0
