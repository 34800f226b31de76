"""One running container of a DockerSandbox: execs with a wall-clock limit and a capped capture,
limit breaches reported as `ExecResult.breach`, and reads that stop at the read cap."""

from __future__ import annotations

import asyncio
import io
import json
import tarfile
import time
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any, Protocol, TypeVar

from docker.errors import NotFound

from rst_synth.sandbox.base import Breach, ChangeKind, ExecResult, FileChange, ImageConfig, SandboxError, tar_of
from rst_synth.sandbox.hardening import (
    LIMIT_PROBE,
    ChunkReader,
    Guard,
    OutputCapture,
    exec_ceiling,
    in_daemon_thread,
    limit_counters,
)
from rst_synth.sandbox.overlay import overlay_changes

T = TypeVar("T")

_BREACH_DETAIL = {
    Breach.MEMORY: "the kernel killed a process for going past the memory limit",
    Breach.PIDS: "a fork was refused at the limit of processes",
    Breach.DISK: "a write failed at the disk limit",
    Breach.GONE: "the container is not running (something inside stopped it)",
}


class ContainerStopped(SandboxError):
    """The container is not running (any more): a limit stopped it, or the code inside did."""


class Engine(Protocol):
    """What a container needs of the DockerSandbox that made it (docker.py): the API client, calls to
    it off the event loop, the capture and read caps, the exec ceiling, whether a disk limit holds."""

    _api: Any
    _output_cap: int
    _read_cap: int
    _max_exec_sec: float
    _storage_opt: bool | None
    _host_overlay: bool

    async def _call(self, fn: Callable[..., T], *args: Any, timeout: float | None = ..., **kwargs: Any) -> T: ...


