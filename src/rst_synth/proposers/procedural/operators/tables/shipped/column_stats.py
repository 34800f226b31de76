"""What `csv-column-stats` ships: the script that writes min, max, mean and median of a table's measure
columns as a JSON object, and the tests that compute them again from the source table. The constants are
the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import json
import pathlib
import statistics

SRC = "/app/data/sales.csv"
DELIM = ","
COLUMNS = ["amount", "qty"]
OUT = "/app/data/sales_stats.json"


def write_stats() -> None:
    with open(SRC, newline="") as f:
        rows = list(csv.DictReader(f, delimiter=DELIM))
    stats = {}
    for col in COLUMNS:
        values = [float(r[col]) for r in rows]
        stats[col] = {
            "min": min(values),
            "max": max(values),
            "mean": round(statistics.fmean(values), 3),
            "median": statistics.median(values),
        }
    with open(OUT, "w") as f:
        json.dump(stats, f, indent=2)


def column_values(name: str) -> list[float]:
    with open(SRC, newline="") as f:
        reader = csv.reader(f, delimiter=DELIM)
        index = next(reader).index(name)
        return [float(row[index]) for row in reader if row]


def close(got: float, want: float) -> bool:
    return abs(got - want) <= 1e-9 * max(1.0, abs(want))


def test_column_stats() -> None:
    data = json.loads(pathlib.Path(OUT).read_text())
    assert isinstance(data, dict) and sorted(data) == sorted(COLUMNS)
    for name in COLUMNS:
        values, got = column_values(name), data[name]
        assert isinstance(got, dict) and sorted(got) == ["max", "mean", "median", "min"], got
        assert all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in got.values()), got
        assert close(got["min"], min(values)) and close(got["max"], max(values)), (name, got)
        assert close(got["median"], statistics.median(values)), (name, got)
        mean = statistics.fmean(values)
        assert abs(got["mean"] - mean) <= 0.0005 + 1e-9 * max(1.0, abs(mean)), (name, got, mean)
        assert abs(got["mean"] * 1000 - round(got["mean"] * 1000)) < 1e-6 * max(1.0, abs(mean)), got
