"""The cron rules as the schedule operators state them, shipped into their tools and tests and used here to
read schedules: entries parsed field by field (lists, ranges, steps), runs merged in time order with the
day-of-month/day-of-week OR rule. WINDOW_YEARS bounds the search: runs count up to 31 December of START's
year + WINDOW_YEARS, so an entry that never fires (`0 0 30 2 *`) ends."""

from __future__ import annotations

import datetime
import heapq
import itertools
import re
from collections.abc import Iterator
from typing import Any

WINDOW_YEARS = 8
FIELD_RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7))
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*[ \t]*=")


class MalformedEntry(Exception):
    pass


def cron_values(field: str, low: int, high: int) -> set[int] | None:
    values: set[int] = set()
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


def cron_entries(text: str, user_field: bool) -> list[tuple[Any, ...]]:
    entries = []
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or ASSIGNMENT.match(stripped):
            continue
        fields = stripped.split()
        if len(fields) < (7 if user_field else 6):
            raise MalformedEntry(number)
        sets: list[Any] = [cron_values(f, low, high) for f, (low, high) in zip(fields, FIELD_RANGES)]  # noqa: B905  # the task may run an older python
        if any(s is None for s in sets):
            raise MalformedEntry(number)
        minutes, hours, days, months, weekdays = sets
        either = fields[2] != "*" and fields[4] != "*"
        entries.append((number, sorted(minutes), sorted(hours), days, months, {d % 7 for d in weekdays}, either))
    return entries


def entry_runs(
    entry: tuple[Any, ...], start: datetime.datetime, last_day: datetime.date
) -> Iterator[tuple[datetime.datetime, int]]:
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


def next_runs(text: str, user_field: bool, start: datetime.datetime, count: int) -> list[str]:
    entries = cron_entries(text, user_field)
    last_day = datetime.date(start.year + WINDOW_YEARS, 12, 31)
    merged = heapq.merge(*(entry_runs(entry, start, last_day) for entry in entries))
    return [f"{when:%Y-%m-%dT%H:%M} {number}" for when, number in itertools.islice(merged, count)]
