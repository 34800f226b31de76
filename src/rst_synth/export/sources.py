"""Where `rst collect` reads from: the attempts `rst eval` stored, and the tasks of a run or an export.

An attempt is found through the store row `rst eval` writes once its trajectory.json and
result.json are on disk, so a half-written attempt is never read. A task's lineage (its root seed,
which decides its side of the train/validation split) comes from its task.toml.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from rst_synth.store import RunPaths, Store
from rst_synth.task import TaskPaths
from rst_synth.task.entry import TaskEntry, identity


class CollectError(ValueError):
    """A path that holds no evals or tasks: one line naming it."""


class StoredAttempt(BaseModel):
    """One finished attempt as the store records it, with where its task and files live."""

    eval_id: str
    task: str
    """The task's key in the store: its id in a run, its directory for evaluated task directories."""
    task_dir: Path | None
    round: int
    root: str
    """The root seed of the task's lineage: [metadata.lineage].root, else the task's own name."""
    attempt: int
    reward: float
    ended: str
    directory: Path
    """The attempt's folder, with trajectory.json and result.json."""


def find_attempts(path: Path) -> list[StoredAttempt]:
    """The attempts under `path`: a run directory (every eval stored with it), one eval's folder in
    a run (RUN/evals/<agent>-<model>), an `rst eval --out` folder (its eval.db) or one eval's folder
    in it. CollectError when `path` is none of these."""
    if RunPaths(path).exists():
        return _from_store(RunPaths(path).db, path, run=True)
    if (path / "eval.db").is_file():
        return _from_store(path / "eval.db", path, run=False)
    if (path.parent / "eval.db").is_file():
        return _from_store(path.parent / "eval.db", path.parent, run=False, eval_id=path.name)
    if path.parent.name == "evals" and RunPaths(path.parent.parent).exists():
        return _from_store(RunPaths(path.parent.parent).db, path.parent.parent, run=True, eval_id=path.name)
    raise CollectError(f"{path}: not a run directory or an `rst eval` folder (no run.db or eval.db)")


def find_tasks(path: Path) -> list[TaskEntry]:
    """The tasks of `path`: a run's accepted tasks, a task directory, or every task directory one
    level below `path` (an `rst export` dataset, a folder of seeds). CollectError when there are none."""
    if RunPaths(path).exists():
        store = Store(RunPaths(path).db)
        try:
            dirs = [path / row.path for row in store.tasks()]
        finally:
            store.close()
    elif (path / TaskPaths.CONFIG).is_file():
        dirs = [path]
    else:
        dirs = sorted(p.parent for p in path.glob(f"*/{TaskPaths.CONFIG}"))
    if not dirs:
        raise CollectError(f"{path}: no tasks (not a run directory, a task directory or a folder of tasks)")
    return [TaskEntry.read(task_dir) for task_dir in dirs]


def _from_store(db: Path, root: Path, *, run: bool, eval_id: str | None = None) -> list[StoredAttempt]:
    store = Store(db)
    try:
        rows = store.agent_attempts(eval_id)
        tasks = store.tasks_by_id(sorted({row.task for row in rows})) if run else {}
    finally:
        store.close()
    lineages: dict[str, tuple[str, str, int | None]] = {}
    found = []
    for row in rows:
        if run:
            task_row = tasks.get(row.task)
            task_dir = root / task_row.path if task_row else None
        else:
            task_dir = Path(row.task)
        if row.task not in lineages:
            lineages[row.task] = identity(task_dir, fallback=row.task)
        _, root_name, task_round = lineages[row.task]
        found.append(
            StoredAttempt(
                eval_id=row.eval_id,
                task=row.task,
                task_dir=task_dir,
                round=row.round if task_round is None else task_round,
                root=root_name,
                attempt=row.attempt,
                reward=row.reward,
                ended=row.ended,
                directory=root / row.path,
            )
        )
    return found
