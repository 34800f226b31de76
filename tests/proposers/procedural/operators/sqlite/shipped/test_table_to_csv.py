"""The reference of sqlite-table-to-csv, called directly: its export passes its test; a row out of order,
a NULL written as text, a changed number or a missing row fails it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.sqlite.shipped import table_to_csv as shipped


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "shop.db"
    con = sqlite3.connect(src)
    con.executescript("""
        CREATE TABLE items (name TEXT, qty INTEGER, price REAL);
        INSERT INTO items VALUES ('nut', 25, 0.1), ('bolt', 10, 0.5), ('bolt', 5, NULL), ('glue', 3, 4.25);
    """)
    con.close()
    for name, value in {
        "SRC": str(src),
        "QUERY": 'SELECT "name", "qty", "price" FROM "items" ORDER BY "name", rowid',
        "COLUMNS": ["name", "qty", "price"],
        "OUT": str(tmp_path / "items.csv"),
    }.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path / "items.csv"


def test_the_reference_passes_its_test(out: Path) -> None:
    shipped.export_table()
    assert out.read_text().splitlines() == ["name,qty,price", "bolt,10,0.5", "bolt,5,", "glue,3,4.25", "nut,25,0.1"]
    shipped.test_table_exported_in_order()


@pytest.mark.parametrize(
    "lines",
    [
        ["name,qty,price", "bolt,5,", "bolt,10,0.5", "glue,3,4.25", "nut,25,0.1"],
        ["name,qty,price", "bolt,10,0.5", "bolt,5,None", "glue,3,4.25", "nut,25,0.1"],
        ["name,qty,price", "bolt,10,0.5", "bolt,5,", "glue,3,4.3", "nut,25,0.1"],
        ["name,qty,price", "bolt,10,0.5", "bolt,5,", "glue,3,4.25"],
        ["name,price,qty", "bolt,0.5,10", "bolt,,5", "glue,4.25,3", "nut,0.1,25"],
    ],
)
def test_a_wrong_export_fails(out: Path, lines: list[str]) -> None:
    out.write_text("\r\n".join(lines) + "\r\n")
    with pytest.raises(AssertionError):
        shipped.test_table_exported_in_order()
