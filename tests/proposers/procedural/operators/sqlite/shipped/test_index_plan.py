"""The reference of sqlite-index-plan, called directly: the two composite indexes pass its tests; indexes of
one column each (the range query sorts), a third index, a changed row or a script that creates more than
indexes fail them. `copy_database` is what the step ships from `database_copy`."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.sqlite.shipped import index_plan as shipped

RIGHT = [
    'CREATE INDEX "stock_w_q_idx" ON "stock" ("warehouse_id", "quantity");',
    'CREATE INDEX "stock_p_w_idx" ON "stock" ("product_id", "warehouse_id");',
]


@pytest.fixture
def paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "shop.db"
    db = sqlite3.connect(src)
    db.execute("CREATE TABLE stock (product_id INTEGER NOT NULL, warehouse_id INTEGER NOT NULL, quantity INTEGER)")
    db.executemany(
        "INSERT INTO stock VALUES (?, ?, ?)", [(p, w, (p * 37 + w) % 50) for p in range(1, 15) for w in (1, 2, 3)]
    )
    db.commit()
    db.close()
    table, x, y, z = "stock", "warehouse_id", "quantity", "product_id"
    for name, value in {
        "SRC": str(src),
        "OUT": str(tmp_path / "indexed.db"),
        "SCRIPT": str(tmp_path / "indexes.sql"),
        "TABLE": table,
        "X": x,
        "Y": y,
        "Z": z,
        "QUERIES": [
            f'SELECT * FROM "{table}" WHERE "{x}" = ?',
            f'SELECT * FROM "{table}" WHERE "{x}" = ? AND "{y}" >= ? ORDER BY "{y}"',
            f'SELECT "{x}", "{y}" FROM "{table}" WHERE "{z}" = ?',
            f'SELECT COUNT(*) FROM "{table}" WHERE "{z}" = ? AND "{x}" = ?',
        ],
    }.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path


def solve(paths: Path, statements: list[str]) -> None:
    (paths / "indexes.sql").write_text("\n".join(statements) + "\n")
    shipped.apply_indexes()


def test_the_reference_passes_its_tests(paths: Path) -> None:
    solve(paths, RIGHT)
    (paths / "scratch").mkdir()
    shipped.test_no_query_scans_or_sorts()
    shipped.test_only_indexes_added_results_unchanged()
    shipped.test_script_rebuilds_the_indexes(paths / "scratch")
    assert shipped.bad_steps(paths / "shop.db") != []  # the original still scans


def test_single_column_indexes_sort(paths: Path) -> None:
    solve(paths, ['CREATE INDEX "a" ON "stock" ("warehouse_id");', 'CREATE INDEX "b" ON "stock" ("product_id");'])
    with pytest.raises(AssertionError):
        shipped.test_no_query_scans_or_sorts()


def test_a_third_index_or_a_changed_row_fails(paths: Path) -> None:
    solve(paths, [*RIGHT, 'CREATE INDEX "c" ON "stock" ("quantity");'])
    with pytest.raises(AssertionError):
        shipped.test_only_indexes_added_results_unchanged()
    (paths / "indexed.db").unlink()
    solve(paths, RIGHT)
    db = sqlite3.connect(paths / "indexed.db")
    db.execute("UPDATE stock SET quantity = quantity + 1 WHERE rowid = 1")
    db.commit()
    db.close()
    with pytest.raises(AssertionError):
        shipped.test_only_indexes_added_results_unchanged()


def test_a_script_that_creates_more_than_indexes_fails(paths: Path) -> None:
    solve(paths, [*RIGHT, "CREATE TABLE notes (x);"])
    (paths / "scratch").mkdir()
    with pytest.raises(AssertionError):
        shipped.test_script_rebuilds_the_indexes(paths / "scratch")
