"""Kept states: a task's final state, saved once so that its children's checks start from it.

After a task's oracle run (its solution, before the tests) the container is committed as the image
`rst-state:<workflow hash>`: the hash of the build context and the solution, what the final state
depends on. A child's parent, determinism and steps checks then start from its parent's kept state
and run only what the child adds (docs/validation.md, "Kept states"). The oracle never does: it
runs the whole solution from the clean image every time.

A committed image holds files, not processes. A state whose solution left processes running (a
service the instruction keeps up) is kept with what they were in the label `rst-synth.services`;
containers of it start them again (validator/services.py), and its children's parent check runs
in full, since a service that kept data only in memory comes back without it. A child's checks run
in full where its solve.sh does not begin with its parent's, its Dockerfile does not begin with its
parent's, or its other environment or solution files differ.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from rst_synth.harness import open_task, run_solution, stage
from rst_synth.sandbox import Container, Sandbox, SandboxError
from rst_synth.sandbox.images import STATE_REPO
from rst_synth.task import StepRecord, Task, TaskPaths
from rst_synth.task.shell import logical_lines, without_trailing_exit
from rst_synth.validator.quality import added_steps
from rst_synth.validator.services import Services, from_label, survey, to_label

SERVICES_LABEL = "rst-synth.services"
"""On a kept state whose solution left processes running: what they were (validator/services.py)."""
_STATE_LINE = re.compile(
    r"^(?:set [-+][-+a-zA-Z ]*(?:-o \w+)?|shopt -[su] [\w ]+|umask [0-7]+|cd \S+"
    r"|(?:export |declare -x |readonly )?[A-Za-z_]\w*=\S*|export [A-Za-z_][\w ]*)\s*(?:#.*)?$"
)
_FUNCTION = re.compile(r"^(?:function\s+)?[A-Za-z_][\w-]*\s*\(\)\s*\{\s*$")


def state_tag(task: Task) -> str:
    """The kept state's image tag: what the final state depends on, the build context and the solution."""
    return f"{STATE_REPO}:{task.workflow_hash()}"


async def keep_state(box: Container, task: Task) -> None:
    """Commit `box` (after `task`'s solution, before its tests) as `task`'s kept state, with the
    services it runs in a label."""
    running = await survey(box)
    await box.commit(state_tag(task), {SERVICES_LABEL: to_label(running)} if running else None)


async def remake_state(sandbox: Sandbox, task: Task, default_timeout: float) -> dict[str, str] | None:
    """Make `task`'s kept state again (its solution in a fresh container of its image) where the
    engine lost it or never had it; its labels, or None when the solution did not run to its end."""
    async with open_task(sandbox, task, staged=False) as box:
        await stage(box, task.files_under(TaskPaths.SOLUTION_DIR))
        solve, _ = await run_solution(box, timeout=task.config.agent.timeout_sec or default_timeout)
        if solve.timed_out or solve.breach:
            return None
        await keep_state(box, task)
    return await sandbox.image_labels(state_tag(task))


def derived_context(parent: Task, child: Task, state: str) -> dict[str, bytes] | None:
    """The build context of the parent's kept state `state` with the child's environment additions:
    the lines the child's Dockerfile appends to its parent's, with the child's files. None when the
    child changed more than that (its Dockerfile does not begin with the parent's, or a file both
    environments have differs)."""
    head = parent.dockerfile.rstrip("\n")
    if not child.dockerfile.startswith(head):
        return None
    theirs = parent.files_under(TaskPaths.ENVIRONMENT_DIR)
    mine = child.files_under(TaskPaths.ENVIRONMENT_DIR)
    dockerfile = PurePosixPath(TaskPaths.DOCKERFILE).relative_to(TaskPaths.ENVIRONMENT_DIR).as_posix()
    if any(mine.get(rel) != body for rel, body in theirs.items() if rel != dockerfile):
        return None
    return {**mine, dockerfile: f"FROM {state}\n{child.dockerfile[len(head) :].lstrip(chr(10))}".encode()}


def derived_hash(state: str, child: Task) -> str:
    return hashlib.sha256(f"{state}\0{child.environment_hash()}".encode()).hexdigest()


@dataclass(frozen=True)
class NewSteps:
    """A child's own steps, to run on its parent's kept state: the shell state the parent's part of
    solve.sh set at its top level (options, variables, the folder it went to, its functions), then
    the child's lines from its first new step on."""

    prelude: list[str]
    lines: list[str]
    """solve.sh of the child, line by line (line 1 first)."""
    first: int
    """The line the first new step starts on."""
    solution: dict[str, bytes]
    """The child's solution/ files (relative to it)."""

    def script(self, without: StepRecord | None = None) -> dict[str, bytes]:
        """solution/ with a solve.sh of the prelude and the new steps (`without` one of them)."""
        skip = range(without.solution_lines[0], without.solution_lines[1] + 1) if without else range(0)
        body = [line for n, line in enumerate(self.lines, start=1) if n >= self.first and n not in skip]
        solve = PurePosixPath(TaskPaths.SOLVE).relative_to(TaskPaths.SOLUTION_DIR).as_posix()
        text = "#!/bin/bash\n" + "".join(self.prelude) + "".join(body)
        return {**self.solution, solve: text.encode("utf-8")}


