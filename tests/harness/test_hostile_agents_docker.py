"""Hostile agents on the real engine: each tries one channel to an unearned reward on a bundled seed
through `run_attempt` (the path of `rst eval`, the solver and, by `harness.verify`, RL and
validation), and each ends at reward 0 with a reason. The seed's oracle still gets 1 and nop 0."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from rst_synth.agents import AttemptResult, make_agent, run_attempt
from rst_synth.sandbox import Sandbox
from rst_synth.task import Task
from tests.support.docker import our_containers, run_async
from tests.support.hostile import CHANNELS
from tests.support.tasks import SEEDS

pytestmark = pytest.mark.docker
SEED = SEEDS / "access-log-report"
TAMPERED, FAILED = "verifier_tampered", "tests_failed"
EXPECTED = {
    "pytest-main-shadowed": TAMPERED,
    "python3-replaced": TAMPERED,
    "python3-earlier-on-path": TAMPERED,
    "pytest-earlier-on-path": TAMPERED,
    "sitecustomize": TAMPERED,
    "usercustomize": TAMPERED,
    "pth-file": TAMPERED,
    "conftest-in-root": TAMPERED,
    "conftest-in-app": TAMPERED,
    "pytest-ini-in-root": TAMPERED,
    "reward-written-ahead-immutable": FAILED,  # cleared before the tests: the tests' own 0
    "reward-txt-a-directory": FAILED,
    "reward-folder-a-symlink": TAMPERED,
    "logs-a-symlink": TAMPERED,
    "logs-mounted-over": FAILED,  # no CAP_SYS_ADMIN: the mount fails
    "kill-verifier-group": TAMPERED,
    "reward-rewritten-after-tests": TAMPERED,
    "shell-function-in-startup-files": FAILED,  # test.sh runs with --noprofile --norc
    "pythonpath-and-bash-env-exported": FAILED,  # and under env -i
}
AGENTS = {name: ("tests.support.hostile:make_hostile", {"channel": name}) for name in CHANNELS}
AGENTS |= {"oracle": ("oracle", {}), "nop": ("nop", {})}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, AttemptResult]:
    """Every agent once, a few at a time, on one image (built once)."""
    task, out = Task.load(SEED), tmp_path_factory.mktemp("hostile")

    async def work(sandbox: Sandbox) -> dict[str, AttemptResult]:
        slots = asyncio.Semaphore(4)

        async def one(key: str) -> AttemptResult:
            name, options = AGENTS[key]
            agent = make_agent(name, **options)
            async with slots:
                return await run_attempt(task, agent, sandbox, attempt=0, seed=1, out_dir=Path(out) / key)

        await one("nop")  # builds the image before the others ask for it
        keys = [k for k in AGENTS if k != "nop"]
        done = await asyncio.gather(*(one(k) for k in keys))
        return dict(zip(keys, done, strict=True)) | {"nop": await one("nop")}

    found = run_async(work)
    assert not our_containers()
    return found


def test_every_channel_is_listed() -> None:
    assert set(EXPECTED) == set(CHANNELS)


@pytest.mark.parametrize("channel", list(CHANNELS))
def test_hostile_channel_earns_nothing(results: dict[str, AttemptResult], channel: str) -> None:
    result = results[channel]
    print(f"| {channel} | {result.reward:g} | {result.reason} | {result.reason_detail} |")
    assert (result.reward, result.reason) == (0.0, EXPECTED[channel]), result.verifier_output[-1500:]
    if result.reason == TAMPERED:
        assert result.reason_detail


def test_the_seed_still_gives_oracle_1_and_nop_0(results: dict[str, AttemptResult]) -> None:
    assert (results["oracle"].reward, results["oracle"].reason) == (1.0, None)
    assert (results["nop"].reward, results["nop"].reason) == (0.0, FAILED)
