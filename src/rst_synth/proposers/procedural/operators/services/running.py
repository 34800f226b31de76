"""Services the workflow leaves running, found in what discovery read, and how tests find them again.

A service is real only while the container runs, so discovery sees it through its program: a task's
input (a file the instruction names) or a step's output. Two protocols are known here: the key-value
protocol of `kvd` (the loopback-kv-service seed: `/health`, `/keys?prefix=`, `/kv/<key>` with
GET/PUT/DELETE, `/incr/<key>`, described in its docstring) and the `/health` + `/groups` server that
`serve-csv-http` writes. A program is taken to run once the parent's solution is done (a task brings a
service program to start it); its port is the one the running process listens on, which the step's
solution and its tests read from `/proc` (`/proc/net/tcp` and the socket links under `/proc/<pid>/fd`),
as an engineer would with `ss -ltnp`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Kind
from rst_synth.proposers.discovery import Discovery

KV = "kv"
GROUPS = "groups"
_KV_MARKS = ("/health", "/keys", "/kv/", "/incr/", "--port")
_GROUPS_MARKS = ('ThreadingHTTPServer(("127.0.0.1", args.port)', '"/groups"', "--data", "--port")


@dataclass(frozen=True)
class Service:
    """A running service: its program, its protocol and a name for the files of a step about it."""

    program: str
    protocol: str
    name: str
    host_option: bool = False
    """Whether the program takes `--host` (kvd binds all interfaces without it)."""


def find_services(discovery: Discovery) -> list[Service]:
    """The services of the parent's workflow whose protocol is known (module docstring)."""
    found = []
    for artifact in discovery.artifacts:
        if artifact.kind not in (Kind.PYTHON_SOURCE, Kind.EXECUTABLE) or not artifact.sample:
            continue
        sample, name = artifact.sample, re.sub(r"\W+", "_", PurePosixPath(artifact.path).stem)
        if all(mark in sample for mark in _KV_MARKS):
            found.append(Service(artifact.path, KV, name, host_option="--host" in sample))
        elif all(mark in sample for mark in _GROUPS_MARKS):
            found.append(Service(artifact.path, GROUPS, name))
    return found


PROC_PY = r'''
def argv_of(pid):
    try:
        raw = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]


def alive(pid):
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def listening():
    """{socket link: port} of the TCP sockets in the LISTEN state."""
    found = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = pathlib.Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A":
                found[f"socket:[{fields[9]}]"] = int(fields[1].rsplit(":", 1)[1], 16)
    return found


def sockets_of(pid):
    try:
        return {os.readlink(fd) for fd in pathlib.Path(f"/proc/{pid}/fd").iterdir()}
    except OSError:
        return set()


def listener(port):
    """The pid of the live process listening on `port`, or None."""
    links = {link for link, p in listening().items() if p == port}
    for proc in pathlib.Path("/proc").iterdir():
        if proc.name.isdigit() and alive(proc.name) and sockets_of(proc.name) & links:
            return int(proc.name)
    return None


def port_of(pid):
    """The port process `pid` listens on, or None."""
    ports = sorted(p for link, p in listening().items() if link in sockets_of(pid))
    return ports[0] if ports else None


def serving(program):
    """The pid of the live process that runs `program` (its first argument after the interpreter), or None."""
    for proc in pathlib.Path("/proc").iterdir():
        if proc.name.isdigit() and alive(proc.name):
            argv = argv_of(proc.name)
            if program in argv[:2]:
                return int(proc.name)
    return None


def http(port, path, method="GET", body=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def eventually(probe, seconds=15.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.1)
    return probe()
'''
"""Test helpers: processes by /proc, the listener of a port, an HTTP call that bypasses proxies, polling."""
