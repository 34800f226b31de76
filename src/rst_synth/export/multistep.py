"""A lineage as a Harbor multi-step task (`rst export --multi-step`), and the names and test modules
of its steps, which the flat form's per-step credit (credit.py) shares.

A task grown for R rounds is a sequence of R + 1 steps by construction. Step 1 is the root seed's
work: its instruction, its solution/ and its tests/. Step r + 1 is what round r added: the
instruction paragraphs, the solve.sh lines and the test modules its `[[metadata.lineage.added]]`
records locate (`split_child`), named `r<round>-<operators>`. The environment is the final task's
(every round's image lines included), since all steps run in one container.

A step's verifier is the one its round's task was accepted with (that task's tests/, test.sh as
`run_new_modules` left it): its own modules and every earlier step's, with the seed's. The earlier
tests stay because (a) that verifier is the one validation ran, so the oracle's reward 1 at that
point was measured, not assumed; (b) later steps work on earlier outputs and may change them in place
(a repository rewritten, a tool fixed), and the flat task demands that earlier work still holds at
the end; (c) where the seed's test.sh names its modules (`pytest /tests/test_outputs.py`), a step's
modules were added to that command line, so running only a step's own module would mean rewriting
the verifier. `min_reward = 1.0` on every step but the last gates it on the one before: a later
step builds on the earlier work, so its tests cannot pass where that work failed.

Each later step's solve.sh is the round's lines after the seed's setup lines (`set`, `cd`, `export`
and plain assignments before its first command), the shell state every appended line of the flat
solve.sh started from.
"""

from __future__ import annotations

import re
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rst_synth.agents.steps import RewardStrategy, step_path
from rst_synth.export.credit import without_step_credit
from rst_synth.proposers.child import Extension, split_child
from rst_synth.task import Task, TaskConfig, TaskPaths
from rst_synth.task.shell import logical_lines
from rst_synth.validator.prechecks import runs_a_command

GATE = 1.0
"""Every step but the last must reach this reward for the next one to run."""
_UNPORTABLE = re.compile(r"[^A-Za-z0-9._+-]+")
_SETUP_COMMANDS = ("cd", "umask")


class LineageError(ValueError):
    """A lineage that cannot be made into steps: one line naming the task and what is missing."""


@dataclass(frozen=True)
class Ancestor:
    """One task of a lineage: where it lives and its task.toml."""

    directory: Path
    config: TaskConfig

    @property
    def name(self) -> str:
        return self.config.task.name if self.config.task is not None else self.directory.name

    @property
    def round(self) -> int:
        lineage = self.config.metadata.lineage
        return lineage.round if lineage is not None else 0


@dataclass(frozen=True)
class LineageStep:
    """One step of a lineage: its name, round and the test modules it added (relative to tests/);
    None for the seed's step, whose tests are every module no later step added."""

    name: str
    round: int
    modules: list[str] | None


def lineage_of(task_dir: Path) -> list[Ancestor]:
    """The task and its ancestors, seed first, found through `[metadata.lineage].parent_path`. A
    task without lineage metadata (an imported seed) is a lineage of one. LineageError when a
    parent is missing or is not the task the lineage names."""
    chain = [Ancestor(task_dir, TaskConfig.load(task_dir / TaskPaths.CONFIG))]
    while (lineage := chain[0].config.metadata.lineage) is not None and lineage.round > 0:
        child = chain[0]
        parent = lineage.parent or "(unnamed)"
        where = child.directory / lineage.parent_path if lineage.parent_path else None
        if where is None or not (where / TaskPaths.CONFIG).is_file():
            seen = f"no task at {where}" if where is not None else "task.toml records no parent_path"
            raise LineageError(f"{child.name}: its parent {parent} is missing from the run ({seen})")
        found = Ancestor(where.resolve(), TaskConfig.load(where / TaskPaths.CONFIG))
        if (lineage.parent is not None and found.name != lineage.parent) or found.round != lineage.round - 1:
            raise LineageError(
                f"{child.name}: {where} holds {found.name} (round {found.round}), "
                f"not its parent {parent} (round {lineage.round - 1})"
            )
        chain.insert(0, found)
    return chain


def step_name(ancestor: Ancestor) -> str:
    """`r0-<seed>` for the seed's step, `r<round>-<operator>[+<operator>...]` for a round's."""
    lineage = ancestor.config.metadata.lineage
    if lineage is None or lineage.round == 0:
        raw = f"r0-{ancestor.name.rsplit('/', 1)[-1]}"
    else:
        operators = list(dict.fromkeys(record.name for record in lineage.added)) or lineage.steps
        raw = f"r{lineage.round}-{'+'.join(operators)}"
    return _UNPORTABLE.sub("-", raw).strip("-.")[:96]  # one portable directory name (Harbor's rule)


