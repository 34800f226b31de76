"""What `csv-quarantine-malformed` ships: the script that splits a raw feed into the accepted records and
a reject report (the first reason per record), its `main`, and the tests that rebuild both with the same
rules. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import io
import pathlib
import re

SRC = "/app/out/ledger.csv"
FEED = "/app/incoming/r1s1/ledger_raw.csv"
KEY = "account"
VALUE = "amount"
ACCEPTED = "/app/out/ledger_accepted.csv"
REJECTS = "/app/out/ledger_rejects.csv"


def quarantine(base_text: str, feed_text: str, key: str, value: str) -> tuple[list[list[str]], list[list[str]]]:
    base = [row for row in csv.reader(io.StringIO(base_text, newline="")) if row]
    header, seen = base[0], {tuple(row) for row in base[1:]}
    feed = [row for row in csv.reader(io.StringIO(feed_text, newline="")) if row]
    k, v = header.index(key), header.index(value)
    accepted, rejects = [header], [["record", "reason"]]
    for number, row in enumerate(feed[1:], 1):
        if len(row) != len(header):
            reason = "wrong_field_count"
        elif not row[k].strip():
            reason = "missing_key"
        elif not re.fullmatch(r"-?\d+(\.\d+)?", row[v].strip()):
            reason = "bad_number"
        elif tuple(row) in seen:
            reason = "duplicate"
        else:
            seen.add(tuple(row))
            accepted.append(row)
            continue
        rejects.append([str(number), reason])
    return accepted, rejects


def main() -> None:
    with open(SRC, encoding="utf-8", newline="") as f, open(FEED, encoding="utf-8", newline="") as g:
        accepted, rejects = quarantine(f.read(), g.read(), KEY, VALUE)
    for path, rows in ((ACCEPTED, accepted), (REJECTS, rejects)):
        with open(path, "w", encoding="utf-8", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)


def read(path: str) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return [row for row in csv.reader(f) if row]


def expected() -> tuple[list[list[str]], list[list[str]]]:
    return quarantine(
        pathlib.Path(SRC).read_text(encoding="utf-8"), pathlib.Path(FEED).read_text(encoding="utf-8"), KEY, VALUE
    )


def test_accepted_records() -> None:
    assert read(ACCEPTED) == expected()[0]


def test_reject_report() -> None:
    want = expected()[1]
    assert len(want) > 1 and read(REJECTS) == want
