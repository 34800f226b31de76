"""What `cron-next-runs` ships: the tool's command line (over the cron rules of `cron.py`, rendered before
it), and the tests that compare the tool with those rules on the step's schedule, on fresh schedules and on
malformed entries. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import datetime
import pathlib
import random
import re
import sys

from rst_synth.proposers.procedural.operators.kit.testkit import run_tool
from rst_synth.proposers.procedural.operators.schedule.shipped.cron import MalformedEntry, next_runs

TOOL = "/app/bin/appdata-backup_next_runs"
SRC = "/etc/cron.d/appdata-backup"
OUT = "/app/schedule/appdata-backup_next_runs.txt"
START = "2026-05-01T00:00"
COUNT = 12
USER_FIELD = True
SEED = 1234


def main(argv: list[str]) -> int:
    try:
        path, start, count = argv[1:]
        start, count = datetime.datetime.strptime(start, "%Y-%m-%dT%H:%M"), int(count)  # type: ignore[assignment]
        if count < 1:  # type: ignore[operator]
            raise ValueError(count)
    except ValueError:
        print("usage: " + argv[0] + " FILE YYYY-MM-DDTHH:MM N", file=sys.stderr)
        return 2
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        lines = next_runs(text, USER_FIELD, start, count)  # type: ignore[arg-type]
    except MalformedEntry as bad:
        print(f"line {bad.args[0]}: malformed cron entry", file=sys.stderr)
        return 2
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


def entry(times: str) -> str:
    return times + (" root" if USER_FIELD else "") + " /usr/local/bin/job.sh --flag >> /tmp/job.log 2>&1"


def random_field(rng: random.Random, low: int, high: int, day_field: bool) -> str:
    if rng.random() < 0.3:
        return "*"
    items = []
    for _ in range(rng.randint(1, 3)):
        first = rng.randint(low, high)
        last = rng.randint(first, high)
        kind = rng.randrange(3 if day_field else 4)  # no */n in day fields: "restricted" stays obvious
        forms = [str(first), f"{first}-{last}", f"{first}-{last}/{rng.randint(1, 7)}", f"*/{rng.randint(1, 13)}"]
        items.append(forms[kind])
    return ",".join(items)


def fresh_schedules(seed: int) -> list[tuple[list[str], str, int]]:
    rng = random.Random(seed)
    cases = [
        (
            [
                "# lists, ranges, steps",
                "MAILTO=ops",
                entry("5,20,47 8,17 * * *"),
                entry("0 9-11 * * 1-5"),
                "",
                entry("*/20 */5 * * *"),
            ],
            "2026-03-01T07:58",
            25,
        ),
        (
            [entry("10-50/15 2-22/4 * * 1-5"), "SHELL=/bin/sh", entry("0 0 13 * 5"), entry("30 18 * * 7")],
            "2026-01-30T12:00",
            30,
        ),
        ([entry("0 12 29 2 *")], "2027-01-10T00:00", 3),
        ([entry("0 0 13 * 5")], "2026-04-01T00:00", 6),
        (["# Sundays", entry("30 18 * * 7")], "2026-04-01T00:00", 3),
        (
            [entry("0 12 * * *"), "# the same minute", entry("0 12 * * 0-6"), entry("0 */12 * * *")],
            "2026-06-30T11:59",
            9,
        ),
        ([entry("0 0 30 2 *"), "PATH = /usr/bin:/bin", entry("45 23 31 12 *")], "2026-12-31T23:44", 3),
        (["  # never", entry("0 0 30 2 *")], "2026-05-05T05:05", 4),
    ]
    for _ in range(5):
        lines = []
        for _ in range(rng.randint(2, 5)):
            if rng.random() < 0.3:
                lines.append(rng.choice(["# note", "", "MAILTO=root", "\t# indented"]))
            dom, dow = random_field(rng, 1, 31, True), random_field(rng, 0, 7, True)
            times = [
                random_field(rng, 0, 59, False),
                random_field(rng, 0, 23, False),
                dom,
                random_field(rng, 1, 12, False),
                dow,
            ]
            lines.append(entry(rng.choice([" ", "\t"]).join(times)))
        start = datetime.datetime(2026, 1, 1) + datetime.timedelta(minutes=rng.randrange(730 * 1440))
        cases.append((lines, f"{start:%Y-%m-%dT%H:%M}", rng.randint(5, 40)))
    return cases


MALFORMED = [
    "61 * * * *",
    "0 24 * * *",
    "0 0 0 * *",
    "0 0 1 13 *",
    "0 0 * * 8",
    "*/0 * * * *",
    "0-30/0 * * * *",
    "30-10 * * * *",
    "0 0 * * mon",
    "@daily",
]


def expected(text: str, start: str, count: int) -> str:
    when = datetime.datetime.strptime(start, "%Y-%m-%dT%H:%M")
    return "".join(line + "\n" for line in next_runs(text, USER_FIELD, when, count))


def test_next_runs_of_the_schedule() -> None:
    want = expected(pathlib.Path(SRC).read_text(encoding="utf-8"), START, COUNT)
    assert want
    assert pathlib.Path(OUT).read_text(encoding="utf-8") == want


def test_tool_on_fresh_schedules(tmp_path: pathlib.Path) -> None:
    for k, (lines, start, count) in enumerate(fresh_schedules(SEED)):
        text = "\n".join(lines) + "\n"
        path = tmp_path / f"schedule{k}"
        path.write_text(text, encoding="utf-8")
        done = run_tool(TOOL, path, start, count, timeout=30)
        assert done.returncode == 0, (text, done.stderr[-500:])
        assert done.stdout.decode("utf-8") == expected(text, start, count), (text, start, count)
    leap = tmp_path / "schedule2"
    assert run_tool(TOOL, leap, "2027-01-10T00:00", 1).stdout.decode().split()[0] == "2028-02-29T12:00"


def test_tool_rejects_malformed_entries(tmp_path: pathlib.Path) -> None:
    too_few = "0 0 * * *" + (" /bin/true" if USER_FIELD else "")
    for k, bad in enumerate([entry(times) for times in MALFORMED] + [too_few]):
        head = ["# header", "SHELL=/bin/sh", entry("15 */6 * * *")] + ["# more"] * (k % 3)
        path = tmp_path / f"bad{k}"
        path.write_text("\n".join(head + [bad, entry("0 1 * * *")]) + "\n", encoding="utf-8")
        done = run_tool(TOOL, path, "2026-05-01T00:00", 5, timeout=30)
        assert done.returncode == 2 and done.stdout == b"", bad
        assert re.search(rf"\b{len(head) + 1}\b", done.stderr.decode("utf-8", "replace")), (bad, done.stderr)
