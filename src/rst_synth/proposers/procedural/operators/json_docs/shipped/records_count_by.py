"""What `json-records-count-by` ships: the script that counts records per value of a key, and the test that
counts them again. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import collections
import csv
import json
import pathlib
import re
from typing import Any

SRC = "/app/data/items.json"
KEY = "region"
OUT = "/app/data/items_count_by_region.csv"


def counted(path: str, key: str) -> list[tuple[Any, int]]:
    records = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    counts = collections.Counter(record[key] for record in records)
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def write_counts() -> None:
    with open(OUT, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["value", "count"])
        writer.writerows(counted(SRC, KEY))


def test_counts_per_value() -> None:
    with open(OUT, newline="", encoding="utf-8") as f:
        rows = [r for r in csv.reader(f) if r]
    assert rows[0] == ["value", "count"]
    assert all(len(r) == 2 and re.fullmatch(r"\d+", r[1]) for r in rows[1:]), rows[:5]
    assert [(r[0], int(r[1])) for r in rows[1:]] == counted(SRC, KEY)
