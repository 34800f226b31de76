"""What `service-watchdog` ships: the watchdog tool (its `main`, written to an executable file), the lookup
of the running service's pid that the solution does once (`show_pid`), and the tests that kill the live
service and run the watchdog on processes of their own. The constants are the step's parameters:
`shipping.render` sets them."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import time
import urllib.parse
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import (
    alive,
    argv_of,
    eventually,
    http,
    listener,
    port_of,
    runs,
    serving,
)

TOOL = "/app/bin/kvd_watchdog"
PIDFILE = "/app/run/kvd.pid"
WATCHDOG_PIDFILE = "/app/run/kvd_watchdog.pid"
PROGRAM = "/opt/kvd/kvd.py"
PROTOCOL = "kv"
FALLBACK_LOG = "/app/run/kvd.log"
SLEEPER = "import sys, time; print('up', flush=True); time.sleep(600)"
QUIET: dict[str, Any] = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}


def write_pid(path: str, pid: int) -> None:
    with open(path + ".tmp", "w") as f:
        f.write(f"{pid}\n")
    os.replace(path + ".tmp", path)


def main(argv: list[str]) -> int:
    args = argv[1:]
    if len(args) < 4 or args[2] != "--":
        print("usage: watchdog PIDFILE LOGFILE -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    pidfile, log, command = args[0], args[1], args[3:]
    try:
        with open(pidfile) as f:
            pid: int | None = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        pid = None
    if pid is not None and not (alive(pid) and argv_of(pid) == command):
        pid = None
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    child = None
    while not stopping:
        if child is not None:
            child.poll()  # reap a child that died, or /proc shows it as a zombie
        if pid is None or not alive(pid):
            with open(log, "ab") as out:
                child = subprocess.Popen(
                    command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
                )
            pid = child.pid
            write_pid(pidfile, pid)
        time.sleep(0.2)
    if pid is not None and alive(pid):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        while alive(pid) and time.monotonic() < deadline:
            if child is not None:
                child.poll()
            time.sleep(0.1)
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    try:
        os.remove(pidfile)
    except FileNotFoundError:
        pass
    return 0


def show_pid() -> None:
    print(serving(PROGRAM))


def kv_state(port: int) -> dict[str, str]:
    keys = json.loads(http(port, "/keys")[1])
    return {key: http(port, "/kv/" + urllib.parse.quote(key, safe=""))[1] for key in keys}


def kv_restore(port: int, state: dict[str, str]) -> None:
    for key, value in state.items():
        assert http(port, "/kv/" + urllib.parse.quote(key, safe=""), "PUT", value.encode("utf-8"))[0] == 200


def pid_in(path: str | pathlib.Path) -> int | None:
    try:
        return int(pathlib.Path(path).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def clean_up(process: subprocess.Popen[bytes], pidfile: str | pathlib.Path, command: list[str]) -> None:
    process.kill()
    process.wait()
    leftover = watched(pidfile, command)
    if leftover:
        os.kill(leftover, signal.SIGKILL)


def watched(pidfile: str | pathlib.Path, command: list[str], other: int | None = None) -> int | None:
    pid = pid_in(pidfile)
    return pid if pid and pid != other and alive(pid) and argv_of(pid) == command else None


def test_watchdog_brings_the_service_back() -> None:
    watchdog = pid_in(WATCHDOG_PIDFILE)
    assert watchdog and alive(watchdog) and runs(watchdog, TOOL)
    pid = pid_in(PIDFILE)
    assert pid and alive(pid) and runs(pid, PROGRAM)
    port, command = port_of(pid), argv_of(pid)
    assert port and listener(port) == pid
    out = os.readlink(f"/proc/{pid}/fd/1")
    log = out if os.path.isfile(out) else FALLBACK_LOG
    state = kv_state(port) if PROTOCOL == "kv" else None
    os.kill(pid, signal.SIGKILL)
    back = eventually(lambda: (p := watched(PIDFILE, command, pid)) and listener(port) == p and p)
    assert back, "the service did not come back on its port"
    assert eventually(lambda: http(port, "/health")[0] == 200)
    assert os.readlink(f"/proc/{back}/fd/1") == log
    if state is not None:
        kv_restore(port, state)
        assert kv_state(port) == state


def test_watchdog_starts_restarts_and_stops(tmp_path: pathlib.Path) -> None:
    pidfile, log = tmp_path / "svc.pid", tmp_path / "svc.log"
    command = [sys.executable, "-c", SLEEPER, str(tmp_path)]
    process = subprocess.Popen([TOOL, str(pidfile), str(log), "--", *command], **QUIET)
    try:
        first = eventually(lambda: watched(pidfile, command))
        assert first and eventually(lambda: log.read_text().count("up") == 1), "no process started"
        os.kill(first, signal.SIGKILL)
        second = eventually(lambda: watched(pidfile, command, first))
        assert second and eventually(lambda: log.read_text().count("up") == 2), "not restarted"
        os.kill(second, signal.SIGKILL)
        third = eventually(lambda: watched(pidfile, command, second))
        assert third and eventually(lambda: log.read_text().count("up") == 3), "not restarted a second time"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
        assert eventually(lambda: not alive(third)) and not pidfile.exists()
    finally:
        clean_up(process, pidfile, command)


def test_watchdog_adopts_only_its_command(tmp_path: pathlib.Path) -> None:
    pidfile, log = tmp_path / "svc.pid", tmp_path / "svc.log"
    command = [sys.executable, "-c", SLEEPER, str(tmp_path)]
    ours = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    pidfile.write_text(f"{ours.pid}\n")
    process = subprocess.Popen([TOOL, str(pidfile), str(log), "--", *command], **QUIET)
    try:
        time.sleep(1.5)
        assert pid_in(pidfile) == ours.pid and (not log.exists() or "up" not in log.read_text())
        ours.kill()  # not reaped: a zombie of this test, which is no live process
        started = eventually(lambda: watched(pidfile, command, ours.pid))
        assert started, "a dead adopted process was not replaced"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
        pidfile.write_text(f"{os.getpid()}\n")  # alive, but another command: start one, never adopt it
        process = subprocess.Popen([TOOL, str(pidfile), str(log), "--", *command], **QUIET)
        fresh = eventually(lambda: watched(pidfile, command))
        assert fresh and fresh != os.getpid()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0 and eventually(lambda: not alive(fresh))
    finally:
        clean_up(process, pidfile, command)
        ours.kill()
        ours.wait()