def lineage_steps(chain: list[Ancestor]) -> list[LineageStep]:
    """Each step's name and the test modules it added, seed first."""
    steps = []
    for index, ancestor in enumerate(chain):
        lineage = ancestor.config.metadata.lineage
        if index and (lineage is None or not lineage.added):
            raise LineageError(
                f"{ancestor.name}: round {ancestor.round} records no added steps "
                "([[metadata.lineage.added]]), so its work cannot be split into steps"
            )
        modules = (
            [Path(r.test_module).relative_to(TaskPaths.TESTS_DIR).as_posix() for r in lineage.added]
            if index and lineage
            else None
        )
        steps.append(LineageStep(name=step_name(ancestor), round=ancestor.round, modules=modules))
    return steps


def multi_step_task(chain: list[Ancestor], strategy: RewardStrategy, load: Callable[[Path], Task] = Task.load) -> Task:
    """The lineage's last task as a Harbor multi-step task, held in memory (`instruction` is the
    first step's; `save_multi_step` writes it without a root instruction.md)."""
    steps = lineage_steps(chain)
    tasks = [load(ancestor.directory).model_copy(deep=True) for ancestor in chain]
    for task in tasks:
        without_step_credit(task)  # each step's verifier reports its own reward: no per-step keys
    final = tasks[-1]
    files = {rel: body for rel, body in final.files.items() if rel.startswith(f"{TaskPaths.ENVIRONMENT_DIR}/")}
    executable = {rel for rel in final.executable if rel in files}
    setup = setup_lines(tasks[0].solve_sh)
    tables: list[dict[str, Any]] = []
    for index, (task, step) in enumerate(zip(tasks, steps, strict=True)):
        solution = task.files_under(TaskPaths.SOLUTION_DIR)
        instruction = task.instruction
        if index:
            extension = split_child(tasks[index - 1], task)
            instruction = "\n\n".join(s.instruction.strip("\n") for s in extension.steps) + "\n"
            solution["solve.sh"] = step_solve(step, setup, extension).encode()
        files[step_path(step.name, TaskPaths.INSTRUCTION)] = instruction.encode()
        for folder, content in (
            (TaskPaths.SOLUTION_DIR, solution),
            (TaskPaths.TESTS_DIR, task.files_under(TaskPaths.TESTS_DIR)),
        ):
            for rel, body in content.items():
                files[step_path(step.name, f"{folder}/{rel}")] = body
                if f"{folder}/{rel}" in task.executable:
                    executable.add(step_path(step.name, f"{folder}/{rel}"))
        # Each step keeps the limits its round's task was given for the work up to it.
        table: dict[str, Any] = {"name": step.name, "verifier": {"timeout_sec": task.config.verifier.timeout_sec}}
        if task.config.agent.timeout_sec is not None:
            table["agent"] = {"timeout_sec": task.config.agent.timeout_sec}
        if index + 1 < len(tasks):
            table["min_reward"] = GATE
        tables.append(table)
    data = final.config.model_dump(mode="json")
    config = TaskConfig.model_validate({**data, "multi_step_reward_strategy": strategy, "steps": tables})
    first = files[step_path(steps[0].name, TaskPaths.INSTRUCTION)].decode("utf-8")
    return Task(config=config, instruction=first, files=files, executable=executable)


def step_solve(step: LineageStep, setup: str, extension: Extension) -> str:
    """A later step's solve.sh: the seed's setup lines, then the round's lines with their tags."""
    head = f"#!/bin/bash\n# {step.name}: what round {step.round} added to the solution, after the seed's setup lines.\n"
    body = "".join(f"\n# step {new.tag}: {new.name}\n{new.solution.strip(chr(10))}\n" for new in extension.steps)
    return head + setup + body


def setup_lines(solve: str) -> str:
    """The seed solve.sh's leading lines that only set the shell up (`set`, `shopt`, `cd`, `umask`,
    `export` and assignments without a command substitution), up to its first other command."""
    kept = []
    for line in logical_lines(solve):
        if not line.code:
            continue
        words = line.joined.split()
        if words[0] in ("exit", ":", "true"):
            continue
        if runs_a_command(line.joined) and words[0] not in _SETUP_COMMANDS:
            break
        kept.append(line.text + "\n")
    return "".join(kept)


def save_multi_step(task: Task, target: Path) -> Path:
    """Write a multi-step task to `target` in Harbor's layout (no root instruction.md), replacing
    what is there; the directory appears whole or not at all."""
    staging = target.parent / f".{target.name}.ms-{uuid.uuid4().hex[:8]}"
    try:
        task.save(staging)
        (staging / TaskPaths.INSTRUCTION).unlink()  # Harbor shows each step's instruction, never a root one
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return target