def new_steps(parent: Task, child: Task) -> NewSteps | None:
    """The child's own steps, where its solve.sh is its parent's with steps appended and its other
    solution files are the parent's; None otherwise."""
    records = added_steps(child)
    if not records:
        return None
    first = records[0].solution_lines[0]
    lines = child.solve_sh.splitlines(keepends=True)
    ours = [line.rstrip() for line in without_trailing_exit(parent.solve_sh).splitlines()]
    head = [line.rstrip() for line in lines[: first - 1]]
    between = head[len(ours) :]
    if head[: len(ours)] != ours or any(line and not line.lstrip().startswith("#") for line in between):
        return None
    solve = PurePosixPath(TaskPaths.SOLVE).relative_to(TaskPaths.SOLUTION_DIR).as_posix()
    solution = child.files_under(TaskPaths.SOLUTION_DIR)
    theirs = parent.files_under(TaskPaths.SOLUTION_DIR)
    if {k: v for k, v in solution.items() if k != solve} != {k: v for k, v in theirs.items() if k != solve}:
        return None
    return NewSteps(prelude=shell_prelude(lines[: len(ours)]), lines=lines, first=first, solution=solution)


def shell_prelude(lines: list[str]) -> list[str]:
    """The top-level lines of a script that set the shell's state (options, variables, exports, cd,
    umask) and its top-level functions, as `logical_lines` reads it: heredoc bodies and indented
    lines are left out (but kept inside a function)."""
    kept: list[str] = []
    function = False
    for line in logical_lines("".join(lines)):
        if function:
            kept.append(line.text + "\n")
            function = not (line.code and line.text.rstrip() == "}")
        elif line.code and _FUNCTION.match(line.text):
            kept.append(line.text + "\n")
            function = True
        elif line.code and _STATE_LINE.match(line.text) and not line.text.startswith("#!"):
            kept.append(line.text + "\n")
    return kept if not function else []


@dataclass
class Start:
    """Where a child's parent, determinism and steps checks start: `image`, its parent's kept state
    with the child's environment additions, running `steps`; or, with `image` None, from scratch
    (`why` says why)."""

    image: str | None = None
    steps: NewSteps | None = None
    why: str = ""
    services: Services = field(default_factory=Services)
    """What containers of `image` start again before anything runs in them."""
    proven: bool = False
    """The new steps on the kept state reached reward 1 (the determinism check): the steps check may
    start from it too."""


class Keeper:
    """The kept states one validator makes (after each oracle run) and starts children from."""

    def __init__(self, sandbox: Sandbox, slots: asyncio.Semaphore, default_timeout: float) -> None:
        self.sandbox = sandbox
        self._slots = slots
        self._default_timeout = default_timeout
        self._locks: dict[str, asyncio.Lock] = {}

    async def drop(self, task: Task) -> None:
        await self.sandbox.remove_image(state_tag(task))

    async def start(self, parent: Task, child: Task) -> Start:
        """Where the child's checks can start; from scratch when the kept state cannot stand for the
        parent's solution run in the child's image (module docstring)."""
        steps = new_steps(parent, child)
        if steps is None:
            return Start(why="solve.sh is not the parent's with steps appended")
        try:
            labels = await self._labels(parent)
            if labels is None:
                return Start(why="the parent's solution did not run to its end")
            services = from_label(labels[SERVICES_LABEL]) if SERVICES_LABEL in labels else Services()
            if services.unreadable:
                return Start(why="the parent's final state runs a process that cannot be started again")
            tag = state_tag(parent)
            if child.environment_hash() == parent.environment_hash():
                return Start(image=tag, steps=steps, services=services)
            context = derived_context(parent, child, tag)
            if context is None:
                return Start(why="the environment changes more than lines appended to the Dockerfile")
            timeout = child.config.environment.build_timeout_sec
            info = await self.sandbox.ensure_image(context, derived_hash(tag, child), timeout=timeout)
        except SandboxError as exc:  # BuildError included: the checks then run as they always did
            return Start(why=f"the kept state is not usable: {str(exc)[:200]}")
        return Start(image=info.tag, steps=steps, services=services)

    async def _labels(self, task: Task) -> dict[str, str] | None:
        """The labels of `task`'s kept state, made again where the engine lost it or never had it."""
        tag = state_tag(task)
        async with self._locks.setdefault(tag, asyncio.Lock()):
            if (labels := await self.sandbox.image_labels(tag)) is not None:
                return labels
            async with self._slots:
                return await remake_state(self.sandbox, task, self._default_timeout)
