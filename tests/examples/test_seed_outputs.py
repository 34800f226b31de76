"""The bundled seeds' solutions leave the same outputs in every container: a commit made at the clock's
time, or a wheel stamped with it, gives every hash built on it (a child's outputs, its cache key) another
value in each run."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from rst_synth.harness import build_image, open_task
from rst_synth.sandbox import FileState, Sandbox
from rst_synth.task import Task, TaskPaths
from rst_synth.validator.quality import States, new_outputs
from rst_synth.validator.trial import trial_in
from tests.support.docker import run_async
from tests.support.fakes import FakeSandbox
from tests.support.tasks import SEEDS, write_task

SEED_DIRS = sorted(p for p in SEEDS.iterdir() if (p / TaskPaths.CONFIG).is_file())
_GIT_WRITES = re.compile(r"\bgit\b[^\n]*\b(?:commit|tag\s+-a|merge|cherry-pick|rebase)\b")
_MAKES = (
    (_GIT_WRITES, "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"),
    (re.compile(r"\bpip3?\b[^\n]*\bwheel\b|\bbdist_wheel\b|-m\s+build\b"), "SOURCE_DATE_EPOCH"),
)
"""What stamps its output with the clock, and the variables that must fix the time first."""
_CLOCK = re.compile(r"\$\(\s*date\b|`date\b|\$RANDOM\b|\buuidgen\b|datetime\.now\(|time\.time\(")
"""The clock or a random value read straight into what a solution writes."""


def clock_problems(solve: str) -> list[str]:
    """Why `solve` (a solve.sh) leaves outputs that depend on when or where it ran (comments aside)."""
    solve = re.sub(r"(?m)^\s*#.*$", "", solve)
    problems = [f"reads the clock or a random value: {m.group(0)}" for m in _CLOCK.finditer(solve)]
    for pattern, *fixed in _MAKES:
        made = pattern.search(solve)
        if made is None:
            continue
        before = solve[: made.start()]
        problems += [f"`{made.group(0)}` before {v} is set" for v in fixed if not re.search(rf"\b{v}=", before)]
    return problems


def test_the_clock_rule_finds_a_commit_at_the_clocks_time() -> None:
    assert clock_problems("# from git log, commit it\ngit log > /tmp/log\n") == []
    assert clock_problems('git add a\ngit commit -q -m "release"\n') == [
        "`git commit` before GIT_AUTHOR_DATE is set",
        "`git commit` before GIT_COMMITTER_DATE is set",
    ]
    fixed = 'export GIT_AUTHOR_DATE="$t" GIT_COMMITTER_DATE="$t"\ngit commit -q -m "release"\n'
    assert clock_problems(fixed) == []
    assert clock_problems("python3 -m pip wheel -w /app/dist /app/project\necho $(date +%F) > /app/day\n") == [
        "reads the clock or a random value: $(date",
        "`pip wheel` before SOURCE_DATE_EPOCH is set",
    ]


@pytest.mark.parametrize("seed_dir", SEED_DIRS, ids=lambda p: p.name)
def test_a_seed_solution_fixes_the_times_it_stamps(seed_dir: Path) -> None:
    assert clock_problems(Task.load(seed_dir).solve_sh) == []


async def _outputs(sandbox: Sandbox, task: Task, image: str) -> FileState:
    """The files the solution created or changed in a fresh container, as the quality checks see them,
    and the refs of the repositories it committed to."""
    async with open_task(sandbox, task, image=image, staged=False) as box:
        outcome = await trial_in(
            box,
            solution=task.files_under(TaskPaths.SOLUTION_DIR),
            tests=task.files_under(TaskPaths.TESTS_DIR),
            solve_timeout=task.config.agent.timeout_sec or 600.0,
            verify_timeout=task.config.verifier.timeout_sec,
            states="both",
        )
    before, after = outcome.before, outcome.after
    assert before is not None and after is not None, outcome.output_tail()
    # A repository's refs too (hidden paths are no outputs): they hold the hashes of the commits it made.
    refs = {path: digest for path, digest in after.items() if "/.git/refs/" in path and before.get(path) != digest}
    return {**new_outputs(States(child_before=before, child_after=after)), **refs}


def test_a_run_yields_what_the_solution_made(tmp_path: Path) -> None:
    """The docker check's machinery on the fake engine: the file the solution wrote, nothing else."""
    task = Task.load(write_task(tmp_path, solve="touch /app/seen\necho hello > /app/out.txt\n"))
    sandbox = FakeSandbox()

    async def once() -> FileState:
        return await _outputs(sandbox, task, (await build_image(sandbox, task)).tag)

    assert sorted(asyncio.run(once())) == ["/app/out.txt", "/app/seen"]


@pytest.mark.docker
@pytest.mark.parametrize("seed_dir", SEED_DIRS, ids=lambda p: p.name)
def test_a_seed_solution_leaves_the_same_outputs_in_two_containers(seed_dir: Path) -> None:
    task = Task.load(seed_dir)

    async def twice(sandbox: Sandbox) -> list[FileState]:
        image = (await build_image(sandbox, task)).tag  # once: both containers start from the same image
        return list(await asyncio.gather(_outputs(sandbox, task, image), _outputs(sandbox, task, image)))

    one, other = run_async(twice)
    assert one, "the solution made no output"
    differ = sorted(path for path in one.keys() | other.keys() if one.get(path) != other.get(path))
    assert differ == [], f"{task.name}: outputs that differ between two runs: {differ}"
