"""`rst gc RUN` on the real engine: the images only rejected candidates used go, with the disk they
took; the images of accepted tasks stay; a run in use is left alone."""

from __future__ import annotations

import asyncio
import re
import subprocess
import uuid
from pathlib import Path

import pytest

from rst_synth.sandbox import Limits, make_sandbox
from rst_synth.sandbox.docker import RUN_DIR_LABEL
from rst_synth.sandbox.images import image_tag
from rst_synth.store import RunPaths, Store, TaskRow
from rst_synth.store.lock import RunLock
from rst_synth.task import Task, TaskPaths
from rst_synth.validator.kept import keep_state, state_tag
from tests.support.cli import rst
from tests.support.tasks import BASE_DOCKERFILE, write_task

pytestmark = pytest.mark.docker


def image_exists(tag: str) -> bool:
    return subprocess.run(["docker", "image", "inspect", tag], capture_output=True).returncode == 0


def build(run: Path, task: Task) -> str:
    async def main() -> str:
        sandbox = make_sandbox("docker", labels={RUN_DIR_LABEL: str(run.resolve())})
        try:
            info = await sandbox.ensure_image(
                task.files_under(TaskPaths.ENVIRONMENT_DIR), task.environment_hash(), timeout=600
            )
        finally:
            await sandbox.close()
        return info.tag

    return asyncio.run(main())


def test_gc_removes_only_what_rejected_candidates_built(tmp_path: Path) -> None:
    nonce = uuid.uuid4().hex
    run = tmp_path / "run"
    paths = RunPaths(run)
    kept_dir = write_task(tmp_path / "src", name="kept", dockerfile=BASE_DOCKERFILE + f"RUN echo {nonce}-kept\n")
    dropped_dir = write_task(
        tmp_path / "src",
        name="dropped",
        dockerfile=BASE_DOCKERFILE + f"RUN echo {nonce} && head -c 8000000 /dev/urandom > /blob\n",
    )
    kept, dropped = Task.load(kept_dir), Task.load(dropped_dir)
    kept.save(paths.task_dir(1, "kept"))
    store = Store(paths.db)
    store.add_candidate("r01-kept", 1, None, 0)
    store.accept("r01-kept", TaskRow(id="kept", name=kept.name, round=1, parent_id=None, root_id="kept",
                                     path="tasks/r01/kept"), b"", b"")  # fmt: skip
    store.close()
    kept_tag, dropped_tag = build(run, kept), build(run, dropped)
    assert kept_tag == image_tag(kept.environment_hash()) and image_exists(dropped_tag)
    try:
        with RunLock(run):
            busy = rst("gc", str(run))
        assert busy.returncode == 1 and "in use by process" in busy.stderr
        assert image_exists(dropped_tag)

        dry = rst("gc", str(run), "--dry-run")
        assert dry.returncode == 0 and "would remove 1 images" in dry.stdout and image_exists(dropped_tag)

        done = rst("gc", str(run))
        assert done.returncode == 0, done.stderr
        said = r"removed 1 images only rejected candidates used, kept 1 of accepted tasks, freed ([\d.]+) MB"
        freed = re.search(said, done.stdout)
        assert freed is not None, done.stdout
        # The engine's own figure; the suite's other process may build layers meanwhile, so no floor here:
        # the rejected image's 8 MB layer is gone (below), and the message says what the engine freed.
        assert float(freed.group(1)) >= 0
        assert not image_exists(dropped_tag) and image_exists(kept_tag)
    finally:
        subprocess.run(["docker", "image", "rm", "-f", kept_tag, dropped_tag], capture_output=True)


def keep(run: Path, task: Task, image: str) -> str:
    """`task`'s kept state, committed from a container of `image` as the validator does."""

    async def main() -> None:
        sandbox = make_sandbox("docker", labels={RUN_DIR_LABEL: str(run.resolve())})
        try:
            async with sandbox.container(image, Limits()) as box:
                await keep_state(box, task)
        finally:
            await sandbox.close()

    asyncio.run(main())
    return state_tag(task)


def test_gc_keeps_the_accepted_tasks_states_until_told_to_drop_them(tmp_path: Path) -> None:
    run = tmp_path / "run"
    paths = RunPaths(run)
    # An image of its own: the test removes it at the end, and other tests use the shared base's.
    dockerfile = BASE_DOCKERFILE + f"RUN echo {uuid.uuid4().hex}\n"
    accepted = Task.load(write_task(tmp_path / "src", name="accepted", dockerfile=dockerfile))
    rejected = Task.load(
        write_task(tmp_path / "src", name="rejected", solve="echo other > /app/out.txt\n", dockerfile=dockerfile)
    )
    accepted.save(paths.task_dir(1, "accepted"))
    store = Store(paths.db)
    store.add_candidate("r01-accepted", 1, None, 0)
    store.accept("r01-accepted", TaskRow(id="accepted", name=accepted.name, round=1, parent_id=None,
                                         root_id="accepted", path="tasks/r01/accepted"), b"", b"")  # fmt: skip
    store.close()
    image = build(run, accepted)
    ours, theirs = keep(run, accepted, image), keep(run, rejected, image)
    try:
        done = rst("gc", str(run))
        assert done.returncode == 0, done.stderr
        assert image_exists(ours) and not image_exists(theirs) and image_exists(image)
        dropped = rst("gc", str(run), "--drop-states")
        assert dropped.returncode == 0 and "and kept states" in dropped.stdout, dropped.stdout
        assert not image_exists(ours) and image_exists(image)
    finally:
        subprocess.run(["docker", "image", "rm", "-f", ours, theirs, image], capture_output=True)
