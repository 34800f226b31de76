"""`rst validate` as a user runs it: a subprocess against the real engine."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from tests.support.cli import rst
from tests.support.docker import our_containers
from tests.support.tasks import REPO

CHILD = REPO / "examples" / "children" / "access-log-report-errors"
PARENT = REPO / "examples" / "seeds" / "access-log-report"


def test_malformed_task_is_one_line_naming_the_file(task_factory) -> None:
    root = task_factory()
    (root / "task.toml").write_text("[verifier]\ntimeout_sec = 'x'\n")
    result = rst("validate", str(root))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert str(root / "task.toml") in lines[0] and "[verifier].timeout_sec" in lines[0]


@pytest.mark.docker
def test_child_accepted_with_its_lineage_parent_and_rejected_with_a_wrong_one() -> None:
    good = rst("validate", "--json", str(CHILD))
    assert good.returncode == 0, good.stdout + good.stderr
    [report] = json.loads(good.stdout)
    assert report["accepted"] and report["parent"] == "rst-seeds/access-log-report"
    assert {c["check"]: c["verdict"] for c in report["checks"]}["parent"] == "pass"

    wrong = rst("validate", "--json", "--parent", str(CHILD), str(CHILD))
    assert wrong.returncode == 1
    [report] = json.loads(wrong.stdout)
    assert report["rejection"] == {"check": "parent", "reason": "parent_mismatch"}


@pytest.mark.docker
def test_ctrl_c_mid_validation_leaves_no_container(task_factory) -> None:
    slow = task_factory(solve="sleep 300\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "rst_synth.cli", "validate", str(slow)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    deadline = time.monotonic() + 60
    while not our_containers() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert our_containers(), "the validation never started a container"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert our_containers() == []
