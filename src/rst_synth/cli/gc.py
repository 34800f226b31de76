"""`rst gc RUN`: remove the images (and their build cache) that only rejected candidates used."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rst_synth.cli.common import console, fail
from rst_synth.sandbox import SandboxError
from rst_synth.sandbox.images import collect_images, image_tag
from rst_synth.store import RunPaths, Store
from rst_synth.store.lock import RunLock, RunLocked
from rst_synth.task import Task, TaskFormatError
from rst_synth.validator.kept import state_tag


def gc_command(
    run: Annotated[Path, typer.Argument(help="A run directory made by `rst synth`.")],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list what would be removed.")] = False,
    drop_states: Annotated[
        bool,
        typer.Option("--drop-states", help="Remove the accepted tasks' kept states too (remade when needed)."),
    ] = False,
) -> None:
    """Remove the images a run built that no accepted task uses, and the disk they took.

    Every image `rst synth` builds or keeps is labelled with its run directory. The images of the
    run's accepted tasks (every round) and their kept final states (`rst-state:`, what their
    children's checks start from) are kept; the others, made only for candidates that were
    rejected, are removed with the build cache under them, and the disk freed is printed.
    `--drop-states` removes the kept states as well: a later round makes again those it needs.
    Holds the run directory's lock: it refuses to run while `rst synth` or `rst eval` does.
    """
    paths = RunPaths(run)
    if not paths.exists():
        raise fail(f"{paths.db}: no run here")
    try:
        lock = RunLock(paths.root).acquire()
    except RunLocked as exc:
        raise fail(str(exc), code=1) from None
    store = Store(paths.db)
    try:
        accepted = [_task(paths.root / row.path) for row in store.tasks()]
        keep = {image_tag(task.environment_hash()) for task in accepted}
        if not drop_states:
            keep |= {state_tag(task) for task in accepted}
    finally:
        store.close()
    try:
        done = collect_images(paths.root, keep, dry_run=dry_run)
    except SandboxError as exc:
        raise fail(str(exc)) from None
    finally:
        lock.release()
    verb = "would remove" if dry_run else "removed"
    freed = "" if dry_run else f", freed {done.freed_bytes / 2**20:.1f} MB"
    busy = f"; {len(done.in_use)} in use by a container, left alone" if done.in_use else ""
    console.print(
        f"{verb} {len(done.removed)} images only rejected candidates used{' and kept states' if drop_states else ''}, "
        f"kept {len(done.kept)} of accepted tasks{freed}{busy}",
        highlight=False,
    )


def _task(path: Path) -> Task:
    try:
        return Task.load(path)
    except TaskFormatError as exc:
        raise fail(f"{exc}: the run directory is damaged; nothing was removed") from None
