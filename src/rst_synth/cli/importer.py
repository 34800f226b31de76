"""`rst import`: convert tasks from other formats to the Harbor layout."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from rst_synth.cli.common import console, fail
from rst_synth.cli.options import Force, ImportOut
from rst_synth.importers.harbor import convert_harbor, import_record, is_harbor_task
from rst_synth.importers.tb1 import CONFIG as TB1_CONFIG
from rst_synth.importers.tb1 import convert_tb1, uses_original_runner
from rst_synth.proposers.child import last_module_argument
from rst_synth.sandbox import SandboxError, make_sandbox
from rst_synth.task import Task, TaskFormatError, TaskPaths

import_app = typer.Typer(
    no_args_is_help=True, rich_markup_mode="rich", help="Convert tasks from other formats to the Harbor layout."
)

CONVERTED, SKIPPED, FAILED = "converted", "skipped", "failed"


@dataclass
class ImportResult:
    source: Path
    status: str
    detail: str = ""
    task: Task | None = None
    target: Path | None = None


def find_tb1_tasks(src: Path) -> list[Path]:
    """`src` itself when it holds task.yaml; else its subdirectories when any of them does."""
    if (src / TB1_CONFIG).is_file():
        return [src]
    children = sorted(p for p in src.iterdir() if p.is_dir() and not p.name.startswith("."))
    tasks = [child for child in children if (child / TB1_CONFIG).is_file()]
    # Neither a task nor a folder of tasks: convert it anyway so the skip says what is missing.
    return tasks or [src]


def import_one(
    src: Path, out: Path, force: bool, taken: set[str], convert: Callable[[Path], Task] = convert_tb1
) -> ImportResult:
    """Convert and write one task; every problem becomes a result, never an exception."""
    name = src.resolve().name
    target = out / name
    if name in taken:
        return ImportResult(src, SKIPPED, f"another source in this run is also named {name!r}")
    taken.add(name)
    if target.exists() and not force:
        return ImportResult(src, SKIPPED, f"{target} already exists (use --force to replace it)")
    try:
        task = convert(src)
        task.save(target, overwrite=force)
    except TaskFormatError as exc:
        return ImportResult(src, SKIPPED, _relative_reason(src, exc))
    except Exception as exc:
        return ImportResult(src, FAILED, f"{type(exc).__name__}: {exc}")
    return ImportResult(src, CONVERTED, task=task, target=target)


def _relative_reason(src: Path, exc: TaskFormatError) -> str:
    try:
        where = exc.path.relative_to(src).as_posix()
    except ValueError:
        where = str(exc.path)
    return f"{where}: {exc.problem}" if where != "." else exc.problem


def tb1_command(
    sources: Annotated[
        list[Path],
        typer.Argument(
            metavar="SRC",
            exists=True,
            file_okay=False,
            help="A TB1 task directory (with task.yaml), or a directory of them.",
        ),
    ],
    out: ImportOut,
    force: Force = False,
) -> None:
    """Convert Terminal-Bench 1 tasks (task.yaml, solution.sh, run-tests.sh, docker-compose.yaml).

    Each task is written to OUT/<task dir name> as task [bold]tb1/<task dir name>[/bold]. A task that
    cannot be converted (solution.yaml, several compose services, ...) prints
    [bold]skipped SRC: reason[/bold] and the others still convert.

    Exit status: 0 when every task converted; 1 when any was skipped or failed (the others are still
    written); 2 on a usage error.
    """
    task_dirs = [task for src in sources for task in find_tb1_tasks(src)]
    if not task_dirs:
        raise fail("no task directories found")
    import_all(task_dirs, out, force, results_table)


def import_all(
    task_dirs: list[Path],
    out: Path,
    force: bool,
    table_of: Callable[[list[ImportResult]], Table],
    convert: Callable[[Path], Task] = convert_tb1,
) -> None:
    """Convert every task (one line for each that does not convert), print the table, exit 1 on any miss."""
    taken: set[str] = set()
    results: list[ImportResult] = []
    for task_dir in task_dirs:
        result = import_one(task_dir, out, force, taken, convert)
        if result.status != CONVERTED:
            console.print(
                f"{result.status} {escape(str(task_dir))}: {escape(result.detail)}", highlight=False, soft_wrap=True
            )
        results.append(result)
    console.print(table_of(results))
    converted = sum(r.status == CONVERTED for r in results)
    console.print(f"converted {converted} of {len(results)} task(s) to {escape(str(out))}", highlight=False)
    if converted < len(results):
        raise typer.Exit(1)


def results_table(results: list[ImportResult]) -> Table:
    table = Table(title="tb1 import")
    table.add_column("source", overflow="fold")
    table.add_column("result")
    table.add_column("task", overflow="fold")
    table.add_column("verifier")
    table.add_column("network")
    for result in results:
        task = result.task
        if task is None:
            colour = "yellow" if result.status == SKIPPED else "red"
            table.add_row(escape(result.source.name), f"[{colour}]{result.status}[/{colour}]", "", "", "")
            continue
        verifier = "run-tests.sh" if uses_original_runner(task) else "pytest (offline)"
        network = task.config.environment.network_mode or "-"
        table.add_row(escape(result.source.name), "[green]converted[/green]", escape(task.name), verifier, network)
    return table


def find_harbor_tasks(src: Path) -> list[Path]:
    """`src` itself when it is a Harbor task; else the tasks among its subdirectories (a dataset)."""
    if is_harbor_task(src):
        return [src]
    children = sorted(p for p in src.iterdir() if p.is_dir() and not p.name.startswith("."))
    return [child for child in children if is_harbor_task(child)] or [src]


class ImageCheck:
    """Whether a prebuilt image can be had here: built as `FROM image` by the sandbox, which pulls it
    when it is not present. The sandbox is made on the first question only."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.answers: dict[str, str | None] = {}

    def __call__(self, image: str) -> str | None:
        if image not in self.answers:
            self.answers[image] = asyncio.run(self._pull(image))
        return self.answers[image]

    async def _pull(self, image: str) -> str | None:
        try:
            sandbox = make_sandbox(self.backend)
        except (SandboxError, ValueError) as exc:
            return f"no sandbox to pull it with ({str(exc).splitlines()[0]})"
        context = {"Dockerfile": f"FROM {image}\n".encode()}
        try:
            await sandbox.ensure_image(context, hashlib.sha256(context["Dockerfile"]).hexdigest(), timeout=600)
        except SandboxError as exc:
            return str(exc).strip().splitlines()[-1][:200] if str(exc).strip() else type(exc).__name__
        finally:
            await sandbox.close()
        return None


