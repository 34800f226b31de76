"""What `sqlite-index-plan` ships: the script that applies the chosen indexes to a new copy of the database,
and the tests that read the query plans, compare schemas and results, and rebuild the indexes from the SQL
file. `copy_database` comes from `database_copy` (the operator renders both). The constants are the step's
parameters: `shipping.render` sets them."""

from __future__ import annotations

import pathlib
import sqlite3
from typing import Any

from rst_synth.proposers.procedural.operators.sqlite.shipped.database_copy import copy_database

SRC = "/app/data/shop.db"
OUT = "/app/data/shop_indexed.db"
SCRIPT = "/app/data/shop_indexes.sql"
TABLE = "products"
X = "category"
Y = "unit_cost_cents"
Z = "discontinued"
QUERIES = [
    'SELECT * FROM "products" WHERE "category" = ?',
    'SELECT * FROM "products" WHERE "category" = ? AND "unit_cost_cents" >= ? ORDER BY "unit_cost_cents"',
    'SELECT "category", "unit_cost_cents" FROM "products" WHERE "discontinued" = ?',
    'SELECT COUNT(*) FROM "products" WHERE "discontinued" = ? AND "category" = ?',
]
MAX_INDEXES = 2


def apply_indexes() -> None:
    copy_database(SRC, OUT)
    db = sqlite3.connect(OUT)
    db.executescript(pathlib.Path(SCRIPT).read_text())
    db.close()


def params(row: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    x, y, z = row
    return [(x,), (x, y), (z,), (z, x)]


def samples(path: str) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute(
        f'SELECT "{X}", "{Y}", "{Z}" FROM "{TABLE}" WHERE "{X}" IS NOT NULL AND "{Y}" IS NOT NULL '
        f'AND "{Z}" IS NOT NULL ORDER BY rowid'
    ).fetchall()
    db.close()
    return [rows[0], rows[len(rows) // 2], rows[-1]]


def results(path: str) -> list[list[Any]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = []
    for row in samples(SRC):
        for query, bound in zip(QUERIES, params(row)):  # noqa: B905  (the task's python3 may predate strict=)
            got = db.execute(query, bound).fetchall()
            out.append(got if "ORDER BY" in query else sorted(got, key=repr))
    db.close()
    return out


def bad_steps(path: str | pathlib.Path) -> list[tuple[str, str]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    found = []
    for query, bound in zip(QUERIES, params(samples(SRC)[0])):  # noqa: B905
        for detail in (r[-1] for r in db.execute("EXPLAIN QUERY PLAN " + query, bound)):
            words = detail.replace("SCAN TABLE", "SCAN").split()
            if words[:2] == ["SCAN", TABLE] or "TEMP B-TREE" in detail:
                found.append((query, detail))
    db.close()
    return found


def schema(path: str | pathlib.Path) -> tuple[set[tuple[Any, ...]], dict[str, list[Any]]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    entries = set(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    data = {t: sorted(db.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr) for t in tables}
    db.close()
    return entries, data


def test_no_query_scans_or_sorts() -> None:
    assert bad_steps(OUT) == []


def test_only_indexes_added_results_unchanged() -> None:
    old, old_data = schema(SRC)
    new, data = schema(OUT)
    added = new - old
    assert old <= new and data == old_data
    assert 1 <= len(added) <= MAX_INDEXES and all(e[0] == "index" and e[2] == TABLE for e in added), added
    assert results(OUT) == results(SRC)


def test_script_rebuilds_the_indexes(tmp_path: pathlib.Path) -> None:
    text = pathlib.Path(SCRIPT).read_text(encoding="utf-8")
    assert text.upper().count("CREATE") == text.upper().count("CREATE INDEX") >= 1
    fresh = tmp_path / "fresh.db"
    copy_database(SRC, fresh)
    db = sqlite3.connect(fresh)
    db.executescript(text)
    db.close()
    assert schema(fresh) == schema(OUT)
    assert bad_steps(fresh) == []
