"""Helpers for operator tests: extend a small parent with exactly one operator and validate."""

from __future__ import annotations

from pathlib import Path

from rst_synth.proposers import Proposal
from rst_synth.proposers.discovery import Discovery, discovery_on
from rst_synth.proposers.procedural import ProceduralConfig, ProceduralProposer
from rst_synth.task import Task
from rst_synth.validator import ValidationReport, Validator
from tests.support.docker import run_async
from tests.support.tasks import write_task


def parent_task(root: Path, solve: str, *, name: str = "parent", dockerfile: str | None = None) -> Path:
    """A parent whose solution produces the artifacts an operator needs; its own test is trivial
    but only passes once the solution ran (so the parent itself is a valid task)."""
    test = "from pathlib import Path\n\ndef test_parent_ran():\n    assert Path('/app/.parent-done').exists()\n"
    kwargs = {"dockerfile": dockerfile} if dockerfile else {}
    return write_task(
        root,
        name=name,
        solve=solve + "\ntouch /app/.parent-done\n",
        tests={"test_parent.py": test},
        instruction="Produce the parent's files.\n",
        **kwargs,
    )


def extend_with(operator: str, parent_dir: Path, seed: int = 0) -> tuple[Proposal, ValidationReport]:
    """Propose a child of `parent_dir` made by `operator` alone, and validate it against the parent (an
    operator named by the caller is drawn whatever the refusal rules say of the lineage)."""
    parent = Task.load(parent_dir)

    async def work(sandbox):  # type: ignore[no-untyped-def]
        proposer = ProceduralProposer(
            discovery_on(sandbox), ProceduralConfig(operators=[operator], min_steps=1, max_steps=1)
        )
        proposal = await proposer.propose(parent, seed=seed)
        report = await Validator(sandbox).validate(proposal.task, parent)
        return proposal, report

    return run_async(work)


def discover_parent(parent_dir: Path) -> Discovery:
    parent = Task.load(parent_dir)

    async def work(sandbox):  # type: ignore[no-untyped-def]
        return await ProceduralProposer(discovery_on(sandbox)).discovery(parent)

    return run_async(work)


def assert_accepted(proposal: Proposal, report: ValidationReport, operator: str) -> None:
    assert proposal.steps == [operator]
    assert report.accepted, (report.first_failure, report.first_failure and report.first_failure.output_tail)
    assert report.result_of("parent").passed  # the new checks fail on the parent's final state
