"""The checks a step's solution runs on its outputs: they pass on sound outputs, fail on broken ones,
write nothing, and the procedural proposer appends them to every step."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.procedural.verify import output_checks
from tests.proposers.procedural.test_draw import draw

TOOLS = ("python3", "sqlite3")


def outputs(root: Path) -> list[Artifact]:
    (root / "t.csv").write_text("a,b\n1,2\n")
    (root / "t.json").write_text('{"a": [1, 2]}')
    sqlite3.connect(root / "t.db").executescript("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);")
    tool = root / "tool"
    tool.write_text("#!/bin/sh\necho ok\n")
    tool.chmod(0o755)
    (root / "t.py").write_text("print('ok')\n")
    (root / "t.sh").write_text("echo ok\n")
    repo = root / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "f").write_text("x\n")
    subprocess.run([*git, "add", "f"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    kinds = {"t.csv": Kind.CSV, "t.json": Kind.JSON, "t.db": Kind.SQLITE, "tool": Kind.EXECUTABLE}
    kinds |= {"t.py": Kind.PYTHON_SOURCE, "t.sh": Kind.SHELL_SCRIPT, "repo": Kind.GIT}
    return [Artifact(path=str(root / name), kind=kind) for name, kind in kinds.items()]


def run(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, capture_output=True, text=True)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_checks_pass_on_sound_outputs_and_write_nothing(tmp_path: Path) -> None:
    produced = outputs(tmp_path)
    for tools in (TOOLS, ("python3",), ()):
        script = output_checks(produced, tools)
        before = snapshot(tmp_path)
        result = run(script, tmp_path)
        assert result.returncode == 0, result.stderr
        assert snapshot(tmp_path) == before
    assert output_checks([], TOOLS) == ""


def test_checks_fail_on_a_missing_or_broken_output(tmp_path: Path) -> None:
    produced = outputs(tmp_path)
    (tmp_path / "t.json").write_text('{"a": [1, 2]')  # truncated
    assert run(output_checks(produced[1:2], TOOLS), tmp_path).returncode != 0
    (tmp_path / "t.db").write_bytes(b"not a database, only text" * 40)
    assert run(output_checks(produced[2:3], TOOLS), tmp_path).returncode != 0
    assert run(output_checks(produced[2:3], ("python3",)), tmp_path).returncode != 0
    (tmp_path / "tool").chmod(0o644)
    assert run(output_checks(produced[3:4], TOOLS), tmp_path).returncode != 0
    (tmp_path / "t.csv").unlink()
    assert run(output_checks(produced[:1], TOOLS), tmp_path).returncode != 0


def test_every_step_ends_by_checking_each_output() -> None:
    for seed in range(6):
        for step in draw([], seed, round_=2):
            checks = step.solution.split("# check what this step produced", 1)
            assert len(checks) == 2, step.operator
            for artifact in step.produces:
                assert artifact.path in checks[1], (step.operator, artifact.path)
