"""The reference of http-status-classes, called directly: its table passes its tests; a code put in the
wrong class, a share off in the fourth decimal or a class left out fails them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.logs.shipped import http_status_classes as shipped


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "status_counts.csv"
    src.write_text("status\tbytes\n200\t1.5\n304\t\n404\t3\n503\t0.5\nabc\t9\n600\t7\n")
    for name, value in {
        "SRC": str(src),
        "DELIM": "\t",
        "STATUS": "status",
        "MEASURE": "bytes",
        "OUT": str(tmp_path / "out.csv"),
    }.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path / "out.csv"


def test_the_reference_passes_its_tests(table: Path) -> None:
    shipped.write_classes()
    assert table.read_text().splitlines() == [
        "class,bytes,share",
        "1xx,0,0.0000",
        "2xx,1.5,0.3000",
        "3xx,0,0.0000",
        "4xx,3,0.6000",
        "5xx,0.5,0.1000",
    ]
    shipped.test_a_row_per_class_with_its_total()
    shipped.test_shares_of_the_whole()


@pytest.mark.parametrize(
    "rows",
    [
        ["1xx,0,0.0000", "2xx,1.5,0.3000", "3xx,0,0.0000", "4xx,3.5,0.7000", "5xx,0,0.0000"],  # 503 as a 4xx
        ["1xx,0,0.0000", "2xx,1.5,0.3001", "3xx,0,0.0000", "4xx,3,0.6000", "5xx,0.5,0.0999"],  # shares off
        ["2xx,1.5,0.3000", "3xx,0,0.0000", "4xx,3,0.6000", "5xx,0.5,0.1000"],  # 1xx left out
    ],
)
def test_wrong_tables_fail(table: Path, rows: list[str]) -> None:
    table.write_text("\n".join(["class,bytes,share", *rows]) + "\n")
    with pytest.raises(AssertionError):
        shipped.test_a_row_per_class_with_its_total()
        shipped.test_shares_of_the_whole()
