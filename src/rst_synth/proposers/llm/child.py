"""A child task from its parent and the four parts a model wrote, and the parts back from a child."""

from __future__ import annotations

import re

from pydantic import BaseModel

from rst_synth.proposers.procedural.assemble import make_child, step_test_module
from rst_synth.proposers.procedural.operator import Step
from rst_synth.task import Task, TaskPaths

NAME = "llm"


class Parts(BaseModel):
    """What one llm step adds to its parent."""

    theme: str
    tag: str
    """Tag of the step within the lineage ("r2"): names its test module and its solution header."""
    steps: str
    """Bash appended to the parent's solve.sh."""
    tests: str
    """The new pytest module, complete."""
    addendum: str
    """Markdown appended to the parent's instruction."""
    dockerfile_append: str = ""
    """Lines appended to the parent's Dockerfile ("" when the image is unchanged)."""

    @property
    def test_path(self) -> str:
        return step_test_module(self.tag)


def consumed_paths(steps: str, candidates: list[str], limit: int = 3) -> list[str]:
    """The parent's artifacts the new steps name (for the solution header), in order of appearance."""
    found = [(steps.find(p), p) for p in candidates if p and p in steps]
    return [p for _, p in sorted(found)][:limit]


def build_child(parent: Task, parts: Parts, artifacts: list[str] | None = None) -> Task:
    """The parent extended by `parts`: solution, tests, instruction, image and task.toml realigned.

    Reuses the procedural proposer's assembly (solution header, name, lineage, metadata), then puts the
    model's test module in verbatim and appends its Dockerfile lines."""
    consumes = ", ".join(consumed_paths(parts.steps, artifacts or [])) or "the parent's outputs"
    step = Step(operator=parts.theme, consumes=consumes, solution=parts.steps.strip("\n"), tests=parts.tests,
                instruction=parts.addendum.strip(), apt_packages=[])
    child = make_child(parent, [step], [parts.tag], proposer=NAME, packages=[])
    child.set_text(parts.test_path, parts.tests.rstrip("\n") + "\n")
    if parts.dockerfile_append.strip():
        child.set_text(TaskPaths.DOCKERFILE,
                       parent.dockerfile.rstrip("\n") + "\n" + parts.dockerfile_append.strip("\n") + "\n")
    return child


def parts_of(parent: Task, child: Task) -> Parts:
    """The parts of a child that `build_child` made from `parent` (what a repair starts from)."""
    lineage = child.config.metadata.lineage
    theme = lineage.steps[0] if lineage and lineage.steps else "extension"
    new_modules = sorted(rel for rel in child.files if rel.startswith(f"{TaskPaths.TESTS_DIR}/test_step_")
                         and rel not in parent.files)
    test_path = new_modules[-1] if new_modules else ""
    match = re.search(r"test_step_(.+)\.py$", test_path)
    tag = match.group(1) if match else f"r{lineage.round if lineage else 1}"
    solve = child.solve_sh
    header = solve.rfind(f"\n# --- step {tag}: ")
    steps = solve[solve.index("\n", header + 1) + 1:] if header >= 0 else ""
    prefix = parent.instruction.rstrip("\n")
    addendum = child.instruction.removeprefix(prefix)
    docker_prefix = parent.dockerfile.rstrip("\n")
    dockerfile = child.dockerfile
    append = dockerfile[len(docker_prefix):] if dockerfile.startswith(docker_prefix) else ""
    return Parts(theme=theme, tag=tag, steps=steps.strip("\n") + "\n",
                 tests=child.text(test_path) if test_path else "", addendum=addendum.strip() + "\n",
                 dockerfile_append=append.strip("\n") + "\n" if append.strip() else "")
