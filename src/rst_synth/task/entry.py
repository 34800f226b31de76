"""A task as a training set lists it: its directory, name, round and root seed (which decides its
side of a train/validation split), all read from its task.toml. `rst collect` lists tasks this way
and the RL dataset rows are made from such entries."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from rst_synth.task.config import TaskConfig
from rst_synth.task.errors import TaskFormatError
from rst_synth.task.paths import TaskPaths


class TaskEntry(BaseModel):
    """A task to train on: its directory, name, round and root seed."""

    task_dir: Path
    name: str
    round: int
    root: str

    @classmethod
    def read(cls, task_dir: Path) -> TaskEntry:
        name, root, task_round = identity(task_dir)
        return cls(task_dir=task_dir, name=name, round=task_round or 0, root=root)


def identity(task_dir: Path | None, fallback: str = "") -> tuple[str, str, int | None]:
    """(task name, root seed, round) from the task's task.toml: the root is [metadata.lineage].root,
    else the task's own name. With no readable task.toml: `fallback` (or the folder's name) for both."""
    if task_dir is None:
        return fallback, fallback, None
    try:
        config = TaskConfig.load(task_dir / TaskPaths.CONFIG)
    except TaskFormatError:
        name = fallback or task_dir.name
        return name, name, None
    name = config.task.name if config.task is not None else task_dir.name
    lineage = config.metadata.lineage
    if lineage is None:
        return name, name, None
    return name, lineage.root or name, lineage.round
