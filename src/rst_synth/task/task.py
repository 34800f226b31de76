"""A whole task directory in memory: load it, change it, save it atomically."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import uuid
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from rst_synth.task.config import TaskConfig
from rst_synth.task.errors import TaskFormatError
from rst_synth.task.paths import TaskPaths


class Task(BaseModel):
    """task.toml and instruction.md parsed; every other file kept as bytes by relative path."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    config: TaskConfig
    instruction: str
    files: dict[str, bytes] = Field(default_factory=dict)
    """Everything under environment/, solution/ and tests/ (and any other file), by posix path."""
    executable: set[str] = Field(default_factory=set)
    """The relative paths in `files` that carry an execute bit."""
    source_dir: Path | None = None
    """Where the task was loaded from, if anywhere."""

    @property
    def name(self) -> str:
        if self.config.task is not None:
            return self.config.task.name
        return self.source_dir.name if self.source_dir else "unnamed"

    @property
    def short_name(self) -> str:
        return self.name.rsplit("/", 1)[-1]

    def text(self, relative: str) -> str:
        """A file as text; TaskFormatError naming it when it is absent."""
        try:
            return self.files[relative].decode("utf-8")
        except KeyError:
            raise TaskFormatError(self._where(relative), "missing required file") from None
        except UnicodeDecodeError:
            raise TaskFormatError(self._where(relative), "not UTF-8 text") from None

    def set_text(self, relative: str, content: str, executable: bool = False) -> None:
        self.files[relative] = content.encode("utf-8")
        if executable:
            self.executable.add(relative)

    @property
    def solve_sh(self) -> str:
        return self.text(TaskPaths.SOLVE)

    @property
    def dockerfile(self) -> str:
        return self.text(TaskPaths.DOCKERFILE)

    def files_under(self, directory: str) -> dict[str, bytes]:
        """Files below `directory`, keyed by their path relative to it."""
        prefix = directory.rstrip("/") + "/"
        return {k[len(prefix) :]: v for k, v in self.files.items() if k.startswith(prefix)}

    def environment_hash(self) -> str:
        """Hash of the Docker build context: equal contexts share one image."""
        digest = hashlib.sha256()
        for rel, content in sorted(self.files_under(TaskPaths.ENVIRONMENT_DIR).items()):
            mode = "x" if f"{TaskPaths.ENVIRONMENT_DIR}/{rel}" in self.executable else "-"
            digest.update(f"{rel}\0{mode}\0{len(content)}\0".encode())
            digest.update(content)
        return digest.hexdigest()

    def workflow_hash(self) -> str:
        """Hash of the build context and the solution: what the solution's outputs depend on."""
        digest = hashlib.sha256(self.environment_hash().encode())
        for rel in sorted(self.files):
            if rel.startswith(f"{TaskPaths.SOLUTION_DIR}/"):
                digest.update(rel.encode() + b"\0" + self.files[rel])
        return digest.hexdigest()[:16]

    def _where(self, relative: str) -> Path:
        return (self.source_dir / relative) if self.source_dir else Path(relative)

    @classmethod
    def load(cls, directory: Path | str) -> Task:
        """Read a task directory; a missing or malformed file raises one TaskFormatError line."""
        root = Path(directory)
        if not root.is_dir():
            raise TaskFormatError(root, "not a task directory")
        paths = TaskPaths(root)
        for required in TaskPaths.REQUIRED:
            if not (root / required).is_file():
                raise TaskFormatError(root / required, "missing required file")
        config = TaskConfig.load(paths.config_path)
        try:
            instruction = paths.instruction_path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise TaskFormatError(paths.instruction_path, "not UTF-8 text") from None
        files: dict[str, bytes] = {}
        executable: set[str] = set()
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root).as_posix()
            if not path.is_file() or rel in (TaskPaths.CONFIG, TaskPaths.INSTRUCTION):
                continue
            if "__pycache__" in path.parts or rel.endswith(".pyc"):
                continue
            files[rel] = path.read_bytes()
            if path.stat().st_mode & stat.S_IXUSR:
                executable.add(rel)
        return cls(
            config=config,
            instruction=instruction,
            files=files,
            executable=executable,
            source_dir=root,
        )

    def save(self, directory: Path | str, overwrite: bool = False) -> Path:
        """Write the task to `directory` atomically: a reader sees all of it or none."""
        target = Path(directory)
        if target.exists() and not overwrite:
            raise FileExistsError(f"{target}: already exists")
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = target.parent / f".{target.name}.tmp-{uuid.uuid4().hex[:8]}"
        try:
            self._write_tree(staging)
            if target.exists():
                shutil.rmtree(target)
            os.rename(staging, target)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
        return target

    def _write_tree(self, root: Path) -> None:
        root.mkdir(parents=True)
        self.config.dump(root / TaskPaths.CONFIG)
        (root / TaskPaths.INSTRUCTION).write_text(self.instruction, encoding="utf-8")
        for rel, content in self.files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
            if rel in self.executable or rel.endswith(".sh"):
                path.chmod(0o755)
