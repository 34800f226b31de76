"""`rst seeds list`: a seed library at a glance, every figure measured by validating it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from rst_synth.cli.common import console, fail, load_task
from rst_synth.cli.validate import resolve_parent, run_validations
from rst_synth.task import TaskPaths

seeds_app = typer.Typer(no_args_is_help=True)


def task_dirs_in(directory: Path) -> list[Path]:
    """The task directories directly under `directory` (those holding a task.toml)."""
    if (directory / TaskPaths.CONFIG).is_file():
        return [directory]
    found = sorted(p for p in directory.iterdir() if (p / TaskPaths.CONFIG).is_file()) if directory.is_dir() else []
    if not found:
        raise fail(f"{directory}: no task directories (none holds a {TaskPaths.CONFIG})")
    return found


@seeds_app.command("list")
def list_command(
    directory: Annotated[Path, typer.Argument(help="A folder of task directories (e.g. examples/seeds).")],
    jobs: Annotated[int, typer.Option("-j", "--jobs", min=1, help="Tasks validated concurrently.")] = 2,
    backend: Annotated[str, typer.Option(help="Sandbox backend.")] = "docker",
) -> None:
    """Validate a folder of tasks and print their measured figures.

    Domain, solution lines, executed commands and oracle time of every task in DIRECTORY, as
    measured in this run. Exit status 0 only when all are accepted.
    """
    paths = task_dirs_in(directory)
    tasks = [load_task(p) for p in paths]
    reports = run_validations(tasks, [resolve_parent(t, None) for t in tasks], jobs=jobs, backend=backend)
    table = Table(title=f"tasks in {directory}")
    for column, justify in (
        ("task", "left"),
        ("domain", "left"),
        ("solution lines", "right"),
        ("executed commands", "right"),
        ("oracle s", "right"),
        ("tests", "right"),
        ("status", "left"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for task, report in zip(tasks, reports, strict=True):
        figures = report.figures
        failure = report.first_failure
        tests = sum(
            body.decode("utf-8", "replace").count("\ndef test_")
            for rel, body in task.files.items()
            if rel.startswith(f"{TaskPaths.TESTS_DIR}/test_") and rel.endswith(".py")
        )
        table.add_row(
            task.short_name,
            task.config.metadata.category or "-",
            str(figures.solution_lines if figures.solution_lines is not None else "-"),
            str(figures.executed_commands if figures.executed_commands is not None else "-"),
            f"{figures.oracle_sec:.2f}" if figures.oracle_sec is not None else "-",
            str(tests),
            "accepted"
            if report.accepted
            else f"rejected ({failure.check.value}: {failure.reason.value})"
            if failure
            else "rejected",
        )
    console.print(table)
    if not all(r.accepted for r in reports):
        raise typer.Exit(1)
