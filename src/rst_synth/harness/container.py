"""A task's container: its image, the limits task.toml asks for, the log folders Harbor's runtime
contract promises, and the solution copied in and run."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import PurePosixPath

from rst_synth.sandbox import Container, ExecResult, ImageInfo, Limits, Sandbox
from rst_synth.task import Task, TaskPaths

LOG_DIRS = tuple(str(d.relative_to("/")) for d in (TaskPaths.CONTAINER_VERIFIER_LOGS, TaskPaths.CONTAINER_AGENT_LOGS))
"""The log folders, relative to /; created world-writable in the same copy as the solution: a separate
`mkdir` exec would cost three more engine calls per check."""
# Every nested bash inherits SHELLOPTS=xtrace and writes its trace to fd 19, so commands in
# scripts that solve.sh writes and runs are counted too.
_TRACED_SOLVE = (
    f"exec 19>{TaskPaths.CONTAINER_XTRACE_LOG}; "
    f"env BASH_XTRACEFD=19 SHELLOPTS=xtrace bash {TaskPaths.CONTAINER_SOLUTION_DIR}/solve.sh"
)
_PLAIN_SOLVE = f"bash {TaskPaths.CONTAINER_SOLUTION_DIR}/solve.sh"


def task_limits(task: Task) -> Limits:
    """The container limits task.toml asks for (network off unless it says plainly otherwise)."""
    env = task.config.environment
    return Limits(cpus=env.cpus, memory_mb=env.memory_mb, network=env.network_enabled, disk_mb=env.storage_mb)


async def build_image(sandbox: Sandbox, task: Task) -> ImageInfo:
    """The image of the task's environment/, built once per build-context hash within its build timeout."""
    return await sandbox.ensure_image(
        task.files_under(TaskPaths.ENVIRONMENT_DIR),
        task.environment_hash(),
        timeout=task.config.environment.build_timeout_sec,
    )


@asynccontextmanager
async def open_task(
    sandbox: Sandbox, task: Task, *, image: str | None = None, staged: bool = True
) -> AsyncIterator[Container]:
    """A fresh container of `task`'s image (built here unless `image` names it) with its limits;
    `staged`: the log folders are there already (else the caller stages them with its solution)."""
    tag = image if image is not None else (await build_image(sandbox, task)).tag
    async with sandbox.container(tag, task_limits(task)) as box:
        if staged:
            await stage(box)
        yield box


async def stage(box: Container, solution: dict[str, bytes] | None = None) -> None:
    """Create the log folders, and copy `solution` (relative path -> content) to /solution, in one copy."""
    solution_dir = TaskPaths.CONTAINER_SOLUTION_DIR.relative_to("/")
    staged = {f"{solution_dir}/{rel}": body for rel, body in (solution or {}).items()}
    await box.put_files(staged, PurePosixPath("/"), open_dirs=LOG_DIRS)


async def run_solution(box: Container, *, timeout: float, trace: bool = False) -> tuple[ExecResult, str | None]:
    """Run the staged /solution/solve.sh; with `trace`, also the xtrace of every bash it started
    (None without it, or where the solution ran out of time or into a limit; "" where it wrote none)."""
    solve = await box.exec(_TRACED_SOLVE if trace else _PLAIN_SOLVE, timeout=timeout)
    if not trace or solve.timed_out or solve.breach:
        return solve, None
    raw = await box.read_file(TaskPaths.CONTAINER_XTRACE_LOG)
    return solve, raw.decode("utf-8", errors="replace") if raw is not None else ""
