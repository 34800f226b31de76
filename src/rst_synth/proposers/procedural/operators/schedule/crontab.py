"""Cron schedules as data: what the schedule operators read off a schedule artifact, by the cron rules they ship
(`shipped/cron.py`)."""

from __future__ import annotations

import datetime
import re
from typing import Any

from rst_synth.proposers.artifacts import Artifact
from rst_synth.proposers.procedural.operators.schedule.shipped import cron

WINDOW_YEARS = cron.WINDOW_YEARS
"""Runs count up to 31 December of START's year + 8: an entry that never fires must not loop forever."""


def user_field(path: str) -> bool:
    return path.startswith("/etc/cron.d/") or path == "/etc/crontab"


def reference() -> dict[str, Any]:
    """The reference implementation as live functions (next_runs, cron_entries, MalformedEntry)."""
    return vars(cron)


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
