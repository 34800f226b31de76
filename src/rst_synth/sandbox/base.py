"""The Sandbox protocol: build an image once, run fresh containers from it, always clean up."""

from __future__ import annotations

import io
import tarfile
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from pathlib import PurePosixPath
from typing import Protocol, runtime_checkable

OUTPUT_TAIL_CHARS = 4000


class SandboxError(RuntimeError):
    """The engine failed us (not the task): unreachable daemon, API error, ..."""


class BuildError(SandboxError):
    """The task's image did not build; `log_tail` holds the end of the build log."""

    def __init__(self, message: str, log_tail: str = "", timed_out: bool = False) -> None:
        super().__init__(message)
        self.log_tail = log_tail
        self.timed_out = timed_out


class Breach(StrEnum):
    """A limit the code in a container ran into, so the backend stopped it, or a verifier run whose
    reward the harness refused (the values are the validator's reason codes of the same name)."""

    DISK = "disk_limit"
    """It wrote more than the disk limit to the container's filesystem."""
    MEMORY = "memory_limit"
    """The kernel killed one of its processes for going past the memory limit."""
    PIDS = "pids_limit"
    """It held every process slot of the container (a fork bomb)."""
    GONE = "container_died"
    """The container stopped under it (nothing we did)."""
    TAMPERED = "verifier_tampered"
    """The verifier's toolchain, environment or reward was changed by what ran before it
    (harness/tamper.py): its reward is not the tests' and counts as 0."""


@dataclass(frozen=True)
class Limits:
    """Resources of one container; None means the backend's default (never unlimited)."""

    cpus: float | None = None
    memory_mb: int | None = None
    network: bool = False
    """False: the container has no network interface but loopback."""
    disk_mb: int | None = None
    """What the container may write to its own filesystem."""
    pids: int | None = None
    """Processes and threads alive at once."""


@dataclass(frozen=True)
class ImageInfo:
    tag: str
    built: bool
    """True when this call built it, False when it was already there."""
    build_sec: float


