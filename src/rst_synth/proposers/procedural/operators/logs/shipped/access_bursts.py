"""What `access-log-bursts` ships: the script that finds each client's busiest window of a stated length in
an access log (a sliding window over its requests in time order), and the tests that read the log again.
It builds on access_hits.py, which a step renders before this module's code. The constants are the step's
parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import datetime
import pathlib

from rst_synth.proposers.procedural.operators.kit.testkit import csv_rows
from rst_synth.proposers.procedural.operators.logs.shipped.access_hits import client_hits

LOG = "/app/logs/access.log"
OUT = "/app/logs/access_bursts_60s.csv"
WINDOW = 60


def bursts(text: str, window_seconds: int) -> list[list[str]]:
    window = datetime.timedelta(seconds=window_seconds)
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    rows = []
    for client, found in client_hits(text).items():
        times = sorted(hit[0] for hit in found)
        best, first, last, end = 0, None, None, 0
        for start, opened in enumerate(times):
            while end < len(times) and times[end] - opened <= window:
                end += 1
            if end - start > best:
                best, first, last = end - start, opened, times[end - 1]
        rows.append([client, str(best), first.strftime(stamp), last.strftime(stamp)])  # type: ignore[union-attr]
    rows.sort(key=lambda row: (-int(row[1]), row[0]))
    return [["client", "requests", "from", "to"]] + rows


def write_bursts() -> None:
    with open(LOG, encoding="utf-8", errors="replace") as f:
        table = bursts(f.read(), WINDOW)
    with open(OUT, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(table)


def want() -> list[list[str]]:
    return bursts(pathlib.Path(LOG).read_text(encoding="utf-8", errors="replace"), WINDOW)


def test_busiest_window_per_client() -> None:
    assert csv_rows(OUT) == want()


def test_windows_fit_and_hold_their_count() -> None:
    hits = client_hits(pathlib.Path(LOG).read_text(encoding="utf-8", errors="replace"))
    table = csv_rows(OUT)
    assert {r[0] for r in table[1:]} == set(hits)
    for client, count, first, last in table[1:]:
        opened = datetime.datetime.strptime(first, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)  # noqa: UP017  # datetime.UTC needs 3.11
        closed = datetime.datetime.strptime(last, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)  # noqa: UP017  # datetime.UTC needs 3.11
        assert datetime.timedelta(0) <= closed - opened <= datetime.timedelta(seconds=WINDOW), client
        assert sum(opened <= h[0] <= closed for h in hits[client]) == int(count), client
