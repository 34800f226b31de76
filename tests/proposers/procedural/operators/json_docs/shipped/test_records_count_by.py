"""The reference of json-records-count-by, called directly: its counts pass its test; a count off by one,
a tie out of order, a missing value or a count written as a float fails it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.json_docs.shipped import records_count_by as shipped

RECORDS = [{"region": r} for r in ["north", "south", "north", "a,b", "south", "north", "east"]]


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "items.json"
    src.write_text(json.dumps(RECORDS), encoding="utf-8")
    for name, value in {"SRC": str(src), "KEY": "region", "OUT": str(tmp_path / "counts.csv")}.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path / "counts.csv"


def test_the_reference_passes_its_test(out: Path) -> None:
    shipped.write_counts()
    assert out.read_text().splitlines() == ["value,count", "north,3", "south,2", '"a,b",1', "east,1"]
    shipped.test_counts_per_value()


@pytest.mark.parametrize(
    "rows",
    [
        [["north", "3"], ["south", "3"], ["a,b", "1"], ["east", "1"]],
        [["north", "3"], ["south", "2"], ["east", "1"], ["a,b", "1"]],
        [["north", "3"], ["south", "2"], ["east", "1"]],
        [["north", "3.0"], ["south", "2"], ["a,b", "1"], ["east", "1"]],
    ],
)
def test_wrong_counts_fail(out: Path, rows: list[list[str]]) -> None:
    with out.open("w", newline="") as f:
        csv.writer(f).writerows([["value", "count"], *rows])
    with pytest.raises(AssertionError):
        shipped.test_counts_per_value()
