"""Docker Engine API backend (dockerd, or Podman's API socket through DOCKER_HOST).

The `docker` SDK is synchronous; every call runs in this backend's own thread pool so
that a slow exec never starves the event loop or the other containers.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import tarfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import PurePosixPath
from typing import Any, TypeVar

import docker
from docker.errors import APIError, DockerException, ImageNotFound, NotFound

from rst_synth.sandbox.base import (
    BuildError,
    ExecResult,
    ImageInfo,
    Limits,
    SandboxError,
    tar_of,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

LABEL = "rst-synth"
"""Every container and image we make carries this label, so leaks can be found and pruned."""
RUN_LABEL = "rst-synth.run"
RUN_LABEL_ENV = "RST_RUN_LABEL"
"""When set, containers also carry `rst-synth.run=<value>`: how a caller (a test session, a
batch job) finds exactly its own containers on a shared engine."""
IMAGE_REPO = "rst-env"
# Keeps the container alive without relying on the image's ENTRYPOINT or CMD.
KEEPALIVE = ["/bin/sh", "-c", "while :; do sleep 3600; done"]
# Client-side HTTP timeout; our own per-call timeouts are shorter and enforced in asyncio.
HTTP_TIMEOUT_SEC = 24 * 3600
API_CALL_TIMEOUT_SEC = 120.0


class DockerSandbox:
    """Fresh containers from images built once per build-context hash."""

    def __init__(self, max_workers: int = 64, use_init: bool = True, labels: dict[str, str] | None = None) -> None:
        try:
            self._client = docker.from_env(timeout=HTTP_TIMEOUT_SEC, max_pool_size=max_workers)
            self._client.ping()
        except DockerException as exc:
            raise SandboxError(
                f"no Docker engine answers (DOCKER_HOST or /var/run/docker.sock): {exc}; run scripts/setup-machine.sh"
            ) from None
        self._api = self._client.api
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="rst-docker")
        self._use_init = use_init
        self._build_locks: dict[str, asyncio.Lock] = {}
        self._live: set[str] = set()
        self._scope = dict(labels or {})
        self._labels = {LABEL: "1", **self._scope}
        if os.environ.get(RUN_LABEL_ENV):
            self._labels[RUN_LABEL] = os.environ[RUN_LABEL_ENV]

    async def _call(
        self, fn: Callable[..., T], *args: Any, timeout: float | None = API_CALL_TIMEOUT_SEC, **kwargs: Any
    ) -> T:
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._pool, lambda: fn(*args, **kwargs))
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise SandboxError(f"Docker call {getattr(fn, '__name__', fn)} timed out after {timeout}s") from None
        except NotFound:
            raise  # callers decide what a missing object means
        except APIError as exc:
            raise SandboxError(f"Docker API error: {exc.explanation or exc}") from None

    # -- images -----------------------------------------------------------------------------

    async def ensure_image(self, context: dict[str, bytes], context_hash: str, *, timeout: float) -> ImageInfo:
        tag = f"{IMAGE_REPO}:{context_hash[:24]}"
        lock = self._build_locks.setdefault(tag, asyncio.Lock())
        async with lock:
            if await self._image_exists(tag):
                return ImageInfo(tag=tag, built=False, build_sec=0.0)
            started = time.monotonic()
            await self._build(context, tag, timeout)
            return ImageInfo(tag=tag, built=True, build_sec=time.monotonic() - started)

    async def _image_exists(self, tag: str) -> bool:
        try:
            await self._call(self._api.inspect_image, tag)
            return True
        except ImageNotFound:
            return False

    async def _build(self, context: dict[str, bytes], tag: str, timeout: float) -> None:
        archive = tar_of(context)
        log_lines: list[str] = []

        def build() -> None:
            stream = self._api.build(
                fileobj=io.BytesIO(archive),
                custom_context=True,
                tag=tag,
                rm=True,
                forcerm=True,
                pull=False,
                decode=True,
                labels={LABEL: "1"},
            )
            for chunk in stream:
                if "stream" in chunk:
                    log_lines.append(chunk["stream"])
                if "error" in chunk:
                    raise BuildError(chunk["error"].strip(), "".join(log_lines)[-4000:])

        try:
            await self._call(build, timeout=timeout)
        except SandboxError as exc:
            if isinstance(exc, BuildError):
                raise
            timed_out = "timed out" in str(exc)
            raise BuildError(str(exc), "".join(log_lines)[-4000:], timed_out=timed_out) from None

    # -- containers -------------------------------------------------------------------------

    @asynccontextmanager
    async def container(self, image: str, limits: Limits) -> AsyncIterator[DockerContainer]:
        host_config = self._api.create_host_config(
            network_mode="bridge" if limits.network else "none",
            nano_cpus=int(limits.cpus * 1e9) if limits.cpus else None,
            mem_limit=f"{limits.memory_mb}m" if limits.memory_mb else None,
            init=self._use_init,
            pids_limit=4096,
        )
        name = f"rst-{uuid.uuid4().hex[:12]}"
        created = await self._call(
            self._api.create_container,
            image,
            entrypoint=KEEPALIVE[:1],
            command=KEEPALIVE[1:],
            name=name,
            labels=self._labels,
            host_config=host_config,
            network_disabled=not limits.network,
        )
        container_id: str = created["Id"]
        self._live.add(container_id)
        try:
            await self._call(self._api.start, container_id)
            yield DockerContainer(self, container_id)
        finally:
            # Shielded: a Ctrl-C (cancellation) must not skip the removal.
            await asyncio.shield(self._remove(container_id))

    async def _remove(self, container_id: str) -> None:
        try:
            await self._call(self._api.remove_container, container_id, force=True, v=True)
        except (NotFound, SandboxError) as exc:
            if not isinstance(exc, NotFound):
                log.warning("could not remove container %s: %s", container_id[:12], exc)
        self._live.discard(container_id)

    async def prune(self) -> int:
        """Remove containers that carry this sandbox's scope labels but no live owner here: what a
        killed earlier process (kill -9 cannot clean up) left behind. Returns how many."""
        if not self._scope:
            return 0
        filters = {"label": [f"{k}={v}" for k, v in self._scope.items()]}
        stale = await self._call(self._api.containers, all=True, filters=filters)
        for container in stale:
            if container["Id"] not in self._live:
                await self._remove(container["Id"])
        return len([c for c in stale if c["Id"] not in self._live])

    async def close(self) -> None:
        for container_id in list(self._live):
            await self._remove(container_id)
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._client.close()

    def remove_all_sync(self) -> None:
        """Last-resort cleanup (atexit, signal handlers) when no event loop is running."""
        for container_id in list(self._live):
            try:
                self._api.remove_container(container_id, force=True, v=True)
            except DockerException:
                pass
            self._live.discard(container_id)


class DockerContainer:
    """Handle on one running container of a DockerSandbox."""

    def __init__(self, sandbox: DockerSandbox, container_id: str) -> None:
        self._sandbox = sandbox
        self._api = sandbox._api
        self.id = container_id

    async def exec(
        self, command: str, *, timeout: float, env: dict[str, str] | None = None, user: str | None = None
    ) -> ExecResult:
        started = time.monotonic()
        exec_id = (
            await self._sandbox._call(
                self._api.exec_create, self.id, ["bash", "-c", command], environment=env or None, user=user or ""
            )
        )["Id"]
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._sandbox._pool, lambda: self._api.exec_start(exec_id))
        try:
            raw = await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            # Killing the container ends the exec stream; the container is removed by its owner.
            await self._kill()
            raw = await _result_or_empty(future)
            return ExecResult(None, _decode(raw), time.monotonic() - started, timed_out=True)
        info = await self._sandbox._call(self._api.exec_inspect, exec_id)
        return ExecResult(info.get("ExitCode"), _decode(raw), time.monotonic() - started)

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
        def fetch() -> bytes:
            stream, _ = self._api.get_archive(self.id, str(path))
            return b"".join(stream)

        try:
            return await self._sandbox._call(fetch)
        except NotFound:
            return None

    async def read_file(self, path: PurePosixPath) -> bytes | None:
        data = await self.get_archive(path)
        if data is None:
            return None
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            for member in tar.getmembers():
                if member.isfile():
                    handle = tar.extractfile(member)
                    return handle.read() if handle else None
        return None


async def _result_or_empty(future: asyncio.Future[bytes]) -> bytes:
    try:
        return await asyncio.wait_for(future, 30)
    except Exception:  # the stream may end in an error once the container is killed
        return b""


def _decode(raw: bytes | None) -> str:
    return (raw or b"").decode("utf-8", errors="replace")
