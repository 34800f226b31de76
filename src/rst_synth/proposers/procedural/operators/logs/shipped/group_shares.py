"""What `jsonl-group-shares` ships: the script that reports, per category of a JSON Lines event log, the
number of events, their total measure and its share of the whole, and the tests that compute them again.
The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import collections
import csv
import json
import re

from rst_synth.proposers.procedural.operators.kit.testkit import csv_rows

SRC = "/app/logs/events.jsonl"
GROUP = "kind"
VALUE = "amount"
TOTAL = "total_amount"
OUT = "/app/logs/amount_by_kind.csv"


def shares(path: str, group: str, value: str) -> list[tuple[str, int, float, float]]:
    counts, totals = collections.Counter(), collections.defaultdict(float)  # type: ignore[var-annotated]
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                event = json.loads(line)
                counts[event[group]] += 1
                totals[event[group]] += event[value]
    whole = sum(totals.values())
    rows = [(key, counts[key], totals[key], 100 * totals[key] / whole if whole else 0.0) for key in counts]
    return sorted(rows, key=lambda r: (-round(r[2], 2), r[0]))


def write_shares() -> None:
    with open(OUT, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([GROUP, "events", TOTAL, "share_pct"])
        for key, events, amount, share in shares(SRC, GROUP, VALUE):
            writer.writerow([key, events, f"{amount:.2f}", f"{share:.1f}"])


def test_header_counts_and_totals() -> None:
    rows = csv_rows(OUT)
    assert rows[0] == [GROUP, "events", TOTAL, "share_pct"]
    want = shares(SRC, GROUP, VALUE)
    assert [r[0] for r in rows[1:]] == [key for key, *_ in want]
    for row, (key, events, amount, share) in zip(rows[1:], want):  # noqa: B905, B007  # keys asserted equal above
        assert row[1] == str(events), row
        assert re.fullmatch(r"-?\d+\.\d\d", row[2]) and abs(float(row[2]) - amount) < 0.006, row
        assert re.fullmatch(r"-?\d+\.\d", row[3]) and abs(float(row[3]) - share) < 0.051, row


def test_shares_make_the_whole() -> None:
    shares_written = [float(r[3]) for r in csv_rows(OUT)[1:]]
    assert abs(sum(shares_written) - 100) <= 0.05 * len(shares_written) + 1e-9 or sum(shares_written) == 0
