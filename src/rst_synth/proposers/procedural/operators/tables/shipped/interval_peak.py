"""What `csv-interval-peak` ships: the script that finds the most rows of a table of intervals open at one
instant, when, and which, and the tests that sweep the source table again. The constants are the step's
parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import json
from typing import Any

from rst_synth.proposers.procedural.operators.tables.shipped.time_buckets import when

SRC = "/app/data/sessions.csv"
DELIM = ","
START = "started_at"
END = "ended_at"
LABEL = "client"
OUT = "/app/data/sessions_peak_started_at_ended_at.json"


def peak(path: str, delim: str, start: str, end: str, label: str) -> dict[str, Any]:
    events, skipped = [], 0
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter=delim):
            opened, closed = when(row[start] or ""), when(row[end] or "")
            if opened is None or closed is None or closed < opened:
                skipped += 1
                continue
            events.append((opened, 0, row[label]))  # at one instant, openings count before closings
            events.append((closed, 1, row[label]))
    events.sort(key=lambda e: (e[0], e[1]))
    open_now, best, at, names = [], 0, None, []
    for moment, kind, name in events:
        if kind == 0:
            open_now.append(name)
            if len(open_now) > best:
                best, at, names = len(open_now), moment, sorted(open_now)
        else:
            open_now.remove(name)
    stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ") if at is not None else None
    return {"peak": best, "at": stamp, "open": names, "skipped": skipped}


def write_peak() -> None:
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(peak(SRC, DELIM, START, END, LABEL), f, indent=2)
        f.write("\n")


def read_out() -> dict[str, Any]:
    with open(OUT, encoding="utf-8") as f:
        return json.load(f)  # type: ignore[no-any-return]


def test_peak_and_when() -> None:
    got, want = read_out(), peak(SRC, DELIM, START, END, LABEL)
    assert set(got) == {"peak", "at", "open", "skipped"}
    assert (got["peak"], got["at"], got["skipped"]) == (want["peak"], want["at"], want["skipped"])


def test_the_rows_open_at_the_peak() -> None:
    got = read_out()
    want = peak(SRC, DELIM, START, END, LABEL)
    assert got["open"] == want["open"] and len(got["open"]) == got["peak"]
