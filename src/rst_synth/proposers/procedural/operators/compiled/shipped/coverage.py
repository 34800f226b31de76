"""What `c-coverage-report` ships: `coverage_rows` makes a coverage build (`-O0 --coverage`) of a program in a
scratch folder, runs it the way the task runs it and reads gcov's JSON counts per source file; the solution's
`main` writes them as the CSV report, and the test compares the report with a build of its own. The
constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import decimal
import json
import pathlib
import shutil
import subprocess
import tempfile

OUT = "/app/coverage/tally_coverage.csv"
HEADER = ["source", "lines", "executed", "percent", "functions", "called"]
SOURCES = ["/app/src/main.c", "/app/src/tally.c"]
"""The program's sources, the one with `main` first."""
SRCDIR = "/app/src"
INCLUDE_DIRS: list[str] = []
STD = "-std=c11"
"""The language standard flag, or empty."""
COMPILER = "gcc"
LIBRARIES = ["-lm"]
PROGRAM_NAME = "tally"
INPUTS = ["/app/data/numbers.txt"]
"""The runs besides the one with no argument: each file as the only argument, one at a time."""


def coverage_rows(build: pathlib.Path) -> list[list[str]]:
    # Build with -O0 --coverage in `build`, make the runs, and read gcov's JSON for each source.
    build.mkdir(parents=True)
    flags = [STD] if STD else []
    flags += [f"-I{d}" for d in [SRCDIR, *INCLUDE_DIRS]]
    objects = []
    for source in SOURCES:
        obj = build / (pathlib.Path(source).stem + ".o")
        done = subprocess.run(
            [COMPILER, "-O0", "--coverage", *flags, "-c", source, "-o", str(obj)],
            capture_output=True,
            text=True,
            cwd=build,
        )
        assert done.returncode == 0, done.stderr[-1500:]
        objects.append(str(obj))
    program = build / PROGRAM_NAME
    done = subprocess.run(
        [COMPILER, "--coverage", "-o", str(program), *objects, *LIBRARIES], capture_output=True, text=True, cwd=build
    )
    assert done.returncode == 0, done.stderr[-1500:]
    runs: list[list[str]] = [[]] + [[p] for p in INPUTS]
    for args in runs:
        scratch = build.parent / "run"
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir()
        copies = []
        for arg in args:
            shutil.copy2(arg, scratch / pathlib.Path(arg).name)
            copies.append(str(scratch / pathlib.Path(arg).name))
        try:
            subprocess.run(
                [str(program), *copies], cwd=scratch, stdin=subprocess.DEVNULL, capture_output=True, timeout=20
            )
        except subprocess.TimeoutExpired:
            pass
    rows = []
    for source in sorted(SOURCES, key=lambda s: pathlib.Path(s).name):
        name = pathlib.Path(source).name
        gcda = build / (pathlib.Path(source).stem + ".gcda")
        out = subprocess.run(
            ["gcov", "--json-format", "--stdout", str(gcda)], capture_output=True, text=True, cwd=build
        )
        lines: dict[int, int] = {}
        functions: dict[str, int] = {}
        for record in out.stdout.splitlines():
            for entry in json.loads(record)["files"]:
                if pathlib.Path(entry["file"]).name != name:
                    continue
                for line in entry["lines"]:
                    lines[line["line_number"]] = lines.get(line["line_number"], 0) + line["count"]
                for function in entry["functions"]:
                    functions[function["name"]] = functions.get(function["name"], 0) + function["execution_count"]
        executed = sum(1 for count in lines.values() if count > 0)
        share = decimal.Decimal(100 * executed) / decimal.Decimal(len(lines)) if lines else decimal.Decimal(0)
        percent = share.quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP)
        called = sum(1 for count in functions.values() if count > 0)
        rows.append([name, str(len(lines)), str(executed), str(percent), str(len(functions)), str(called)])
    return rows


def main() -> None:
    rows = coverage_rows(pathlib.Path(tempfile.mkdtemp()) / "build")
    pathlib.Path(OUT).parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([HEADER, *rows])


def test_coverage_report(tmp_path: pathlib.Path) -> None:
    with open(OUT, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == HEADER
    assert rows[1:] == coverage_rows(tmp_path / "build")
