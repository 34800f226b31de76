"""The tests backup-retention-gfs ships, on its reference tool (`retention.main`): they pass; a plan that
forgets the weekly rule, a prune that deletes nothing or a tool that exits 1 on bad arguments fails them."""

from __future__ import annotations

import datetime
import os
import sys
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.schedule.shipped import retention as shipped
from tests.support.shipped import tool_file

NO_WEEKS = (
    "plan = retention.plan\nretention.plan = lambda names, daily, weekly, monthly: plan(names, daily, 0, monthly)"
)


def tool(folder: Path, tweak: str = "") -> str:
    """The reference as an executable, `tweak` breaking it subtly."""
    code = (
        "from rst_synth.proposers.procedural.operators.schedule.shipped import retention\n"
        f"retention.PREFIX = {shipped.PREFIX!r}\n{tweak}\n"
    )
    return tool_file(folder / "retention", code, "sys.exit(retention.main(sys.argv))")


@pytest.fixture
def step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    start = datetime.datetime(2026, 1, 5, 0, 15)
    names = [f"{shipped.PREFIX}-{start + datetime.timedelta(hours=9 * k):%Y%m%d-%H%M}.tar.gz" for k in range(300)]
    names = sorted(names) + ["README.txt", f"{shipped.PREFIX}-latest.tar.gz"]
    folder = tmp_path / "archives"
    folder.mkdir()
    for name in names:
        (folder / name).write_text(name + "\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(sys.path))
    params = {"TOOL": tool(tmp_path), "FOLDER": str(folder), "OUT": str(tmp_path / "plan.txt"), "ORIGINAL": names}
    for name, value in params.items():
        monkeypatch.setattr(shipped, name, value)
    (tmp_path / "runs").mkdir()
    return tmp_path


def apply(step: Path, *, delete: bool = True) -> None:
    """The step's run: the plan printed to OUT, the pruned archives deleted."""
    argv = ["retention", *(["--delete"] if delete else []), shipped.FOLDER, *map(str, shipped.COUNTS)]
    with Path(shipped.OUT).open("w") as out, pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdout", out)
        assert shipped.main(argv) == 0


def test_the_reference_passes_its_tests(step: Path) -> None:
    apply(step)
    assert 2 + max(shipped.COUNTS) < len(os.listdir(shipped.FOLDER)) < len(shipped.ORIGINAL) - 100
    shipped.test_plan_of_the_archives()
    shipped.test_pruned_archives_deleted()
    shipped.test_tool_on_fresh_timestamps(step / "runs")
    shipped.test_tool_rejects_bad_arguments(step / "runs")


def test_a_prune_that_deletes_nothing_fails(step: Path) -> None:
    apply(step, delete=False)
    shipped.test_plan_of_the_archives()
    with pytest.raises(AssertionError):
        shipped.test_pruned_archives_deleted()


def test_a_plan_without_weeks_fails(step: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "TOOL", tool(step, NO_WEEKS))
    with pytest.raises(AssertionError):
        shipped.test_tool_on_fresh_timestamps(step / "runs")


def test_the_wrong_status_on_bad_arguments_fails(step: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapped = "main = retention.main\nretention.main = lambda argv: 1 if main(argv) == 2 else main(argv)"
    monkeypatch.setattr(shipped, "TOOL", tool(step, wrapped))
    with pytest.raises(AssertionError):
        shipped.test_tool_rejects_bad_arguments(step / "runs")
