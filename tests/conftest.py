"""Shared fixtures: tiny tasks written for a test, and the real Docker engine."""

from __future__ import annotations

import asyncio
import os
import subprocess
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from rst_synth.sandbox import Sandbox, make_sandbox
from rst_synth.task import Task

T = TypeVar("T")
REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO / "examples" / "seeds"

# Same first lines as the bundled seeds, so the test images reuse their cached layers.
BASE_DOCKERFILE = (
    "FROM debian:bookworm-slim\n"
    "RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pytest"
    " && rm -rf /var/lib/apt/lists/*\n"
    "WORKDIR /app\n"
)
TEST_SH = """#!/bin/bash
mkdir -p /logs/verifier
if python3 -m pytest -q -p no:cacheprovider /tests; then echo 1 > /logs/verifier/reward.txt
else echo 0 > /logs/verifier/reward.txt; fi
"""
GREETING_TEST = """from pathlib import Path

def test_greeting():
    assert Path("/app/out.txt").read_text().strip() == "hello"
"""


def write_task(
    root: Path,
    *,
    name: str = "tiny",
    solve: str = "echo hello > /app/out.txt\n",
    tests: dict[str, str] | None = None,
    test_sh: str = TEST_SH,
    dockerfile: str = BASE_DOCKERFILE,
    instruction: str = "Write the word hello to /app/out.txt.\n",
    toml_extra: str = "",
) -> Path:
    """A minimal Harbor task directory under `root/name`."""
    task = root / name
    (task / "environment").mkdir(parents=True)
    (task / "solution").mkdir()
    (task / "tests").mkdir()
    (task / "task.toml").write_text(
        f'schema_version = "1.4"\n[task]\nname = "test/{name}"\n'
        f"[verifier]\ntimeout_sec = 60\n[agent]\ntimeout_sec = 60\n{toml_extra}"
    )
    (task / "instruction.md").write_text(instruction)
    (task / "environment" / "Dockerfile").write_text(dockerfile)
    (task / "solution" / "solve.sh").write_text("#!/bin/bash\nset -e\n" + solve)
    (task / "tests" / "test.sh").write_text(test_sh)
    for rel, body in (tests or {"test_outputs.py": GREETING_TEST}).items():
        (task / "tests" / rel).write_text(body)
    return task


@pytest.fixture
def task_factory(tmp_path: Path) -> Callable[..., Path]:
    def make(**kwargs: object) -> Path:
        return write_task(tmp_path, **kwargs)  # type: ignore[arg-type]

    return make


def run_async(work: Callable[[Sandbox], Awaitable[T]]) -> T:
    """Run async work against a fresh sandbox on the real engine, closing it afterwards."""

    async def main() -> T:
        sandbox = make_sandbox("docker")
        try:
            return await work(sandbox)
        finally:
            await sandbox.close()

    return asyncio.run(main())


# Containers of this test session (and of the CLI subprocesses it starts) carry this label, so
# the checks below see only our own, whatever else runs on the engine.
os.environ["RST_RUN_LABEL"] = f"pytest-{uuid.uuid4().hex[:12]}"


def our_containers() -> list[str]:
    label = f"label=rst-synth.run={os.environ['RST_RUN_LABEL']}"
    out = subprocess.run(["docker", "ps", "-aq", "--filter", label], capture_output=True, text=True, check=True)
    return out.stdout.split()


@pytest.fixture(scope="session", autouse=True)
def no_container_left_behind(request: pytest.FixtureRequest) -> Iterator[None]:
    """After the suite, no container of ours may remain (only checked when Docker tests ran)."""
    yield
    if any(item.get_closest_marker("docker") for item in request.session.items):
        leaked = our_containers()
        assert not leaked, f"containers left behind: {leaked}"


def load(path: Path) -> Task:
    return Task.load(path)
