"""What `csv-time-buckets` ships: the script that counts rows and sums measures per minute, hour or day of a
timestamp column (empty buckets kept), and the tests that bucket the source table again and check that
the buckets add up to it. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import datetime
import decimal

from rst_synth.proposers.procedural.operators.kit.testkit import csv_rows

SRC = "/app/data/events.csv"
DELIM = ","
COLUMN = "created_at"
WIDTH = "hour"
MEASURES = ["bytes"]
OUT = "/app/data/events_per_hour.csv"


def when(value: str) -> datetime.datetime | None:
    value = value.strip()
    if not value:
        return None
    try:
        moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)  # noqa: UP017  # datetime.UTC needs 3.11: a task's python3 may be older
    return moment


def buckets(path: str, delim: str, column: str, width: str, measures: list[str]) -> list[list[str]]:
    step = datetime.timedelta(**{width + "s": 1})
    label = {"minute": "%Y-%m-%dT%H:%MZ", "hour": "%Y-%m-%dT%H:00Z", "day": "%Y-%m-%d"}[width]
    found: dict[datetime.datetime, list[int | decimal.Decimal]] = {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter=delim):
            moment = when(row[column] or "")
            if moment is None:
                continue
            start = moment.replace(second=0, microsecond=0)
            if width != "minute":
                start = start.replace(minute=0)
            if width == "day":
                start = start.replace(hour=0)
            cell = found.setdefault(start, [0] + [decimal.Decimal(0)] * len(measures))
            cell[0] += 1
            for i, name in enumerate(measures):
                text = (row[name] or "").strip()
                cell[i + 1] += decimal.Decimal(text) if text else 0
    table = [[width, "rows", *measures]]
    if not found:
        return table
    moment, last = min(found), max(found)
    while moment <= last:
        cell = found.get(moment, [0] + [decimal.Decimal(0)] * len(measures))
        table.append([moment.strftime(label), *(str(v) for v in cell)])
        moment += step
    return table


def write_buckets() -> None:
    with open(OUT, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(buckets(SRC, DELIM, COLUMN, WIDTH, MEASURES))


def same(got: list[list[str]], want: list[list[str]]) -> None:
    assert got[0] == want[0]
    assert [r[0] for r in got[1:]] == [r[0] for r in want[1:]], "buckets, their labels or their order differ"
    for g, w in zip(got[1:], want[1:]):  # noqa: B905  # the labels, and so the lengths, are asserted equal above
        assert len(g) == len(w) and int(g[1]) == int(w[1]), g[0]
        assert [decimal.Decimal(x) for x in g[2:]] == [decimal.Decimal(x) for x in w[2:]], g[0]


def test_buckets_rows_and_sums() -> None:
    same(csv_rows(OUT), buckets(SRC, DELIM, COLUMN, WIDTH, MEASURES))


def test_buckets_add_up_to_the_table() -> None:
    table = csv_rows(OUT)
    with open(SRC, newline="", encoding="utf-8") as f:
        timed = [r for r in csv.DictReader(f, delimiter=DELIM) if when(r[COLUMN] or "") is not None]
    assert sum(int(r[1]) for r in table[1:]) == len(timed)
    for i, name in enumerate(MEASURES):
        want = sum(decimal.Decimal(r[name].strip()) for r in timed if (r[name] or "").strip())
        assert sum(decimal.Decimal(r[i + 2]) for r in table[1:]) == want, name
