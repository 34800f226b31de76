"""The migration `sqlite-migration-tool` asks for: a text column that categorises the rows of a table moves
into a lookup table, in three versions that `PRAGMA user_version` counts, and the tests that check a
migrated copy, a fresh copy, a copy at version 1, the triggers of version 3 and what the tool refuses.

`TOOL_PY` is the reference tool (the solution writes it); `CHECKS_PY` is what the tests compute with.
Both are formatted with `Names`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Names:
    """The table, its category column, and what the migration adds."""

    table: str
    column: str
    ref: str
    fk: str
    index: str
    on_insert: str
    on_update: str

    def fields(self) -> dict[str, str]:
        return {k: getattr(self, k) for k in ("table", "column", "ref", "fk", "index", "on_insert", "on_update")}


TOOL_PY = '''#!/usr/bin/env python3
import sqlite3, sys

LATEST = 3
ADD_MISSING = """INSERT INTO "{ref}" (id, name)
SELECT (SELECT COALESCE(MAX(id), 0) FROM "{ref}") + ROW_NUMBER() OVER (ORDER BY v), v FROM (
  SELECT DISTINCT "{column}" AS v FROM "{table}"
  WHERE "{column}" IS NOT NULL AND "{column}" NOT IN (SELECT name FROM "{ref}"))"""
TRIGGER_BODY = """BEGIN
  INSERT INTO "{ref}" (id, name) SELECT (SELECT COALESCE(MAX(id), 0) + 1 FROM "{ref}"), NEW."{column}"
  WHERE NEW."{column}" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "{ref}" WHERE name = NEW."{column}");
  UPDATE "{table}" SET "{fk}" = (SELECT id FROM "{ref}" WHERE name = NEW."{column}") WHERE rowid = NEW.rowid;
END"""
VERSIONS = {{
    1: ['CREATE TABLE "{ref}" (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)', ADD_MISSING],
    2: [
        'ALTER TABLE "{table}" ADD COLUMN "{fk}" INTEGER REFERENCES "{ref}"(id)',
        ADD_MISSING,
        'UPDATE "{table}" SET "{fk}" = (SELECT id FROM "{ref}" WHERE name = "{table}"."{column}")',
        'CREATE INDEX "{index}" ON "{table}" ("{fk}")',
    ],
    3: [
        'CREATE TRIGGER "{on_insert}" AFTER INSERT ON "{table}" ' + TRIGGER_BODY,
        'CREATE TRIGGER "{on_update}" AFTER UPDATE OF "{column}" ON "{table}" ' + TRIGGER_BODY,
    ],
}}


def main():
    if len(sys.argv) != 2:
        print("usage: migrate DATABASE", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1], "rb") as f:
            if f.read(16) != b"SQLite format 3\\x00":
                raise OSError("not an SQLite database")
        db = sqlite3.connect(sys.argv[1], isolation_level=None)
        version = db.execute("PRAGMA user_version").fetchone()[0]
    except (OSError, sqlite3.Error) as exc:
        print(f"cannot open {{sys.argv[1]}}: {{exc}}", file=sys.stderr)
        return 2
    if version > LATEST:
        print(f"database is at version {{version}}, newer than {{LATEST}}", file=sys.stderr)
        return 3
    for number in range(version + 1, LATEST + 1):
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in VERSIONS[number]:
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {{number}}")
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            db.execute("ROLLBACK")
            print(f"version {{number}} failed: {{exc}}", file=sys.stderr)
            return 1
        print(number)
    db.close()
    return 0


sys.exit(main())
'''

CHECKS_PY = '''
NAMES = {fields!r}
T, G, REF, FK = NAMES["table"], NAMES["column"], NAMES["ref"], NAMES["fk"]


def copy_database(src, dst):
    source, target = sqlite3.connect(f"file:{{src}}?mode=ro", uri=True), sqlite3.connect(dst)
    source.backup(target)
    source.close()
    target.close()


def run(path):
    done = subprocess.run([TOOL, str(path)], capture_output=True, timeout=60)
    return done.returncode, done.stdout.decode("utf-8", "replace").split()


def columns(db, table):
    return [c[1] for c in db.execute(f'PRAGMA table_info("{{table}}")')]


def snapshot(path):
    db = sqlite3.connect(f"file:{{path}}?mode=ro", uri=True)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    found = {{t: db.execute(f'SELECT rowid, * FROM "{{t}}" ORDER BY rowid').fetchall() for t in tables}}
    schema = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()
    version = db.execute("PRAGMA user_version").fetchone()[0]
    db.close()
    return found, schema, version


def check_migrated(path, source_path, ref=None):
    """The copy at `path` is `source_path` migrated to version 3; `ref` the lookup it started from, if any."""
    source, old_schema, _ = snapshot(source_path)
    got, schema, version = snapshot(path)
    assert version == 3
    ids = dict(ref or {{}})
    values = sorted({{row[columns_index(source_path, G) + 1] for row in source[T]}} - {{None}} - set(ids))
    for value in values:
        ids[value] = max(ids.values(), default=0) + 1
    assert {{name: id_ for _, id_, name in got[REF]}} == ids and all(r[0] == r[1] for r in got[REF])
    g = columns_index(source_path, G) + 1
    assert [row[:-1] for row in got[T]] == source[T]
    assert [row[-1] for row in got[T]] == [None if row[g] is None else ids[row[g]] for row in source[T]]
    for table, rows in source.items():
        if table != T:
            assert got[table] == rows, table
    db = sqlite3.connect(f"file:{{path}}?mode=ro", uri=True)
    assert columns(db, T)[-1] == FK
    kinds = dict(db.execute("SELECT name, type FROM sqlite_master WHERE tbl_name = ?", (T,)).fetchall())
    assert kinds.get(NAMES["index"]) == "index"
    assert kinds.get(NAMES["on_insert"]) == kinds.get(NAMES["on_update"]) == "trigger"
    indexed = [r[2] for r in db.execute(f'PRAGMA index_info("{{NAMES["index"]}}")')]
    foreign = [(r[2], r[3], r[4]) for r in db.execute(f'PRAGMA foreign_key_list("{{T}}")')]
    db.close()
    assert indexed == [FK] and (REF, FK, "id") in foreign
    added = (T, NAMES["index"], NAMES["on_insert"], NAMES["on_update"])
    assert {{s for s in schema if s[2] != REF and s[1] not in added}} == {{s for s in old_schema if s[1] != T}}


def columns_index(path, name):
    db = sqlite3.connect(f"file:{{path}}?mode=ro", uri=True)
    found = columns(db, T).index(name)
    db.close()
    return found
'''
