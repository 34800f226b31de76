"""What an agent attempt costs against the validator's oracle check, on the same task, same run.

    python3 bench/agent_attempt.py [--quick]

Baseline: the oracle check of `rst validate` (a trial with the reference solution: a fresh
container, solve.sh, the tests, the reward). Measured: one `rst eval --agent oracle` attempt
(run_attempt with the oracle agent: a fresh container, solve.sh through the agent's shell, the
tests, the reward, trajectory.json and result.json written). Interleaved, image cached, medians.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from _common import SEEDS, machine_load, median, ms, parser, ratio, summary, table

from rst_synth.agents import make_agent, run_attempt
from rst_synth.sandbox import make_sandbox
from rst_synth.task import Task, TaskPaths
from rst_synth.harness import open_task
from rst_synth.validator.trial import trial_in


async def measure(task: Task, reps: int) -> tuple[list[float], list[float]]:
    sandbox = make_sandbox("docker")
    agent = make_agent("oracle")
    checks, attempts = [], []
    try:
        image = (await sandbox.ensure_image(task.files_under(TaskPaths.ENVIRONMENT_DIR), task.environment_hash(),
                                            timeout=600)).tag
        with tempfile.TemporaryDirectory() as tmp:
            for rep in range(reps + 1):  # the first pair warms the engine up and is dropped
                started = time.perf_counter()
                async with open_task(sandbox, task, image=image, staged=False) as box:
                    outcome = await trial_in(box, solution=task.files_under(TaskPaths.SOLUTION_DIR),
                                             tests=task.files_under(TaskPaths.TESTS_DIR), solve_timeout=600,
                                             verify_timeout=600, trace=True)
                check = time.perf_counter() - started
                started = time.perf_counter()
                result = await run_attempt(task, agent, sandbox, attempt=rep, seed=rep,
                                           out_dir=Path(tmp) / f"attempt-{rep}")
                attempt = time.perf_counter() - started
                assert outcome.solved and result.reward == 1.0
                if rep:
                    checks.append(check)
                    attempts.append(attempt)
    finally:
        await sandbox.close()
    return checks, attempts


def main() -> None:
    args = parser(__doc__ or "").parse_args()
    reps = 5 if args.quick else 15
    rows = []
    worst = 0.0
    for name in ("access-log-report", "sqlite-inventory"):
        checks, attempts = asyncio.run(measure(Task.load(SEEDS / name), reps))
        worst = max(worst, median(attempts) / median(checks))
        rows.append((name, reps, ms(median(checks)), ms(median(attempts)), ratio(median(attempts), median(checks))))
    print(machine_load())
    table("An oracle agent attempt against the validator's oracle check (medians)",
          ("task", "runs", "oracle check (baseline)", "oracle attempt", "ratio"), rows)
    summary("agent_attempt", f"an oracle attempt costs {worst:.2f}x an oracle check", "<= 1.5x", worst <= 1.5)


if __name__ == "__main__":
    main()
