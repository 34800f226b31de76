"""What `sqlite-add-summary-table` ships: the script that writes a per-group count and total into a
database of its own, and the test that groups the source table again. The constants are the step's
parameters: `shipping.render` sets them."""

from __future__ import annotations

import pathlib
import sqlite3

SRC = "/app/data/shop.db"
TABLE = "items"
GROUP = "category"
VALUE = "qty"
SUMMARY = "items_summary"
OUT = "/app/data/shop_summary.sqlite"


def write_summary() -> None:
    source = sqlite3.connect(SRC)
    query = f'SELECT "{GROUP}", COUNT(*), SUM("{VALUE}") FROM "{TABLE}" GROUP BY "{GROUP}"'
    rows = source.execute(query).fetchall()
    source.close()
    target = sqlite3.connect(OUT)
    target.execute(f'CREATE TABLE "{SUMMARY}" (group_value TEXT, n INTEGER, total REAL)')
    target.executemany(f'INSERT INTO "{SUMMARY}" VALUES (?, ?, ?)', rows)
    target.commit()
    target.close()


def same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def test_summary_database() -> None:
    assert pathlib.Path(OUT).is_file() and pathlib.Path(SRC).is_file()
    new, old = sqlite3.connect(OUT), sqlite3.connect(SRC)
    tables = [r[0] for r in new.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
    assert tables == [SUMMARY], tables
    assert [c[1] for c in new.execute(f'PRAGMA table_info("{SUMMARY}")')] == ["group_value", "n", "total"]
    got = new.execute(f'SELECT group_value, n, total FROM "{SUMMARY}"').fetchall()
    want = {
        g: (n, t)
        for g, n, t in old.execute(  # a code's value is stored as text in a TEXT column
            f'SELECT CAST("{GROUP}" AS TEXT), COUNT(*), SUM("{VALUE}") FROM "{TABLE}" GROUP BY "{GROUP}"'
        )
    }
    assert len(got) == len(want) and len({g for g, _, _ in got}) == len(got), got
    for g, n, total in got:
        assert g in want, g
        assert n == want[g][0] and same(total, want[g][1]), (g, n, total, want[g])
    names = [r[0] for r in old.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    assert SUMMARY not in names, "the source database must stay unchanged"
    new.close()
    old.close()
