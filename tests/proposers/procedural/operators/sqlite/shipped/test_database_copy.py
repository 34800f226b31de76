"""The shipped database copy: the same schema and rows in the new file, the source opened read-only (a
read-only source file copies, and a missing source is an error, not a new empty database)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.sqlite.shipped.database_copy import copy_database


def test_copy_holds_the_same_schema_and_rows(tmp_path: Path) -> None:
    src = tmp_path / "a.db"
    db = sqlite3.connect(src)
    db.executescript("CREATE TABLE t (k TEXT, v REAL); CREATE INDEX t_k ON t (k); INSERT INTO t VALUES ('x', 1.5);")
    db.close()
    src.chmod(0o444)
    copy_database(src, tmp_path / "b.db")
    copied = sqlite3.connect(tmp_path / "b.db")
    assert copied.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall() == [
        ("table", "t", "CREATE TABLE t (k TEXT, v REAL)"),
        ("index", "t_k", "CREATE INDEX t_k ON t (k)"),
    ]
    assert copied.execute("SELECT * FROM t").fetchall() == [("x", 1.5)]
    copied.close()


def test_a_missing_source_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(sqlite3.OperationalError):
        copy_database(tmp_path / "missing.db", tmp_path / "b.db")
    assert not (tmp_path / "missing.db").exists()
