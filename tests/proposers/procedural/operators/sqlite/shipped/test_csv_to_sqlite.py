"""The reference of csv-to-sqlite, called directly: the table it loads passes its test; a wrong declared
type, a value stored as text, a row lost or rows out of order fail it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.sqlite.shipped import csv_to_sqlite as shipped

TYPES = {"region": "TEXT", "code": "TEXT", "units": "INTEGER", "price": "REAL"}


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "sales.tsv"
    src.write_text("region\tcode\tunits\tprice\nnorth\t007\t3\t2.5\nsouth\t010\t -1\t4\n\neast\t5\t2\t0.1\n")
    for name, value in {
        "SRC": str(src),
        "DELIM": "\t",
        "TABLE": "sales",
        "TYPES": TYPES,
        "OUT": str(tmp_path / "out.sqlite"),
    }.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path / "out.sqlite"


def test_the_reference_passes_its_test(db: Path) -> None:
    shipped.load_table()
    con = sqlite3.connect(db)
    assert con.execute("SELECT * FROM sales ORDER BY rowid").fetchall() == [
        ("north", "007", 3, 2.5),
        ("south", "010", -1, 4.0),
        ("east", "5", 2, 0.1),
    ]
    con.close()
    shipped.test_csv_loaded_into_sqlite()


@pytest.mark.parametrize(
    "script",
    [
        "UPDATE sales SET code = CAST(code AS INTEGER)",  # a code's leading zeros lost
        "UPDATE sales SET units = units + 1 WHERE rowid = 1",
        "UPDATE sales SET price = price + 0.001 WHERE rowid = 3",
        "DELETE FROM sales WHERE rowid = 2",
        "UPDATE sales SET rowid = rowid + 10 WHERE rowid = 1",  # the first row last
    ],
)
def test_a_wrong_table_fails(db: Path, script: str) -> None:
    shipped.load_table()
    con = sqlite3.connect(db)
    con.execute(script)
    con.commit()
    con.close()
    with pytest.raises(AssertionError):
        shipped.test_csv_loaded_into_sqlite()


def test_a_wrong_declared_type_fails(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "TYPES", {**TYPES, "units": "REAL"})
    shipped.load_table()
    monkeypatch.setattr(shipped, "TYPES", TYPES)
    with pytest.raises(AssertionError):
        shipped.test_csv_loaded_into_sqlite()
