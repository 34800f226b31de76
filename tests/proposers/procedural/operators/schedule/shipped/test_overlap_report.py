"""The tests cron-overlap-report ships, on its reference tool (`overlap_report.main` over the shipped cron
rules): they pass; a report short of a pair, a tool that runs each job a minute longer or one that exits 1
on bad input fails them."""

from __future__ import annotations

import datetime
import os
import sys
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.schedule.shipped import overlap_report as shipped
from tests.support.shipped import tool_file

SCHEDULE = "SHELL=/bin/sh\n15 */6 * * * /usr/local/bin/backup.sh\n30 2 * * 0 /usr/local/bin/backup.sh --full\n"
OTHER = "# maintenance\nMAILTO=dba\n10 0 * * * /usr/local/bin/db-dump.sh --all\n0 */4 * * * /usr/local/bin/rotate.sh\n"
DURATIONS = (
    "# minutes\n75 /usr/local/bin/backup.sh\n400 /usr/local/bin/backup.sh --full\n"
    "95 /usr/local/bin/db-dump.sh --all\n20 /usr/local/bin/rotate.sh\n"
)


def tool(folder: Path, tweak: str = "") -> str:
    """The reference as an executable, `tweak` breaking it subtly."""
    code = f"from rst_synth.proposers.procedural.operators.schedule.shipped import overlap_report\n{tweak}\n"
    return tool_file(folder / "overlaps", code, "sys.exit(overlap_report.main(sys.argv))")


@pytest.fixture
def step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src, other, durations = tmp_path / "jobs.cron", tmp_path / "m.cron", tmp_path / "durations.txt"
    for path, text in ((src, SCHEDULE), (other, OTHER), (durations, DURATIONS)):
        path.write_text(text)
    start, end = (datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M") for t in (shipped.START, shipped.END))
    files = [(str(src), SCHEDULE), (str(other), OTHER)]
    out = tmp_path / "overlaps.txt"
    out.write_text(
        "".join(line + "\n" for line in shipped.overlaps(files, shipped.durations_of(DURATIONS), start, end))
    )
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(sys.path))
    params = {
        "TOOL": tool(tmp_path),
        "SRC": str(src),
        "OTHER": str(other),
        "DURATIONS": str(durations),
        "OUT": str(out),
    }
    for name, value in params.items():
        monkeypatch.setattr(shipped, name, value)
    (tmp_path / "runs").mkdir()
    return tmp_path


def test_the_reference_passes_its_tests(step: Path) -> None:
    shipped.test_overlaps_of_the_week()
    shipped.test_tool_on_fresh_schedules(step / "runs")
    shipped.test_tool_rejects_bad_input(step / "runs")


def test_a_report_short_of_a_pair_fails(step: Path) -> None:
    out = Path(shipped.OUT)
    lines = out.read_text().splitlines(keepends=True)
    assert len(lines) > 1
    out.write_text("".join(lines[:-1]))
    with pytest.raises(AssertionError):
        shipped.test_overlaps_of_the_week()


def test_jobs_a_minute_longer_fail(step: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    longer = "durations_of = overlap_report.durations_of\n" + (
        "overlap_report.durations_of = lambda text: {c: m + 1 for c, m in durations_of(text).items()}"
    )
    monkeypatch.setattr(shipped, "TOOL", tool(step, longer))
    with pytest.raises(AssertionError):
        shipped.test_tool_on_fresh_schedules(step / "runs")


def test_the_wrong_status_on_bad_input_fails(step: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapped = "main = overlap_report.main\noverlap_report.main = lambda argv: 1 if main(argv) == 2 else main(argv)"
    monkeypatch.setattr(shipped, "TOOL", tool(step, wrapped))
    with pytest.raises(AssertionError):
        shipped.test_tool_rejects_bad_input(step / "runs")
