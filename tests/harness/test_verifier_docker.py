"""The verifier's reads of a container on the real engine: which processes count as a possible
writer after test.sh (the racing-writer pause), and the changes it checks for tampering."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shlex
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from rst_synth.harness.verifier import ALONE
from rst_synth.sandbox import Container, Limits, make_sandbox
from rst_synth.sandbox.overlay import overlay_changes
from tests.support.tasks import BASE_DOCKERFILE

pytestmark = pytest.mark.docker
T = TypeVar("T")
CONTEXT = {"Dockerfile": BASE_DOCKERFILE.encode()}
# A thread-group leader that exits while its other thread goes on: /proc shows the leader as a zombie.
LEADER_GONE = (
    "import ctypes, threading, time\n"
    "threading.Thread(target=time.sleep, args=(60,)).start()\n"
    "ctypes.CDLL(None).pthread_exit(None)\n"
)
# Forks a child that exits at once, then becomes bash running argv[1]: bash has a zombie child.
WITH_A_ZOMBIE = (
    "import os, sys, time\n"
    "if os.fork() == 0:\n    os._exit(0)\n"
    "time.sleep(0.3)\n"
    "os.execvp('bash', ['bash', '-c', sys.argv[1]])\n"
)


def in_container(work: Callable[[Container], Awaitable[T]]) -> T:
    async def main() -> T:
        sandbox = make_sandbox("docker")
        try:
            info = await sandbox.ensure_image(CONTEXT, hashlib.sha256(CONTEXT["Dockerfile"]).hexdigest(), timeout=600)
            async with sandbox.container(info.tag, Limits()) as box:
                return await work(box)
        finally:
            await sandbox.close()

    return asyncio.run(main())


def test_only_live_processes_count_as_writers_after_the_tests() -> None:
    check = f'{ALONE}\necho "alone=$alone"\nfor p in /proc/[0-9]*; do read -r s < $p/stat; echo $s; done'

    def seen(setup: str, command: str = check) -> str:
        async def work(box: Container) -> str:
            await box.exec(setup, timeout=30)
            return (await box.exec(command, timeout=30)).output

        return in_container(work)

    assert "alone=1" in seen("true")
    # The checking shell's own child, exited and never reaped (as the keepalive's may be): no writer.
    zombie = seen("true", f"python3 -c {shlex.quote(WITH_A_ZOMBIE)} {shlex.quote(check)}")
    assert "alone=1" in zombie and ") Z " in zombie, zombie
    assert "alone=\n" in seen("nohup sleep 30 >/dev/null 2>&1 & sleep 0.2")
    leader = seen(f"python3 -c {shlex.quote(LEADER_GONE)} >/dev/null 2>&1 & sleep 1")
    assert "alone=\n" in leader and "(python3) Z " in leader, leader


def test_the_changes_read_on_the_host_are_the_engines() -> None:
    """Where the engine's upper directory is on this host (overlay.py), its walk lists what the engine
    lists: added, changed, deleted, folders replaced, links, whiteouts of the image's own layers."""
    script = """
mkdir -p /app/new/deep && echo x > /app/new/deep/f
echo more >> /etc/debian_version
rm /etc/issue.net
rm -rf /usr/share/doc/bash
rm -rf /usr/share/doc/tar && mkdir /usr/share/doc/tar && echo y > /usr/share/doc/tar/readme
chmod 600 /etc/shells
ln -s /tmp/x /usr/local/bin/pytest
mkdir -p /usr/lib/python3/dist-packages/extra && echo z > /usr/lib/python3/dist-packages/extra/__init__.py
touch /usr/lib/python3.11/os.py
rm -rf /var/lib/dpkg/info && mkdir /var/lib/dpkg/info
"""

    async def work(box: Container) -> tuple[set[tuple[str, int]], set[tuple[str, int]], set[tuple[str, int]]]:
        result = await box.exec(script, timeout=60, user="root")
        assert result.exit_code == 0, result.output
        ours = {(c.path, int(c.kind)) for c in await box.changes()}
        assert isinstance(getattr(box, "_overlay", None), tuple)  # read on the host, not asked of the engine
        box._overlay = False  # type: ignore[attr-defined]  # where the host cannot read it: the engine's list
        assert {(c.path, int(c.kind)) for c in await box.changes()} == ours
        engine = {(c["Path"], int(c["Kind"])) for c in json.loads(_engine(box.id)) or []}
        data = json.loads(subprocess.run(["docker", "inspect", box.id], capture_output=True, check=True).stdout)
        layers = data[0]["GraphDriver"]["Data"]
        walked = overlay_changes(Path(layers["UpperDir"]), [Path(p) for p in layers["LowerDir"].split(":")])
        return ours, engine, {(c.path, int(c.kind)) for c in walked}

    ours, engine, walked = in_container(work)
    assert ours == engine == walked
    assert ("/usr/share/doc/tar/copyright", 2) in walked  # hidden by the folder that replaced it
    assert ("/usr/local/bin/pytest", 1) in walked and ("/etc/shells", 0) in walked


def _engine(container: str) -> str:
    """GET /containers/{id}/changes, asked of the engine itself."""
    out = subprocess.run(["docker", "container", "diff", container], capture_output=True, text=True, check=True)
    kinds = {"C": 0, "A": 1, "D": 2}
    return json.dumps([{"Path": line[2:], "Kind": kinds[line[0]]} for line in out.stdout.splitlines() if line])
