"""Run a procedural step here, without the engine: plant its files, run its solution, run its tests."""

from __future__ import annotations

import base64
import re
import subprocess
import sys
from pathlib import Path

from rst_synth.proposers.procedural.operator import Step
from rst_synth.proposers.procedural.proposer import _new_step


def run_step(step: Step, tmp: Path, solution: str | None = None) -> dict[str, str]:
    """Plant the step's files, run its solution (or `solution`) and its tests here; test name -> outcome."""
    for encoded, target in re.findall(r"printf '%s' '([^']+)' \| base64 -d > (\S+)", step.dockerfile):
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        Path(target).write_bytes(base64.b64decode(encoded))
    done = subprocess.run(["bash", "-ec", solution or step.solution], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    module = tmp / f"test_step_{step.operator.replace('-', '_')}.py"
    module.write_text(_new_step(step, "s1").test_module)
    report = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", str(module)],
        capture_output=True,
        text=True,
        cwd=tmp,
    )
    return {name: outcome for outcome, name in re.findall(r"^(PASSED|FAILED) \S+::(\w+)", report.stdout, re.M)}
