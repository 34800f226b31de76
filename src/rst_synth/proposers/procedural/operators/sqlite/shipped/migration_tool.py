"""What `sqlite-migration-tool` ships: the migration tool (`main`: the versions above the database's
`PRAGMA user_version` applied in order, one transaction each) and the tests, which check a migrated copy, a
fresh copy, a copy at version 1, the triggers of version 3 and what the tool refuses. `copy_database` comes
from `database_copy`. The constants are the step's parameters (the table, its category column and what the
migration adds): `shipping.render` sets them."""

from __future__ import annotations

import os
import pathlib
import sqlite3
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import run_tool
from rst_synth.proposers.procedural.operators.sqlite.shipped.database_copy import copy_database

SRC = "/app/data/shop.db"
OUT = "/app/data/shop_v3.db"
TOOL = "/app/bin/shop_migrate"
TABLE = "products"
COLUMN = "category"
REF = "category_ref"
FK = "category_id"
INDEX = "products_category_id_idx"
ON_INSERT = "products_category_on_insert"
ON_UPDATE = "products_category_on_update"

LATEST = 3
ADD_MISSING = f"""INSERT INTO "{REF}" (id, name)
SELECT (SELECT COALESCE(MAX(id), 0) FROM "{REF}") + ROW_NUMBER() OVER (ORDER BY v), v FROM (
  SELECT DISTINCT "{COLUMN}" AS v FROM "{TABLE}"
  WHERE "{COLUMN}" IS NOT NULL AND "{COLUMN}" NOT IN (SELECT name FROM "{REF}"))"""
TRIGGER_BODY = f"""BEGIN
  INSERT INTO "{REF}" (id, name) SELECT (SELECT COALESCE(MAX(id), 0) + 1 FROM "{REF}"), NEW."{COLUMN}"
  WHERE NEW."{COLUMN}" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "{REF}" WHERE name = NEW."{COLUMN}");
  UPDATE "{TABLE}" SET "{FK}" = (SELECT id FROM "{REF}" WHERE name = NEW."{COLUMN}") WHERE rowid = NEW.rowid;
END"""
VERSIONS = {
    1: [f'CREATE TABLE "{REF}" (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)', ADD_MISSING],
    2: [
        f'ALTER TABLE "{TABLE}" ADD COLUMN "{FK}" INTEGER REFERENCES "{REF}"(id)',
        ADD_MISSING,
        f'UPDATE "{TABLE}" SET "{FK}" = (SELECT id FROM "{REF}" WHERE name = "{TABLE}"."{COLUMN}")',
        f'CREATE INDEX "{INDEX}" ON "{TABLE}" ("{FK}")',
    ],
    3: [
        f'CREATE TRIGGER "{ON_INSERT}" AFTER INSERT ON "{TABLE}" ' + TRIGGER_BODY,
        f'CREATE TRIGGER "{ON_UPDATE}" AFTER UPDATE OF "{COLUMN}" ON "{TABLE}" ' + TRIGGER_BODY,
    ],
}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: migrate DATABASE", file=sys.stderr)
        return 2
    try:
        with open(argv[1], "rb") as f:
            if f.read(16) != b"SQLite format 3\x00":
                raise OSError("not an SQLite database")
        db = sqlite3.connect(argv[1], isolation_level=None)
        version = db.execute("PRAGMA user_version").fetchone()[0]
    except (OSError, sqlite3.Error) as exc:
        print(f"cannot open {argv[1]}: {exc}", file=sys.stderr)
        return 2
    if version > LATEST:
        print(f"database is at version {version}, newer than {LATEST}", file=sys.stderr)
        return 3
    for number in range(version + 1, LATEST + 1):
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in VERSIONS[number]:
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {number}")
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            db.execute("ROLLBACK")
            print(f"version {number} failed: {exc}", file=sys.stderr)
            return 1
        print(number)
    db.close()
    return 0


def run(path: str | os.PathLike[str]) -> tuple[int, list[str]]:
    done = run_tool(TOOL, path, timeout=60)
    return done.returncode, done.stdout.decode("utf-8", "replace").split()


def columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [c[1] for c in db.execute(f'PRAGMA table_info("{table}")')]


def snapshot(path: str | os.PathLike[str]) -> tuple[dict[str, list[Any]], list[Any], int]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    found = {t: db.execute(f'SELECT rowid, * FROM "{t}" ORDER BY rowid').fetchall() for t in tables}
    schema = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()
    version = db.execute("PRAGMA user_version").fetchone()[0]
    db.close()
    return found, schema, version


