"""The reference of csv-group-totals, called directly: its totals pass its tests; a total off by a cent,
a row out of order or a missing group fails them."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.tables.shipped import group_totals as shipped


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "sales.csv"
    src.write_text("region,amount\nnorth,1.25\nsouth,3\nnorth,2.10\neast,3\n")
    for name, value in {
        "SRC": str(src),
        "OUT": str(tmp_path / "out.csv"),
        "GROUP": "region",
        "VALUE": "amount",
    }.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path / "out.csv"


def test_the_reference_passes_its_tests(table: Path) -> None:
    shipped.write_totals()
    assert table.read_text().splitlines() == ["region,total_amount", "north,3.35", "east,3.00", "south,3.00"]
    shipped.test_header_and_totals()
    shipped.test_order()


@pytest.mark.parametrize(
    "rows",
    [
        [["north", "3.36"], ["east", "3.00"], ["south", "3.00"]],
        [["east", "3.00"], ["north", "3.35"], ["south", "3.00"]],
        [["north", "3.35"], ["east", "3.00"]],
    ],
)
def test_wrong_totals_fail(table: Path, rows: list[list[str]]) -> None:
    with table.open("w", newline="") as f:
        csv.writer(f).writerows([["region", "total_amount"], *rows])
    with pytest.raises(AssertionError):
        shipped.test_header_and_totals()
        shipped.test_order()
