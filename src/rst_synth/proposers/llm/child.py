"""The llm proposer's view of a child: the parts one model step writes, mapped onto the shared
child assembly (proposers/child.py) and back."""

from __future__ import annotations

from pydantic import BaseModel, Field

from rst_synth.proposers.child import Extension, NewStep, assemble_child, split_child, step_test_module
from rst_synth.task import OutputContract, Task

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
    """Markdown appended to the parent's instruction ("" when `instruction` replaces it)."""
    instruction: str = ""
    """The child's whole instruction, rewritten for the new workflow ("" when `addendum` is appended)."""
    dockerfile_append: str = ""
    """Lines appended to the parent's Dockerfile ("" when the image is unchanged)."""
    outputs: list[OutputContract] = Field(default_factory=list)
    """The contracts the model stated for the step's outputs (contracts.py); recorded with the step."""

    @property
    def test_path(self) -> str:
        return step_test_module(self.tag)


def consumed_paths(steps: str, candidates: list[str], limit: int = 3) -> list[str]:
    """The parent's artifacts the new steps name (for the solution header), in order of appearance."""
    found = [(steps.find(p), p) for p in candidates if p and p in steps]
    return [p for _, p in sorted(found)][:limit]


def build_child(parent: Task, parts: Parts, artifacts: list[str] | None = None) -> Task:
    """The parent extended by `parts` through the shared child assembly. A rewritten instruction is the
    step's part as a whole: its record spans every line (`rst export --multi-step` shows it all to the
    step), which is also how `parts_of` tells it from an addendum, whose span starts after the parent's text."""
    step = NewStep(
        name=parts.theme,
        tag=parts.tag,
        consumes=consumed_paths(parts.steps, artifacts or []),
        solution=parts.steps,
        test_module=parts.tests,
        instruction=parts.addendum,
        outputs=parts.outputs,
    )
    extension = Extension(steps=[step], dockerfile_append=parts.dockerfile_append)
    if not parts.instruction.strip():
        return assemble_child(parent, extension, proposer=NAME)
    whole = parts.instruction.strip("\n") + "\n"

    def rewritten(_parent: str, _steps: list[NewStep]) -> tuple[str, list[tuple[int, int]]]:
        return whole, [(1, whole.count("\n"))]

    return assemble_child(parent, extension, proposer=NAME, compose=rewritten)


def parts_of(parent: Task, child: Task) -> Parts:
    """The parts of a child that `build_child` made from `parent` (what a repair starts from)."""
    extension = split_child(parent, child)
    step = extension.steps[-1]
    lineage = child.config.metadata.lineage
    whole = lineage is not None and lineage.added[-1].instruction_lines[0] == 1
    return Parts(
        theme=step.name,
        tag=step.tag,
        steps=step.solution,
        tests=step.test_module,
        addendum="" if whole else step.instruction,
        instruction=child.instruction if whole else "",
        dockerfile_append=extension.dockerfile_append,
        outputs=step.outputs,
    )
