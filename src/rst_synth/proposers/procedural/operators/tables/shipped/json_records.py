"""What `csv-to-json-records` ships: the script that converts a CSV into a JSON array of typed records, and
the test that reads the source table again. The constants are the step's parameters: `shipping.render`
sets them."""

from __future__ import annotations

import csv
import json
import pathlib

SRC = "/app/data/sales.csv"
DELIM = ","
NUMERIC = ["amount", "qty"]
OUT = "/app/data/sales_records.json"


def typed(key: str, text: str) -> str | int | float:
    if key not in NUMERIC:
        return text
    number = float(text)
    return int(number) if number.is_integer() and "." not in text else number


def write_records() -> None:
    with open(SRC, newline="") as f:
        records = [{k: typed(k, v) for k, v in row.items()} for row in csv.DictReader(f, delimiter=DELIM)]
    with open(OUT, "w") as f:
        json.dump(records, f, indent=2)


def source_rows() -> list[dict[str, str]]:
    with open(SRC, newline="") as f:
        return list(csv.DictReader(f, delimiter=DELIM))


def test_one_record_per_row_in_order() -> None:
    records = json.loads(pathlib.Path(OUT).read_text())
    rows = source_rows()
    assert isinstance(records, list) and len(records) == len(rows)
    for record, row in zip(records, rows):  # noqa: B905  # the lengths are asserted equal above
        assert set(record) == set(row)
        for key, text in row.items():
            if key in NUMERIC:
                assert isinstance(record[key], (int, float)) and not isinstance(record[key], bool)
                assert abs(record[key] - float(text)) < 1e-9
            else:
                assert record[key] == text
