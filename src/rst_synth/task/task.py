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

MAX_TASK_MB = 256
"""The most a task directory may hold: a task lives in memory, and every child and check copies it."""
MAX_TASK_MB_ENV = "RST_MAX_TASK_MB"
"""Raises (or lowers) MAX_TASK_MB for one process."""


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
        """Read a task directory; a missing or malformed file raises one TaskFormatError line.

        Symbolic links are never followed: one that leads out of the task directory is rejected as
        such, and one inside it is rejected too (a task is held as plain files, and a link copied
        as the file it points to would no longer be the task Harbor sees)."""
        root = Path(directory)
        if not root.is_dir():
            raise TaskFormatError(root, "not a task directory")
        files, executable = read_tree(root)
        for required in TaskPaths.REQUIRED:
            if required not in files:
                raise TaskFormatError(root / required, "missing required file")
        config_path = root / TaskPaths.CONFIG
        config = TaskConfig.from_toml(_utf8(files.pop(TaskPaths.CONFIG), config_path), config_path)
        instruction = _utf8(files.pop(TaskPaths.INSTRUCTION), root / TaskPaths.INSTRUCTION)
        executable -= {TaskPaths.CONFIG, TaskPaths.INSTRUCTION}
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
        for rel in self.files:
            _check_relative(rel, root)  # before anything is written: a bad name writes nothing
        root.mkdir(parents=True)
        self.config.dump(root / TaskPaths.CONFIG)
        (root / TaskPaths.INSTRUCTION).write_text(self.instruction, encoding="utf-8")
        for rel, content in self.files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
            if rel in self.executable or rel.endswith(".sh"):
                path.chmod(0o755)


def max_task_bytes() -> int:
    """MAX_TASK_MB, or what RST_MAX_TASK_MB says, in bytes."""
    raw = os.environ.get(MAX_TASK_MB_ENV, "")
    return int(raw) * 2**20 if raw.isdigit() and int(raw) > 0 else MAX_TASK_MB * 2**20


def read_tree(root: Path, skip_dirs: frozenset[str] = frozenset({"__pycache__"})) -> tuple[dict[str, bytes], set[str]]:
    """Every regular file under `root` by posix path, and those with an execute bit, read without
    ever following a symbolic link. TaskFormatError (one line) for a link, a name that is not
    UTF-8, or more than `max_task_bytes()` in all; sockets, FIFOs and devices are skipped unread."""
    limit = max_task_bytes()
    total = 0
    found: list[tuple[str, Path, os.stat_result]] = []
    for current, dirs, names in os.walk(root, followlinks=False, onerror=_raise_walk_error):
        here = Path(current)
        dirs[:] = sorted(d for d in dirs if d not in skip_dirs)
        for name in dirs:
            _link_or_none(here / name, root)  # a link to a directory is refused like any other
        for name in sorted(names):
            path = here / name
            info = _link_or_none(path, root)
            if not stat.S_ISREG(info.st_mode) or name.endswith(".pyc"):
                continue
            total += info.st_size
            if total > limit:
                raise TaskFormatError(
                    root,
                    f"holds more than {limit // 2**20} MB of files ({path.relative_to(root)} alone is "
                    f"{info.st_size / 2**20:.0f} MB); a task is kept in memory and copied into every child "
                    f"and check ({MAX_TASK_MB_ENV} raises the limit)",
                )
            found.append((path.relative_to(root).as_posix(), path, info))
    files: dict[str, bytes] = {}
    executable: set[str] = set()
    for rel, path, info in found:
        files[rel] = _read_no_follow(path)
        if info.st_mode & stat.S_IXUSR:
            executable.add(rel)
    return files, executable


def _link_or_none(path: Path, root: Path) -> os.stat_result:
    """The lstat of an entry of a task directory; TaskFormatError for a symlink or a bad name."""
    try:
        path.name.encode("utf-8")
    except UnicodeEncodeError:
        raise TaskFormatError(path.parent, f"a file name that is not UTF-8: {path.name!r}") from None
    info = path.lstat()
    if not stat.S_ISLNK(info.st_mode):
        return info
    target = os.readlink(path)
    inside = (path.parent / target).resolve().is_relative_to(root.resolve())
    where = "inside the task" if inside else "outside the task directory"
    raise TaskFormatError(
        path,
        f"is a symbolic link to {target!r} ({where}); links are never followed: "
        "replace it with the file itself" + ("" if inside else ", from a source you trust"),
    )


def _read_no_follow(path: Path) -> bytes:
    # O_NOFOLLOW: a link put in place after the walk looked is refused, not read through.
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise TaskFormatError(path, f"cannot be read: {exc.strerror}") from None
    with os.fdopen(handle, "rb") as stream:
        return stream.read()


def _raise_walk_error(error: OSError) -> None:
    raise TaskFormatError(error.filename or "?", f"cannot be read: {error.strerror}")


def _utf8(raw: bytes, path: Path) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TaskFormatError(path, "not UTF-8 text") from None


def _check_relative(rel: str, root: Path) -> None:
    """A task's file name must stay inside the task: relative, without `..` or empty parts."""
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(part in ("", ".", "..") for part in parts) or "\0" in rel:
        raise TaskFormatError(root / "?", f"file name {rel!r} would be written outside the task directory")
