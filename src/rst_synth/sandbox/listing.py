"""What a container holds where tasks keep their work: the file listing discovery reads, and the
file states (size and sha256 per file) the validator's quality checks compare.

Both walk the same roots with the same exclusions, so "a file the solution made" means the same
thing to the proposers and to the validator.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rst_synth.sandbox.base import Container, SandboxError

SCAN_ROOTS = (
    "/app",
    "/etc",
    "/opt",
    "/srv",
    "/home",
    "/root",
    "/usr/local",
    "/var/lib",
    "/var/backups",
    "/data",
    "/workspace",
)
"""Where tasks keep data, code, repositories, configuration and services."""
PRUNE = (
    "/proc",
    "/sys",
    "/dev",
    "/run",
    "/tmp",
    "/logs",
    "/solution",
    "/tests",
    "/var/lib/dpkg",
    "/var/lib/apt",
    "/var/cache",
    "/root/.cache",
    "/usr/local/lib/python3",
    "/etc/ld.so.cache",
)
"""Never walked: the harness's own folders, package manager state, caches."""

Listing = dict[str, tuple[int, str, int]]
"""A file listing: path -> (size, modification time, mode)."""


@dataclass(frozen=True)
class FileDigest:
    size: int
    sha256: str


FileState = dict[str, FileDigest]
"""The files under the scan roots: path -> size and content hash."""


def _find(action: str) -> str:
    """`find` over the scan roots that exist, pruning PRUNE and __pycache__, running `action` per file."""
    prune = " -o ".join(f"-path {p}" for p in PRUNE)
    roots = " ".join(SCAN_ROOTS)
    return (
        f'for r in {roots}; do [ -e "$r" ] || continue; '
        f'find "$r" -xdev \\( {prune} -o -name __pycache__ \\) -prune -o -type f {action} 2>/dev/null; done'
    )


def listing_command() -> str:
    """One line per file: path, size, modification time, octal mode (tab-separated), sorted."""
    return _find("-printf '%p\\t%s\\t%T@\\t%m\\n'") + " | sort"


def parse_listing(text: str) -> Listing:
    entries: Listing = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) == 4 and parts[1].isdigit():
            entries[parts[0]] = (int(parts[1]), parts[2], int(parts[3], 8))
    return entries


def state_command() -> str:
    """Per file a size line `S<tab>SIZE<tab>PATH` and sha256sum's `HASH  PATH` line (batched, so
    the two kinds interleave)."""
    return _find("-printf 'S\\t%s\\t%p\\n' -exec sha256sum {} +")


_SIZE_LINE = re.compile(r"^S\t(\d+)\t(/.*)$")
_HASH_LINE = re.compile(r"^([0-9a-f]{64})  (/.*)$")


def parse_state(text: str) -> FileState:
    """The output of `state_command`; a name sha256sum had to escape (a backslash or newline in it)
    is left out."""
    sizes: dict[str, int] = {}
    hashes: dict[str, str] = {}
    for line in text.splitlines():
        if found := _SIZE_LINE.match(line):
            sizes[found[2]] = int(found[1])
        elif found := _HASH_LINE.match(line):
            hashes[found[2]] = found[1]
    return {path: FileDigest(size, hashes[path]) for path, size in sizes.items() if path in hashes}


async def file_state(box: Container, *, timeout: float = 300.0) -> FileState:
    """The size and sha256 of every file under the scan roots that the image's user can read: the
    user solutions run as, so every file a solution writes. (Root is no better: in a container whose
    USER is another, root's commands run without capabilities.) A scan cut short raises: half a state
    would make every file it missed look new to the quality checks."""
    result = await box.exec(state_command(), timeout=timeout)
    if result.timed_out or result.breach is not None:
        raise SandboxError(f"listing the container's files did not finish: {result.detail or 'out of time'}")
    return parse_state(result.output)
