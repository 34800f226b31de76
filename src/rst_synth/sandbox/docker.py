"""Docker Engine API backend (dockerd, or Podman's API socket through DOCKER_HOST).

The `docker` SDK is synchronous; every call runs in a daemon thread of its own, so a slow exec
never starves the event loop or the other containers, and an interrupted run never waits for one.
Every container is hardened (`hardening.py`): most capabilities dropped, no-new-privileges, a pids,
memory and disk limit, no logs kept, a PID 1 that code inside cannot kill; a watchdog stops a
container that writes past its disk limit or holds every process slot.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import docker
from docker.errors import APIError, DockerException, ImageNotFound, NotFound
from docker.types import LogConfig, Ulimit

from rst_synth.sandbox.base import (
    Breach,
    BuildError,
    ImageInfo,
    Limits,
    SandboxError,
    tar_of,
)
from rst_synth.sandbox.docker_container import ContainerStopped, DockerContainer
from rst_synth.sandbox.hardening import (
    DEFAULT_DISK_MB,
    DEFAULT_MEMORY_MB,
    DEFAULT_PIDS,
    KEEPALIVE,
    KEPT_CAPABILITIES,
    MAX_DISK_MB,
    MAX_EXEC_SEC,
    OUTPUT_CAP_BYTES,
    READ_CAP_BYTES,
    SECURITY_OPTIONS,
    Guard,
    in_daemon_thread,
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
RUN_DIR_LABEL = "rst-synth.run-dir"
"""The scope label `rst synth` gives its sandbox: the run directory, on containers and images."""
# Client-side HTTP timeout; our own per-call timeouts are shorter and enforced in asyncio.
HTTP_TIMEOUT_SEC = 24 * 3600
API_CALL_TIMEOUT_SEC = 120.0
PIDS_STRIKES = 2
"""Watchdog polls in a row at the pids limit before the container is stopped as a fork bomb."""
REMEMBERED_CONTEXTS = 256
"""Build contexts kept to build an image again that vanished between its build and its use."""


class DockerSandbox:
    """Fresh, hardened containers from images built once per build-context hash."""

    def __init__(
        self,
        max_workers: int = 64,
        labels: dict[str, str] | None = None,
        *,
        memory_mb: int = DEFAULT_MEMORY_MB,
        disk_mb: int = DEFAULT_DISK_MB,
        max_disk_mb: int = MAX_DISK_MB,
        pids: int = DEFAULT_PIDS,
        output_cap: int = OUTPUT_CAP_BYTES,
        read_cap: int = READ_CAP_BYTES,
        max_exec_sec: float = MAX_EXEC_SEC,
        poll_sec: float = 1.0,
    ) -> None:
        try:
            self._client = docker.from_env(timeout=HTTP_TIMEOUT_SEC, max_pool_size=max_workers)
            info = self._client.info()
        except DockerException as exc:
            raise SandboxError(
                f"no Docker engine answers (DOCKER_HOST or /var/run/docker.sock): {exc}; run scripts/setup-machine.sh"
            ) from None
        self._api = self._client.api
        self._cpus = float(info.get("NCPU") or os.cpu_count() or 1)
        self._memory_total_mb = int(info.get("MemTotal") or 0) // 2**20 or None
        self._defaults = Limits(memory_mb=memory_mb, disk_mb=disk_mb, pids=pids)
        self._max_disk_mb, self._output_cap, self._read_cap = max_disk_mb, output_cap, read_cap
        self._max_exec_sec, self._poll_sec = max_exec_sec, poll_sec
        self._storage_opt: bool | None = None
        """Whether the storage driver enforces a size per container (None: not tried yet)."""
        # Containers' changes are read from their overlay upper directories (overlay.py) where the
        # engine keeps them on this host, under a root this process (root) can read.
        root = str(info.get("DockerRootDir") or "")
        self._host_overlay = (
            info.get("Driver") == "overlay2"
            and str(self._api.base_url).startswith("http+docker://local")
            and os.geteuid() == 0
            and bool(root)
            and os.path.isdir(os.path.join(root, "overlay2"))
        )
        self._build_locks: dict[str, asyncio.Lock] = {}
        self._contexts: OrderedDict[str, tuple[dict[str, bytes], float]] = OrderedDict()
        """The latest contexts ensure_image saw, by tag: another run's `rst gc` (or a prune) may
        remove a tag this sandbox found in place, since runs share images of the same context."""
        self._live: set[str] = set()
        """Names of the containers this sandbox made and has not removed yet."""
        self._removals: dict[str, asyncio.Future[None]] = {}
        self._creating: dict[str, asyncio.Future[object]] = {}
        """Create calls by container name: the API thread outlives a cancelled caller, so a removal
        waits for it, or the container would appear after its removal and be left behind."""
        self._scope = dict(labels or {})
        self._labels = {LABEL: "1", **self._scope}
        if os.environ.get(RUN_LABEL_ENV):
            self._labels[RUN_LABEL] = os.environ[RUN_LABEL_ENV]

    async def _call(
        self, fn: Callable[..., T], *args: Any, timeout: float | None = API_CALL_TIMEOUT_SEC, **kwargs: Any
    ) -> T:
        try:
            return await asyncio.wait_for(in_daemon_thread(lambda: fn(*args, **kwargs)), timeout)
        except TimeoutError:
            raise SandboxError(f"Docker call {getattr(fn, '__name__', fn)} timed out after {timeout}s") from None
        except NotFound:
            raise  # callers decide what a missing object means
        except APIError as exc:
            message = str(exc.explanation or exc)
            if exc.status_code == 409 and ("is not running" in message or "is paused" in message):
                raise ContainerStopped(message) from None
            raise SandboxError(f"Docker API error: {message}") from None
        except (DockerException, OSError) as exc:  # requests' connection errors are OSErrors
            raise SandboxError(f"Docker engine connection failed: {exc}") from None

    # -- images -----------------------------------------------------------------------------

    async def ensure_image(self, context: dict[str, bytes], context_hash: str, *, timeout: float) -> ImageInfo:
        tag = f"{IMAGE_REPO}:{context_hash[:24]}"
        self._contexts[tag] = (context, timeout)
        self._contexts.move_to_end(tag)
        while len(self._contexts) > REMEMBERED_CONTEXTS:
            self._contexts.popitem(last=False)
        lock = self._build_locks.setdefault(tag, asyncio.Lock())
        async with lock:
            if await self.image_labels(tag) is not None:
                return ImageInfo(tag=tag, built=False, build_sec=0.0)
            started = time.monotonic()
            await self._build(context, tag, timeout)
            return ImageInfo(tag=tag, built=True, build_sec=time.monotonic() - started)

    async def _build_again(self, tag: str) -> bool:
        """Build `tag` from the context it was ensured with, if it is gone; False: context unknown."""
        if tag not in self._contexts:
            return False
        context, timeout = self._contexts[tag]
        async with self._build_locks.setdefault(tag, asyncio.Lock()):
            if await self.image_labels(tag) is None:
                log.warning("image %s vanished after it was built; building it again", tag)
                await self._build(context, tag, timeout)
        return True

    async def image_labels(self, tag: str) -> dict[str, str] | None:
        try:
            found = await self._call(self._api.inspect_image, tag)
        except ImageNotFound:
            return None
        return dict((found.get("Config") or {}).get("Labels") or {})

    async def remove_image(self, tag: str) -> None:
        try:
            await self._call(self._api.remove_image, tag, force=False, noprune=False)
        except NotFound:
            pass
        except SandboxError as exc:  # in use by a container: `rst gc` takes it later
            log.info("image %s left in place: %s", tag, exc)

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
                labels=self._labels,  # `rst gc RUN` finds the images a run built
            )
            for chunk in stream:
                if "stream" in chunk:
                    log_lines.append(chunk["stream"])
                    del log_lines[:-200]  # a build that prints without end must not fill memory
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

    def _resolve(self, limits: Limits) -> Limits:
        """The limits a container gets: the task's within the engine's means, defaults for the rest."""
        memory = limits.memory_mb or self._defaults.memory_mb
        if memory and self._memory_total_mb:
            memory = min(memory, self._memory_total_mb)
        return Limits(
            cpus=min(limits.cpus, self._cpus) if limits.cpus else None,
            memory_mb=memory,
            network=limits.network,
            disk_mb=min(limits.disk_mb or self._defaults.disk_mb or DEFAULT_DISK_MB, self._max_disk_mb),
            pids=limits.pids or self._defaults.pids,
        )

    def _host_config(self, limits: Limits, storage_opt: bool) -> dict[str, Any]:
        config: dict[str, Any] = self._api.create_host_config(
            network_mode="bridge" if limits.network else "none",
            nano_cpus=int(limits.cpus * 1e9) if limits.cpus else None,
            mem_limit=f"{limits.memory_mb}m",
            memswap_limit=f"{limits.memory_mb}m",  # no swap on top: the limit is the limit
            pids_limit=limits.pids,
            cap_drop=["ALL"],
            cap_add=list(KEPT_CAPABILITIES),
            security_opt=list(SECURITY_OPTIONS),
            log_config=LogConfig(type="none"),  # writing to PID 1's stdout must not fill the host's disk
            ulimits=[Ulimit(name="core", soft=0, hard=0)],
            storage_opt={"size": f"{limits.disk_mb}m"} if storage_opt else None,
        )
        return config

    async def _create(self, image: str, name: str, limits: Limits) -> None:
        async def create(storage_opt: bool) -> None:
            call = asyncio.ensure_future(
                self._call(
                    self._api.create_container,
                    image,
                    entrypoint=KEEPALIVE[:1],
                    command=KEEPALIVE[1:],
                    name=name,
                    labels=self._labels,
                    host_config=self._host_config(limits, storage_opt),
                    network_disabled=not limits.network,
                )
            )
            self._creating[name] = call
            await asyncio.shield(call)

        if self._storage_opt is not False:
            try:
                await create(storage_opt=True)
                self._storage_opt = True
                return
            except SandboxError as exc:
                if "storage" not in str(exc).lower():
                    raise
                # overlay2 on anything but xfs with pquota: the watchdog enforces the disk limit.
                self._storage_opt = False
                log.info("the storage driver sets no size per container; a watchdog enforces the disk limit")
        await create(storage_opt=False)

    @asynccontextmanager
    async def container(self, image: str, limits: Limits) -> AsyncIterator[DockerContainer]:
        resolved = self._resolve(limits)
        guard = Guard(disk_bytes=(resolved.disk_mb or DEFAULT_DISK_MB) * 2**20, pids=resolved.pids or DEFAULT_PIDS)
        name = f"rst-{uuid.uuid4().hex[:12]}"
        self._live.add(name)  # before it exists: a cancelled create is removed by name all the same
        watch: asyncio.Task[None] | None = None
        try:
            try:
                await self._create(image, name, resolved)
            except ImageNotFound:
                if not await self._build_again(image):
                    raise
                await self._create(image, name, resolved)
            await self._call(self._api.start, name)
            watch = asyncio.create_task(self._watch(name, guard))
            yield DockerContainer(self, name, guard)
        finally:
            if watch is not None:
                watch.cancel()
            # Shielded: a Ctrl-C (cancellation) must not skip the removal; close() awaits it.
            await asyncio.shield(self._remove(name))

    async def _watch(self, name: str, guard: Guard) -> None:
        """Stop the container when it writes past its disk limit or holds every process slot."""
        strikes, interval = 0, self._poll_sec
        while True:
            await asyncio.sleep(interval)
            try:
                listed = await self._call(self._api.containers, all=True, size=True, filters={"name": f"^/{name}$"})
                stats = await self._call(self._api.stats, name, stream=False, one_shot=True)
            except (NotFound, ContainerStopped):
                return
            except SandboxError as exc:
                log.debug("watchdog of %s: %s", name, exc)
                continue
            size = int(listed[0].get("SizeRw") or 0) if listed else 0
            if size > guard.disk_bytes:
                limit_mb = guard.disk_bytes // 2**20
                detail = f"wrote {size / 2**20:.0f} MB to its filesystem, past the limit of {limit_mb} MB"
                await self._stop_for(name, guard, Breach.DISK, detail)
                return
            pids = int((stats.get("pids_stats") or {}).get("current") or 0)
            strikes = strikes + 1 if pids >= guard.pids else 0
            if strikes >= PIDS_STRIKES:
                detail = f"held all {guard.pids} process slots for {strikes} polls (a fork bomb)"
                await self._stop_for(name, guard, Breach.PIDS, detail)
                return
            # Close to the limit, look more often: a fast writer overshoots by at most one interval.
            interval = self._poll_sec / 8 if size > guard.disk_bytes // 2 else self._poll_sec

    async def _stop_for(self, name: str, guard: Guard, breach: Breach, detail: str) -> None:
        guard.breach, guard.detail = breach.value, detail
        log.info("container %s stopped: %s", name, detail)
        try:
            await self._call(self._api.kill, name)
        except (NotFound, SandboxError):
            pass

    def _remove(self, name: str) -> asyncio.Future[None]:
        """Remove a container once, however many callers ask (its own exit, close, a signal)."""
        removal = self._removals.get(name)
        if removal is None:
            removal = asyncio.ensure_future(self._remove_now(name))
            self._removals[name] = removal
        return removal

    async def _remove_now(self, name: str) -> None:
        creating = self._creating.pop(name, None)
        if creating is not None:
            await asyncio.gather(creating, return_exceptions=True)
        try:
            await self._call(self._api.remove_container, name, force=True, v=True)
        except NotFound:
            pass
        except SandboxError as exc:
            log.warning("could not remove container %s: %s", name, exc)
        finally:
            self._live.discard(name)
            self._removals.pop(name, None)

    async def prune(self) -> int:
        """Remove containers that carry this sandbox's scope labels but no live owner here: what a
        killed earlier process (kill -9 cannot clean up) left behind. Returns how many. Only the
        owner of the scope (the holder of a run directory's lock) may call it."""
        if not self._scope:
            return 0
        filters = {"label": [f"{k}={v}" for k, v in self._scope.items()]}
        listed = await self._call(self._api.containers, all=True, filters=filters)
        stale = [c["Id"] for c in listed if not {n.lstrip("/") for n in c.get("Names") or []} & self._live]
        await asyncio.gather(*(self._remove(container_id) for container_id in stale))
        return len(stale)

    async def close(self) -> None:
        for name in list(self._live):
            self._remove(name)
        pending = list(self._removals.values())
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        self._client.close()

    def remove_all_sync(self) -> None:
        """Last-resort cleanup (atexit, signal handlers) when no event loop is running."""
        for name in list(self._live):
            try:
                self._api.remove_container(name, force=True, v=True)
            except DockerException:
                pass
            self._live.discard(name)
