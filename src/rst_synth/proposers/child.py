"""The one child assembly every proposer uses: a parent plus new steps makes a child, and a child
minus its parent gives the steps back.

Step boundaries are data: each added step is recorded in [[metadata.lineage.added]] with the lines
it occupies in solve.sh and instruction.md and its test module, so taking a child apart never
depends on the comments written into its files.
"""

from __future__ import annotations

import hashlib
import re

from pydantic import BaseModel, Field

from rst_synth.task import Lineage, Metadata, StepRecord, Task, TaskInfo, TaskPaths

_TRAILING_EXIT = re.compile(r"(\n\s*exit(\s+0)?\s*)+\s*$")


class NewStep(BaseModel):
    """One step that extends a parent's workflow, whichever proposer wrote it."""

    name: str
    """The operator or workflow theme it applies."""
    tag: str
    """Unique within the lineage ("r2s1"); names the step's test module."""
    consumes: list[str] = Field(default_factory=list)
    """Paths of the parent's (or an earlier step's) artifacts it builds on."""
    solution: str
    """Bash appended to solve.sh; runs after the parent's workflow, `set -e` may be on."""
    test_module: str
    """The complete pytest module with the step's checks."""
    instruction: str
    """Markdown paragraph stating every behaviour the step's checks test."""

    @property
    def test_path(self) -> str:
        return step_test_module(self.tag)


class Extension(BaseModel):
    """What a child adds to its parent."""

    steps: list[NewStep] = Field(min_length=1)
    packages: list[str] = Field(default_factory=list)
    """Debian packages the steps need that the parent's image lacks (one apt line in the Dockerfile)."""
    dockerfile_append: str = ""
    """Further lines appended to the parent's Dockerfile, after the apt line."""


def step_test_module(tag: str) -> str:
    """Where a step's checks live; the tag makes the name unique within a lineage."""
    return f"{TaskPaths.TESTS_DIR}/test_step_{tag}.py"


def without_trailing_exit(script: str) -> str:
    """A script without the `exit` / `exit 0` it ends with: appended steps would never run after it."""
    return _TRAILING_EXIT.sub("\n", script.rstrip("\n") + "\n").rstrip("\n") + "\n"


def assemble_child(parent: Task, extension: Extension, *, proposer: str) -> Task:
    """The parent extended: solution, tests, instruction, image and task.toml realigned."""
    child = parent.model_copy(deep=True)
    child.source_dir = None
    solve = without_trailing_exit(parent.solve_sh)
    instruction = parent.instruction.rstrip("\n") + "\n"
    records = []
    for step in extension.steps:
        consumes = ", ".join(step.consumes) or "the parent's outputs"
        solve += f"\n# --- step {step.tag}: {step.name}, building on {consumes} ---\n"
        code = step.solution.strip("\n") + "\n"
        first = solve.count("\n") + 1
        solve += code
        solution_lines = (first, solve.count("\n"))
        instruction += "\n"
        first = instruction.count("\n") + 1
        instruction += step.instruction.strip("\n") + "\n"
        instruction_lines = (first, instruction.count("\n"))
        child.set_text(step.test_path, step.test_module.rstrip("\n") + "\n")
        records.append(
            StepRecord(
                name=step.name,
                tag=step.tag,
                consumes=step.consumes,
                solution_lines=solution_lines,
                instruction_lines=instruction_lines,
                test_module=step.test_path,
            )
        )
    child.set_text(TaskPaths.SOLVE, solve, executable=True)
    child.instruction = instruction
    appended = (_apt_line(extension.packages) if extension.packages else "") + _lines(extension.dockerfile_append)
    if appended:
        child.set_text(TaskPaths.DOCKERFILE, parent.dockerfile.rstrip("\n") + "\n" + appended)
    _realign_config(child, parent, extension, records, proposer)
    return child


def split_child(parent: Task, child: Task) -> Extension:
    """What `assemble_child` added to `parent` to make `child`: its inverse, read from the step records.

    The apt line comes back as part of `dockerfile_append`, so assembling the result again gives the
    same child."""
    lineage = child.config.metadata.lineage
    if lineage is None or not lineage.added:
        raise ValueError(f"{child.name}: task.toml records no added steps ([[metadata.lineage.added]])")
    solve, instruction = child.solve_sh.splitlines(), child.instruction.splitlines()
    steps = []
    for record in lineage.added:
        steps.append(
            NewStep(
                name=record.name,
                tag=record.tag,
                consumes=record.consumes,
                solution=_slice(solve, record.solution_lines),
                test_module=child.text(record.test_module),
                instruction=_slice(instruction, record.instruction_lines),
            )
        )
    prefix = parent.dockerfile.rstrip("\n")
    dockerfile = child.dockerfile
    append = dockerfile[len(prefix) :] if dockerfile.startswith(prefix) else ""
    return Extension(steps=steps, dockerfile_append=_lines(append))


def _slice(lines: list[str], span: tuple[int, int]) -> str:
    first, last = span
    return "\n".join(lines[first - 1 : last]) + "\n"


def _lines(text: str) -> str:
    """Text as whole lines ("" when blank)."""
    return text.strip("\n") + "\n" if text.strip() else ""


def _apt_line(packages: list[str]) -> str:
    return (
        "RUN apt-get update && apt-get install -y --no-install-recommends "
        f"{' '.join(sorted(packages))} && rm -rf /var/lib/apt/lists/*\n"
    )


def _realign_config(child: Task, parent: Task, extension: Extension, records: list[StepRecord], proposer: str) -> None:
    lineage = parent.config.metadata.lineage or Lineage()
    root = lineage.root or parent.name
    round_ = lineage.round + 1
    digest = hashlib.sha256("\0".join(s.solution + s.test_module for s in extension.steps).encode()).hexdigest()[:8]
    org = parent.name.split("/", 1)[0] if "/" in parent.name else "rst"
    root_short = root.rsplit("/", 1)[-1][:40]
    name = f"{org}/{root_short}-r{round_}-{digest}"
    info = parent.config.task or TaskInfo(name=name)
    names = [s.name for s in extension.steps]
    child.config.task = info.model_copy(update={"name": name, "keywords": sorted(set(info.keywords) | set(names))})
    old = parent.config.metadata
    child.config.metadata = Metadata.model_validate(
        {
            **old.model_dump(exclude={"lineage", "metrics", "difficulty"}),
            "difficulty": None,  # computed from measured figures once validated, never inherited
            "lineage": Lineage(
                parent=parent.name, root=root, round=round_, proposer=proposer, steps=names, added=records
            ),
            "metrics": None,
        }
    )
