"""`rst validate`: run the acceptance contract on task directories."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from rst_synth.cli.common import console, load_task, open_sandbox, run_with_sandbox
from rst_synth.task import Task
from rst_synth.validator import Check, ValidationReport, Validator, ValidatorConfig, Verdict

_MARK = {
    Verdict.PASS: "[green]pass[/green]",
    Verdict.FAIL: "[red]FAIL[/red]",
    Verdict.SKIP: "[dim]-[/dim]",
    Verdict.ERROR: "[magenta]ERROR[/magenta]",
}


def resolve_parent(task: Task, explicit: Task | None) -> Task | None:
    """The parent to check against: --parent, else the one the task's lineage points to."""
    if explicit is not None:
        return explicit
    lineage = task.config.metadata.lineage
    if lineage is None or not lineage.parent_path or task.source_dir is None:
        return None
    return load_task((task.source_dir / lineage.parent_path).resolve())


def validate_command(
    task_dirs: Annotated[list[Path], typer.Argument(help="Task directories (Harbor layout) to validate.")],
    parent: Annotated[
        Path | None,
        typer.Option(
            "--parent",
            help="Parent task: its solution must fail the tasks' tests. "
            "Default: the parent named by each task's \\[metadata.lineage].parent_path.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON report per task instead of a table.")] = False,
    jobs: Annotated[int, typer.Option("-j", "--jobs", min=1, help="Tasks validated concurrently.")] = 2,
    no_determinism: Annotated[bool, typer.Option("--no-determinism", help="Skip the second oracle run.")] = False,
    no_quality: Annotated[
        bool, typer.Option("--no-quality", help="Skip a child's quality checks (instruction paths ... tolerance).")
    ] = False,
    backend: Annotated[str, typer.Option(help="Sandbox backend.")] = "docker",
) -> None:
    """Validate tasks: static checks, image build, oracle, nop, determinism, parent and, for a
    child, the quality checks (instruction paths, redundancy, parent outputs, steps, mutation, tolerance).

    Exit status 0 only when every task is accepted.
    """
    tasks = [load_task(path) for path in task_dirs]
    explicit_parent = load_task(parent) if parent else None
    parents = [resolve_parent(task, explicit_parent) for task in tasks]
    reports = run_validations(
        tasks,
        parents,
        jobs=jobs,
        backend=backend,
        quiet=as_json,
        determinism_runs=0 if no_determinism else 1,
        quality=not no_quality,
    )
    for report, path in zip(reports, task_dirs, strict=True):
        report.path = str(path)
    if as_json:
        print(json.dumps([r.summary() for r in reports], indent=2))
    else:
        console.print(report_table(reports))
        for report in reports:
            failure = report.first_failure
            if failure is not None:
                line = f"{report.path}: {failure.check.value} -> {failure.reason.value}: {failure.detail}"
                console.print(Text.assemble(("rejected ", "red"), line), highlight=False, soft_wrap=True)
    if not all(r.accepted for r in reports):
        raise typer.Exit(1)


_SHORT = {
    Check.DETERMINISM: "determ",
    Check.INSTRUCTION_PATHS: "instr",
    Check.REDUNDANCY: "redund",
    Check.DEGENERATE: "degen",
    Check.PARENT_OUTPUTS: "p.outs",
    Check.MUTATION: "mutat",
    Check.TOLERANCE: "toler",
}
# novelty is judged by the engine, per run; propose by the proposer
_SHOWN = [c for c in Check if c not in (Check.PROPOSE, Check.NOVELTY)]


def run_validations(
    tasks: list[Task],
    parents: list[Task | None],
    *,
    jobs: int,
    backend: str,
    quiet: bool = False,
    determinism_runs: int = 1,
    quality: bool = True,
) -> list[ValidationReport]:
    """Validate tasks concurrently (at most `jobs` at once) with a progress bar."""
    sandbox = open_sandbox(backend)
    config = ValidatorConfig(max_containers=2 * jobs, determinism_runs=determinism_runs, quality=quality)
    validator = Validator(sandbox, config)

    async def work() -> list[ValidationReport]:
        gate = asyncio.Semaphore(jobs)
        with Progress(
            TextColumn("validating"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            disable=quiet,
        ) as progress:
            bar = progress.add_task("validate", total=len(tasks))

            async def one(task: Task, task_parent: Task | None) -> ValidationReport:
                async with gate:
                    report = await validator.validate(task, task_parent)
                progress.advance(bar)
                return report

            return list(await asyncio.gather(*(one(t, p) for t, p in zip(tasks, parents, strict=True))))

    return run_with_sandbox(sandbox, work)


def report_table(reports: list[ValidationReport]) -> Table:
    table = Table(title="validation", show_lines=False)
    table.add_column("task", overflow="fold")
    for check in _SHOWN:
        table.add_column(_SHORT.get(check, check.value), justify="center")
    table.add_column("result")
    table.add_column("lines", justify="right")
    table.add_column("cmds", justify="right")
    table.add_column("oracle s", justify="right")
    table.add_column("kill", justify="right")
    table.add_column("total s", justify="right")
    for report in reports:
        marks = []
        for check in _SHOWN:
            result = report.result(check)
            marks.append(_MARK[result.verdict] if result else "")
        figures = report.figures
        table.add_row(
            Path(report.path).name if report.path else report.task,
            *marks,
            "[green]accepted[/green]" if report.accepted else "[red]rejected[/red]",
            _num(figures.solution_lines),
            _num(figures.executed_commands),
            _num(figures.oracle_sec),
            "-" if figures.kill_rate is None else f"{100 * figures.kill_rate:.0f}%",
            f"{report.duration_sec:.1f}",
        )
    return table


def _num(value: float | int | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if isinstance(value, float) else str(value)
