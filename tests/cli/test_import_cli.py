"""`rst import tb1` as a user runs it: a subprocess on TB1 task folders written for the test."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from rst_synth.task import Task

DOCKERFILE = (
    "FROM debian:bookworm-slim\n"
    "RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pytest"
    " && rm -rf /var/lib/apt/lists/*\n"
    "WORKDIR /app\n"
)
TEST_OUTPUTS = """\
from pathlib import Path


def test_greeting():
    assert Path("/app/out.txt").read_text().strip() == "hello"
"""


def rst(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    script = Path(sysconfig.get_path("scripts")) / "rst"
    command = [str(script)] if script.exists() else [sys.executable, "-c", "from rst_synth.cli.main import app; app()"]
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=timeout, check=False)


def write_tb1(root: Path, name: str, *, solution_yaml: bool = False) -> Path:
    """A tiny TB1 task: write hello to /app/out.txt; `solution_yaml` gives it a tmux solution instead."""
    task = root / name
    (task / "tests").mkdir(parents=True)
    (task / "task.yaml").write_text(
        "instruction: Write the word hello to /app/out.txt.\ndifficulty: easy\nmax_agent_timeout_sec: 60\n"
    )
    (task / "Dockerfile").write_text(DOCKERFILE)
    (task / "docker-compose.yaml").write_text(
        "services:\n  client:\n    build:\n      dockerfile: Dockerfile\n"
        "    environment:\n      - TEST_DIR=${T_BENCH_TEST_DIR}\n"
    )
    (task / "run-tests.sh").write_text("#!/bin/bash\npython3 -m pytest -rA $TEST_DIR/test_outputs.py\n")
    (task / "tests" / "test_outputs.py").write_text(TEST_OUTPUTS)
    if solution_yaml:
        (task / "solution.yaml").write_text("- command: echo hello > /app/out.txt\n  min_timeout_sec: 1\n")
    else:
        (task / "solution.sh").write_text("#!/bin/bash\necho hello > /app/out.txt\n")
    return task


def test_folder_of_tasks_converts_the_good_ones_and_skips_the_rest(tmp_path: Path) -> None:
    folder = tmp_path / "tb1"
    for name in ("alpha", "beta"):
        write_tb1(folder, name)
    bad = write_tb1(folder, "gamma", solution_yaml=True)
    out = tmp_path / "out"

    result = rst("import", "tb1", str(folder), "--out", str(out))
    assert result.returncode == 1, result.stdout + result.stderr
    skipped = [line for line in result.stdout.splitlines() if line.startswith("skipped ")]
    assert skipped == [f"skipped {bad}: solution.yaml: tmux command-list solutions are not supported; only solution.sh"]
    assert "converted 2 of 3 task(s)" in result.stdout
    assert "tb1/alpha" in result.stdout and "tb1/beta" in result.stdout
    assert sorted(p.name for p in out.iterdir()) == ["alpha", "beta"]
    assert Task.load(out / "alpha").name == "tb1/alpha"


def test_existing_output_needs_force(tmp_path: Path) -> None:
    src = write_tb1(tmp_path / "tb1", "alpha")
    out = tmp_path / "out"
    assert rst("import", "tb1", str(src), "--out", str(out)).returncode == 0

    again = rst("import", "tb1", str(src), "--out", str(out))
    assert again.returncode == 1
    assert f"skipped {src}: {out / 'alpha'} already exists (use --force to replace it)" in again.stdout

    forced = rst("import", "tb1", str(src), "--out", str(out), "--force")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert "converted 1 of 1 task(s)" in forced.stdout


def test_missing_source_is_a_usage_error(tmp_path: Path) -> None:
    result = rst("import", "tb1", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out"))
    assert result.returncode == 2


@pytest.mark.docker
def test_converted_task_is_accepted_by_validate(tmp_path: Path) -> None:
    src = write_tb1(tmp_path / "tb1", "hello")
    out = tmp_path / "out"
    converted = rst("import", "tb1", str(src), "--out", str(out))
    assert converted.returncode == 0, converted.stdout + converted.stderr

    result = rst("validate", "--json", str(out / "hello"))
    assert result.returncode == 0, result.stdout + result.stderr
    [report] = json.loads(result.stdout)
    assert report["accepted"] and report["task"] == "tb1/hello"
