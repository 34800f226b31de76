"""What `sqlite-table-to-csv` ships: the script that exports a table in a stated order, and the test that
runs the query again on the database. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import pathlib
import sqlite3

SRC = "/app/data/shop.db"
QUERY = 'SELECT "name", "qty" FROM "items" ORDER BY "name", rowid'
COLUMNS = ["name", "qty"]
OUT = "/app/data/items_export.csv"


def export_table() -> None:
    con = sqlite3.connect(SRC)
    cursor = con.execute(QUERY)
    with open(OUT, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow([c[0] for c in cursor.description])
        writer.writerows(["" if v is None else v for v in row] for row in cursor)
    con.close()


def test_table_exported_in_order() -> None:
    with open(OUT, newline="") as f:
        got = list(csv.reader(f))
    assert pathlib.Path(SRC).is_file()
    con = sqlite3.connect(SRC)
    want = con.execute(QUERY).fetchall()
    con.close()
    assert got[0] == COLUMNS
    assert len(got) == len(want) + 1
    for cells, row in zip(got[1:], want):  # noqa: B905  (the task's python3 may predate strict=)
        assert len(cells) == len(row), cells
        for cell, value in zip(cells, row):  # noqa: B905
            if value is None:
                assert cell == "", (cell, row)
            elif isinstance(value, (int, float)):
                assert abs(float(cell) - value) <= 1e-9 * max(1.0, abs(value)), (cell, row)
            else:
                assert cell == value, (cell, row)
