"""What `csv-filter-above-mean` ships: the script that keeps the rows whose measure is strictly above that
column's mean, and the test that walks the source table to check them. The constants are the step's
parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import statistics

SRC = "/app/data/sales.csv"
DELIM = ","
COLUMN = "amount"
OUT = "/app/data/sales_above_mean_amount.csv"


def write_above_mean() -> None:
    with open(SRC, newline="") as f:
        rows = [r for r in csv.reader(f, delimiter=DELIM) if r]
    header, body = rows[0], rows[1:]
    i = header.index(COLUMN)
    mean = sum(float(r[i]) for r in body) / len(body)
    with open(OUT, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(r for r in body if float(r[i]) > mean)


def test_rows_above_mean_in_order() -> None:
    with open(OUT, newline="") as f:
        got = [row for row in csv.reader(f) if row]
    with open(SRC, newline="") as f:
        rows = [row for row in csv.reader(f, delimiter=DELIM) if row]
    header, body = rows[0], rows[1:]
    assert got and got[0] == header
    index = header.index(COLUMN)
    mean = statistics.fmean(float(row[index]) for row in body)
    slack = 1e-9 * max(1.0, abs(mean))
    at = 1  # walk the source in order: rows clearly above must come next, rows at the mean may
    for row in body:
        value = float(row[index])
        if value > mean + slack:
            assert at < len(got) and got[at] == row, (row, got[at : at + 1])
            at += 1
        elif value >= mean - slack and at < len(got) and got[at] == row:
            at += 1
    assert at == len(got), got[at:]
