"""The reference of sqlite-add-summary-table, called directly: its summary passes its test; a wrong count
or total, the NULL group lost, a second table or a changed source database fails it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.sqlite.shipped import summary_table as shipped


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "shop.db"
    con = sqlite3.connect(src)
    con.executescript("""
        CREATE TABLE items (name TEXT, category TEXT, qty INTEGER);
        INSERT INTO items VALUES ('bolt', 'hw', 10), ('nut', 'hw', 25), ('glue', 'chem', 3), ('tape', NULL, 7),
            ('saw', 'tools', NULL);
    """)
    con.close()
    for name, value in {
        "SRC": str(src),
        "TABLE": "items",
        "GROUP": "category",
        "VALUE": "qty",
        "SUMMARY": "items_summary",
        "OUT": str(tmp_path / "summary.sqlite"),
    }.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path


def test_the_reference_passes_its_test(db: Path) -> None:
    shipped.write_summary()
    con = sqlite3.connect(db / "summary.sqlite")
    got = con.execute("SELECT * FROM items_summary ORDER BY group_value").fetchall()
    con.close()
    assert got == [(None, 1, 7.0), ("chem", 1, 3.0), ("hw", 2, 35.0), ("tools", 1, None)]
    shipped.test_summary_database()


@pytest.mark.parametrize(
    ("where", "script"),
    [
        ("summary.sqlite", "UPDATE items_summary SET n = 3 WHERE group_value = 'hw'"),
        ("summary.sqlite", "UPDATE items_summary SET total = 35.01 WHERE group_value = 'hw'"),
        ("summary.sqlite", "UPDATE items_summary SET total = 0 WHERE group_value = 'tools'"),
        ("summary.sqlite", "DELETE FROM items_summary WHERE group_value IS NULL"),
        ("summary.sqlite", "CREATE TABLE extra (x)"),
        ("shop.db", "CREATE TABLE items_summary (group_value TEXT, n INTEGER, total REAL)"),
    ],
)
def test_a_wrong_summary_fails(db: Path, where: str, script: str) -> None:
    shipped.write_summary()
    con = sqlite3.connect(db / where)
    con.execute(script)
    con.commit()
    con.close()
    with pytest.raises(AssertionError):
        shipped.test_summary_database()