class DockerContainer:
    """Handle on one running container of a DockerSandbox."""

    def __init__(self, sandbox: Engine, name: str, guard: Guard) -> None:
        self._sandbox = sandbox
        self._api = sandbox._api
        self._guard = guard
        self.id = name
        self._overlay: tuple[Path, list[Path]] | bool | None = None
        """Where `changes` reads from: the overlay directories, False for the engine, None not asked yet."""

    async def exec(
        self, command: str, *, timeout: float, env: dict[str, str] | None = None, user: str | None = None
    ) -> ExecResult:
        started = time.monotonic()
        if self._guard.breach:
            return self._stopped(started)
        try:
            exec_id = (
                await self._sandbox._call(
                    self._api.exec_create, self.id, ["bash", "-c", command], environment=env or None, user=user or ""
                )
            )["Id"]
        except (ContainerStopped, NotFound):
            return self._stopped(started)
        capture = OutputCapture(self._sandbox._output_cap)

        def pump() -> None:
            for chunk in self._api.exec_start(exec_id, stream=True):
                capture.add(chunk)

        streaming = in_daemon_thread(pump)
        try:
            await asyncio.wait_for(asyncio.shield(streaming), exec_ceiling(timeout, self._sandbox._max_exec_sec))
        except TimeoutError:
            # Killing the container ends the exec stream; the container is removed by its owner.
            await self._kill()
            await _settled(streaming)
            breach = Breach(self._guard.breach) if self._guard.breach else None
            return ExecResult(
                None, capture.text(), time.monotonic() - started, True, breach, self._guard.detail, capture.dropped
            )
        except Exception:  # the stream may end in an error once the container is stopped
            pass
        if self._guard.breach:  # the watchdog stopped it while the command ran
            return self._stopped(started, capture)
        try:
            info = await self._sandbox._call(self._api.exec_inspect, exec_id)
        except (ContainerStopped, NotFound):
            return self._stopped(started, capture)
        code = info.get("ExitCode")
        breach = await self._breach_after_failure(capture) if code != 0 else None
        detail = _BREACH_DETAIL.get(breach, "") if breach else ""
        return ExecResult(code, capture.text(), time.monotonic() - started, False, breach, detail, capture.dropped)

    async def _breach_after_failure(self, capture: OutputCapture) -> Breach | None:
        """Why a command failed, when a limit made it fail: the kernel's counters of OOM kills and
        refused forks in this container (one cheap probe, only after a failure), or ENOSPC where
        the storage driver caps the size."""
        if self._guard.breach:
            return Breach(self._guard.breach)
        if self._sandbox._storage_opt and "No space left on device" in capture.text():
            return Breach.DISK
        try:
            probe = ["sh", "-c", LIMIT_PROBE]
            exec_id = (await self._sandbox._call(self._api.exec_create, self.id, probe, user="root"))["Id"]
            raw = await self._sandbox._call(self._api.exec_start, exec_id, timeout=30)
        except (ContainerStopped, NotFound):
            return Breach.GONE
        except SandboxError:
            return None
        counters = limit_counters(raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else "")
        seen, self._guard.counters = self._guard.counters, counters
        if counters.get("oom_kill", 0) > seen.get("oom_kill", 0):
            return Breach.MEMORY
        if counters.get("max", 0) > seen.get("max", 0):
            return Breach.PIDS
        return None

    def _stopped(self, started: float, capture: OutputCapture | None = None) -> ExecResult:
        breach = Breach(self._guard.breach) if self._guard.breach else Breach.GONE
        detail = self._guard.detail or "the container is not running (something inside stopped it)"
        output = (capture.text() if capture else "") + f"\n[rst-synth: {detail}]\n"
        dropped = capture.dropped if capture else 0
        return ExecResult(None, output, time.monotonic() - started, False, breach, detail, dropped)

    async def _kill(self) -> None:
        try:
            await self._sandbox._call(self._api.kill, self.id)
        except (NotFound, SandboxError):
            pass

    async def put_files(
        self,
        files: dict[str, bytes],
        dest: PurePosixPath,
        executable: set[str] | None = None,
        open_dirs: tuple[str, ...] = (),
    ) -> None:
        archive = tar_of(files, dest, executable, open_dirs)
        await self._sandbox._call(self._api.put_archive, self.id, "/", archive)

    async def get_archive(self, path: PurePosixPath) -> bytes | None:
        cap = self._sandbox._read_cap

        def fetch() -> bytes:
            stream, _ = self._api.get_archive(self.id, str(path))
            data = bytearray()
            for chunk in stream:
                data += chunk
                if len(data) > cap:
                    raise SandboxError(f"{path}: more than {cap // 2**20} MB to copy out of the container")
            return bytes(data)

        try:
            return await self._sandbox._call(fetch)
        except NotFound:
            return None

    async def read_file(self, path: PurePosixPath) -> bytes | None:
        cap = self._sandbox._read_cap

        def fetch() -> bytes | None:
            stream, _ = self._api.get_archive(self.id, str(path))
            # Streamed: only the head of a file larger than the cap is ever read.
            with tarfile.open(fileobj=io.BufferedReader(ChunkReader(stream)), mode="r|") as tar:
                for member in tar:
                    handle = tar.extractfile(member) if member.isfile() else None
                    return handle.read(cap) if handle is not None else None
            return None

        try:
            return await self._sandbox._call(fetch)
        except NotFound:
            return None

    async def changes(self) -> list[FileChange]:
        # The storage driver's record, out of reach of code inside: read on the host where it can
        # be (overlay.py: milliseconds), else GET /containers/{id}/changes.
        if self._overlay is None:
            self._overlay = await self._overlay_dirs()
        if isinstance(self._overlay, tuple):
            try:
                return await asyncio.to_thread(overlay_changes, *self._overlay)
            except OSError:  # Unreadable included: the engine answers for this container from now on
                self._overlay = False
        listed = await self._sandbox._call(self._api.diff, self.id) or []
        return [FileChange(str(c["Path"]), ChangeKind(int(c["Kind"]))) for c in listed if int(c["Kind"]) in (0, 1, 2)]

    async def _overlay_dirs(self) -> tuple[Path, list[Path]] | bool:
        """The container's upper directory and its image's layers (topmost first), where this host
        holds them; False where it does not."""
        if not self._sandbox._host_overlay:
            return False
        driver = (await self._sandbox._call(self._api.inspect_container, self.id)).get("GraphDriver") or {}
        data = driver.get("Data") or {}
        if driver.get("Name") != "overlay2" or not data.get("UpperDir") or not data.get("LowerDir"):
            return False
        upper, lowers = Path(data["UpperDir"]), [Path(p) for p in str(data["LowerDir"]).split(":")]
        return (upper, lowers) if all(p.is_dir() for p in (upper, *lowers)) else False

    async def image_config(self) -> ImageConfig:
        config = (await self._sandbox._call(self._api.inspect_container, self.id)).get("Config") or {}
        env = dict(item.split("=", 1) for item in config.get("Env") or [] if "=" in item)
        return ImageConfig(env=env, workdir=str(config.get("WorkingDir") or "/"))

    async def commit(self, tag: str, labels: dict[str, str] | None = None) -> None:
        repository, _, version = tag.partition(":")
        changes = [f"LABEL {json.dumps(k)}={json.dumps(v)}" for k, v in (labels or {}).items()]
        # Paused while the layer is written, so no process changes files half-way through it.
        await self._sandbox._call(
            self._api.commit, self.id, repository=repository, tag=version or None, changes=changes or None, pause=True
        )


async def _settled(future: asyncio.Future[None], wait: float = 30.0) -> None:
    try:
        await asyncio.wait_for(asyncio.shield(future), wait)
    except Exception:  # the stream may end in an error once the container is killed
        pass
