"""`rst eval` holds its folder like `rst synth` does: a second process on it stops at once."""

from __future__ import annotations

import os
from pathlib import Path

from rst_synth.store import RunPaths, Store
from rst_synth.store.lock import RunLock
from tests.support.cli import rst


def test_eval_on_a_run_another_process_holds_is_refused_in_one_line(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    Store(RunPaths(run).db).close()
    with RunLock(run):
        result = rst("eval", str(run), "--agent", "nop")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"in use by process {os.getpid()}" in lines[0]