@dataclass(frozen=True)
class ExecResult:
    exit_code: int | None
    """None when the command was killed for running out of time."""
    output: str
    """stdout and stderr interleaved."""
    duration_sec: float
    timed_out: bool = False
    breach: Breach | None = None
    """The limit it ran into, when the backend stopped it for that."""
    detail: str = ""
    """What stopped it, in one line for people (with `breach`)."""
    dropped_bytes: int = 0
    """Output beyond the capture cap, left out of `output` (its head and tail are kept)."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and self.breach is None

    def tail(self, chars: int = OUTPUT_TAIL_CHARS) -> str:
        return self.output[-chars:]


class ChangeKind(IntEnum):
    """How a path differs from the image (the engine's own codes: Docker's and Podman's `Kind`)."""

    CHANGED = 0
    ADDED = 1
    DELETED = 2


@dataclass(frozen=True)
class FileChange:
    """One path the container changed versus its image, as the engine records it (`docker diff`).
    A directory is CHANGED whenever something under it is."""

    path: str
    kind: ChangeKind


@dataclass(frozen=True)
class ImageConfig:
    """What the engine says the container was started with: the image's Env and WORKDIR."""

    env: dict[str, str]
    workdir: str


@runtime_checkable
class Container(Protocol):
    """One running container; created fresh for one check and removed after it."""

    async def exec(
        self, command: str, *, timeout: float, env: dict[str, str] | None = None, user: str | None = None
    ) -> ExecResult:
        """Run `command` with bash in the image's WORKDIR, as the image's USER unless `user` is
        given; on timeout the container is killed. A limit the command ran into ends it with
        `ExecResult.breach` set, never with an exception."""
        ...

    async def put_files(
        self,
        files: dict[str, bytes],
        dest: PurePosixPath,
        executable: set[str] | None = None,
        open_dirs: tuple[str, ...] = (),
    ) -> None:
        """Copy files (relative path -> content) under `dest`, creating directories; `open_dirs`
        (relative to `dest`) are created world-writable in the same copy."""
        ...

    async def read_file(self, path: PurePosixPath) -> bytes | None:
        """A file's content (its head, past the backend's read cap), or None when it does not exist."""
        ...

    async def get_archive(self, path: PurePosixPath) -> bytes | None:
        """A tar of `path` (file or directory), or None when it does not exist."""
        ...

    async def changes(self) -> list[FileChange]:
        """What the container changed in its filesystem versus its image, asked of the engine,
        never of code inside the container (which may lie)."""
        ...

    async def image_config(self) -> ImageConfig:
        """The image's Env and WORKDIR, asked of the engine."""
        ...

    async def commit(self, tag: str, labels: dict[str, str] | None = None) -> None:
        """Save the container's filesystem as the image `tag` (its processes are not saved), with
        the container's labels (so `rst gc` finds it) and `labels`."""
        ...


@runtime_checkable
class Sandbox(Protocol):
    """A container engine backend, registered by short name."""

    async def ensure_image(self, context: dict[str, bytes], context_hash: str, *, timeout: float) -> ImageInfo:
        """Build the image of a build context unless one with the same hash exists."""
        ...

    async def image_labels(self, tag: str) -> dict[str, str] | None:
        """The labels of the image `tag`; None when the engine does not hold it."""
        ...

    async def remove_image(self, tag: str) -> None:
        """Remove the image `tag` (nothing when it is gone or a container still uses it)."""
        ...

    def container(self, image: str, limits: Limits) -> AbstractAsyncContextManager[Container]:
        """A fresh container, force-removed on exit whatever happened (error, timeout, Ctrl-C)."""
        ...

    async def close(self) -> None:
        """Remove every container still alive and release the engine connection."""
        ...

    async def prune(self) -> int:
        """Remove containers an earlier, killed process with the same scope labels left behind."""
        ...

    def remove_all_sync(self) -> None:
        """Last-resort removal of live containers when no event loop runs (Ctrl-C, SIGTERM)."""
        ...


def tar_of(
    files: dict[str, bytes],
    prefix: PurePosixPath | str = "",
    executable: set[str] | None = None,
    open_dirs: tuple[str, ...] = (),
) -> bytes:
    """An uncompressed tar of `files`, each under `prefix`, with parent directories; `open_dirs`
    become directories anyone may write to (the harness's log folders, whatever the image's USER)."""
    executable = executable or set()
    buffer = io.BytesIO()
    base = PurePosixPath(str(prefix).lstrip("/")) if str(prefix) not in ("", "/") else None
    seen_dirs: set[str] = set()

    def add_dir(tar: tarfile.TarFile, name: str, mode: int) -> None:
        if name in (".", "") or name in seen_dirs:
            return
        seen_dirs.add(name)
        info = tarfile.TarInfo(name)
        info.type = tarfile.DIRTYPE
        info.mode = mode
        tar.addfile(info)

    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for rel in open_dirs:
            path = base / rel if base else PurePosixPath(rel)
            for parent in reversed(path.parents):
                add_dir(tar, str(parent), 0o755)
            add_dir(tar, str(path), 0o777)
        for rel in sorted(files):
            path = base / rel if base else PurePosixPath(rel)
            for parent in reversed(path.parents):
                add_dir(tar, str(parent), 0o755)
            info = tarfile.TarInfo(str(path))
            info.size = len(files[rel])
            info.mode = 0o755 if (rel in executable or rel.endswith(".sh")) else 0o644
            tar.addfile(info, io.BytesIO(files[rel]))
    return buffer.getvalue()


def files_of_tar(data: bytes, strip_top: bool = True) -> dict[str, bytes]:
    """The regular files of a tar, by path; `strip_top` drops the archive's top directory."""
    out: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            parts = PurePosixPath(member.name).parts
            if strip_top and len(parts) > 1:
                parts = parts[1:]
            handle = tar.extractfile(member)
            if handle is not None:
                out["/".join(parts)] = handle.read()
    return out
