"""Assemble a child task from its parent and the steps that extend it (DESIGN section 2)."""

from __future__ import annotations

import hashlib
import re

from rst_synth.proposers.procedural.operator import Step
from rst_synth.task import Lineage, Metadata, Task, TaskInfo, TaskPaths

_TRAILING_EXIT = re.compile(r"(\n\s*exit(\s+0)?\s*)+\s*$")


def step_test_module(tag: str) -> str:
    """Where a step's checks live; the tag makes the name unique within a lineage."""
    return f"{TaskPaths.TESTS_DIR}/test_step_{tag}.py"


def make_child(parent: Task, steps: list[Step], tags: list[str], *, proposer: str,
               packages: list[str]) -> Task:
    """The parent extended by `steps`: solution, tests, instruction, image and metadata realigned."""
    child = parent.model_copy(deep=True)
    child.source_dir = None
    # A parent that ends with `exit 0` would never reach the new steps.
    solve = _TRAILING_EXIT.sub("\n", parent.solve_sh.rstrip("\n") + "\n").rstrip("\n") + "\n"
    paragraphs = []
    for step, tag in zip(steps, tags):
        solve += f"\n# --- step {tag}: {step.operator}, building on {step.consumes} ---\n{step.solution.strip()}\n"
        child.set_text(step_test_module(tag), _test_module(step, tag))
        paragraphs.append(step.instruction.strip())
    child.set_text(TaskPaths.SOLVE, solve, executable=True)
    child.instruction = parent.instruction.rstrip("\n") + "\n\n" + "\n\n".join(paragraphs) + "\n"
    if packages:
        child.set_text(TaskPaths.DOCKERFILE, parent.dockerfile.rstrip("\n") + "\n" + _apt_line(packages))
    _realign_config(child, parent, steps, proposer)
    return child


def _test_module(step: Step, tag: str) -> str:
    imports = "".join(f"import {m}\n" for m in sorted(set(step.imports) | {"pathlib"}))
    header = f'"""Checks of step {tag} ({step.operator}), computed from {step.consumes}."""\n'
    return f"{header}{imports}\n\n{step.tests.strip()}\n"


def _apt_line(packages: list[str]) -> str:
    return ("RUN apt-get update && apt-get install -y --no-install-recommends "
            f"{' '.join(sorted(packages))} && rm -rf /var/lib/apt/lists/*\n")


def _realign_config(child: Task, parent: Task, steps: list[Step], proposer: str) -> None:
    lineage = parent.config.metadata.lineage or Lineage()
    root = lineage.root or parent.name
    round_ = lineage.round + 1
    digest = hashlib.sha256("\0".join(s.solution + s.tests for s in steps).encode()).hexdigest()[:8]
    org = parent.name.split("/", 1)[0] if "/" in parent.name else "rst"
    root_short = root.rsplit("/", 1)[-1][:40]
    name = f"{org}/{root_short}-r{round_}-{digest}"
    info = parent.config.task or TaskInfo(name=name)
    operators = [s.operator for s in steps]
    child.config.task = info.model_copy(update={
        "name": name,
        "keywords": sorted(set(info.keywords) | set(operators)),
    })
    old = parent.config.metadata
    child.config.metadata = Metadata.model_validate({
        **old.model_dump(exclude={"lineage", "metrics", "difficulty"}),
        "difficulty": None,  # computed from measured figures once validated, never inherited
        "lineage": Lineage(parent=parent.name, root=root, round=round_, proposer=proposer, steps=operators),
        "metrics": None,
    })
