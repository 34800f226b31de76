"""The reference of csv-time-buckets, called directly: its table passes its tests (offsets read as UTC,
invalid times left out, empty buckets kept); a bucket missing, a row in the wrong bucket or a sum off by a
cent fails them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.tables.shipped import time_buckets as shipped

HEADER = "hour,rows,bytes"


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "events.csv"
    src.write_text(
        "created_at,bytes\n"
        "2026-03-01T10:15:00Z,1.50\n"
        "2026-03-01T12:59:59+01:00,2\n"  # 11:59:59 UTC
        "2026-03-01T13:00:00,\n"
        "not a time,100\n"
        ",7\n"
    )
    for name, value in {"SRC": str(src), "MEASURES": ["bytes"], "OUT": str(tmp_path / "per_hour.csv")}.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path / "per_hour.csv"


def test_the_reference_passes_its_tests(out: Path) -> None:
    shipped.write_buckets()
    assert out.read_text().splitlines() == [
        HEADER,
        "2026-03-01T10:00Z,1,1.50",
        "2026-03-01T11:00Z,1,2",
        "2026-03-01T12:00Z,0,0",
        "2026-03-01T13:00Z,1,0",
    ]
    shipped.test_buckets_rows_and_sums()
    shipped.test_buckets_add_up_to_the_table()


@pytest.mark.parametrize(
    "rows",
    [
        ["2026-03-01T10:00Z,1,1.50", "2026-03-01T11:00Z,1,2", "2026-03-01T13:00Z,1,0"],  # the empty hour dropped
        ["2026-03-01T10:00Z,1,1.50", "2026-03-01T11:00Z,0,0", "2026-03-01T12:00Z,1,2", "2026-03-01T13:00Z,1,0"],
        ["2026-03-01T10:00Z,1,1.51", "2026-03-01T11:00Z,1,2", "2026-03-01T12:00Z,0,0", "2026-03-01T13:00Z,1,0"],
    ],
)
def test_wrong_tables_fail(out: Path, rows: list[str]) -> None:
    out.write_text("\n".join([HEADER, *rows]) + "\n")
    with pytest.raises(AssertionError):
        shipped.test_buckets_rows_and_sums()
        shipped.test_buckets_add_up_to_the_table()
