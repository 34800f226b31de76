"""The bundled seed library: every seed follows the rules and is accepted by the validator."""

from __future__ import annotations

import asyncio
import re

import pytest

from rst_synth.task import Task, TaskPaths
from rst_synth.task.metrics import code_lines
from rst_synth.validator import Validator, ValidatorConfig
from tests.support.docker import run_async
from tests.support.tasks import REPO, SEEDS

SEED_DIRS = sorted(p for p in SEEDS.iterdir() if (p / TaskPaths.CONFIG).is_file())
FIRST_LINES = [
    "FROM debian:bookworm-slim",
    "RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pytest"
    " && rm -rf /var/lib/apt/lists/*",
]


def test_library_size_and_domains() -> None:
    tasks = [Task.load(p) for p in SEED_DIRS]
    assert len(tasks) >= 12
    assert len({t.config.metadata.category for t in tasks}) >= 8


@pytest.mark.parametrize("seed_dir", SEED_DIRS, ids=lambda p: p.name)
def test_seed_follows_the_rules(seed_dir) -> None:
    task = Task.load(seed_dir)
    assert task.dockerfile.splitlines()[:2] == FIRST_LINES  # one shared cached layer
    assert 10 <= code_lines(task.solve_sh) <= 70
    tests = sum(
        len(re.findall(r"^def test_", body.decode(), re.M))
        for rel, body in task.files.items()
        if rel.startswith("tests/test_") and rel.endswith(".py")
    )
    assert 4 <= tests <= 10
    assert task.config.environment.network_enabled is False
    assert task.name == f"rst-seeds/{seed_dir.name}"


@pytest.mark.docker
def test_every_seed_and_the_example_child_accepted() -> None:
    tasks = [Task.load(p) for p in SEED_DIRS]
    child_dir = REPO / "examples" / "children" / "access-log-report-errors"
    child, parent = Task.load(child_dir), Task.load(SEEDS / "access-log-report")

    async def work(sandbox):  # type: ignore[no-untyped-def]
        validator = Validator(sandbox, ValidatorConfig(max_containers=4))
        return await asyncio.gather(*(validator.validate(t) for t in tasks), validator.validate(child, parent))

    reports = run_async(work)
    rejected = {
        r.task: (r.first_failure.check.value, r.first_failure.reason.value, r.first_failure.output_tail[-800:])
        for r in reports
        if not r.accepted
    }
    assert not rejected
    assert reports[-1].result_of("parent").passed
