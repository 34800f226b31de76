"""`rst extend`: make K validated children of one task."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from rst_synth.cli.common import (
    build_proposer,
    console,
    err_console,
    load_task,
    open_sandbox,
    run_with_sandbox,
)
from rst_synth.cli.options import Backend, ProposerBaseUrl, ProposerLLMConfig, ProposerModel, endpoint
from rst_synth.engine import CandidateOutcome, CandidatePipeline, NoveltyCheck, NoveltyIndex
from rst_synth.executors import LocalExecutor
from rst_synth.validator import Check, Validator, ValidatorConfig


def extend_command(
    task_dir: Annotated[Path, typer.Argument(help="The parent task directory.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory that receives the accepted children.")],
    proposer_name: Annotated[
        str, typer.Option("--proposer", help="Proposer: procedural (offline) or llm.")
    ] = "procedural",
    count: Annotated[int, typer.Option("-n", "--count", min=1, help="Children to make.")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the first child; later ones use seed + 1, + 2, ...")] = 0,
    repairs: Annotated[int, typer.Option("--repairs", min=0, help="Repair attempts after a rejection.")] = 1,
    model: ProposerModel = None,
    base_url: ProposerBaseUrl = None,
    llm_config: ProposerLLMConfig = None,
    backend: Backend = "docker",
) -> None:
    """Extend one task into K children, each validated against it (the parent check included).

    Accepted children are written to OUT/<child-name>/ with their measured figures in task.toml.
    Exit status 0 only when all K children were accepted.
    """
    parent = load_task(task_dir)
    sandbox = open_sandbox(backend)
    validator = Validator(sandbox, ValidatorConfig())
    runner = LocalExecutor(sandbox, validator)
    proposer = build_proposer(proposer_name, runner.discover, endpoint(model, base_url, llm_config), out / ".llm-cache")
    # The same pipeline as `rst synth`: propose, validate, repair, novelty among the children made here.
    novelty, names = NoveltyIndex(), set[str]()
    checks = [NoveltyCheck(novelty, known=names.__contains__)]
    pipeline = CandidatePipeline(proposer, validator, repairs=repairs, checks=checks, executor=runner)

    async def work() -> list[tuple[int, CandidateOutcome]]:
        try:
            return await extend_all()
        finally:
            await proposer.close()

    async def extend_all() -> list[tuple[int, CandidateOutcome]]:
        # Different seeds can draw the same steps; such a child is rejected as a near-duplicate and
        # another seed is tried instead, up to three tries per wanted child.
        results: list[tuple[int, CandidateOutcome]] = []
        accepted = 0
        with console.status("extending") as status:
            for index in range(3 * count):
                if accepted == count:
                    break
                status.update(f"child {accepted + 1}/{count} of {parent.short_name} (seed {seed + index})")
                outcome = await pipeline.run(parent, seed=seed + index)
                if outcome.rejection is not None and outcome.rejection.check is Check.NOVELTY:
                    continue
                if outcome.accepted and outcome.proposal is not None:
                    accepted += 1
                    child = outcome.proposal.task
                    names.add(child.short_name)
                    novelty.add(child.short_name, *novelty.fingerprints(child, parent))
                results.append((index, outcome))
        return results

    results = run_with_sandbox(sandbox, work)
    table = Table(title=f"children of {parent.name}")
    for column in ("seed", "child", "steps", "lines", "cmds", "result"):
        table.add_column(column)
    accepted = 0
    for index, outcome in results:
        rejection = outcome.rejection
        if rejection is not None or outcome.proposal is None:
            why = f"{rejection.check.value}: {rejection.reason.value}" if rejection else "rejected"
            table.add_row(str(seed + index), "-", "-", "-", "-", f"[red]rejected[/red] {why}")
            continue
        child = outcome.proposal.task
        target = out / child.short_name
        lineage = child.config.metadata.lineage
        if lineage is not None:
            lineage.parent_path = os.path.relpath(task_dir.resolve(), target.resolve())
        child.save(target, overwrite=True)
        accepted += 1
        figures = outcome.report.figures if outcome.report else None
        table.add_row(
            str(seed + index),
            str(target),
            ", ".join(lineage.steps if lineage else []),
            str(figures.solution_lines if figures else "-"),
            str(figures.executed_commands if figures else "-"),
            "[green]accepted[/green]",
        )
    console.print(table)
    if accepted < count:
        err_console.print(f"{accepted} of {count} distinct children accepted")
        raise typer.Exit(1)
