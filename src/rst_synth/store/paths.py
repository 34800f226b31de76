"""Every file-name convention of a run directory."""

from __future__ import annotations

from pathlib import Path


class RunPaths:
    """Layout of `rst synth --out RUN`."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    @property
    def db(self) -> Path:
        return self.root / "run.db"

    @property
    def config(self) -> Path:
        return self.root / "run.toml"

    @property
    def tasks_dir(self) -> Path:
        return self.root / "tasks"

    def round_dir(self, round_: int) -> Path:
        return self.tasks_dir / f"r{round_:02d}"

    def task_dir(self, round_: int, task_id: str) -> Path:
        return self.round_dir(round_) / task_id

    @property
    def log(self) -> Path:
        return self.root / "logs" / "run.jsonl"

    @property
    def llm_cache(self) -> Path:
        return self.root / "llm-cache"

    def eval_dir(self, eval_id: str) -> Path:
        """Where `rst eval` keeps one agent's attempts on this run's tasks."""
        return self.root / "evals" / eval_id

    def exists(self) -> bool:
        return self.db.is_file()
