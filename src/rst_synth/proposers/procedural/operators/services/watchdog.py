"""A watchdog for a service the workflow left running: it adopts the running process (a store in memory
must not lose its data to a restart), restarts it when it dies, zombies included, and stops it on SIGTERM.
Tests kill the live service and see it back on its port, then run the watchdog on processes of their own."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.placement import places_ok
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, work_root
from rst_synth.proposers.procedural.operators.services.running import KV, PROC_PY, Service, find_services

WATCHDOG_PY = r"""#!/usr/bin/env python3
import os, signal, subprocess, sys, time


def argv_of(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def write_pid(path, pid):
    with open(path + ".tmp", "w") as f:
        f.write(f"{pid}\n")
    os.replace(path + ".tmp", path)


def main():
    args = sys.argv[1:]
    if len(args) < 4 or args[2] != "--":
        print("usage: watchdog PIDFILE LOGFILE -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    pidfile, log, command = args[0], args[1], args[3:]
    try:
        with open(pidfile) as f:
            pid = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        pid = None
    if pid is not None and not (alive(pid) and argv_of(pid) == command):
        pid = None
    stopping = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    child = None
    while not stopping:
        if child is not None:
            child.poll()  # reap a child that died, or /proc shows it as a zombie
        if pid is None or not alive(pid):
            with open(log, "ab") as out:
                child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)
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


sys.exit(main())
"""

TESTS_PY = r"""
SLEEPER = "import sys, time; print('up', flush=True); time.sleep(600)"
QUIET = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}


def kv_state(port):
    keys = json.loads(http(port, "/keys")[1])
    return {key: http(port, "/kv/" + urllib.parse.quote(key, safe=""))[1] for key in keys}


def kv_restore(port, state):
    for key, value in state.items():
        assert http(port, "/kv/" + urllib.parse.quote(key, safe=""), "PUT", value.encode("utf-8"))[0] == 200


def pid_in(path):
    try:
        return int(pathlib.Path(path).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def clean_up(process, pidfile, command):
    process.kill()
    process.wait()
    leftover = watched(pidfile, command)
    if leftover:
        os.kill(leftover, signal.SIGKILL)


def watched(pidfile, command, other=None):
    pid = pid_in(pidfile)
    return pid if pid and pid != other and alive(pid) and argv_of(pid) == command else None


def test_{tag}_watchdog_brings_the_service_back():
    watchdog = pid_in(WATCHDOG_PIDFILE)
    assert watchdog and alive(watchdog) and TOOL in argv_of(watchdog)[:2]
    pid = pid_in(PIDFILE)
    assert pid and alive(pid) and PROGRAM in argv_of(pid)[:2]
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


def test_{tag}_watchdog_starts_restarts_and_stops(tmp_path):
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


def test_{tag}_watchdog_adopts_only_its_command(tmp_path):
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
"""


@register
class ServiceWatchdog(Operator):
    """A watchdog that adopts the running service, restarts it when it dies and stops it on SIGTERM."""

    name = "service-watchdog"
    final = True  # a tool and pid files: nothing a later step builds on
    once = True  # the watchdog is the same tool for any service: a second one would be a copy
    kinds = (Kind.PYTHON_SOURCE, Kind.EXECUTABLE)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return places_ok(artifact, discovery, "bin", "run") and self._service(artifact, discovery) is not None

    def _service(self, artifact: Artifact, discovery: Discovery) -> Service | None:
        return next((s for s in find_services(discovery) if s.program == artifact.path), None)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        service = self._service(artifact, ctx.discovery)
        assert service is not None  # applies() checked it
        root = work_root(ctx.discovery)
        tool = fresh_path(ctx, f"{root}/bin", f"{service.name}_watchdog")
        pidfile = fresh_path(ctx, f"{root}/run", f"{service.name}.pid")
        own = fresh_path(ctx, f"{root}/run", f"{service.name}_watchdog.pid")
        fallback = fresh_path(ctx, f"{root}/run", f"{service.name}.log")
        solution = f"""mkdir -p {q(f"{root}/bin")} {q(f"{root}/run")}
cat > {q(tool)} <<'PY'
{WATCHDOG_PY.rstrip()}
PY
chmod 0755 {q(tool)}
pid=$(python3 - <<'PY'
import os, pathlib, time, urllib.error, urllib.request
{PROC_PY}
print(serving({service.program!r}))
PY
)
log=$(readlink "/proc/$pid/fd/1")
[ -f "$log" ] || log={q(fallback)}
echo "$pid" > {q(pidfile)}
mapfile -d '' command < "/proc/$pid/cmdline"
nohup {q(tool)} {q(pidfile)} "$log" -- "${{command[@]}}" >/dev/null 2>&1 </dev/null &
echo $! > {q(own)}
sleep 1
test "$(cat {q(pidfile)})" = "$pid\""""
        tests = (
            f"TOOL, PIDFILE, WATCHDOG_PIDFILE = {tool!r}, {pidfile!r}, {own!r}\n"
            f"PROGRAM, PROTOCOL, FALLBACK_LOG = {service.program!r}, {service.protocol!r}, {fallback!r}\n"
            + PROC_PY
            + TESTS_PY.replace("{tag}", ctx.tag)
        )
        keeps = (
            "it keeps its data in memory only, so it must not be restarted now"
            if service.protocol == KV
            else "do not restart it now"
        )
        instruction = (
            f"Next, the service the workflow started from `{service.program}` (the process running it, listening "
            f"on a port of 127.0.0.1) must come back when it dies. Write a watchdog, `{tool}` (an executable file "
            f"with a `#!` line), run as `{tool} PIDFILE LOGFILE -- COMMAND [ARG...]` in the foreground. When it "
            "starts, it adopts the process that PIDFILE names (one line, the pid) if that process is alive and its "
            "command line (as `/proc/PID/cmdline` gives it) is exactly COMMAND ARG...; otherwise it starts COMMAND "
            "with those arguments (standard input from /dev/null, standard output and error appended to LOGFILE) "
            "and writes the new pid to PIDFILE. From then on, whenever the watched process is no longer alive (it "
            "exited, was killed, or is a zombie, state `Z`), it starts the command again the same way within 2 "
            "seconds and rewrites PIDFILE. On SIGTERM it stops the watched process (SIGTERM, then SIGKILL after 5 "
            "seconds), removes PIDFILE and exits with status 0. Then put the running service under the watchdog "
            f"without a restart ({keeps}): write its pid to `{pidfile}` and start the watchdog in the background, "
            "so that it keeps running after you are done, with that PIDFILE, the service's exact command line, "
            "and as LOGFILE the file the service's standard output goes to now when that is a regular file "
            f"(`/proc/PID/fd/1`), else `{fallback}`; write the watchdog's own pid to `{own}`."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True)],
        )
