"""One trial: in a fresh container (`harness.open_task`), optionally a solution, then the verifier; as
Harbor runs it (the harness does each part)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from rst_synth.harness import run_solution, stage, verify
from rst_synth.sandbox import Container, ExecResult, FileState, file_state
from rst_synth.sandbox.base import Breach
from rst_synth.task import TaskPaths

ENGINE_FILES = frozenset({"/etc/hostname", "/etc/hosts", "/etc/resolv.conf", "/etc/mtab"})
"""Files the engine writes into every container, each its own."""
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


def same_files(one: FileState, other: FileState) -> bool:
    """Every file under the scan roots the same, but those the engine writes for each container:
    the tests would read what they read before, and give the verdict they gave."""
    return {k: v for k, v in one.items() if k not in ENGINE_FILES} == {
        k: v for k, v in other.items() if k not in ENGINE_FILES
    }


async def trial_in(
    box: Container,
    *,
    solution: dict[str, bytes] | None,
    tests: dict[str, bytes],
    solve_timeout: float,
    verify_timeout: float,
    trace: bool = False,
    states: StatesWanted = "none",
    after_solve: Callable[[Container, FileState | None], Awaitable[None]] | None = None,
    quick: str | None = None,
    passed: Awaitable[FileState | None] | None = None,
) -> TrialOutcome:
    """A trial in a fresh container its caller made unstaged (and may keep: the quality checks reuse
    the oracle's); `states` records the files' states around the solution ("after": after it only);
    `after_solve` sees the container between the solution and the tests (the kept state is made there);
    `quick`, for a trial whose tests should fail: the new test modules' own command
    (validator/mutation.py), run first, and where it fails the tests as a whole fail: reward 0;
    `passed`, for a trial whose tests should pass: the files after the oracle's solution (awaited, it
    may still be running; None: no such files), and a solution that leaves the same files needs no
    tests, the oracle's deciding: reward 1 (`same_files`)."""
    solve = None
    xtrace = None
    before = None
    await stage(box, solution)
    if states == "both":
        before = await file_state(box)
    if solution is not None:
        solve, xtrace = await run_solution(box, timeout=solve_timeout, trace=trace)
        if solve.timed_out or solve.breach:
            return TrialOutcome(solve=solve, verify=None, reward=None)
    after = await file_state(box) if states != "none" or passed is not None else None
    if passed is not None and after is not None and (expected := await passed) is not None:
        if same_files(after, expected):
            return TrialOutcome(solve=solve, verify=None, reward=1.0, xtrace=xtrace, before=before, after=after)
    if after_solve is not None:
        await after_solve(box, after)
    if quick is not None:
        await box.put_files(tests, TaskPaths.CONTAINER_TESTS_DIR)
        early = await box.exec(quick, timeout=verify_timeout + 60)
        if early.exit_code not in (0, None) and early.breach is None:
            return TrialOutcome(solve=solve, verify=early, reward=0.0, xtrace=xtrace, before=before, after=after)
    fresh = solution is None and states == "none" and quick is None
    verified, reward = await verify(box, tests, verify_timeout, fresh=fresh)
    return TrialOutcome(solve=solve, verify=verified, reward=reward, xtrace=xtrace, before=before, after=after)
