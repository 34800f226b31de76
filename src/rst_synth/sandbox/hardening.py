"""What makes a container safe to hand code a model wrote: the settings every container gets, and
the bounded readers the backend uses so no output or file can exhaust the host's memory."""

from __future__ import annotations

import asyncio
import io
import math
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")

KEPT_CAPABILITIES = ("CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID", "NET_BIND_SERVICE")
"""Every capability but these is dropped. Kept: what package installs (dpkg, pip: ownership and
modes of installed files, switching to the `_apt` user), user and group management (useradd,
chown, setgid directories), stopping one's own services and serving on a low port on loopback.
Dropped from Docker's default set: MKNOD, NET_RAW, SETFCAP, SETPCAP, SYS_CHROOT, AUDIT_WRITE."""

SECURITY_OPTIONS = ("no-new-privileges",)
"""A setuid binary cannot raise what a process may do."""

DEFAULT_MEMORY_MB = 2048
DEFAULT_DISK_MB = 4096
DEFAULT_PIDS = 1024
MAX_DISK_MB = 20 * 1024
"""The most disk a task.toml may ask for (storage_mb); more is clamped to this."""
OUTPUT_CAP_BYTES = 1024 * 1024
"""Captured output of one exec: the first quarter and the last three quarters of this are kept."""
READ_CAP_BYTES = 64 * 1024 * 1024
"""The most of one file (a reward file, the xtrace log) or archive read back from a container."""
MAX_EXEC_SEC = 3600.0
"""Wall-clock ceiling of any exec, whatever timeout a task asks for."""

# PID 1 of every container, written to need no fork once started: a fork bomb that takes every
# process slot cannot starve it. It holds both ends of a pipe (fd 9) and waits on it a second at a
# time, then `wait` reaps whatever processes were orphaned to it. It ignores every signal it can,
# and the kernel drops SIGKILL sent to a namespace's init from inside: code in the container cannot
# end the container. Removal (SIGKILL from outside) still does.
KEEPALIVE = [
    "bash",
    "-c",
    "exec 9<> <(:); trap '' HUP INT QUIT TERM USR1 USR2 PIPE ALRM; while :; do read -r -t 1 -u 9 _; wait; done",
]

# Reads the container's own counts of OOM kills and of forks refused at the pids limit, from its
# cgroup as the container sees it: cgroup v2 files first, then v1 (kernel 4.13+).
LIMIT_PROBE = (
    "cat /sys/fs/cgroup/memory.events 2>/dev/null || cat /sys/fs/cgroup/memory/memory.oom_control; "
    "cat /sys/fs/cgroup/pids.events 2>/dev/null || cat /sys/fs/cgroup/pids/pids.events; true"
)
_COUNTER = re.compile(r"^(oom_kill|max)\s+(\d+)\s*$", re.MULTILINE)


def limit_counters(probe_output: str) -> dict[str, int]:
    """`oom_kill` (processes the kernel killed for memory) and `max` (forks refused at the pids
    limit) from the probe's output; a counter the kernel does not report is absent."""
    return {match.group(1): int(match.group(2)) for match in _COUNTER.finditer(probe_output)}


class OutputCapture:
    """Keeps the head and the tail of a stream of bytes within a cap, and counts what it dropped."""

    def __init__(self, cap: int = OUTPUT_CAP_BYTES) -> None:
        self._lock = threading.Lock()  # filled by a stream's thread, read once it ends or is cut off
        self._head_cap = cap // 4
        self._tail_cap = cap - self._head_cap
        self._head = bytearray()
        self._tail: deque[bytes] = deque()
        self._tail_size = 0
        self.total = 0

    def add(self, chunk: bytes) -> None:
        with self._lock:
            self._add(chunk)

    def _add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        self._tail.append(chunk)
        self._tail_size += len(chunk)
        while self._tail_size - len(self._tail[0]) >= self._tail_cap:
            self._tail_size -= len(self._tail.popleft())

    @property
    def dropped(self) -> int:
        return max(0, self.total - len(self._head) - min(self._tail_size, self._tail_cap))

    def text(self) -> str:
        with self._lock:
            tail = b"".join(self._tail)[-self._tail_cap :] if self._tail else b""
            head, dropped = bytes(self._head), self.dropped
        middle = f"\n[... {dropped} bytes of output dropped ...]\n".encode() if dropped else b""
        return (head + middle + tail).decode("utf-8", errors="replace")


class ChunkReader(io.RawIOBase):
    """A file object over an iterator of byte chunks, so tarfile can read a stream without the
    whole archive in memory."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks: Iterator[bytes] = iter(chunks)
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self._pending:
            try:
                self._pending = next(self._chunks)
            except StopIteration:
                return 0
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size


@dataclass
class Guard:
    """What the watchdog and the execs of one container share."""

    disk_bytes: int
    pids: int
    breach: str | None = None
    """A Breach value once the container was stopped for one."""
    detail: str = ""
    counters: dict[str, int] = field(default_factory=dict)
    """The limit counters seen so far (`limit_counters`), so each exec reports only its own."""


def exec_ceiling(timeout: float, ceiling: float = MAX_EXEC_SEC) -> float:
    """The wall-clock limit of one exec: the caller's, never past `ceiling` (nor NaN, inf, <= 0)."""
    return timeout if math.isfinite(timeout) and 0 < timeout < ceiling else ceiling


def in_daemon_thread(fn: Callable[[], T]) -> asyncio.Future[T]:
    """Run a blocking engine call in a daemon thread. Unlike a thread pool's workers, a daemon
    thread never holds up the interpreter's exit: an interrupted run exits at once even while a
    build or an exec stream is still open (closing the connection ends it on the engine's side)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():
            outcome()

    def run() -> None:
        try:
            result = fn()
        except BaseException as exc:  # handed to the awaiting coroutine, whatever it is
            error = exc
            _call_soon(loop, settle, lambda: future.set_exception(error))
        else:
            _call_soon(loop, settle, lambda: future.set_result(result))

    threading.Thread(target=run, name="rst-docker", daemon=True).start()
    return future


def _call_soon(
    loop: asyncio.AbstractEventLoop, settle: Callable[[Callable[[], None]], None], outcome: Callable[[], None]
) -> None:
    try:
        loop.call_soon_threadsafe(settle, outcome)
    except RuntimeError:  # the loop closed while the call ran: nobody waits for it any more
        pass
