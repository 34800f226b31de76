"""One owner per run directory: an advisory lock that the kernel releases when its process dies.

`rst synth`, `rst gc` and `rst eval` on a run directory hold it for as long as they run, so a
second one on the same directory stops at once instead of pruning the first one's containers and
writing the same store. A process killed with SIGKILL leaves no stale lock behind: the lock is
the open file description, not the file.

    with RunLock(run_dir):          # or: lock = RunLock(run_dir).acquire(); ...; lock.release()
        ...                         # RunLocked (with .pid) when another process holds it
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

LOCK_FILE = "run.lock"


class RunLocked(RuntimeError):
    """Another process holds the run directory's lock; `pid` is that process (None if unknown)."""

    def __init__(self, run_dir: Path, pid: int | None) -> None:
        self.run_dir = run_dir
        self.pid = pid
        holder = f"process {pid}" if pid is not None else "another process"
        super().__init__(
            f"{run_dir}: in use by {holder} (rst synth, eval or gc); wait for it to end or stop it "
            f"(kill {pid if pid is not None else '<pid>'}), then run this again"
        )


class RunLock:
    """An exclusive, non-blocking flock on RUN/run.lock; reentrant within one RunLock object. Held
    until `release`, the end of a `with` block, or the process's exit, even when the object itself
    is no longer referenced (`RunLock(run).acquire()` alone holds it for the process's life)."""

    def __init__(self, run_dir: Path | str) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / LOCK_FILE
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> RunLock:
        """Take the lock now or raise RunLocked naming the holder's pid; creates the run directory."""
        if self._fd is not None:
            return self
        self.run_dir.mkdir(parents=True, exist_ok=True)
        # Not inherited by child processes (os.open's default), so a subprocess never keeps it.
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise RunLocked(self.run_dir, holder_pid(self.run_dir)) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def release(self) -> None:
        """Let go of the lock (closing the descriptor releases it); the file stays, it is harmless."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        os.close(fd)

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.release()


def holder_pid(run_dir: Path | str) -> int | None:
    """The pid written by whoever holds (or last held) the lock of `run_dir`; None if unknown."""
    try:
        text = (Path(run_dir) / LOCK_FILE).read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
