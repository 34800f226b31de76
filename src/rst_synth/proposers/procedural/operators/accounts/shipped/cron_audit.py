"""What `accounts-cron-audit` ships: the tool (`main`: an old host's crontab spool audited against the roster and
a maintenance window, each job's runs in the window listed, leavers' and strangers' jobs flagged, runs counted per
owner), the reference audit it runs (`audit`, by the cron rules `schedule` and `fires` read), the windows and
spools the step plants and the tests make up (`window`, `crontabs`), and the tests that compare the saved report
and the tool's reports on made-up spools with the reference. The constants are the step's parameters:
`shipping.render` sets them."""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import pathlib
import random
import re
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.accounts.shipped.login_review import (
    OUTSIDERS,
    fresh_roster,
    write_roster,
)
from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/cron-audit"
SPOOL = "/app/incoming/s1/crontabs"
ROSTER = "/app/onboarding/roster.csv"
REPORT = "/app/audit/cron_audit.json"
SEED = 1234
WANT: dict[str, Any] = {"jobs": [], "runs_per_owner": {}}
"""The audit of the planted spool over the window, worked out when the step was built."""

STAMP = "%Y-%m-%dT%H:%M"
STAMP_FORM = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")
SETTING = re.compile(r"[A-Za-z_][A-Za-z0-9_]*[ \t]*=.*")
"""An environment line (`MAILTO=ops@example.com`, `PATH = /usr/bin:/bin`): a setting of the jobs, no job."""
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
FIELDS = ((0, 59, ()), (0, 23, ()), (1, 31, ()), (1, 12, MONTHS), (0, 7, WEEKDAYS))
"""Each time field's lowest and highest value, and the names that stand for its values (from the lowest)."""
NICKNAMES = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@reboot": "",
}
HEADER = (
    "# Edit this file to introduce tasks to be run by cron.",
    "#",
    "# m h  dom mon dow   command",
)
SETTINGS = (
    "MAILTO=ops@example.com",
    'MAILTO=""',
    "SHELL=/bin/bash",
    "PATH = /usr/local/bin:/usr/bin:/bin",
    "  LOG_DIR=/var/log/jobs",
)
COMMANDS = (
    "/usr/local/bin/queue-flush --drain",  # never a bare path: the tests would read it as a file
    "/usr/local/bin/backup-db --full >> /var/log/backup.log 2>&1",
    "LANG=C /usr/local/bin/report --since=yesterday",
    "/usr/bin/rsync -a /srv/share/ mirror:/srv/share/ # nightly mirror",
    "find /tmp -type f -mtime +7 -delete",
    "/usr/local/bin/rotate-logs --tag $(date +\\%F)",
    "curl -fsS https://status.example.com/ping > /dev/null",
    "python3 /opt/etl/load.py --batch nightly",
    "certbot renew --quiet",
    "pg_dump appdb | gzip > /var/backups/appdb.sql.gz",
)
"""Commands as people write them: an `=` (no setting), a `#` (no comment) and an escaped `%` belong to them."""


def values(text: str, low: int, high: int, names: tuple[str, ...]) -> set[int]:
    """The values a time field's text stands for: a list of `*`, `N`, `A-B`, `*/S`, `A-B/S` (names for numbers)."""

    def number(token: str) -> int:
        return int(token) if token.isdigit() else names.index(token.lower()) + low

    found: set[int] = set()
    for item in text.split(","):
        span, _, step = item.partition("/")
        if span == "*":
            first, last = low, high
        else:
            a, _, b = span.partition("-")
            first = number(a)
            last = number(b) if b else first
        found.update(range(first, last + 1, int(step) if step else 1))  # every S-th from the range's start
    return found


def schedule(line: str) -> tuple[list[Any] | None, str]:
    """A job line's schedule (minutes, hours, days, months, weekdays, and whether each day field starts with
    `*`; None for `@reboot`) and its command."""
    size = 1 if line.startswith("@") else 5
    parts = line.split(None, size)
    fields, command = parts[:size], parts[size] if len(parts) > size else ""
    if size == 1:
        fields = NICKNAMES[fields[0]].split()
        if not fields:
            return None, command  # @reboot: at the next boot, never in a window
    sets = [values(text, low, high, names) for text, (low, high, names) in zip(fields, FIELDS, strict=True)]
    sets[4] = {d % 7 for d in sets[4]}  # weekday 7 is Sunday, as 0 is
    return [*sets, fields[2].startswith("*"), fields[4].startswith("*")], command


