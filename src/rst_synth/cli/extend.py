"""`rst extend`: make K validated children of one task."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from rst_synth.cli.common import (
    build_proposer,
    close_proposer,
    console,
    err_console,
    load_task,
    open_sandbox,
    run_with_sandbox,
)
from rst_synth.engine import record_figures
from rst_synth.proposers import ProposalError
from rst_synth.task import Task
from rst_synth.validator import ValidationReport, Validator, ValidatorConfig


def extend_command(
    task_dir: Annotated[Path, typer.Argument(help="The parent task directory.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory that receives the accepted children.")],
    proposer_name: Annotated[str, typer.Option("--proposer", help="Proposer: procedural (offline) or llm.")] = "procedural",
    count: Annotated[int, typer.Option("-n", "--count", min=1, help="Children to make.")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the first child; later ones use seed + 1, + 2, ...")] = 0,
    repairs: Annotated[int, typer.Option("--repairs", min=0, help="Repair attempts after a rejection.")] = 2,
    model: Annotated[str | None, typer.Option(help="llm proposer: model name (or RST_LLM_MODEL).")] = None,
    base_url: Annotated[str | None, typer.Option(help="llm proposer: OpenAI-compatible endpoint (or RST_LLM_BASE_URL).")] = None,
    llm_config: Annotated[Path | None, typer.Option(help="llm proposer: TOML file with an \\[llm] table.")] = None,
    backend: Annotated[str, typer.Option(help="Sandbox backend.")] = "docker",
) -> None:
    """Extend one task into K children, each validated against it (the parent check included).

    Accepted children are written to OUT/<child-name>/ with their measured figures in task.toml.
    Exit status 0 only when all K children were accepted.
    """
    parent = load_task(task_dir)
    sandbox = open_sandbox(backend)
    endpoint = {"model": model, "base_url": base_url, "llm_config_file": str(llm_config) if llm_config else None}
    proposer = build_proposer(proposer_name, sandbox, endpoint, out / ".llm-cache")
    validator = Validator(sandbox, ValidatorConfig())

    async def one(index: int) -> tuple[int, Task | None, ValidationReport | None, str]:
        try:
            proposal = await proposer.propose(parent, seed=seed + index)
        except ProposalError as exc:
            return index, None, None, str(exc)
        for attempt in range(repairs + 1):
            report = await validator.validate(proposal.task, parent)
            if report.accepted:
                record_figures(proposal.task, report, attempt, proposal)
                return index, proposal.task, report, ""
            if attempt == repairs:
                break
            try:
                proposal = await proposer.repair(parent, proposal, report, attempt=attempt + 1)
            except ProposalError as exc:
                return index, None, report, str(exc)
        failure = report.first_failure
        return index, None, report, f"{failure.check.value}: {failure.reason.value}" if failure else "rejected"

    async def work() -> list[tuple[int, Task | None, ValidationReport | None, str]]:
        try:
            return await extend_all()
        finally:
            await close_proposer(proposer)

    async def extend_all() -> list[tuple[int, Task | None, ValidationReport | None, str]]:
        # Different seeds can draw the same steps; such a child is made once, and another
        # seed is tried instead, up to three tries per wanted child.
        results: list[tuple[int, Task | None, ValidationReport | None, str]] = []
        names: set[str] = set()
        with console.status("extending") as status:
            for index in range(3 * count):
                if len(names) == count:
                    break
                status.update(f"child {len(names) + 1}/{count} of {parent.short_name} (seed {seed + index})")
                index, child, report, why = await one(index)
                if child is not None and child.name in names:
                    continue
                if child is not None:
                    names.add(child.name)
                results.append((index, child, report, why))
        return results

    results = run_with_sandbox(sandbox, work)
    table = Table(title=f"children of {parent.name}")
    for column in ("seed", "child", "steps", "lines", "cmds", "result"):
        table.add_column(column)
    accepted = 0
    for index, child, report, why in results:
        if child is None:
            table.add_row(str(seed + index), "-", "-", "-", "-", f"[red]rejected[/red] {why}")
            continue
        target = out / child.short_name
        lineage = child.config.metadata.lineage
        if lineage is not None:
            lineage.parent_path = os.path.relpath(task_dir.resolve(), target.resolve())
        child.save(target, overwrite=True)
        accepted += 1
        figures = report.figures if report else None
        table.add_row(str(seed + index), str(target), ", ".join(lineage.steps if lineage else []),
                      str(figures.solution_lines if figures else "-"), str(figures.executed_commands if figures else "-"),
                      "[green]accepted[/green]")
    console.print(table)
    if accepted < count:
        err_console.print(f"{accepted} of {count} distinct children accepted")
        raise typer.Exit(1)
