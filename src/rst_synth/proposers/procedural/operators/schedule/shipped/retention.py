"""What `backup-retention-gfs` ships: the retention tool (its plan of what to keep by day, ISO week and month,
and its command line), and the tests that plan again from the archives' names, on the step's folder and on
fresh timestamps. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import datetime
import os
import pathlib
import random
import re
import sys
from collections.abc import Callable
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/appdata_backup_retention"
FOLDER = "/app/incoming/r3s2/archives"
OUT = "/app/retention/appdata_backup_plan.txt"
PREFIX = "appdata-backup"
SEED = 1234
COUNTS = (7, 4, 3)
ORIGINAL = ["README.txt", "appdata-backup-20260105-0015.tar.gz", "appdata-backup-latest.tar.gz"]


def archives(names: list[str]) -> list[tuple[datetime.datetime, str]]:
    pattern = re.compile(re.escape(PREFIX) + r"-([0-9]{8})-([0-9]{4})\.tar\.gz")
    found = []
    for name in names:
        match = pattern.fullmatch(name)
        if match is None:
            continue
        try:
            when = datetime.datetime.strptime(match[1] + match[2], "%Y%m%d%H%M")
        except ValueError:
            continue
        found.append((when, name))
    return sorted(found, reverse=True)


def plan(names: list[str], daily: int, weekly: int, monthly: int) -> list[str]:
    found = archives(names)
    reasons: dict[str, list[str]] = {name: [] for _, name in found}
    rules: tuple[tuple[str, int, Callable[[datetime.datetime], Any]], ...] = (
        ("daily", daily, lambda when: when.date()),
        ("weekly", weekly, lambda when: when.isocalendar()[:2]),
        ("monthly", monthly, lambda when: (when.year, when.month)),
    )
    for rule, count, period in rules:
        seen: list[Any] = []
        for when, name in found:
            if len(seen) >= count:
                break
            if period(when) not in seen:
                seen.append(period(when))
                reasons[name].append(rule)
    return [f"keep {name} {','.join(reasons[name])}" if reasons[name] else f"delete {name}" for _, name in found]


def main(argv: list[str]) -> int:
    args = argv[1:]
    delete = bool(args) and args[0] == "--delete"
    args = args[1:] if delete else args
    try:
        folder, daily, weekly, monthly = args
        counts = [int(c) for c in (daily, weekly, monthly) if re.fullmatch(r"[0-9]+", c)]
        if len(counts) != 3 or not os.path.isdir(folder):
            raise ValueError(args)
    except ValueError:
        print("usage: " + argv[0] + " [--delete] DIR DAILY WEEKLY MONTHLY", file=sys.stderr)
        return 2
    lines = plan(os.listdir(folder), *counts)
    if delete:
        for line in lines:
            if line.startswith("delete "):
                os.remove(os.path.join(folder, line[len("delete ") :]))
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


def fresh_names(seed: int) -> list[str]:
    rng = random.Random(seed)
    start = datetime.datetime(rng.choice([2025, 2026]), rng.choice([11, 12]), rng.randint(1, 28), 0, 0)
    names = {
        "README",
        PREFIX + "-latest.tar.gz",
        PREFIX + "-20260230-0100.tar.gz",
        PREFIX + "-20260101-2460.tar.gz",
        "other-20260101-0100.tar.gz",
        PREFIX + "-20260101-0100.tar.gz.part",
        PREFIX + "-2026010-0100.tar.gz",
    }
    when = start
    for _ in range(rng.randint(40, 160)):
        when += datetime.timedelta(minutes=rng.choice([7, 90, 360, 1440, 1440, 2880, 10000]))
        names.add(f"{PREFIX}-{when:%Y%m%d-%H%M}.tar.gz")
    return sorted(names)


def test_plan_of_the_archives() -> None:
    lines = plan(ORIGINAL, *COUNTS)
    assert any(line.startswith("delete ") for line in lines)
    assert pathlib.Path(OUT).read_text(encoding="utf-8") == "".join(line + "\n" for line in lines)


def test_pruned_archives_deleted() -> None:
    gone = {line.split()[1] for line in plan(ORIGINAL, *COUNTS) if line.startswith("delete ")}
    assert sorted(os.listdir(FOLDER)) == sorted(set(ORIGINAL) - gone)


def test_tool_on_fresh_timestamps(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    for k in range(6):
        names = fresh_names(SEED + k)
        counts = [rng.choice([0, 1, 2, 3, 7]), rng.choice([0, 1, 2, 5]), rng.choice([0, 1, 3, 12])]
        folder = tmp_path / f"backups{k}"
        folder.mkdir()
        for name in names:
            (folder / name).write_text(name, encoding="utf-8")
        want = "".join(line + "\n" for line in plan(names, *counts))
        done = run_tool(TOOL, folder, *counts)
        assert done.returncode == 0, done.stderr[-500:]
        assert done.stdout.decode("utf-8") == want, (names, counts)
        assert sorted(os.listdir(folder)) == names
        done = run_tool(TOOL, "--delete", folder, *counts)
        assert done.returncode == 0 and done.stdout.decode("utf-8") == want
        gone = {line.split()[1] for line in plan(names, *counts) if line.startswith("delete ")}
        assert sorted(os.listdir(folder)) == sorted(set(names) - gone)


def test_tool_rejects_bad_arguments(tmp_path: pathlib.Path) -> None:
    for args in ([tmp_path, 1, 2], [tmp_path, 1, 2, "x"], [tmp_path, -1, 2, 3], [tmp_path / "none", 1, 2, 3]):
        done = run_tool(TOOL, *args)
        assert_usage_error(done, args)
