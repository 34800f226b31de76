"""What `http-status-classes` ships: the script that totals a measure per HTTP status class (1xx to 5xx)
with each class's share of the whole, and the tests that total it again from the source table. The
constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import decimal
import re

from rst_synth.proposers.procedural.operators.kit.testkit import csv_rows

SRC = "/app/report/status_counts.csv"
DELIM = ","
STATUS = "status"
MEASURE = "count"
OUT = "/app/report/count_by_status_class.csv"


def classes(path: str, delim: str, status: str, measure: str) -> list[list[str]]:
    totals = {f"{k}xx": decimal.Decimal(0) for k in range(1, 6)}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter=delim):
            code, value = row[status].strip(), (row[measure] or "").strip()
            if re.fullmatch(r"[1-5][0-9][0-9]", code):
                totals[code[0] + "xx"] += decimal.Decimal(value) if value else 0
    whole = sum(totals.values())
    return [["class", measure, "share"]] + [
        [k, str(v), f"{v / whole:.4f}" if whole else "0.0000"] for k, v in totals.items()
    ]


def write_classes() -> None:
    with open(OUT, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(classes(SRC, DELIM, STATUS, MEASURE))


def test_a_row_per_class_with_its_total() -> None:
    got, want = csv_rows(OUT), classes(SRC, DELIM, STATUS, MEASURE)
    assert got[0] == want[0] and [r[0] for r in got] == [r[0] for r in want]
    assert [decimal.Decimal(r[1]) for r in got[1:]] == [decimal.Decimal(r[1]) for r in want[1:]]


def test_shares_of_the_whole() -> None:
    got, want = csv_rows(OUT), classes(SRC, DELIM, STATUS, MEASURE)
    assert all(abs(float(g[2]) - float(w[2])) < 0.00006 for g, w in zip(got[1:], want[1:]))  # noqa: B905
