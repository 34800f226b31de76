"""What `csv-to-sqlite` ships: the script that loads a CSV into a table with declared types, and the test
that reads the table back against the file. The constants are the step's parameters: `shipping.render`
sets them."""

from __future__ import annotations

import csv
import pathlib
import sqlite3
from collections.abc import Callable

SRC = "/app/data/sales.csv"
DELIM = ","
TABLE = "sales"
TYPES = {"region": "TEXT", "units": "INTEGER", "price": "REAL"}
OUT = "/app/data/sales_db.sqlite"


def load_table() -> None:
    cast: dict[str, Callable[[str], object]] = {"INTEGER": lambda v: int(v.strip()), "REAL": float, "TEXT": str}
    with open(SRC, newline="") as f:
        reader = csv.reader(f, delimiter=DELIM)
        header = next(reader)
        rows = [[cast[TYPES[h]](v) for h, v in zip(header, r)] for r in reader if r]  # noqa: B905
    con = sqlite3.connect(OUT)
    con.execute(f'CREATE TABLE "{TABLE}" (' + ", ".join(f'"{h}" {TYPES[h]}' for h in header) + ")")
    con.executemany(f'INSERT INTO "{TABLE}" VALUES (' + ", ".join("?" for _ in header) + ")", rows)
    con.commit()
    con.close()


def test_csv_loaded_into_sqlite() -> None:
    assert pathlib.Path(OUT).is_file()
    with open(SRC, newline="") as f:
        reader = csv.reader(f, delimiter=DELIM)
        header, body = next(reader), [row for row in reader if row]
    con = sqlite3.connect(OUT)
    info = con.execute(f'PRAGMA table_info("{TABLE}")').fetchall()
    assert [(c[1], c[2].upper()) for c in info] == [(h, TYPES[h]) for h in header]
    quoted = ", ".join(f'"{h}"' for h in header)
    stored = con.execute(f'SELECT {quoted} FROM "{TABLE}" ORDER BY rowid').fetchall()
    con.close()
    assert len(stored) == len(body)
    for got, row in zip(stored, body):  # noqa: B905  (the task's python3 may predate strict=)
        for h, value, text in zip(header, got, row):  # noqa: B905
            if TYPES[h] == "TEXT":
                assert value == text, (h, value, text)
            elif TYPES[h] == "INTEGER":
                assert isinstance(value, int) and value == int(text.strip()), (h, value, text)
            else:
                assert isinstance(value, (int, float)) and abs(value - float(text)) <= 1e-9 * max(1.0, abs(value))