def harbor_command(
    sources: Annotated[
        list[Path],
        typer.Argument(
            metavar="SRC",
            exists=True,
            file_okay=False,
            help="A Harbor task directory (with task.toml), or a dataset directory of them.",
        ),
    ],
    out: ImportOut,
    offline: Annotated[
        bool,
        typer.Option(
            "--offline",
            help="Bake what tests/test.sh fetches at test time (uv, pytest, plugins, apt packages) into the "
            "image and rewrite test.sh to use it; wheels are fetched now, from the package index.",
        ),
    ] = False,
    base: Annotated[
        str | None,
        typer.Option(
            "--base", metavar="IMAGE", help="Replace the image of every FROM line (for bases this machine cannot pull)."
        ),
    ] = None,
    force: Force = False,
    backend: Annotated[str, typer.Option(help="Sandbox backend that pulls a prebuilt docker_image.")] = "docker",
) -> None:
    """Take Harbor tasks (Terminal-Bench 2, Harbor registry datasets, your own) as seeds.

    Each task is written to OUT/<task dir name>; every change the import makes is listed in its
    task.toml under \\[metadata.import]. A task that cannot be converted (a GPU, several services,
    a prebuilt docker_image that cannot be pulled, a fetch --offline cannot bake) prints
    [bold]skipped SRC: reason[/bold] and the others still convert. Validation runs with the network
    off, so a test.sh that installs pytest at test time needs [bold]--offline[/bold]. Then
    [bold]rst validate OUT/*[/bold] tells which hold and [bold]rst seeds list OUT[/bold] measures them.

    Exit status: 0 when every task converted; 1 when any was skipped or failed; 2 on a usage error.
    """
    task_dirs = [task for src in sources for task in find_harbor_tasks(src)]
    if not task_dirs:
        raise fail("no task directories found")
    check = ImageCheck(backend)

    def convert(src: Path) -> Task:
        return convert_harbor(src, offline=offline, base=base, image_problem=check)

    import_all(task_dirs, out, force, harbor_table, convert)


def harbor_table(results: list[ImportResult]) -> Table:
    table = Table(title="harbor import")
    for column in ("source", "result", "task", "new checks run by", "changes", "network"):
        table.add_column(column, overflow="fold")
    for result in results:
        task = result.task
        if task is None:
            colour = "yellow" if result.status == SKIPPED else "red"
            table.add_row(escape(result.source.name), f"[{colour}]{result.status}[/{colour}]", "", "", "", "")
            continue
        argument = last_module_argument(task)
        runner = f"naming {argument.tests_dir}<module>" if argument else "the folder run"
        record = import_record(task)
        changes = str(len(record.changes)) if record else "0"
        if record and any(TaskPaths.TEST_SH in note and "--offline" in note for note in record.notes):
            changes += " (test.sh fetches: use --offline)"
        network = task.config.environment.network_mode or "-"
        table.add_row(
            escape(result.source.name), "[green]converted[/green]", escape(task.name), runner, changes, network
        )
    return table


import_app.command("tb1")(tb1_command)
import_app.command("harbor")(harbor_command)
