"""The reference of csv-filter-above-mean, called directly: its rows pass its test; a row at or below the
mean, a row left out or rows out of order fail it."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.tables.shipped import filter_above_mean as shipped

HEADER = "id,amount"


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "sales.csv"
    src.write_text("id\tamount\n1\t5\n2\t1\n3\t9\n4\t3\n5\t7\n")  # mean 5
    for name, value in {"SRC": str(src), "DELIM": "\t", "COLUMN": "amount", "OUT": str(tmp_path / "o.csv")}.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path / "o.csv"


def test_the_reference_passes_its_test(out: Path) -> None:
    shipped.write_above_mean()
    assert out.read_text().splitlines() == ["id,amount", "3,9", "5,7"]
    shipped.test_rows_above_mean_in_order()


@pytest.mark.parametrize("rows", [["3,9", "5,7", "1,5"], ["3,9"], ["5,7", "3,9"], ["3,9", "4,3", "5,7"]])
def test_wrong_rows_fail(out: Path, rows: list[str]) -> None:
    out.write_text("\n".join([HEADER, *rows]) + "\n")
    with pytest.raises(AssertionError):
        shipped.test_rows_above_mean_in_order()
