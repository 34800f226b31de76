"""Errors about malformed task input: always one line naming the file and what is wrong."""

from __future__ import annotations

from pathlib import Path


class TaskFormatError(ValueError):
    """A task directory or file that cannot be used, with the file and the field at fault."""

    def __init__(self, path: Path | str, problem: str) -> None:
        self.path = Path(path)
        self.problem = " ".join(problem.split())  # one line, whatever the cause printed
        super().__init__(f"{self.path}: {self.problem}")
