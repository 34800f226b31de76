"""`rst import harbor` as a user runs it: a subprocess on the Harbor fixture dataset."""

from __future__ import annotations

from pathlib import Path

from rst_synth.importers.harbor import import_record
from rst_synth.task import Task
from tests.support.cli import rst
from tests.support.harbor_fixtures import FETCHING, FIXTURES, SHAPES, UNCONVERTIBLE


def test_a_dataset_converts_every_shape_and_skips_the_rest_with_one_line_each(tmp_path: Path) -> None:
    out = tmp_path / "seeds"
    result = rst("import", "harbor", str(FIXTURES), "--out", str(out))
    assert result.returncode == 1, result.stdout + result.stderr
    skipped = sorted(line for line in result.stdout.splitlines() if line.startswith("skipped "))
    assert len(skipped) == len(UNCONVERTIBLE)
    for line, (name, why) in zip(skipped, sorted(UNCONVERTIBLE.items()), strict=True):
        assert line.startswith(f"skipped {FIXTURES / name}: {why}")
    assert f"converted {len(SHAPES)} of {len(SHAPES) + len(UNCONVERTIBLE)} task(s)" in result.stdout
    assert sorted(p.name for p in out.iterdir()) == sorted(SHAPES)
    rows = {line.split()[1]: line for line in result.stdout.splitlines() if line.startswith("│ ")}
    assert "naming /tests/<module>" in rows["named-file"] and "the folder run" in rows["folder-run"]
    assert "naming <module>" in rows["tests-read-files"]
    for name in FETCHING:  # without --offline their verifier would fetch in an offline check
        assert "use --offline" in rows[name]
        record = import_record(Task.load(out / name))
        assert record is not None and not record.offline and record.notes


def test_base_rewrites_the_from_lines_and_force_replaces(tmp_path: Path) -> None:
    out = tmp_path / "seeds"
    src = FIXTURES / "named-file"
    assert rst("import", "harbor", str(src), "--out", str(out)).returncode == 0
    again = rst("import", "harbor", str(src), "--out", str(out), "--base", "debian:bookworm")
    assert again.returncode == 1 and "already exists (use --force to replace it)" in again.stdout
    forced = rst("import", "harbor", str(src), "--out", str(out), "--base", "debian:bookworm", "--force")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    task = Task.load(out / "named-file")
    assert task.dockerfile.startswith("FROM debian:bookworm\n")
    record = import_record(task)
    assert record is not None and record.base == "debian:bookworm"
