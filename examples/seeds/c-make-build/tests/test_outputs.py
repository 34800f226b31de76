"""Checks of the Makefile (in a scratch copy) and of the tool's output, recomputed in Python."""
import os
import shutil
import statistics
import subprocess
from pathlib import Path

APP = Path("/app")
SOURCES = ["main.c", "parse.c", "parse.h", "stats.c", "stats.h"]


def readings():
    values = []
    for line in (APP / "data/readings.txt").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            values.append(float(line.split()[1]))
    return values


def make(workdir, *args):
    return subprocess.run(["make", "-C", str(workdir), *args], capture_output=True, text=True)


def scratch_build(tmp_path):
    work = tmp_path / "work"
    shutil.copytree(APP / "src", work / "src")
    shutil.copy2(APP / "Makefile", work / "Makefile")
    result = make(work)
    assert result.returncode == 0, result.stdout + result.stderr
    return work


def test_sources_and_data_untouched():
    assert sorted(p.name for p in (APP / "src").iterdir()) == SOURCES
    assert len(readings()) == 737


def test_make_builds_objects_and_binary(tmp_path):
    work = scratch_build(tmp_path)
    assert os.access(work / "numstat", os.X_OK)
    for name in SOURCES:
        if name.endswith(".c"):
            assert (work / "build" / name.replace(".c", ".o")).is_file(), name
    assert make(work, "-q", "numstat").returncode == 0


def test_header_change_triggers_rebuild(tmp_path):
    work = scratch_build(tmp_path)
    past = 1_600_000_000  # long ago: anything make rebuilds is newer
    for path in work.rglob("*"):
        os.utime(path, (past, past))
    os.utime(work / "src/stats.h", (past + 10, past + 10))
    assert make(work, "-q", "numstat").returncode != 0
    assert make(work).returncode == 0
    for obj in ("main.o", "stats.o"):
        assert (work / "build" / obj).stat().st_mtime > past + 10, obj
    assert (work / "numstat").stat().st_mtime > past + 10
    assert make(work, "-q", "numstat").returncode == 0


def test_make_clean(tmp_path):
    work = scratch_build(tmp_path)
    assert make(work, "clean").returncode == 0
    assert not (work / "numstat").exists()
    assert not (work / "build").exists()
    assert (work / "src/main.c").is_file()


def parse_stats(text):
    pairs = dict(line.split("=", 1) for line in text.splitlines() if line.strip())
    return {key.strip(): float(value) for key, value in pairs.items()}


def test_stats_output_values():
    got = parse_stats((APP / "out/stats.txt").read_text())
    values = readings()
    want = {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": statistics.fmean(values),
        "stddev": statistics.pstdev(values),
        "median": statistics.median(values),
    }
    assert set(got) == set(want)
    for key, value in want.items():
        assert abs(got[key] - value) < 0.0011, key


def test_installed_binary_matches_output():
    assert os.access(APP / "numstat", os.X_OK)
    run = subprocess.run([str(APP / "numstat"), str(APP / "data/readings.txt")],
                         capture_output=True, text=True, check=True)
    assert parse_stats(run.stdout) == parse_stats((APP / "out/stats.txt").read_text())
