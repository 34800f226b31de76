"""What `json-numeric-summary` ships: the script that summarises a numeric key over records, and the test
that summarises it again. The constants are the step's parameters: `shipping.render` sets them
(`SUMMARY_KEYS` is the summary's fixed set of keys, which the operator declares too)."""

from __future__ import annotations

import json
import pathlib

SRC = "/app/data/items.json"
KEY = "amount"
OUT = "/app/data/items_amount_summary.json"
SUMMARY_KEYS = ["count", "max", "mean", "min", "sum"]


def write_summary() -> None:
    values = [rec[KEY] for rec in json.loads(pathlib.Path(SRC).read_text(encoding="utf-8"))]
    total = sum(values)
    stats = {"min": min(values), "max": max(values), "sum": total, "mean": total / len(values)}
    result = {"count": len(values), **{name: round(v, 3) for name, v in stats.items()}}
    pathlib.Path(OUT).write_text(json.dumps(result, indent=2) + "\n")


def test_summary_of_key() -> None:
    values = [rec[KEY] for rec in json.loads(pathlib.Path(SRC).read_text(encoding="utf-8"))]
    want = {"min": min(values), "max": max(values), "sum": sum(values), "mean": sum(values) / len(values)}
    got = json.loads(pathlib.Path(OUT).read_text())
    assert sorted(got) == SUMMARY_KEYS
    assert got["count"] == len(values) and not isinstance(got["count"], bool)
    for name, exact in want.items():
        value = got[name]
        assert isinstance(value, (int, float)) and not isinstance(value, bool), name
        assert abs(value - exact) <= 0.0005 + 1e-9 * abs(exact), (name, value, exact)
        assert abs(value * 1000 - round(value * 1000)) <= 1e-6 * max(1.0, abs(value * 1000)), (name, value)
