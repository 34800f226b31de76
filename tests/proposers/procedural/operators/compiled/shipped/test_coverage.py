"""c-coverage-report's shipped code, called directly on a small project: the solution's report counts the
lines and functions each run reaches and passes the test; a report with a count changed, or one measured
without the runs on the inputs, fails it."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.compiled.shipped import coverage

MAIN_C = """#include <stdio.h>
#include "util.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE\\n", argv[0]);
        return 2;
    }
    printf("%d\\n", twice(21));
    return 0;
}
"""
UTIL_C = """#include "util.h"

int twice(int x)
{
    return 2 * x;
}

int never(int x)
{
    return x - 1;
}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "main.c").write_text(MAIN_C)
    (src / "util.c").write_text(UTIL_C)
    (src / "util.h").write_text("int twice(int x);\nint never(int x);\n")
    (tmp_path / "data.txt").write_text("1 2 3\n")
    for name, value in {
        "OUT": str(tmp_path / "out" / "demo_coverage.csv"),
        "SOURCES": [str(src / "main.c"), str(src / "util.c")],
        "SRCDIR": str(src),
        "INCLUDE_DIRS": [],
        "STD": "-std=c11",
        "COMPILER": "gcc",
        "LIBRARIES": [],
        "PROGRAM_NAME": "demo",
        "INPUTS": [str(tmp_path / "data.txt")],
    }.items():
        monkeypatch.setattr(coverage, name, value)
    (tmp_path / "t").mkdir()
    return tmp_path


def report() -> list[list[str]]:
    with open(coverage.OUT, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_the_report_counts_the_runs_and_passes(project: Path) -> None:
    coverage.main()
    rows = report()
    assert rows[0] == coverage.HEADER and [r[0] for r in rows[1:]] == ["main.c", "util.c"]
    main, util = ({"lines": int(r[1]), "executed": int(r[2]), "functions": r[4], "called": r[5]} for r in rows[1:])
    assert main["executed"] == main["lines"] and (main["functions"], main["called"]) == ("1", "1")
    assert 0 < util["executed"] < util["lines"] and (util["functions"], util["called"]) == ("2", "1")
    assert rows[2][3] == f"{100 * util['executed'] / util['lines']:.2f}"
    coverage.test_coverage_report(project / "t")


def test_a_changed_count_fails(project: Path) -> None:
    coverage.main()
    rows = report()
    rows[2][2] = str(int(rows[2][2]) - 1)
    with open(coverage.OUT, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    with pytest.raises(AssertionError):
        coverage.test_coverage_report(project / "t")


def test_a_report_without_the_input_runs_fails(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = coverage.INPUTS
    monkeypatch.setattr(coverage, "INPUTS", [])
    coverage.main()
    assert report()[2][2] == "0"  # only the usage message ran: nothing of util.c
    monkeypatch.setattr(coverage, "INPUTS", inputs)
    with pytest.raises(AssertionError):
        coverage.test_coverage_report(project / "t")
