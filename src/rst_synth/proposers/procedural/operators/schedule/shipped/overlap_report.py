"""What `cron-overlap-report` ships: the tool (its overlap rules and command line, over the cron rules of
`cron.py`, rendered before it), and the tests that compare it with those rules on the step's week, on fresh
schedules and on bad input. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import datetime
import pathlib
import random
import re
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool
from rst_synth.proposers.procedural.operators.schedule.shipped.cron import (
    ASSIGNMENT,
    MalformedEntry,
    cron_entries,
    entry_runs,
)

TOOL = "/app/bin/appdata_backup_overlaps"
SRC = "/etc/cron.d/appdata-backup"
OTHER = "/app/incoming/maintenance.cron"
DURATIONS = "/app/incoming/durations.txt"
OUT = "/app/schedule/appdata_backup_overlaps.txt"
START = "2026-03-02T00:00"
END = "2026-03-09T00:00"
SEED = 1234


class MissingDuration(Exception):
    pass


def commands(text: str, user_field: bool) -> dict[int, str]:
    found = {}
    skip = 6 if user_field else 5
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and not ASSIGNMENT.match(stripped):
            match = re.match(r"(\S+\s+){%d}(.*)$" % skip, stripped)  # noqa: UP031  # as it ships
            found[number] = match[2].strip() if match else ""
    return found


def durations_of(text: str) -> dict[str, int]:
    found = {}
    for line in text.split("\n"):
        if not line.strip() or line.strip().startswith("#"):
            continue
        match = re.fullmatch(r"\s*([0-9]+)\s+(.*?)\s*", line)
        if match is None or int(match[1]) < 1:
            raise ValueError("bad duration line: " + line)
        found[match[2]] = int(match[1])
    return found


def overlaps(
    files: list[tuple[str, str]], durations: dict[str, int], start: datetime.datetime, end: datetime.datetime
) -> list[str]:
    runs: list[tuple[Any, ...]] = []
    for position, (name, text) in enumerate(files):
        user_field = name.startswith("/etc/cron.d/") or name == "/etc/crontab"
        try:
            entries = cron_entries(text, user_field)
        except MalformedEntry as bad:
            raise MalformedEntry(f"{name}:{bad.args[0]}")  # noqa: B904  # as it ships
        texts = commands(text, user_field)
        for entry in entries:
            if texts[entry[0]] not in durations:
                raise MissingDuration(f"{name}:{entry[0]}")
            minutes = durations[texts[entry[0]]]
            for when, number in entry_runs(entry, start - datetime.timedelta(minutes=1), end.date()):
                if when >= end:
                    break
                runs.append((when, position, number, minutes, name))
    runs.sort()
    lines = []
    for k, (when, _, number, minutes, name) in enumerate(runs):
        finish = when + datetime.timedelta(minutes=minutes)
        for other, _, other_number, other_minutes, other_name in runs[k + 1 :]:
            if other >= finish:
                break
            shared = min(finish, other + datetime.timedelta(minutes=other_minutes)) - other
            lines.append(
                f"{when:%Y-%m-%dT%H:%M} {name}:{number} {other:%Y-%m-%dT%H:%M} {other_name}:{other_number} "
                f"{int(shared.total_seconds() // 60)}"
            )
    return lines


def main(argv: list[str]) -> int:
    try:
        durations_file, start, end, *files = argv[1:]
        start = datetime.datetime.strptime(start, "%Y-%m-%dT%H:%M")  # type: ignore[assignment]
        end = datetime.datetime.strptime(end, "%Y-%m-%dT%H:%M")  # type: ignore[assignment]
        if not files or end <= start:
            raise ValueError(argv)
        with open(durations_file, encoding="utf-8") as f:
            durations = durations_of(f.read())
        texts = []
        for name in files:
            with open(name, encoding="utf-8") as f:
                texts.append((name, f.read()))
        lines = overlaps(texts, durations, start, end)  # type: ignore[arg-type]
    except (ValueError, OSError) as exc:
        print("usage: " + argv[0] + " DURATIONS START END FILE... (" + str(exc) + ")", file=sys.stderr)
        return 2
    except (MalformedEntry, MissingDuration) as exc:
        kind = "malformed cron entry" if isinstance(exc, MalformedEntry) else "no duration for the entry"
        print(f"{exc.args[0]}: {kind}", file=sys.stderr)
        return 2
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


COMMANDS = ["run-a.sh", "backup.sh --full", "x/run  --twice", "true"]


def fresh_case(rng: random.Random, folder: pathlib.Path, k: int) -> tuple[str, str, str, list[str]]:
    files = []
    for n in range(rng.randint(1, 3)):
        lines = []
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.3:
                lines.append(rng.choice(["# comment", "", "MAILTO=ops"]))
            minute = rng.choice(["0", "*/20", "15,45", "5-50/15", str(rng.randint(0, 59))])
            hour = rng.choice(["*", "*/6", "0-6", "9,13", str(rng.randint(0, 23))])
            weekday = rng.choice(["*", "*", "1-5", "0", "7"])
            lines.append(f"{minute} {hour} * * {weekday}\t{rng.choice(COMMANDS)}")
        path = folder / f"case{k}-{n}.cron"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(str(path))
    durations = folder / f"case{k}.durations"
    durations.write_text(
        "# minutes command\n" + "".join(f"{rng.randint(1, 400)} {c}\n" for c in COMMANDS), encoding="utf-8"
    )
    start = datetime.datetime(2026, 1, 1) + datetime.timedelta(minutes=rng.randrange(300 * 1440))
    end = start + datetime.timedelta(minutes=rng.choice([90, 1440, 3 * 1440]))
    return str(durations), f"{start:%Y-%m-%dT%H:%M}", f"{end:%Y-%m-%dT%H:%M}", files


def expected(durations: str, start: str, end: str, files: list[str]) -> str:
    texts = [(name, pathlib.Path(name).read_text(encoding="utf-8")) for name in files]
    durations = durations_of(pathlib.Path(durations).read_text(encoding="utf-8"))  # type: ignore[assignment]
    when = [datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M") for t in (start, end)]
    return "".join(line + "\n" for line in overlaps(texts, durations, *when))  # type: ignore[arg-type]


def test_overlaps_of_the_week() -> None:
    want = expected(DURATIONS, START, END, [SRC, OTHER])
    assert want
    assert pathlib.Path(OUT).read_text(encoding="utf-8") == want


def test_tool_on_fresh_schedules(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    for k in range(6):
        durations, start, end, files = fresh_case(rng, tmp_path, k)
        done = run_tool(TOOL, durations, start, end, *files, timeout=60)
        assert done.returncode == 0, done.stderr[-500:]
        assert done.stdout.decode("utf-8") == expected(durations, start, end, files), (start, end, files)


def test_tool_rejects_bad_input(tmp_path: pathlib.Path) -> None:
    schedule = tmp_path / "jobs.cron"
    schedule.write_text("# jobs\n0 * * * * /bin/a\n*/0 * * * * /bin/b\n", encoding="utf-8")
    durations = tmp_path / "d.txt"
    durations.write_text("5 /bin/a\n5 /bin/b\n", encoding="utf-8")
    done = run_tool(TOOL, durations, "2026-01-01T00:00", "2026-01-02T00:00", schedule)
    assert_usage_error(done, says=str(schedule).encode() + b":3")
    schedule.write_text("0 * * * * /bin/a\n30 1 * * * /bin/c\n", encoding="utf-8")
    done = run_tool(TOOL, durations, "2026-01-01T00:00", "2026-01-02T00:00", schedule)
    assert_usage_error(done, says=str(schedule).encode() + b":2")
    for args in (
        [durations, "2026-01-02T00:00", "2026-01-01T00:00", schedule],
        [durations, "x", "y", schedule],
        [durations, "2026-01-01T00:00", "2026-01-02T00:00"],
    ):
        done = run_tool(TOOL, *args)
        assert_usage_error(done, args)
