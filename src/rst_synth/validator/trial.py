"""One trial: a fresh container, optionally a solution, then the verifier; as Harbor runs it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from rst_synth.sandbox import Container, ExecResult, FileState, Limits, Sandbox, file_state
from rst_synth.sandbox.base import Breach
from rst_synth.task import Task, TaskPaths

P = TaskPaths

# Every nested bash inherits SHELLOPTS=xtrace and writes its trace to fd 19, so commands in
# scripts that solve.sh writes and runs are counted too.
_TRACED_SOLVE = (
    f"exec 19>{P.CONTAINER_XTRACE_LOG}; env BASH_XTRACEFD=19 SHELLOPTS=xtrace bash {P.CONTAINER_SOLUTION_DIR}/solve.sh"
)
_PLAIN_SOLVE = f"bash {P.CONTAINER_SOLUTION_DIR}/solve.sh"
_VERIFY = f"bash {P.CONTAINER_TESTS_DIR}/test.sh"
# Before the tests go in, as root: nothing the work left in /tests or /logs/verifier (a planted
# conftest.py, a reward file it wrote itself) may reach the verifier.
_RESET_VERIFIER = (
    f"rm -rf {P.CONTAINER_TESTS_DIR} {P.CONTAINER_VERIFIER_LOGS} && mkdir -p {P.CONTAINER_VERIFIER_LOGS}"
    f" && chmod 0777 {P.CONTAINER_VERIFIER_LOGS}"
)
# The harness's log folders, relative to /; staged in the same copy as the solution: a separate
# `mkdir` exec would cost three more engine calls per check.
LOG_DIRS = tuple(str(d.relative_to("/")) for d in (P.CONTAINER_VERIFIER_LOGS, P.CONTAINER_AGENT_LOGS))
StatesWanted = Literal["none", "after", "both"]
"""Which file states a trial records around the solution (sandbox/listing.py)."""


@dataclass
class TrialOutcome:
    solve: ExecResult | None
    verify: ExecResult | None
    reward: float | None
    """None when test.sh wrote no reward file (which counts as 0)."""
    xtrace: str | None = None
    before: FileState | None = None
    """The files before the solution ran, where the trial was asked to record them."""
    after: FileState | None = None
    """The files after the solution ran (before the tests), where the trial was asked to record them."""

    @property
    def breach(self) -> Breach | None:
        """The container limit the solution or the tests ran into, when one stopped them."""
        return next((r.breach for r in (self.solve, self.verify) if r is not None and r.breach), None)

    @property
    def breach_detail(self) -> str:
        return next((r.detail for r in (self.solve, self.verify) if r is not None and r.breach), "")

    @property
    def solved(self) -> bool:
        return self.reward is not None and self.reward >= 1.0

    def output_tail(self, chars: int = 3000) -> str:
        parts = []
        if self.solve is not None:
            parts.append("--- solve.sh ---\n" + self.solve.tail(chars // 2))
        if self.verify is not None:
            parts.append("--- test.sh ---\n" + self.verify.tail(chars // 2))
        return "\n".join(parts)


async def run_trial(
    sandbox: Sandbox,
    image: str,
    limits: Limits,
    *,
    solution: dict[str, bytes] | None,
    tests: dict[str, bytes],
    solve_timeout: float,
    verify_timeout: float,
    trace: bool = False,
    states: StatesWanted = "none",
) -> TrialOutcome:
    """Run `solution` (if any) then `tests` in a fresh container and read the reward."""
    async with sandbox.container(image, limits) as box:
        return await trial_in(
            box,
            solution=solution,
            tests=tests,
            solve_timeout=solve_timeout,
            verify_timeout=verify_timeout,
            trace=trace,
            states=states,
        )


async def trial_in(
    box: Container,
    *,
    solution: dict[str, bytes] | None,
    tests: dict[str, bytes],
    solve_timeout: float,
    verify_timeout: float,
    trace: bool = False,
    states: StatesWanted = "none",
) -> TrialOutcome:
    """A trial in a fresh container its caller made (and may keep: the quality checks reuse the
    oracle's); `states` records the files' states around the solution ("after": after it only)."""
    solve = None
    xtrace = None
    before = None
    solution_dir = P.CONTAINER_SOLUTION_DIR.relative_to("/")
    staged = {} if solution is None else {f"{solution_dir}/{rel}": body for rel, body in solution.items()}
    await box.put_files(staged, PurePosixPath("/"), open_dirs=LOG_DIRS)
    if states == "both":
        before = await file_state(box)
    if solution is not None:
        solve = await box.exec(_TRACED_SOLVE if trace else _PLAIN_SOLVE, timeout=solve_timeout)
        if solve.timed_out or solve.breach:
            return TrialOutcome(solve=solve, verify=None, reward=None)
        if trace:
            raw = await box.read_file(P.CONTAINER_XTRACE_LOG)
            xtrace = raw.decode("utf-8", errors="replace") if raw is not None else ""
    after = await file_state(box) if states != "none" else None
    verified, reward = await verify(box, tests, verify_timeout, fresh=solution is None and states == "none")
    return TrialOutcome(solve=solve, verify=verified, reward=reward, xtrace=xtrace, before=before, after=after)


async def verify(
    box: Container, tests: dict[str, bytes], timeout: float, fresh: bool = False
) -> tuple[ExecResult, float | None]:
    """What Harbor does once the work is done: copy the tests in, run test.sh, read the reward
    (None when test.sh wrote none or ran out of time). Validation and agent attempts share it."""
    if not fresh:  # something ran before the tests: the verifier must not trust what it left
        await box.exec(_RESET_VERIFIER, timeout=60, user="root")
    await box.put_files(tests, P.CONTAINER_TESTS_DIR)
    result = await box.exec(_VERIFY, timeout=timeout)
    reward = None if result.timed_out else await read_reward(box)
    return result, reward


def task_limits(task: Task) -> Limits:
    """The container limits task.toml asks for (network off unless it says plainly otherwise)."""
    env = task.config.environment
    return Limits(cpus=env.cpus, memory_mb=env.memory_mb, network=env.network_enabled, disk_mb=env.storage_mb)


async def read_reward(box: Container) -> float | None:
    txt = await box.read_file(P.CONTAINER_REWARD_TXT)
    if txt is not None:
        return parse_reward_txt(txt)
    raw = await box.read_file(P.CONTAINER_REWARD_JSON)
    return parse_reward_json(raw) if raw is not None else None


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