def fires(when: list[Any], minute: datetime.datetime) -> bool:
    """Whether a schedule fires at a minute: with both day fields restricted, either day field matching will do."""
    minutes, hours, days, months, weekdays, any_day, any_weekday = when
    if minute.minute not in minutes or minute.hour not in hours or minute.month not in months:
        return False
    day, weekday = minute.day in days, minute.isoweekday() % 7 in weekdays
    return day and weekday if any_day or any_weekday else day or weekday


def audit(
    spool: dict[str, str], roster: dict[str, str], start: datetime.datetime, end: datetime.datetime
) -> dict[str, Any]:
    """The report of a spool (owner -> crontab text) against a roster (username -> status) over [start, end)."""
    window = []
    minute = start
    while minute < end:  # the end itself is the first minute after the window
        window.append(minute)
        minute += datetime.timedelta(minutes=1)
    jobs: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    for owner in sorted(spool):
        status = roster.get(owner)
        flag = "left" if status == "left" else "not_in_roster" if status is None else None
        for number, raw in enumerate(spool[owner].split("\n"), 1):
            line = raw.strip(" \t")
            if not line or line.startswith("#"):
                continue
            if SETTING.fullmatch(line):
                continue  # a setting of the jobs below, no job of its own
            when, command = schedule(line)
            runs = [] if when is None else [m.strftime(STAMP) for m in window if fires(when, m)]
            jobs.append({"owner": owner, "line": number, "command": command, "flag": flag, "runs": runs})
            counts[owner] = counts.get(owner, 0) + len(runs)
    return {"jobs": jobs, "runs_per_owner": counts}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cron-audit", description="Audit a crontab spool over a time window.")
    for option in ("--spool", "--roster", "--start", "--end", "--out"):
        parser.add_argument(option, required=True)
    args = parser.parse_args(argv[1:])  # a missing option: usage on stderr, exit 2
    try:
        if not (STAMP_FORM.fullmatch(args.start) and STAMP_FORM.fullmatch(args.end)):
            raise ValueError("--start and --end take YYYY-MM-DDTHH:MM")
        start = datetime.datetime.strptime(args.start, STAMP)
        end = datetime.datetime.strptime(args.end, STAMP)
        if end <= start:
            raise ValueError("--end must come after --start")
        spool = {p.name: p.read_text(encoding="utf-8") for p in pathlib.Path(args.spool).iterdir() if p.is_file()}
        with open(args.roster, newline="", encoding="utf-8") as f:
            roster = {row["username"]: row["status"] for row in csv.DictReader(f)}
    except (OSError, UnicodeDecodeError, KeyError, ValueError) as error:
        print(f"cron-audit: {error}", file=sys.stderr)
        return 2
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(audit(spool, roster, start, end), indent=2) + "\n", encoding="utf-8")
    return 0


def window(rng: random.Random) -> tuple[datetime.datetime, datetime.datetime]:
    """A maintenance window from a Saturday or Sunday night into the next morning (so a Sunday is in it), half
    the time from a month's last day (across a month's end, on Dec 31 a year's)."""
    year = rng.randrange(2025, 2031)
    nights = [datetime.date(year, 1, 1) + datetime.timedelta(days=k) for k in range(365)]
    nights = [d for d in nights if d.isoweekday() in (6, 7)]
    last_days = [d for d in nights if (d + datetime.timedelta(days=1)).day == 1]
    day = rng.choice(last_days if last_days and rng.random() < 0.5 else nights)
    start = datetime.datetime.combine(day, datetime.time(rng.randrange(22, 24), rng.choice([0, 15, 30, 45])))
    end = datetime.datetime.combine(day, datetime.time(rng.randrange(1, 4), rng.choice([0, 15, 30, 45])))
    return start, end + datetime.timedelta(days=1)


