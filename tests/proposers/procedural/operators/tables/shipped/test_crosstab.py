"""The reference of csv-crosstab, called directly: its table passes its tests; a cell off by one, a row
total that does not add up or a column out of order fails them."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.tables.shipped import crosstab as shipped


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "roster.csv"
    src.write_text("user;team;status\na;ops;active\nb;web;active\nc;ops;inactive\nd;ops;active\n")
    for name, value in {
        "SRC": str(src),
        "DELIM": ";",
        "OUT": str(tmp_path / "out.csv"),
        "ROWS_BY": "team",
        "COLS_BY": "status",
    }.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path / "out.csv"


def test_the_reference_passes_its_tests(table: Path) -> None:
    shipped.write_crosstab()
    assert table.read_text().splitlines() == [
        "team,active,inactive,total",
        "ops,2,1,3",
        "web,1,0,1",
        "total,3,1,4",
    ]
    shipped.test_crosstab_cells_and_order()
    shipped.test_totals_add_up()


@pytest.mark.parametrize(
    "rows",
    [
        [["ops", "2", "1", "3"], ["web", "1", "1", "2"], ["total", "3", "2", "5"]],  # a cell off by one
        [["ops", "2", "1", "4"], ["web", "1", "0", "1"], ["total", "3", "1", "4"]],  # a row total that is wrong
        [["web", "1", "0", "1"], ["ops", "2", "1", "3"], ["total", "3", "1", "4"]],  # rows out of order
    ],
)
def test_wrong_tables_fail(table: Path, rows: list[list[str]]) -> None:
    with table.open("w", newline="") as f:
        csv.writer(f).writerows([["team", "active", "inactive", "total"], *rows])
    with pytest.raises(AssertionError):
        shipped.test_crosstab_cells_and_order()
        shipped.test_totals_add_up()
