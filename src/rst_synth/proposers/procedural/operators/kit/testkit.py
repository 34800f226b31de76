"""The helpers of the generated tests, written once: run a step's tool under limits, check a refusal and an
exact text, read a CSV output, find a process and the port it listens on through /proc, call a service over
HTTP past any proxy, wait for a condition.

A test module stays self-contained: `shipped` renders the helpers a module uses into it (without their
type hints, which a task's interpreter need not read), and its import lines follow from the code
(`shipping.used_modules`). Edit the helpers here; their unit tests call them directly.
"""

from __future__ import annotations

import csv
import io
import os
import pathlib
import resource
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any


# fmt: off
# The layout of the generated tests before their helpers moved here: a refactor keeps the tasks' bytes.
def run_tool(
    *command: object, stdin: bytes | None = None, limit_mb: int | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    def cap() -> None:
        limit = limit_mb * 1024 * 1024  # type: ignore[operator]  # only installed when set
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return subprocess.run(
        [str(c) for c in command], input=stdin, capture_output=True, timeout=timeout,
        preexec_fn=cap if limit_mb else None,
    )
# fmt: on


def assert_usage_error(done: subprocess.CompletedProcess[bytes], context: object = None, says: bytes = b"") -> None:
    """A refused call: exit status 2, nothing on stdout, a reason on stderr (holding `says` when given)."""
    assert done.returncode == 2 and done.stdout == b"" and done.stderr.strip() and says in done.stderr, (
        context,
        done.returncode,
        done.stderr[-300:],
    )


def assert_same_text(path: str, want: str) -> None:
    """The file holds `want`, its last newline optional."""
    got = pathlib.Path(path).read_bytes().decode("utf-8")
    assert got == want or got + "\n" == want, (got[:500], want[:500])


def csv_rows(path: str | pathlib.Path) -> list[list[str]]:
    """The rows of a UTF-8 CSV output (RFC 4180 quoting, LF or CRLF line endings), blank lines left out."""
    with open(path, newline="", encoding="utf-8") as f:
        return [r for r in csv.reader(f) if r]


def csv_text_rows(text: str) -> list[list[str]]:
    """The rows of CSV text a tool printed, every one kept."""
    return list(csv.reader(io.StringIO(text, newline="")))


def argv_of(pid: int | str) -> list[str]:
    try:
        raw = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]


def alive(pid: int | str) -> bool:
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def listening() -> dict[str, int]:
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


def sockets_of(pid: int | str) -> set[str]:
    """The links of the process's open files (`socket:[INODE]` for a socket); a file closed meanwhile is skipped."""
    found: set[str] = set()
    try:
        fds = list(pathlib.Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return found
    for fd in fds:
        try:
            found.add(os.readlink(fd))
        except OSError:
            continue
    return found


def listener(port: int) -> int | None:
    """The pid of the live process listening on `port`, or None."""
    links = {link for link, p in listening().items() if p == port}
    for proc in pathlib.Path("/proc").iterdir():
        if proc.name.isdigit() and alive(proc.name) and sockets_of(proc.name) & links:
            return int(proc.name)
    return None


def port_of(pid: int | str) -> int | None:
    """The port process `pid` listens on, or None."""
    ports = sorted(p for link, p in listening().items() if link in sockets_of(pid))
    return ports[0] if ports else None


def runs(pid: int | str, program: str) -> bool:
    """Whether process `pid` runs `program`: its executable is that file, or an argument of its command line
    names it, as an absolute path or relative to the process's working directory. Never by the argument's
    position: `python3 -u PROGRAM`, `/usr/bin/python3 PROGRAM`, `env python3 PROGRAM` and `cd DIR && python3
    NAME` all run it."""
    target = os.path.realpath(program)
    try:
        if os.readlink(f"/proc/{pid}/exe") == target:
            return True
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return False  # gone, or another user's: not a process the work started
    return any(os.path.realpath(os.path.join(cwd, arg)) == target for arg in argv_of(pid) if arg[:1] not in ("", "-"))


def serving(program: str) -> int | None:
    """The pid of the live process that runs `program` (`runs`), however it was started; of several (a
    `timeout` or `nohup` wrapper still waiting beside it), one that listens on a port."""
    found = [
        int(proc.name)
        for proc in sorted(pathlib.Path("/proc").iterdir(), key=lambda p: p.name)
        if proc.name.isdigit() and int(proc.name) != os.getpid() and alive(proc.name) and runs(proc.name, program)
    ]
    listening_ones = [pid for pid in found if port_of(pid) is not None]
    return next(iter(listening_ones or found), None)


def http(port: int, path: str, method: str = "GET", body: bytes | None = None) -> tuple[int, str]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def eventually(probe: Callable[[], Any], seconds: float = 15.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.1)
    return probe()


PROCESS_HELPERS = (
    "argv_of",
    "alive",
    "listening",
    "sockets_of",
    "listener",
    "port_of",
    "runs",
    "serving",
    "http",
    "eventually",
)
"""What a test of a running service uses: its process, its port, its answers."""