def schedules(rng: random.Random, start: datetime.datetime, end: datetime.datetime) -> list[str]:
    """Schedules that put each rule to the test in the window: steps from a range's start, a job at the window's
    first minute and one at its end, lists, names in any case, both day fields restricted with only one matching,
    a `*/S` day of month with a weekday (both must match), weekday 7, nicknames, a job that never fires."""
    days = [start.date(), end.date()]  # a window from one night into the next morning
    weekdays = {d.isoweekday() % 7 for d in days}

    def inside(day: datetime.date | None = None) -> datetime.datetime:
        """A random minute of the window (on `day` when given)."""
        first, last = start, end
        if day is not None:
            first = max(start, datetime.datetime.combine(day, datetime.time()))
            last = min(end, datetime.datetime.combine(day + datetime.timedelta(days=1), datetime.time()))
        return first + datetime.timedelta(minutes=rng.randrange((last - first) // datetime.timedelta(minutes=1)))

    def at(when: datetime.datetime) -> str:
        return f"{when.minute} {when.hour}"

    def spell(name: str) -> str:
        return rng.choice([name, name.upper(), name.title()])

    step = rng.choice([20, 25])
    x, y, m = inside(), inside(), inside()
    other_weekday = rng.choice([d for d in range(7) if d not in weekdays])
    other_day = rng.choice([d for d in range(1, 29) if not {d, d + 1} & {day.day for day in days}])
    z = inside(rng.choice([d for d in days if d.day != 1]))
    every = next(k for k in range(2, 8) if (z.day - 1) % k)  # `*/every` misses z's day; its weekday matches
    sunday = inside(next(d for d in days if d.isoweekday() == 7))
    first, last = rng.randrange(1, m.month + 1), rng.randrange(m.month, 13)
    others = rng.sample([k for k in range(12) if k + 1 not in {d.month for d in days}], 2)
    low, high = sorted(rng.sample(range(1, 7), 2))
    y_weekday = y.isoweekday() % 7
    return [
        f"*/{rng.choice([10, 15, 30])} * * * *",
        f"{rng.randrange(1, step)}-59/{step} {start.hour},{end.hour - 1} * * *",
        f"{rng.randrange(60)} 1-5/2 * * *",
        f"{at(start)} * * *",
        f"{at(end)} * * *",
        f"{','.join(str(k) for k in sorted(rng.sample(range(60), 3)))} {inside().hour} * * *",
        f"{at(x)} {x.day} * {spell(WEEKDAYS[other_weekday])}",
        f"{at(y)} {other_day},{other_day + 1} * {rng.choice([y_weekday, 7]) if y_weekday == 0 else y_weekday}",
        f"{at(z)} */{every} * {spell(WEEKDAYS[z.isoweekday() % 7])}",
        f"{at(sunday)} * * {rng.choice(['7', f'{rng.randrange(1, 7)}-7'])}",
        f"{at(m)} * {spell(MONTHS[first - 1])}-{spell(MONTHS[last - 1])} *",
        f"{at(inside())} * {','.join(spell(MONTHS[k]) for k in sorted(others))} *",
        f"{rng.randrange(60)} {start.hour}-23 * * {spell(WEEKDAYS[low])}-{spell(WEEKDAYS[high])}",
        "0 0 */2 * *",
        f"{rng.randrange(60)} 12 * * *",
        "@daily",
        "@hourly",
        "@weekly",
        "@reboot",
        rng.choice(["@monthly", "0 0 1 * *"]),
    ]


def crontabs(
    rng: random.Random, roster: dict[str, str], start: datetime.datetime, end: datetime.datetime
) -> dict[str, str]:
    """An old host's spool (owner -> crontab text): jobs of three active people, a leaver and an account no
    roster names, between settings, comments (a commented-out job too) and blank lines; and one more active
    person's crontab that holds no job."""
    names = sorted(roster)
    active = [n for n in names if roster[n] == "active"]
    left = [n for n in names if roster[n] == "left"]
    outsider = rng.choice([n for n in OUTSIDERS if n not in roster])
    people = rng.sample(active, min(len(active), 4))
    owners = [*people[:3], *left[:1], outsider]
    commands = rng.sample(COMMANDS, len(COMMANDS))
    lines = []
    for k, when in enumerate(schedules(rng, start, end)):
        sep = rng.choice([" ", " ", "\t", "  "])
        lead = rng.choice(["", "", " "])
        lines.append(lead + sep.join(when.split(" ")) + sep + commands[k % len(commands)])
    rng.shuffle(lines)
    given: dict[str, list[str]] = {owner: [lines[k]] for k, owner in enumerate(owners)}  # a job each at least
    for line in lines[len(owners) :]:
        given[rng.choice(owners)].append(line)
    for extra in ("", "   ", "# weekly clean-up, ask ops first", "\t# 0 4 * * * /usr/local/bin/old-sync"):
        owner = rng.choice(owners)
        given[owner].insert(rng.randrange(len(given[owner]) + 1), extra)
    settings = rng.sample(SETTINGS, len(SETTINGS))
    spool = {}
    for k, owner in enumerate(owners):
        text: list[str] = list(HEADER) if rng.random() < 0.6 else []
        text += [settings[j] for j in range(k, len(settings), len(owners))] + [""]  # every setting in some file
        spool[owner] = "\n".join(text + given[owner]) + "\n"
    for owner in people[3:]:  # opened with `crontab -e` once and saved as it was
        spool[owner] = "\n".join([*HEADER, "#", "# 30 2 * * * /usr/local/bin/backup-home", ""])
    return spool


def test_saved_report() -> None:
    got = json.loads(pathlib.Path(REPORT).read_text(encoding="utf-8"))
    assert got == WANT


def test_tool_on_made_up_spools(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    for k in range(6):
        roster = fresh_roster(rng)
        start, end = window(rng)
        spool = crontabs(rng, roster, start, end)
        folder, people, out = tmp_path / f"spool{k}", tmp_path / f"roster{k}.csv", tmp_path / f"out{k}" / "r.json"
        folder.mkdir()
        for owner, text in spool.items():
            (folder / owner).write_text(text, encoding="utf-8")
        write_roster(people, roster)
        times = ["--start", start.strftime(STAMP), "--end", end.strftime(STAMP)]
        done = run_tool(TOOL, "--out", out, *times, "--roster", people, "--spool", folder)
        assert done.returncode == 0, (k, done.stderr[-300:])
        assert json.loads(out.read_text(encoding="utf-8")) == audit(spool, roster, start, end), k


def test_tool_refuses_what_it_cannot_read(tmp_path: pathlib.Path) -> None:
    folder, people, out = tmp_path / "spool", tmp_path / "roster.csv", tmp_path / "r.json"
    folder.mkdir()
    (folder / "amoreau").write_text("0 1 * * * true\n", encoding="utf-8")
    write_roster(people, {"amoreau": "active"})
    missing = tmp_path / "missing"
    times = ["--start", "2026-01-31T22:00", "--end", "2026-02-01T02:00"]
    for args in (
        ["--spool", folder, "--roster", people, *times],
        ["--roster", people, *times, "--out", out],
        ["--spool", folder, "--roster", people, "--start", "2026-01-31T22:00", "--out", out],
        ["--spool", missing, "--roster", people, *times, "--out", out],
        ["--spool", folder, "--roster", missing, *times, "--out", out],
        [
            "--spool",
            folder,
            "--roster",
            people,
            "--start",
            "2026-01-31 22:00",
            "--end",
            "2026-02-01T02:00",
            "--out",
            out,
        ],
        [
            "--spool",
            folder,
            "--roster",
            people,
            "--start",
            "2026-02-30T01:00",
            "--end",
            "2026-03-01T02:00",
            "--out",
            out,
        ],
        ["--spool", folder, "--roster", people, "--start", "2026-02-01T02:00", "--end", "2026-02-01T02:00"]
        + ["--out", out],
    ):
        assert_usage_error(run_tool(TOOL, *args), args)
    assert not out.exists()
