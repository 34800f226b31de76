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
