"""The harness on the fake sandbox: one way into a task's container for every caller."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path, PurePosixPath

import pytest

from rst_synth.harness import (
    LOG_DIRS,
    open_task,
    parse_reward_json,
    parse_reward_txt,
    read_reward_keys,
    run_solution,
    stage,
    task_limits,
    verify,
)
from rst_synth.proposers.discovery import discover
from rst_synth.sandbox import Limits
from rst_synth.task import Task, TaskPaths
from tests.support.fakes import FakeContainer, FakeSandbox
from tests.support.tasks import write_task

LIMITED = "[environment]\ncpus = 1\nmemory_mb = 512\nstorage_mb = 2048\n"


class RecordingContainer(FakeContainer):
    def __init__(self, sandbox: FakeSandbox, opened: list[tuple[str, ...]]) -> None:
        super().__init__(sandbox)
        self.opened = opened

    async def put_files(
        self,
        files: dict[str, bytes],
        dest: PurePosixPath,
        executable: set[str] | None = None,
        open_dirs: tuple[str, ...] = (),
    ) -> None:
        self.opened.append(open_dirs)
        await super().put_files(files, dest, executable, open_dirs)


class RecordingSandbox(FakeSandbox):
    """Keeps the limits of every container and the folders each copy opened."""

    def __init__(self) -> None:
        super().__init__()
        self.limits: list[Limits] = []
        self.opened: list[tuple[str, ...]] = []

    @asynccontextmanager
    async def container(self, image: str, limits: Limits) -> AsyncIterator[FakeContainer]:
        self.limits.append(limits)
        async with super().container(image, limits):
            yield RecordingContainer(self, self.opened)


def _task(tmp_path: Path, **kwargs: str) -> Task:
    return Task.load(write_task(tmp_path, toml_extra=LIMITED, **kwargs))


def test_task_limits_are_task_tomls(tmp_path: Path) -> None:
    assert task_limits(_task(tmp_path)) == Limits(cpus=1, memory_mb=512, network=False, disk_mb=2048)


def test_open_task_builds_limits_and_stages_the_log_folders(tmp_path: Path) -> None:
    sandbox, task = RecordingSandbox(), _task(tmp_path)

    async def run() -> None:
        async with open_task(sandbox, task):
            pass

    asyncio.run(run())
    assert sandbox.images and sandbox.limits == [task_limits(task)]
    assert sandbox.opened == [LOG_DIRS] and sandbox.live == 0


def test_discovery_opens_its_container_with_the_disk_limit(tmp_path: Path) -> None:
    """Discovery once built its limits by hand and left the disk limit out."""
    sandbox, task = RecordingSandbox(), _task(tmp_path, solve="touch /app/made\n")
    asyncio.run(discover(sandbox, task))
    assert sandbox.limits == [task_limits(task)] and sandbox.limits[0].disk_mb == 2048
    assert sandbox.opened == [LOG_DIRS]  # the solution went in with the log folders, as in a trial


def test_solution_and_verifier_in_one_container(tmp_path: Path) -> None:
    sandbox, task = RecordingSandbox(), _task(tmp_path, solve="touch /app/made\n", tests={"test_made.py": _MADE})

    async def run() -> tuple[float | None, str | None]:
        async with open_task(sandbox, task, staged=False) as box:
            await stage(box, task.files_under(TaskPaths.SOLUTION_DIR))
            solve, trace = await run_solution(box, timeout=30, trace=True)
            assert solve.ok
            _, reward = await verify(box, task.files_under(TaskPaths.TESTS_DIR), 30)
            return reward, trace

    reward, trace = asyncio.run(run())
    assert reward == 1.0 and trace is not None and "+ touch /app/made" in trace
    assert sandbox.opened[0] == LOG_DIRS


def test_reward_keys_from_reward_json(tmp_path: Path) -> None:
    box = FakeContainer(FakeSandbox())
    box.files[str(TaskPaths.CONTAINER_REWARD_JSON)] = b'{"reward": 0.5, "r1s1": 1, "r2s1": "x"}'
    assert asyncio.run(read_reward_keys(box, ["r1s1", "r2s1", "r3s1"])) == {"r1s1": 1.0, "r2s1": 0.0, "r3s1": 0.0}
    assert asyncio.run(read_reward_keys(FakeContainer(FakeSandbox()), ["r1s1"])) == {"r1s1": 0.0}


_MADE = 'from pathlib import Path\n\n\ndef test_made():\n    assert Path("/app/made").exists()\n'


@pytest.mark.parametrize(("raw", "reward"), [(b"1\n", 1.0), (b"0", 0.0), (b"0.5", 0.5), (b"", 0.0), (b"yes", 0.0)])
def test_reward_txt(raw: bytes, reward: float) -> None:
    assert parse_reward_txt(raw) == reward


@pytest.mark.parametrize(
    ("raw", "reward"),
    [(b'{"reward": 1}', 1.0), (b'{"a": 1, "b": 0.5}', 0.5), (b"1", 1.0), (b"[1]", 0.0), (b"{", 0.0), (b"{}", 0.0)],
)
def test_reward_json(raw: bytes, reward: float) -> None:
    assert parse_reward_json(raw) == reward