def check_migrated(
    path: str | os.PathLike[str], source_path: str | os.PathLike[str], ref: dict[str, int] | None = None
) -> None:
    """The copy at `path` is `source_path` migrated to version 3; `ref` the lookup it started from, if any."""
    source, old_schema, _ = snapshot(source_path)
    got, schema, version = snapshot(path)
    assert version == 3
    ids = dict(ref or {})
    values = sorted({row[columns_index(source_path, COLUMN) + 1] for row in source[TABLE]} - {None} - set(ids))
    for value in values:
        ids[value] = max(ids.values(), default=0) + 1
    assert {name: id_ for _, id_, name in got[REF]} == ids and all(r[0] == r[1] for r in got[REF])
    g = columns_index(source_path, COLUMN) + 1
    assert [row[:-1] for row in got[TABLE]] == source[TABLE]
    assert [row[-1] for row in got[TABLE]] == [None if row[g] is None else ids[row[g]] for row in source[TABLE]]
    for table, rows in source.items():
        if table != TABLE:
            assert got[table] == rows, table
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    assert columns(db, TABLE)[-1] == FK
    kinds = dict(db.execute("SELECT name, type FROM sqlite_master WHERE tbl_name = ?", (TABLE,)).fetchall())
    assert kinds.get(INDEX) == "index"
    assert kinds.get(ON_INSERT) == kinds.get(ON_UPDATE) == "trigger"
    indexed = [r[2] for r in db.execute(f'PRAGMA index_info("{INDEX}")')]
    foreign = [(r[2], r[3], r[4]) for r in db.execute(f'PRAGMA foreign_key_list("{TABLE}")')]
    db.close()
    assert indexed == [FK] and (REF, FK, "id") in foreign
    added = (TABLE, INDEX, ON_INSERT, ON_UPDATE)
    assert {s for s in schema if s[2] != REF and s[1] not in added} == {s for s in old_schema if s[1] != TABLE}


def columns_index(path: str | os.PathLike[str], name: str) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    found = columns(db, TABLE).index(name)
    db.close()
    return found


def test_migrated_copy() -> None:
    check_migrated(OUT, SRC)


def test_tool_migrates_a_fresh_copy_once(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "fresh.db"
    copy_database(SRC, path)
    assert run(path) == (0, ["1", "2", "3"])
    check_migrated(path, SRC)
    before = snapshot(path)
    assert run(path) == (0, [])
    assert snapshot(path) == before


def test_tool_resumes_from_version_1(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "v1.db"
    copy_database(SRC, path)
    db = sqlite3.connect(path)
    values = sorted({r[0] for r in db.execute(f'SELECT "{COLUMN}" FROM "{TABLE}"')} - {None}, reverse=True)
    ref = {value: number for number, value in enumerate(values, 1)}
    db.execute(f'CREATE TABLE "{REF}" (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)')
    db.executemany(f'INSERT INTO "{REF}" (id, name) VALUES (?, ?)', [(i, v) for v, i in ref.items()])
    rowid = db.execute(f'SELECT MAX(rowid) FROM "{TABLE}"').fetchone()[0]
    db.execute(f'UPDATE "{TABLE}" SET "{COLUMN}" = ? WHERE rowid = ?', ("arrived after version 1", rowid))
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    source = tmp_path / "source.db"
    copy_database(path, source)
    db = sqlite3.connect(source)
    db.execute(f'DROP TABLE "{REF}"')
    db.commit()
    db.close()
    assert run(path) == (0, ["2", "3"])
    check_migrated(path, source, ref)


def test_triggers_keep_the_lookup_current(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "triggers.db"
    copy_database(OUT, path)
    db = sqlite3.connect(path)
    ref = dict(db.execute(f'SELECT name, id FROM "{REF}"'))
    top = max(ref.values())
    rowids = [r[0] for r in db.execute(f'SELECT rowid FROM "{TABLE}" ORDER BY rowid')]
    existing = sorted(ref)[0]
    db.execute(f'UPDATE "{TABLE}" SET "{COLUMN}" = ? WHERE rowid = ?', ("Zürich, new", rowids[0]))
    db.execute(f'UPDATE "{TABLE}" SET "{COLUMN}" = ? WHERE rowid = ?', (existing, rowids[-1]))
    names = columns(db, TABLE)
    row = list(db.execute(f'SELECT * FROM "{TABLE}" WHERE rowid = ?', (rowids[1],)).fetchone())
    db.execute(f'DELETE FROM "{TABLE}" WHERE rowid = ?', (rowids[1],))
    row[names.index(COLUMN)], row[names.index(FK)] = "also new", 999
    marks = ", ".join("?" for _ in names)
    again = db.execute(f'INSERT INTO "{TABLE}" VALUES ({marks})', row).lastrowid
    db.commit()

    def fk(rowid: Any) -> Any:
        return db.execute(f'SELECT "{FK}" FROM "{TABLE}" WHERE rowid = ?', (rowid,)).fetchone()[0]

    now = dict(db.execute(f'SELECT name, id FROM "{REF}"'))
    assert now == {**ref, "Zürich, new": top + 1, "also new": top + 2}
    assert (fk(rowids[0]), fk(rowids[-1]), fk(again)) == (top + 1, ref[existing], top + 2)
    try:
        db.execute(f'UPDATE "{TABLE}" SET "{COLUMN}" = NULL WHERE rowid = ?', (rowids[2],))
    except sqlite3.IntegrityError:
        return  # the column is NOT NULL
    assert fk(rowids[2]) is None and dict(db.execute(f'SELECT name, id FROM "{REF}"')) == now
    db.close()


def test_tool_refuses_what_it_cannot_migrate(tmp_path: pathlib.Path) -> None:
    newer = tmp_path / "newer.db"
    copy_database(SRC, newer)
    db = sqlite3.connect(newer)
    db.execute("PRAGMA user_version = 7")
    db.commit()
    db.close()
    before = newer.read_bytes()
    assert run(newer)[0] == 3 and newer.read_bytes() == before
    text = tmp_path / "notes.db"
    text.write_text("not a database\n")
    assert run(text)[0] == 2 and text.read_text() == "not a database\n"
    assert run(tmp_path / "missing.db")[0] == 2
