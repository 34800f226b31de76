"""The tests cron-next-runs ships, on its reference tool (`next_runs.main` over the shipped cron rules):
they pass; a report missing its last run, a tool whose window ends too soon or one that exits 1 on a
malformed entry fails them."""

from __future__ import annotations

import datetime
import os
import sys
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.schedule.shipped import cron, next_runs
from tests.support.shipped import tool_file

SCHEDULE = (
    "SHELL=/bin/sh\n15 */6 * * * root /usr/local/bin/backup.sh\n30 2 * * 0 root /usr/local/bin/backup.sh --full\n"
)


def tool(tmp_path: Path, tweak: str = "") -> str:
    """The reference as an executable: USER_FIELD set as the step sets it, `tweak` breaking it subtly."""
    code = (
        "from rst_synth.proposers.procedural.operators.schedule.shipped import cron, next_runs\n"
        f"next_runs.USER_FIELD = {next_runs.USER_FIELD!r}\n{tweak}\n"
    )
    return tool_file(tmp_path / "next_runs", code, "sys.exit(next_runs.main(sys.argv))")


@pytest.fixture
def step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src, out = tmp_path / "schedule", tmp_path / "next_runs.txt"
    src.write_text(SCHEDULE)
    start = datetime.datetime.strptime(next_runs.START, "%Y-%m-%dT%H:%M")
    out.write_text("".join(line + "\n" for line in cron.next_runs(SCHEDULE, True, start, next_runs.COUNT)))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(sys.path))
    for name, value in {"TOOL": tool(tmp_path), "SRC": str(src), "OUT": str(out), "USER_FIELD": True}.items():
        monkeypatch.setattr(next_runs, name, value)
    (tmp_path / "runs").mkdir()
    return tmp_path


def test_the_reference_passes_its_tests(step: Path) -> None:
    next_runs.test_next_runs_of_the_schedule()
    next_runs.test_tool_on_fresh_schedules(step / "runs")
    next_runs.test_tool_rejects_malformed_entries(step / "runs")


def test_a_report_short_of_a_run_fails(step: Path) -> None:
    out = Path(next_runs.OUT)
    out.write_text("".join(out.read_text().splitlines(keepends=True)[:-1]))
    with pytest.raises(AssertionError):
        next_runs.test_next_runs_of_the_schedule()


def test_a_window_too_short_fails(step: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(next_runs, "TOOL", tool(step, "cron.WINDOW_YEARS = 0"))
    with pytest.raises(AssertionError):
        next_runs.test_tool_on_fresh_schedules(step / "runs")


def test_the_wrong_status_on_a_malformed_entry_fails(step: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapped = "main = next_runs.main\nnext_runs.main = lambda argv: 1 if main(argv) == 2 else main(argv)"
    monkeypatch.setattr(next_runs, "TOOL", tool(step, wrapped))
    with pytest.raises(AssertionError):
        next_runs.test_tool_rejects_malformed_entries(step / "runs")
