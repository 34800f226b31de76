"""The real Docker engine in tests: run async work against it, and find this session's containers."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Awaitable, Callable
from typing import TypeVar

from rst_synth.sandbox import Sandbox, make_sandbox

T = TypeVar("T")


def run_async(work: Callable[[Sandbox], Awaitable[T]]) -> T:
    """Run async work against a fresh sandbox on the real engine, closing it afterwards."""

    async def main() -> T:
        sandbox = make_sandbox("docker")
        try:
            return await work(sandbox)
        finally:
            await sandbox.close()

    return asyncio.run(main())


def our_containers() -> list[str]:
    """Containers of this test session (conftest labels them through RST_RUN_LABEL)."""
    label = f"label=rst-synth.run={os.environ['RST_RUN_LABEL']}"
    out = subprocess.run(["docker", "ps", "-aq", "--filter", label], capture_output=True, text=True, check=True)
    return out.stdout.split()


def engine_answers() -> bool:
    """Whether a Docker engine answers on DOCKER_HOST or the default socket."""
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
