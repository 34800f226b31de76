"""The trial of a second solution (engine/second.py): the parent's solution with new steps appended
that another model call wrote, then the child's tests, in a fresh container of the child's image."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from rst_synth.harness import open_task
from rst_synth.sandbox import Sandbox
from rst_synth.task import Task, TaskPaths
from rst_synth.task.shell import without_trailing_exit
from rst_synth.validator.models import Check, CheckResult, Reason, ValidatorConfig, Verdict
from rst_synth.validator.trial import TrialOutcome, trial_in
from rst_synth.validator.verdicts import expect

SecondTrial = Callable[[Task, dict[str, bytes]], Awaitable[TrialOutcome]]
"""Runs `task`'s tests after a given solution (files of solution/, relative to it)."""


def second_solution(parent: Task, steps: str) -> dict[str, bytes]:
    """The parent's solution files with `steps` appended to its solve.sh, as a child's are."""
    files = parent.files_under(TaskPaths.SOLUTION_DIR)
    solve = without_trailing_exit(parent.solve_sh) + "\n# --- the second solution's steps ---\n" + steps
    files["solve.sh"] = (solve if solve.endswith("\n") else solve + "\n").encode("utf-8")
    return files


def sandbox_trial(sandbox: Sandbox, config: ValidatorConfig | None = None) -> SecondTrial:
    """A `SecondTrial` in fresh containers of `sandbox`, at most `max_containers` at once (its own
    count, beside the validator's); the image is the child's, built here unless cached."""
    config = config or ValidatorConfig()
    slots = asyncio.Semaphore(config.max_containers)

    async def run(task: Task, solution: dict[str, bytes]) -> TrialOutcome:
        async with slots, open_task(sandbox, task, staged=False) as box:
            return await trial_in(
                box,
                solution=solution,
                tests=task.files_under(TaskPaths.TESTS_DIR),
                solve_timeout=task.config.agent.timeout_sec or config.default_solve_timeout_sec,
                verify_timeout=task.config.verifier.timeout_sec,
            )

    return run


def second_result(outcome: TrialOutcome, steps: str) -> CheckResult:
    """The trial as the second_solution check's result, the steps it ran with it."""
    result = expect(Check.SECOND_SOLUTION, outcome, want_solved=True, fail_reason=Reason.SECOND_SOLUTION_FAILED)
    if result.reason is Reason.SECOND_SOLUTION_FAILED:
        reward = outcome.reward if outcome.reward is not None else 0.0
        result.detail = (
            f"reward {reward:g}: the child's tests failed after the parent's solution and new steps written "
            "from the child's instruction alone"
        )
    elif result.verdict is Verdict.FAIL and not result.detail:
        result.detail = f"the second solution: {result.reason.value}"
    result.steps = steps
    return result
