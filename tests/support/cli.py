"""Run the `rst` command line as a user would: a subprocess of this interpreter."""

from __future__ import annotations

import subprocess
import sys

from tests.support.tasks import REPO


def rst(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rst_synth.cli", *args], capture_output=True, text=True, timeout=timeout, cwd=REPO
    )
