"""What `csv-group-totals` ships: the script that totals a measure per group, and the tests that total it
again from the source table. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import collections
import csv
import re

SRC = "/app/data/sales.csv"
DELIM = ","
GROUP = "region"
VALUE = "amount"
OUT = "/app/data/sales_by_region.csv"
TOTAL = "total_amount"


def write_totals() -> None:
    totals: dict[str, float] = collections.defaultdict(float)
    with open(SRC, newline="") as f:
        for row in csv.DictReader(f, delimiter=DELIM):
            totals[row[GROUP]] += float(row[VALUE])
    with open(OUT, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow([GROUP, TOTAL])
        for key, amount in sorted(totals.items(), key=lambda kv: (-round(kv[1], 2), kv[0])):
            out.writerow([key, f"{amount:.2f}"])


def expected_totals() -> dict[str, float]:
    totals: dict[str, float] = collections.defaultdict(float)
    with open(SRC, newline="") as f:
        for row in csv.DictReader(f, delimiter=DELIM):
            totals[row[GROUP]] += float(row[VALUE])
    return totals


def read_out() -> list[list[str]]:
    with open(OUT, newline="") as f:
        return list(csv.reader(f))


def test_header_and_totals() -> None:
    rows = read_out()
    assert rows[0] == [GROUP, TOTAL]
    got = {r[0]: r[1] for r in rows[1:]}
    want = expected_totals()
    assert set(got) == set(want)
    for key, amount in want.items():
        assert re.fullmatch(r"-?\d+\.\d\d", got[key]), got[key]
        assert abs(float(got[key]) - amount) < 0.006


def test_order() -> None:
    rows = read_out()[1:]
    keys = [(-float(amount), key) for key, amount in rows]
    assert keys == sorted(keys)
