"""Cron schedules as data: the reference implementation of the cron rules the schedule operators ship, and what
it reads off a schedule artifact."""

from __future__ import annotations

import datetime
import re
from typing import Any

from rst_synth.proposers.artifacts import Artifact

WINDOW_YEARS = 8
"""Runs count up to 31 December of START's year + 8: an entry that never fires must not loop forever."""


NEXT_RUNS_PY = """
FIELD_RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7))
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*[ \\t]*=")


class MalformedEntry(Exception):
    pass


def cron_values(field, low, high):
    values = set()
    for part in field.split(","):
        body, slash, step = part.partition("/")
        if slash and not re.fullmatch(r"[0-9]+", step):
            return None
        if body == "*":
            first, last = low, high
        elif re.fullmatch(r"[0-9]+-[0-9]+", body):
            first, last = (int(x) for x in body.split("-"))
        elif re.fullmatch(r"[0-9]+", body) and not slash:
            first = last = int(body)
        else:
            return None
        every = int(step) if slash else 1
        if every < 1 or first > last or first < low or last > high:
            return None
        values.update(range(first, last + 1, every))
    return values


def cron_entries(text, user_field):
    entries = []
    for number, line in enumerate(text.split("\\n"), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or ASSIGNMENT.match(stripped):
            continue
        fields = stripped.split()
        if len(fields) < (7 if user_field else 6):
            raise MalformedEntry(number)
        sets = [cron_values(f, low, high) for f, (low, high) in zip(fields, FIELD_RANGES)]
        if any(s is None for s in sets):
            raise MalformedEntry(number)
        minutes, hours, days, months, weekdays = sets
        either = fields[2] != "*" and fields[4] != "*"
        entries.append((number, sorted(minutes), sorted(hours), days, months, {d % 7 for d in weekdays}, either))
    return entries


def entry_runs(entry, start, last_day):
    number, minutes, hours, days, months, weekdays, either = entry
    day = start.date()
    while day <= last_day:
        if day.month not in months:
            day = (day.replace(day=28) + datetime.timedelta(days=4)).replace(day=1)
            continue
        by_date, by_weekday = day.day in days, day.isoweekday() % 7 in weekdays
        if (by_date or by_weekday) if either else (by_date and by_weekday):
            for hour in hours:
                for minute in minutes:
                    when = datetime.datetime(day.year, day.month, day.day, hour, minute)
                    if when > start:
                        yield when, number
        day += datetime.timedelta(days=1)


def next_runs(text, user_field, start, count):
    entries = cron_entries(text, user_field)
    last_day = datetime.date(start.year + WINDOW_YEARS, 12, 31)
    merged = heapq.merge(*(entry_runs(entry, start, last_day) for entry in entries))
    return [f"{when:%Y-%m-%dT%H:%M} {number}" for when, number in itertools.islice(merged, count)]
"""


def user_field(path: str) -> bool:
    return path.startswith("/etc/cron.d/") or path == "/etc/crontab"


_NAMESPACE: dict[str, Any] = {}


def reference() -> dict[str, Any]:
    """The reference implementation as live functions (next_runs, cron_entries, MalformedEntry)."""
    if not _NAMESPACE:
        _NAMESPACE["WINDOW_YEARS"] = WINDOW_YEARS
        exec("import datetime, heapq, itertools, re\n" + NEXT_RUNS_PY, _NAMESPACE)  # our own constant
    return _NAMESPACE


def schedule_entries(artifact: Artifact) -> list[tuple[Any, ...]]:
    """The cron entries of the artifact's sample (complete lines only), or [] if a line is no entry."""
    sample = artifact.sample
    text = sample if len(sample.encode("utf-8")) == artifact.size else sample[: sample.rfind("\n") + 1]
    ref = reference()
    try:
        entries: list[tuple[Any, ...]] = ref["cron_entries"](text, user_field(artifact.path))
    except ref["MalformedEntry"]:
        return []
    # A table of small numbers would parse too: a real command does not start with a digit.
    lines = text.split("\n")
    skip = 6 if user_field(artifact.path) else 5
    if any(lines[e[0] - 1].split()[skip][:1].isdigit() for e in entries):
        return []
    return entries


def fires(artifact: Artifact) -> bool:
    """Whether the schedule runs at all after any START the step may draw (the window holds a leap year)."""
    text = artifact.sample[: artifact.sample.rfind("\n") + 1] or artifact.sample
    latest = datetime.datetime(2027, 12, 31, 23, 59)
    return bool(reference()["next_runs"](text, user_field(artifact.path), latest, 1))


def commands(artifact: Artifact) -> list[str]:
    """The command of each entry of the schedule (its sample is whole: `schedule_entries` checked it)."""
    skip = 6 if user_field(artifact.path) else 5
    found = []
    for entry in schedule_entries(artifact):
        line = artifact.sample.split("\n")[entry[0] - 1].strip()
        match = re.match(r"(\S+\s+){" + str(skip) + r"}(.*)$", line)
        found.append(match[2].strip() if match else "")
    return sorted(set(found))
