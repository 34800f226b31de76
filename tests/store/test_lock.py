"""One owner per run directory: RunLock across processes, released by the kernel on SIGKILL."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rst_synth.store.lock import LOCK_FILE, RunLock, RunLocked, holder_pid
from tests.support.tasks import REPO

HOLD = (
    "import sys, time; from rst_synth.store.lock import RunLock; "
    "RunLock(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(60)"
)


def hold_in_child(run: Path) -> subprocess.Popen[str]:
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(run)], stdout=subprocess.PIPE, text=True, cwd=REPO)
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    return child


def test_a_second_owner_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    run = tmp_path / "run"
    child = hold_in_child(run)
    try:
        with pytest.raises(RunLocked) as refused:
            RunLock(run).acquire()
        assert refused.value.pid == child.pid == holder_pid(run)
        assert f"in use by process {child.pid}" in str(refused.value) and "\n" not in str(refused.value)
    finally:
        child.kill()
        child.wait()


def test_sigkill_leaves_no_stale_lock(tmp_path: Path) -> None:
    run = tmp_path / "run"
    child = hold_in_child(run)
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert (run / LOCK_FILE).exists()  # the file stays; the lock went with the process
    with RunLock(run) as lock:
        assert lock.held and holder_pid(run) is not None


def test_one_process_two_owners_and_release(tmp_path: Path) -> None:
    first = RunLock(tmp_path / "run").acquire()
    assert first.acquire() is first  # reentrant on the same object
    with pytest.raises(RunLocked):
        RunLock(tmp_path / "run").acquire()
    first.release()
    first.release()  # twice is harmless
    with RunLock(tmp_path / "run"):
        with pytest.raises(RunLocked):
            RunLock(tmp_path / "run").acquire()
    RunLock(tmp_path / "run").acquire().release()


def test_a_child_process_does_not_inherit_the_lock(tmp_path: Path) -> None:
    lock = RunLock(tmp_path / "run").acquire()
    child = subprocess.Popen(["sleep", "30"], close_fds=False)
    try:
        lock.release()
        time.sleep(0.1)
        RunLock(tmp_path / "run").acquire().release()  # the sleeping child holds nothing
    finally:
        child.kill()
        child.wait()
