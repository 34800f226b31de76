"""Which tests a task's verifier collects, found by running its tests/test.sh on this machine, as it is
written, with pytest swapped for `pytest --collect-only`: a child whose new checks do not run is a
proposer bug, and this finds it without a container.

test.sh runs with /tests and /logs moved under a temporary folder, and with shims first on PATH:
pytest (also as `python3 -m pytest`, `uvx ... pytest`, `uv run ... pytest`) collects and logs the
test ids; curl, wget, pip, apt-get and uv's installers do nothing (there is nothing to fetch).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from rst_synth.task import Task, TaskPaths

SHIM = Path(__file__).with_name("collect_shim.py")
SHIMMED = ("pytest", "py.test", "python", "python3", "uv", "uvx", "curl", "wget", "pip", "pip3", "apt-get", "apt")


def collected_tests(task: Task, workdir: Path) -> list[str]:
    """`module.py::test_name` for every test the task's verifier collects, in collection order."""
    root = workdir / "box"
    tests, logs, home, shims = root / "tests", root / "logs", root / "home", root / "shims"
    for folder in (tests, logs / "verifier", home / ".local" / "bin", shims):
        folder.mkdir(parents=True, exist_ok=True)
    (home / ".local" / "bin" / "env").write_text("")
    for rel, body in task.files_under(TaskPaths.TESTS_DIR).items():
        path = tests / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".sh"):
            text = body.decode("utf-8")
            text = re.sub(r"(?<![\w.])/tests\b", str(tests), text)
            body = re.sub(r"(?<![\w.])/logs\b", str(logs), text).encode("utf-8")
        path.write_bytes(body)
    for name in SHIMMED:
        shim = shims / name
        shim.write_text(f'#!/bin/bash\nexec "{sys.executable}" "{SHIM}" {name} "$@"\n')
        shim.chmod(0o755)
    log = root / "collected.txt"
    env = {
        "PATH": f"{shims}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "TEST_DIR": str(tests),
        "RST_COLLECT_LOG": str(log),
        "RST_REAL_PYTHON": sys.executable,
    }
    proc = subprocess.run(
        ["bash", str(tests / "test.sh")], cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    if not log.exists():
        raise AssertionError(f"test.sh ran no pytest:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return [_short(line) for line in log.read_text().splitlines() if "::" in line]


def _short(node_id: str) -> str:
    module, _, name = node_id.partition("::")
    return f"{Path(module).name}::{name}"
